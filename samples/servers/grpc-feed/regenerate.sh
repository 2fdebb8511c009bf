#!/usr/bin/env bash
# Regenerates the grpc-feed dumps: Debian's grpc-go 1.33.3 (golang-google-grpc-dev 1.33.3-2) built in
# GOPATH mode with Go 1.19.8 (golang-1.19), everything on 127.0.0.1, bounded (the server and the
# clients stop themselves after a few minutes; this script kills what it started on exit).
#
#   run A (stall): 8 client processes x 25 connections (one stream each) = 200 subscribers, 16 KiB
#     events at 20/s. healthy dumps (debug=0/1/2) of the server and of one client; then the clients are
#     stopped (SIGSTOP) two processes at a time: stalled-50, stalled-100, stalled-200 (debug=1 each,
#     debug=0/2 at 200), and the stalled server is dumped by SIGQUIT.
#   run B (healthy signal): the same 200 subscribers reading; SIGQUIT of the server and of one client.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="$HERE/dumps"
WORK="$(mktemp -d)"
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill -CONT "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT
mkdir -p "$OUT"
unset GOTRACEBACK GODEBUG GOMAXPROCS || true
(cd "$HERE" && GO111MODULE=off GOPATH="$WORK/gp:/usr/share/gocode" go build -o "$WORK/grpc-feed" main.go)

SRV=127.0.0.1:7301 DBG=127.0.0.1:7300
dump() { curl -sf "http://$1/debug/pprof/goroutine?debug=$2" -o "$3"; }
subscribers() { curl -sf "http://$DBG/stats" | awk '{print $2}'; }
wait_subscribers() { for _ in $(seq 1 100); do [ "$(subscribers)" = "$1" ] && return 0; sleep 0.2; done; echo "no $1 subscribers" >&2; exit 1; }

start() { # start RUN: a server and 8 clients
	"$WORK/grpc-feed" server -addr $SRV -debug $DBG -size 16384 -rate 20 -for 3m 2>"$WORK/server-$1.log" &
	SERVER=$!; PIDS+=("$SERVER")
	sleep 0.5
	CLIENTS=()
	for i in 0 1 2 3 4 5 6 7; do
		"$WORK/grpc-feed" client -addr $SRV -debug 127.0.0.1:731$i -conns 25 -for 3m 2>"$WORK/client-$1-$i.log" &
		CLIENTS+=($!); PIDS+=($!)
	done
	wait_subscribers 200
	sleep 3
}

sigquit() { # sigquit PID LOG OUT: the runtime writes every goroutine to stderr and exits
	kill -QUIT "$1"; for _ in $(seq 1 50); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
	sed -n '/^SIGQUIT: quit/,$p' "$2" | gzip -9n >"$3"
}

# Run A
start a
dump $DBG 1 "$OUT/server-healthy.debug1.txt"
dump $DBG 0 "$OUT/server-healthy.debug0.pb.gz"
dump $DBG 2 - | gzip -9n >"$OUT/server-healthy.debug2.txt.gz"
dump 127.0.0.1:7310 1 "$OUT/client-healthy.debug1.txt"
dump 127.0.0.1:7310 2 - | gzip -9n >"$OUT/client-healthy.debug2.txt.gz"
n=0
for pair in "0 1" "2 3" "4 5 6 7"; do
	for i in $pair; do kill -STOP "${CLIENTS[$i]}"; n=$((n + 25)); done
	sleep 6
	dump $DBG 1 "$OUT/server-stalled-$n.debug1.txt"
	curl -sf "http://$DBG/stats" >"$OUT/server-stalled-$n.stats.txt"
done
dump $DBG 0 "$OUT/server-stalled-200.debug0.pb.gz"
dump $DBG 2 - | gzip -9n >"$OUT/server-stalled-200.debug2.txt.gz"
sigquit "$SERVER" "$WORK/server-a.log" "$OUT/server-stalled-200.sigquit.txt.gz"
for p in "${CLIENTS[@]}"; do kill -CONT "$p"; kill "$p"; done
sleep 1

# Run B
start b
sigquit "${CLIENTS[0]}" "$WORK/client-b-0.log" "$OUT/client-healthy.sigquit.txt.gz"
sleep 1
sigquit "$SERVER" "$WORK/server-b.log" "$OUT/server-healthy.sigquit.txt.gz"
for p in "${CLIENTS[@]}"; do kill "$p" 2>/dev/null || true; done
ls -la "$OUT"
