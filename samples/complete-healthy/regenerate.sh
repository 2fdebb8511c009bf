#!/usr/bin/env bash
# Rebuilds the SIGQUIT dumps of samples/complete-healthy: healthy programs whose complete dumps once
# drew false warnings. Each runs, is left alone for its settle time, then gets SIGQUIT; stderr from
# `SIGQUIT: quit` on is the dump. Usage: samples/complete-healthy/regenerate.sh [case ...]  (~6 minutes: the
# idle pool must sit several minutes for its workers' waits to be printed).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export GO111MODULE=off GOTOOLCHAIN=local
unset GOTRACEBACK GODEBUG GOMAXPROCS GOFLAGS || true
declare -A GOBIN=([go1.19]=/usr/bin/go [go1.23]=/usr/lib/go-1.23/bin/go)
# case                  settle seconds
TABLE='
idle-pool-constructor   330
watch-stream-clients    5
'
run() {
  local name=$1 settle=$2 go=$3 bin
  bin="$(mktemp -d)/prog"
  (cd "$HERE/$name" && "${GOBIN[$go]}" build -trimpath -o "$bin" main.go)
  mkdir -p "$HERE/$name/$go"
  "$bin" 2> "$bin.err" & local pid=$!
  sleep "$settle"
  kill -QUIT "$pid"; wait "$pid" || true
  sed -n '/^SIGQUIT: quit/,$p' "$bin.err" > "$HERE/$name/$go/sigquit.txt"
  grep -q '^goroutine ' "$HERE/$name/$go/sigquit.txt"
}
while read -r name settle; do
  [ -n "$name" ] || continue
  [ $# -eq 0 ] || [[ " $* " == *" $name "* ]] || continue
  for go in go1.19 go1.23; do run "$name" "$settle" "$go" & done
done <<< "$TABLE"
wait
echo "complete-healthy: dumps regenerated"
