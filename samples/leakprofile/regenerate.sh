#!/usr/bin/env bash
# Rebuilds the goroutineleak profile samples with Go 1.26 (GOEXPERIMENT=goroutineleakprofile,
# -trimpath, offline) and fetches every profile from the program's own net/http/pprof endpoint,
# exactly as a user would with curl:
#   goroutineleak.debug0.pb.gz  /debug/pprof/goroutineleak?debug=0   (pprof protobuf, goroutineleak/count)
#   goroutineleak.debug1.txt    /debug/pprof/goroutineleak?debug=1   (`goroutineleak profile: total N`)
#   goroutineleak.debug2.txt    /debug/pprof/goroutineleak?debug=2   (every goroutine, leaked ones `(leaked)`)
#   goroutine.debug2.txt        /debug/pprof/goroutine?debug=2       (the same process, fetched first:
#                               no leak-detecting GC has run yet, so no `(leaked)` marks)
#   goroutine.after-leak-gc.debug2.txt  the same, fetched after the leak profile: the runtime keeps the
#                               marks, so even the plain goroutine profile now says `(leaked)`
#   series/leak-{1..5}.debug{0,1}     goroutineleak profiles a second apart, after 20, 30, … 60 lookups
# Usage: samples/leakprofile/regenerate.sh
#
# Go 1.26 is not Debian bookworm's Go. To install it beside Debian's own (nothing else is upgraded):
#   echo 'deb http://deb.debian.org/debian sid main' >/etc/apt/sources.list.d/sid.list
#   printf 'Package: *\nPin: release n=sid\nPin-Priority: 40\n' >/etc/apt/preferences.d/sid
#   apt-get update && apt-get install -y -t sid golang-1.26-go golang-1.26-src
# (Go 1.24 the same way from trixie, Pin-Priority 50: golang-1.24-go.)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
GO=/usr/lib/go-1.26/bin/go
if [[ ! -x "$GO" ]]; then
	echo "== skipping samples/leakprofile: $GO is not installed (Go 1.26, see the comment at the top of this script)" >&2
	exit 0
fi
export GOFLAGS='-mod=mod -trimpath' GOPROXY=off GOSUMDB=off GOTOOLCHAIN=local GOWORK=off GOEXPERIMENT=goroutineleakprofile
unset GOTRACEBACK GODEBUG GOMAXPROCS || true
WORK="$(mktemp -d)"
PID=
cleanup() { [[ -n "$PID" ]] && kill "$PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
log() { printf '== %s\n' "$*" >&2; }

C="$HERE/fetch-fanout"
(cd "$C" && "$GO" vet ./... && "$GO" build -o "$WORK/fetchgw" .)
"$WORK/fetchgw" >"$WORK/ready" 2>"$WORK/stderr" &
PID=$!
for _ in $(seq 100); do grep -q READY "$WORK/ready" && break; sleep 0.1; done
grep -q READY "$WORK/ready" || { cat "$WORK/stderr" >&2; echo "fetch-fanout: never READY" >&2; exit 1; }
ADDR="$(awk '/READY/ {print $2}' "$WORK/ready")"
get() { curl -fsS --max-time 20 -o "$C/$2" "http://$ADDR$1"; }

rm -rf "$C/series" && mkdir -p "$C/series"
get '/debug/pprof/goroutine?debug=2' goroutine.debug2.txt
get '/debug/pprof/goroutineleak?debug=0' goroutineleak.debug0.pb.gz
get '/debug/pprof/goroutineleak?debug=1' goroutineleak.debug1.txt
get '/debug/pprof/goroutineleak?debug=2' goroutineleak.debug2.txt
get '/debug/pprof/goroutine?debug=2' goroutine.after-leak-gc.debug2.txt
# The series: 5 snapshots a second apart, 10 more lookups before each but the first (debug=0 carries
# its time; debug=1 does not, and a checkout does not keep file times).
for i in 1 2 3 4 5; do
	if ((i > 1)); then sleep 1; curl -fsS --max-time 20 "http://$ADDR/more?n=10" >/dev/null; fi
	get '/debug/pprof/goroutineleak?debug=0' "series/leak-$i.debug0.pb.gz"
	get '/debug/pprof/goroutineleak?debug=1' "series/leak-$i.debug1.txt"
done

# What the runtime proved: per lookup, 3 senders (gateway.go:48) and 1 closer (gateway.go:52).
expect() { grep -q "$2" "$C/$1" || { echo "fetch-fanout/$1: no '$2'" >&2; exit 1; }; }
expect goroutineleak.debug1.txt '^goroutineleak profile: total 80$'
expect series/leak-1.debug1.txt '^goroutineleak profile: total 80$'
expect series/leak-5.debug1.txt '^goroutineleak profile: total 240$'
n=$(grep -c '^goroutine [0-9]* \[chan send (leaked)\]:$' "$C/goroutineleak.debug2.txt")
[[ "$n" == 60 ]] || { echo "fetch-fanout/goroutineleak.debug2.txt: $n leaked senders, want 60" >&2; exit 1; }
n=$(grep -c '^goroutine [0-9]* \[sync.WaitGroup.Wait (leaked)\]:$' "$C/goroutineleak.debug2.txt")
[[ "$n" == 20 ]] || { echo "fetch-fanout/goroutineleak.debug2.txt: $n leaked closers, want 20" >&2; exit 1; }
n=$(grep -c '(leaked)' "$C/goroutine.debug2.txt" || true)
[[ "$n" == 0 ]] || { echo "fetch-fanout/goroutine.debug2.txt: $n (leaked) marks before any leak-detecting GC" >&2; exit 1; }
n=$(grep -c '(leaked)\]:$' "$C/goroutine.after-leak-gc.debug2.txt" || true)
[[ "$n" == 80 ]] || { echo "fetch-fanout/goroutine.after-leak-gc.debug2.txt: $n (leaked) marks, want 80" >&2; exit 1; }
log "fetch-fanout: $(ls "$C"/*.txt "$C"/*.gz "$C"/series/* | wc -l) files"
