#!/usr/bin/env bash
# Rebuilds the dumps of samples/planted: for each case, a copy of a Debian golang-*-dev package's
# source (/usr/share/gocode/src/<tree>) in a fresh GOPATH, the case's bug.patch applied (if any), its driver
# files (*.go beside case.json) copied into <tree>/<driver.dir>, then `go test -run '^TEST$'
# -timeout D` in GOPATH mode with Go 1.19, offline; stdout+stderr as printed go to
# CASE/go1.19/test-timeout.txt. The dump must show the case's `stuck` function, else the script fails.
# Usage: samples/planted/regenerate.sh [case ...]     (needs the packages named in each case.json)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
unset GOTRACEBACK GODEBUG GOMAXPROCS GOFLAGS || true
export GO111MODULE=off GOPROXY=off GOTOOLCHAIN=local
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/leakscope-planted"
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=($(cd "$HERE" && ls -d */ | tr -d /))
fail=0
for c in "${cases[@]}"; do
	conf="$HERE/$c/case.json"
	field() { node -e "const c=require(process.argv[1]);const v=process.argv[2].split('.').reduce((o,k)=>o[k],c);console.log(Array.isArray(v)?v.join(' '):v)" "$conf" "$1"; }
	tree="$(field tree)"; dir="$(field driver.dir)"; test="$(field driver.test)"; timeout="$(field driver.timeout)"; stuck="$(field stuck)"
	gp="$(mktemp -d /tmp/planted.XXXXXX)"
	mkdir -p "$gp/src/$(dirname "$tree")"
	cp -r "/usr/share/gocode/src/$tree" "$gp/src/$tree"
	chmod -R u+w "$gp/src"
	# A case without bug.patch is a real bug of the Debian version as shipped.
	[ ! -f "$HERE/$c/bug.patch" ] || patch -s -p1 -d "$gp/src/$tree" < "$HERE/$c/bug.patch"
	cp "$HERE/$c"/*.go "$gp/src/$tree/$dir/"
	mkdir -p "$HERE/$c/go1.19"
	out="$HERE/$c/go1.19/test-timeout.txt"
	(cd "$gp/src/$tree/$dir" && GOPATH="$gp:/usr/share/gocode" GOCACHE="$CACHE" go test -count=1 -run "^$test\$" -timeout "$timeout" . > "$out" 2>&1) || true
	if grep -q "panic: test timed out" "$out" && grep -q "$stuck" "$out"; then
		printf '== %s: %s (%s bytes)\n' "$c" "$out" "$(wc -c < "$out")"
	else
		printf '!! %s: no test timeout with %s in %s\n' "$c" "$stuck" "$out" >&2; fail=1
	fi
	rm -rf "$gp"
done
exit $fail
