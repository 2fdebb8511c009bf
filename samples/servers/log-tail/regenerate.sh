#!/usr/bin/env bash
# Regenerates the log-tail dumps: main.go (standard library only) built with Go 1.19.8 (golang-1.19; dumps/) and Go 1.23
# (golang-1.23-go from bookworm-backports; dumps/go1.23/),
# everything on 127.0.0.1, bounded (every process stops itself after 3 minutes; this script kills
# what it started on exit).
#
#   run a: 2 producer processes x 8 workers POST 2 KiB lines every 20 ms; 3 follower processes x 6
#     connections read every line. healthy dumps (debug=0/1/2); then one follower process is stopped
#     (SIGSTOP): its 6 connections stop reading, the pumps' writes fill their sockets, then their
#     outboxes, and the broker blocks delivering to one of them; every producer's request then waits
#     to put its line in the inbox: stalled dumps (debug=0/1/2), and the server is dumped by SIGQUIT.
#   run b: the same load, every follower reading: SIGQUIT of the server.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# ./regenerate.sh [GO]: with another Go (/usr/lib/go-1.23/bin/go), the dumps go to dumps/go<version>/.
source "$HERE/../lib/common.sh"
choose_go "${1:-}"
(cd "$HERE" && GO111MODULE=off "$GO" build -o "$WORK/log-tail" main.go)

DBG=http://127.0.0.1:7610
stat() { curl -sf "$DBG/stats" | awk -v k="$1" '{for (i = 1; i < NF; i++) if ($i == k) print $(i + 1)}'; }
wait_followers() { for _ in $(seq 1 100); do [ "$(stat followers)" = "$1" ] && return 0; sleep 0.2; done; echo "no $1 followers" >&2; exit 1; }
# stalled: nothing delivered for 2 s
wait_stalled() {
	local last now
	last=$(stat delivered)
	for _ in $(seq 1 60); do
		sleep 2
		now=$(stat delivered)
		[ "$now" = "$last" ] && return 0
		last=$now
	done
	echo "the broker did not stall" >&2; exit 1
}

start() { # start RUN: a server, 3 followers of 6 connections, 2 producers of 8 workers
	"$WORK/log-tail" server -for 3m 2>"$WORK/server-$1.log" &
	SERVER=$!; PIDS+=("$SERVER")
	wait_http "$DBG/stats"
	FOLLOWERS=()
	for _ in 0 1 2; do
		"$WORK/log-tail" follow -conns 6 -for 3m 2>>"$WORK/follow-$1.log" &
		FOLLOWERS+=($!); PIDS+=($!)
	done
	wait_followers 18
	for _ in 0 1; do
		"$WORK/log-tail" produce -workers 8 -size 2048 -for 3m 2>>"$WORK/produce-$1.log" & PIDS+=($!)
	done
	sleep 3
}

# Run a
start a
dump "$DBG" 1 "$OUT/healthy.debug1.txt"
dump "$DBG" 0 "$OUT/healthy.debug0.pb.gz"
dump "$DBG" 2 "$OUT/healthy.debug2.txt.gz"
kill -STOP "${FOLLOWERS[0]}"
wait_stalled
dump "$DBG" 1 "$OUT/stalled.debug1.txt"
dump "$DBG" 0 "$OUT/stalled.debug0.pb.gz"
dump "$DBG" 2 "$OUT/stalled.debug2.txt.gz"
sigdump "$SERVER" QUIT "$WORK/server-a.log" "$OUT/stalled.sigquit.txt.gz"
kill -CONT "${FOLLOWERS[0]}"
for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
PIDS=()
sleep 1

# Run b
start b
sigdump "$SERVER" QUIT "$WORK/server-b.log" "$OUT/healthy.sigquit.txt.gz"
ls -la "$OUT"
