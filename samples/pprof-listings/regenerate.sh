#!/usr/bin/env bash
# Writes the text listings `go tool pprof` prints for the samples' debug=0 goroutine profiles, with
# three toolchains (their headers differ: Go 1.19/1.23 print `Time: Nov 30, 2026 at 6:59am (UTC)`,
# Go 1.26 `Time: 2026-11-30 06:59:21 UTC`). Usage: samples/pprof-listings/regenerate.sh
# The listings are what people paste into an issue instead of the profile; leakscope reads them
# (src/read/listing/). Files under hand-edited/ are NOT written here: they are these listings as
# people paste them (re-spaced, cut, header lost), edited by hand and named so.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SAMPLES="$(dirname "$HERE")"
export GOFLAGS=-mod=mod GOPROXY=off GOSUMDB=off GOTOOLCHAIN=local GOWORK=off
# pprof must not try to symbolize (the profiles are symbolized) nor open a browser.
export PPROF_TMPDIR="$(mktemp -d)" PPROF_BINARY_PATH=/nonexistent
trap 'rm -rf "$PPROF_TMPDIR"' EXIT

# toolchain label → go binary
declare -A GO=(
	[go1.19]="$(command -v go)"
	[go1.23]=/usr/lib/go-1.23/bin/go
	[go1.26]=/usr/lib/go-1.26/bin/go
)
# Leaking and healthy programs: every format with every toolchain.
FULL=(apiproxy-leak healthy-server)
# More leaks and healthy ones: every format with Go 1.19 only.
MORE=(waitgroup-leak lock-pileup apiproxy-fixed busy-client blocked-receive)

# listing NAME pprof-flags...: the file name of one listing and the flags that make it.
LISTINGS=(
	"top:-top"
	"top-cum:-top -cum"
	"top-lines:-top -lines"
	"traces:-traces"
	"traces-lines:-traces -lines"
	"raw:-raw"
	"tree:-tree"
	"peek:-peek=."
)

write() { # write SAMPLE LABEL [PROFILE]
	local s="$1" v="$2" go="${GO[$2]}" out="$HERE/$(basename "$1")/$2" profile="${3:-$SAMPLES/$1/goroutine.debug0.pb.gz}"
	mkdir -p "$out"
	for l in "${LISTINGS[@]}"; do
		local name="${l%%:*}" flags="${l#*:}"
		# shellcheck disable=SC2086
		"$go" tool pprof -symbolize=none $flags "$profile" >"$out/$name.txt" 2>/dev/null
		[[ -s "$out/$name.txt" ]] || { echo "empty listing: $out/$name.txt" >&2; exit 1; }
	done
	"$go" version >"$out/VERSION"
}

for s in "${FULL[@]}"; do
	for v in go1.19 go1.23 go1.26; do write "$s" "$v"; done
done
for s in "${MORE[@]}"; do write "$s" go1.19; done
# A goroutineleak profile (Type: goroutineleak): every leaked goroutine is proven, whatever the listing shows.
write leakprofile/fetch-fanout go1.26 "$SAMPLES/leakprofile/fetch-fanout/goroutineleak.debug0.pb.gz"
# -top cut to its first 10 rows (what interactive `top` shows): gopark and user functions only.
/usr/lib/go-1.26/bin/go tool pprof -symbolize=none -top -nodecount=10 "$SAMPLES/apiproxy-leak/goroutine.debug0.pb.gz" >"$HERE/apiproxy-leak/go1.26/top-nodecount10.txt" 2>/dev/null
# -peek of one function, as people run it: only that function's callers and callees are listed.
go tool pprof -symbolize=none -peek 'returnErr' "$SAMPLES/apiproxy-leak/goroutine.debug0.pb.gz" >"$HERE/apiproxy-leak/go1.19/peek-returnErr.txt" 2>/dev/null
echo "wrote listings under $HERE" >&2
