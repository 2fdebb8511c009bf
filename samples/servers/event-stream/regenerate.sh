#!/usr/bin/env bash
# Regenerates the event-stream dumps: main.go (standard library only) built with Go 1.19.8
# (golang-1.19; dumps/) and Go 1.23 (golang-1.23-go from bookworm-backports; dumps/go1.23/),
# everything on 127.0.0.1, bounded (every process stops itself after 3 minutes; this script kills
# what it started on exit).
#
#   run a: the feed server (per-connection send buffer 16 KiB), 2 subscriber processes x 4
#     connections (receive buffer 16 KiB) and 6 publishers posting 4 KiB events: healthy dumps
#     (debug=0/1/2). Then one subscriber process is stopped (SIGSTOP): its 4 connections stop reading
#     without hanging up, their handlers block in Flush, their queues fill, the broker waits on one of
#     them in its delivery select, and the 6 publishers wait in theirs to hand it an event: stalled
#     dumps 3 s later (debug=0/1/2), and 65 s later, when the waits print `1 minutes` (stalled-1m
#     debug=0/1/2, then SIGQUIT of the server).
#   run b: a fresh server under the same load, every subscriber reading: SIGQUIT.
#
# The script fails unless the stalled-1m debug=2 and SIGQUIT dumps hold the broker parked in select
# at its delivery line, 6 publishers parked in select at their hand-over line and 4 handlers in IO
# wait at the Flush line, all `1 minutes`, and /stats stopped counting.
#
# ./regenerate.sh [GO]: with another Go (/usr/lib/go-1.23/bin/go), the dumps go to dumps/go<version>/.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../lib/common.sh"
choose_go "${1:-}"
(cd "$HERE" && GO111MODULE=off "$GO" build -o "$WORK/event-stream" main.go)

SRV=127.0.0.1:7741 DBG=http://127.0.0.1:7740
line() { local n; n=$(grep -nE "^[[:space:]]+$1\$" "$HERE/main.go" | cut -d: -f1); [ -n "$n" ] || { echo "no '$1' in main.go" >&2; exit 1; }; echo "$n"; }
DELIVER=$(($(line 'case s\.queue <- e:') - 1)) PUBLISH=$(($(line 'case b\.publish <- e:') - 1)) FLUSH=$(line 'flusher\.Flush\(\)')
stat() { curl -sf "$DBG/stats" | awk -v k="$1" '{for (i = 1; i < NF; i++) if ($i == k) print $(i + 1)}'; }
fail() { echo "FAIL: $*" >&2; exit 1; }

# at FILE FUNC LINE STATE: goroutines of a gzipped debug=2 or signal dump in STATE whose frame FUNC is at main.go:LINE
at() {
	zcat "$1" | awk -v RS= -v fn="$2(" -v at="event-stream/main.go:$3 " -v st="$4" '
		{ split($0, l, "\n"); s = l[1]; sub(/^[^[]*\[/, "", s); sub(/\]:$/, "", s) }
		s == st { for (i = 2; i < length(l); i++) if (index(l[i], fn) == 1 && index(l[i + 1] " ", at)) { n++; break } }
		END { print n + 0 }'
}
check() { # check FILE: the broker, 6 publishers and 4 handlers, parked a minute
	local r p w
	r=$(at "$1" 'main.(*broker).run' "$DELIVER" 'select, 1 minutes')
	p=$(at "$1" 'main.(*broker).publishEvent' "$PUBLISH" 'select, 1 minutes')
	w=$(at "$1" 'main.(*broker).events' "$FLUSH" 'IO wait, 1 minutes')
	[ "$r" = 1 ] && [ "$p" = 6 ] && [ "$w" = 4 ] || fail "$1: broker $r at main.go:$DELIVER, publishers $p at main.go:$PUBLISH, writers $w at main.go:$FLUSH (want 1, 6, 4, each 1 minutes)"
	echo "$(basename "$1"): broker at main.go:$DELIVER, $p publishers at main.go:$PUBLISH, $w writers at main.go:$FLUSH"
}

start() { # start RUN: the server, 2 subscriber processes (SUB1 is the first), 6 publishers
	"$WORK/event-stream" server -addr $SRV -debug 127.0.0.1:7740 -sndbuf 16384 -for 3m 2>"$WORK/server-$1.log" &
	SERVER=$!; PIDS+=("$SERVER")
	wait_http "$DBG/stats"
	"$WORK/event-stream" subscribe -addr $SRV -conns 4 -rcvbuf 16384 -for 3m 2>>"$WORK/sub-$1.log" & SUB1=$!; PIDS+=("$SUB1")
	"$WORK/event-stream" subscribe -addr $SRV -conns 4 -rcvbuf 16384 -for 3m 2>>"$WORK/sub-$1.log" & PIDS+=($!)
	sleep 0.5
	"$WORK/event-stream" publish -addr $SRV -workers 6 -for 3m 2>>"$WORK/pub-$1.log" & PIDS+=($!)
	sleep 3
	[ "$(stat delivered)" -gt 0 ] || fail "nothing delivered"
}

# Run a
start a
dump "$DBG" 1 "$OUT/healthy.debug1.txt"
dump "$DBG" 0 "$OUT/healthy.debug0.pb.gz"
dump "$DBG" 2 "$OUT/healthy.debug2.txt.gz"
kill -STOP "$SUB1"
sleep 3
dump "$DBG" 1 "$OUT/stalled.debug1.txt"
dump "$DBG" 0 "$OUT/stalled.debug0.pb.gz"
dump "$DBG" 2 "$OUT/stalled.debug2.txt.gz"
s1=$(stat published)
sleep 65
[ "$(stat published)" = "$s1" ] || fail "the broker still takes events ($s1 -> $(stat published))"
dump "$DBG" 1 "$OUT/stalled-1m.debug1.txt"
dump "$DBG" 0 "$OUT/stalled-1m.debug0.pb.gz"
dump "$DBG" 2 "$OUT/stalled-1m.debug2.txt.gz"
check "$OUT/stalled-1m.debug2.txt.gz"
stats=$(curl -sf "$DBG/stats")
sigdump "$SERVER" QUIT "$WORK/server-a.log" "$OUT/stalled-1m.sigquit.txt.gz"
check "$OUT/stalled-1m.sigquit.txt.gz"
echo "stalled: $stats"
for p in "${PIDS[@]}"; do kill -CONT "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done
PIDS=()
sleep 1

# Run b
start b
sigdump "$SERVER" QUIT "$WORK/server-b.log" "$OUT/healthy.sigquit.txt.gz"
ls -la "$OUT"
