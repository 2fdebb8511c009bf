#!/usr/bin/env bash
# Regenerates the report-api dumps: main.go (standard library only) built with Go 1.19.8
# (golang-1.19; dumps/) and Go 1.23 (golang-1.23-go from bookworm-backports; dumps/go1.23/),
# everything on 127.0.0.1, bounded (every process stops itself after 3 minutes; this script kills
# what it started on exit).
#
#   run a: the API as written (sql.Open in every request, never closed) and 6 client workers making
#     2 requests each: leaking-12 (debug=2); 8 more each: leaking-60 dumps (debug=0/1/2); then 100
#     more each: leaking-660 dumps (debug=0/1/2), and SIGQUIT of the server.
#   run b: the API with -shared (the database opened once) under the same workers for 4 s, without
#     a request limit: healthy dumps (debug=0/1/2), then SIGQUIT.
#
# The script fails unless the leaking dumps hold one database/sql.(*DB).connectionOpener goroutine
# per request served (12, 60, 660) and the healthy ones exactly one.
#
# ./regenerate.sh [GO]: with another Go (/usr/lib/go-1.23/bin/go), the dumps go to dumps/go<version>/.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../lib/common.sh"
choose_go "${1:-}"
(cd "$HERE" && GO111MODULE=off "$GO" build -o "$WORK/report-api" main.go)

SRV=127.0.0.1:7751 DBG=http://127.0.0.1:7750
stat() { curl -sf "$DBG/stats" | awk -v k="$1" '{for (i = 1; i < NF; i++) if ($i == k) print $(i + 1)}'; }
fail() { echo "FAIL: $*" >&2; exit 1; }
# openers FILE: connectionOpener goroutines of a dump (a debug=1 record counts its goroutines)
openers() {
	case "$1" in
	*.debug1.txt) awk '/^[0-9]+ @/ {n = $1} /database\/sql\.\(\*DB\)\.connectionOpener\+/ {t += n} END {print t + 0}' "$1" ;;
	*) zcat "$1" | grep -c '^database/sql\.(\*DB)\.connectionOpener(' || true ;;
	esac
}
check() { # check FILE WANT
	local n
	n=$(openers "$1")
	[ "$n" = "$2" ] || fail "$1: $n connectionOpener goroutines, not $2"
	echo "$(basename "$1"): $n connectionOpener goroutines"
}

start() { # start RUN [FLAGS]: the server
	"$WORK/report-api" server -addr $SRV -debug 127.0.0.1:7750 -for 3m "${@:2}" 2>"$WORK/server-$1.log" &
	SERVER=$!; PIDS+=("$SERVER")
	wait_http "$DBG/stats"
}

# Run a
start a
"$WORK/report-api" client -addr $SRV -workers 6 -n 2 -for 1m
[ "$(stat served)" = 12 ] || fail "served $(stat served), not 12"
dump "$DBG" 2 "$OUT/leaking-12.debug2.txt.gz"
check "$OUT/leaking-12.debug2.txt.gz" 12
"$WORK/report-api" client -addr $SRV -workers 6 -n 8 -for 1m
[ "$(stat served)" = 60 ] || fail "served $(stat served), not 60"
dump "$DBG" 1 "$OUT/leaking-60.debug1.txt"
dump "$DBG" 0 "$OUT/leaking-60.debug0.pb.gz"
dump "$DBG" 2 "$OUT/leaking-60.debug2.txt.gz"
check "$OUT/leaking-60.debug1.txt" 60
check "$OUT/leaking-60.debug2.txt.gz" 60
"$WORK/report-api" client -addr $SRV -workers 6 -n 100 -for 1m
[ "$(stat served)" = 660 ] || fail "served $(stat served), not 660"
dump "$DBG" 1 "$OUT/leaking-660.debug1.txt"
dump "$DBG" 0 "$OUT/leaking-660.debug0.pb.gz"
dump "$DBG" 2 "$OUT/leaking-660.debug2.txt.gz"
check "$OUT/leaking-660.debug1.txt" 660
check "$OUT/leaking-660.debug2.txt.gz" 660
sigdump "$SERVER" QUIT "$WORK/server-a.log" "$OUT/leaking-660.sigquit.txt.gz"
check "$OUT/leaking-660.sigquit.txt.gz" 660
for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
PIDS=()
sleep 1

# Run b
start b -shared
"$WORK/report-api" client -addr $SRV -workers 6 -for 4s & LOAD=$!; PIDS+=("$LOAD")
sleep 2
dump "$DBG" 1 "$OUT/healthy.debug1.txt"
dump "$DBG" 0 "$OUT/healthy.debug0.pb.gz"
dump "$DBG" 2 "$OUT/healthy.debug2.txt.gz"
check "$OUT/healthy.debug1.txt" 1
check "$OUT/healthy.debug2.txt.gz" 1
[ "$(stat served)" -gt 0 ] || fail "the shared API served nothing"
sigdump "$SERVER" QUIT "$WORK/server-b.log" "$OUT/healthy.sigquit.txt.gz"
check "$OUT/healthy.sigquit.txt.gz" 1
wait "$LOAD" || true
ls -la "$OUT"
