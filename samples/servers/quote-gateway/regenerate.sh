#!/usr/bin/env bash
# Regenerates the quote-gateway dumps: main.go (standard library only) built with Go 1.19.8
# (golang-1.19; dumps/) and Go 1.23 (golang-1.23-go from bookworm-backports; dumps/go1.23/),
# everything on 127.0.0.1, bounded (every process stops itself after 3 minutes; this script kills
# what it started on exit).
#
#   run a: a backend, the gateway and 8 client workers: healthy dumps (debug=0/1/2). Then the backend
#     is stopped (SIGSTOP): every gateway handler waits for the backend's answer (http.Get, no
#     timeout): hung dumps 3 s later (debug=0/1/2), and again after 65 s, when the waits print
#     `1 minutes` (hung-1m debug=2, then SIGQUIT of the gateway).
#   run b: the same, the backend answering: SIGQUIT of the gateway.
#
# ./regenerate.sh [GO]: with another Go (/usr/lib/go-1.23/bin/go), the dumps go to dumps/go<version>/.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../lib/common.sh"
choose_go "${1:-}"
(cd "$HERE" && GO111MODULE=off "$GO" build -o "$WORK/quote-gateway" main.go)

DBG=http://127.0.0.1:7630
served() { curl -sf "$DBG/stats" | awk '{print $2}'; }

start() { # start RUN: backend, gateway, 8 workers
	"$WORK/quote-gateway" backend -addr 127.0.0.1:7631 -for 3m 2>"$WORK/backend-$1.log" &
	BACKEND=$!; PIDS+=("$BACKEND")
	"$WORK/quote-gateway" gateway -addr 127.0.0.1:7632 -backend 127.0.0.1:7631 -debug 127.0.0.1:7630 -for 3m 2>"$WORK/gateway-$1.log" &
	GATEWAY=$!; PIDS+=("$GATEWAY")
	wait_http "$DBG/stats"
	"$WORK/quote-gateway" client -addr 127.0.0.1:7632 -workers 8 -for 3m 2>>"$WORK/client-$1.log" & PIDS+=($!)
	sleep 3
	[ "$(served)" -gt 0 ] || { echo "the gateway served nothing" >&2; exit 1; }
}

# Run a
start a
dump "$DBG" 1 "$OUT/healthy.debug1.txt"
dump "$DBG" 0 "$OUT/healthy.debug0.pb.gz"
dump "$DBG" 2 "$OUT/healthy.debug2.txt.gz"
kill -STOP "$BACKEND"
sleep 3
dump "$DBG" 1 "$OUT/hung.debug1.txt"
dump "$DBG" 0 "$OUT/hung.debug0.pb.gz"
dump "$DBG" 2 "$OUT/hung.debug2.txt.gz"
sleep 65
dump "$DBG" 2 "$OUT/hung-1m.debug2.txt.gz"
sigdump "$GATEWAY" QUIT "$WORK/gateway-a.log" "$OUT/hung-1m.sigquit.txt.gz"
kill -CONT "$BACKEND" 2>/dev/null || true
for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
PIDS=()
sleep 1

# Run b
start b
sigdump "$GATEWAY" QUIT "$WORK/gateway-b.log" "$OUT/healthy.sigquit.txt.gz"
ls -la "$OUT"
