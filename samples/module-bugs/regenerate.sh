#!/usr/bin/env bash
# Rebuilds the dumps of samples/module-bugs: each case is a test added to (and, where a *.patch is
# beside it, a bug patched into) a copy of a real project's package as Debian ships it under
# /usr/share/gocode/src, built offline in GOPATH mode, so that every frame carries the project's own
# import path (github.com/hashicorp/raft, …): the program IS the well-known module.
# Usage: samples/module-bugs/regenerate.sh [case…]   (only the cases named; none: all of them)
#        Go 1.19 = `go`, Go 1.23 = /usr/lib/go-1.23/bin/go
#
# Per case and toolchain: go1.X/test-timeout.txt, `go test -count=1 -run '^TEST$' -timeout 3s`, stdout
# and stderr as printed. The package copy lives under a fixed path (/tmp/leakscope-module-bugs) so
# that the file paths in the dumps do not change between runs. VERSIONS lists the Debian packages used.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK=/tmp/leakscope-module-bugs
declare -A GOBIN=([go1.19]=/usr/bin/go [go1.23]=/usr/lib/go-1.23/bin/go)
unset GOTRACEBACK GODEBUG GOMAXPROCS GOFLAGS || true
export GO111MODULE=off GOPATH="$WORK/gopath:/usr/share/gocode" GOTOOLCHAIN=local

# case                  | package (under /usr/share/gocode/src)  | test
TABLE='
lru-evict-reenter       github.com/hashicorp/golang-lru          TestEvictCallbackConsultsCache
raft-observer-send      github.com/hashicorp/raft                TestBlockingObserverWedgesDeregister
memberlist-ack-timer    github.com/hashicorp/memberlist          TestIndirectPingRetryReusesSeqNo
groupcache-getter-stall github.com/golang/groupcache             TestGetterBehindStoppedFetcher
'
for c in "$@"; do
  awk -v c="$c" '$1 == c { found = 1 } END { exit !found }' <<< "$TABLE" || { echo "module-bugs: no case $c" >&2; exit 2; }
done

while read -r name pkg test; do
  [ -n "$name" ] || continue
  if [ $# -gt 0 ]; then
    want=; for c in "$@"; do [ "$c" = "$name" ] && want=1; done
    [ -n "$want" ] || continue
  fi
  dst="$WORK/gopath/src/$pkg"
  rm -rf "$dst" && mkdir -p "$(dirname "$dst")"
  cp -r "/usr/share/gocode/src/$pkg" "$dst"
  chmod -R u+w "$dst"
  # The project's own tests need packages Debian may not ship: only ours is compiled.
  find "$dst" -name '*_test.go' -delete
  for p in "$HERE/$name"/*.patch; do [ -e "$p" ] && patch -s -d "$WORK/gopath/src" -p1 < "$p"; done
  cp "$HERE/$name"/*_test.go "$dst/"
  for go in go1.19 go1.23; do
    mkdir -p "$HERE/$name/$go"
    # The hang is the point: go test exits 1.
    (cd "$dst" && "${GOBIN[$go]}" test -count=1 -run "^${test}\$" -timeout 3s . > "$HERE/$name/$go/test-timeout.txt" 2>&1) || true
    grep -q '^panic: test timed out' "$HERE/$name/$go/test-timeout.txt" || { echo "$name/$go: no test timeout" >&2; exit 1; }
  done
done <<< "$TABLE"

dpkg-query -W -f '${Package} ${Version}\n' golang-github-hashicorp-golang-lru-dev golang-github-hashicorp-raft-dev \
  golang-github-hashicorp-memberlist-dev golang-github-golang-groupcache-dev golang-go > "$HERE/VERSIONS"
echo "module-bugs: dumps regenerated; now run node samples/excerpts/cut.mjs"
