#!/usr/bin/env bash
# Regenerates the chat-hub dumps: main.go on Debian's gorilla/websocket 1.5.0
# (golang-github-gorilla-websocket-dev 1.5.0-2) built in GOPATH mode with Go 1.19.8 (golang-1.19; dumps/) and Go 1.23 (golang-1.23-go from bookworm-backports; dumps/go1.23/),
# everything on 127.0.0.1, bounded (the server and the clients stop themselves after 3 minutes; this
# script kills what it started on exit).
#
#   run a: 4 client processes x 10 connections = 40 members, each sending 8 KiB twice a second, every
#     member reading all it is sent. healthy dumps (debug=0/1/2); then one client process is stopped
#     (SIGSTOP): its 10 connections stop reading, the server's writes to them fill their sockets, then
#     their queues, and the room's loop blocks on one of them: stalled dumps (debug=0/1/2). A fifth
#     client process then opens 5 connections, whose handlers wait to join the room: joining dumps
#     (debug=1/2), and the server is dumped by SIGQUIT.
#   run b: the same 40 members, all reading: SIGQUIT of the server.
#   run c: 2 client processes x 5 connections that send but never read (-read=false): every writer
#     blocks, then the room's loop, then every reader: all-stalled dumps (debug=2), and SIGQUIT.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# ./regenerate.sh [GO]: with another Go (/usr/lib/go-1.23/bin/go), the dumps go to dumps/go<version>/.
source "$HERE/../lib/common.sh"
choose_go "${1:-}"
(cd "$HERE" && GO111MODULE=off GOPATH="$WORK/gp:/usr/share/gocode" "$GO" build -o "$WORK/chat-hub" main.go)

SRV=127.0.0.1:7601 DBG=http://127.0.0.1:7600
members() { curl -sf "$DBG/stats" | awk '{print $2}'; }
wait_members() { for _ in $(seq 1 100); do [ "$(members)" = "$1" ] && return 0; sleep 0.2; done; echo "no $1 members" >&2; exit 1; }
# stalled: at least MIN readers parked handing a message to the room (main.go:80), in two dumps a
# second apart (a room that is only slow for a moment parks a few of them now and then)
readers_parked() { curl -sf "$DBG/debug/pprof/goroutine?debug=2" | grep -c 'chat-hub/main.go:80 ' || true; }
wait_stalled() {
	local min=$1 last=0 now
	for _ in $(seq 1 90); do
		sleep 1
		now=$(readers_parked)
		[ "$now" -ge "$min" ] && [ "$last" -ge "$min" ] && return 0
		last=$now
	done
	echo "the room did not stall" >&2; exit 1
}

start() { # start RUN: a server and 4 clients of 10 connections
	"$WORK/chat-hub" server -addr $SRV -debug 127.0.0.1:7600 -for 3m 2>"$WORK/server-$1.log" &
	SERVER=$!; PIDS+=("$SERVER")
	wait_http "$DBG/stats"
	CLIENTS=()
	for _ in 0 1 2 3; do
		"$WORK/chat-hub" client -addr $SRV -conns 10 -size 8192 -rate 2 -for 3m 2>>"$WORK/clients-$1.log" &
		CLIENTS+=($!); PIDS+=($!)
	done
	wait_members 40
	sleep 3
}

# Run a
start a
dump "$DBG" 1 "$OUT/healthy.debug1.txt"
dump "$DBG" 0 "$OUT/healthy.debug0.pb.gz"
dump "$DBG" 2 "$OUT/healthy.debug2.txt.gz"
kill -STOP "${CLIENTS[0]}"
wait_stalled 25
dump "$DBG" 1 "$OUT/stalled.debug1.txt"
dump "$DBG" 0 "$OUT/stalled.debug0.pb.gz"
dump "$DBG" 2 "$OUT/stalled.debug2.txt.gz"
"$WORK/chat-hub" client -addr $SRV -conns 5 -size 8192 -rate 2 -for 3m 2>>"$WORK/clients-a.log" & PIDS+=($!)
sleep 3
dump "$DBG" 1 "$OUT/joining.debug1.txt"
dump "$DBG" 2 "$OUT/joining.debug2.txt.gz"
sigdump "$SERVER" QUIT "$WORK/server-a.log" "$OUT/joining.sigquit.txt.gz"
for p in "${CLIENTS[@]}"; do kill -CONT "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done
sleep 1

# Run b
start b
sigdump "$SERVER" QUIT "$WORK/server-b.log" "$OUT/healthy.sigquit.txt.gz"
for p in "${CLIENTS[@]}"; do kill "$p" 2>/dev/null || true; done
sleep 1

# Run c
"$WORK/chat-hub" server -addr $SRV -debug 127.0.0.1:7600 -for 3m 2>"$WORK/server-c.log" &
SERVER=$!; PIDS+=("$SERVER")
wait_http "$DBG/stats"
for _ in 0 1; do
	"$WORK/chat-hub" client -addr $SRV -conns 5 -size 8192 -rate 2 -read=false -for 3m 2>>"$WORK/clients-c.log" & PIDS+=($!)
done
wait_members 10
wait_stalled 8
dump "$DBG" 2 "$OUT/all-stalled.debug2.txt.gz"
sigdump "$SERVER" QUIT "$WORK/server-c.log" "$OUT/all-stalled.sigquit.txt.gz"
ls -la "$OUT"
