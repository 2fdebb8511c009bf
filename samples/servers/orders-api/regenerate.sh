#!/usr/bin/env bash
# Regenerates the orders-api dumps: main.go (standard library only) built with Go 1.19.8 (golang-1.19;
# dumps/) and Go 1.23 (golang-1.23-go from bookworm-backports; dumps/go1.23/), everything on
# 127.0.0.1, bounded (every process stops itself after 3 minutes; this script kills what it started
# on exit).
#
#   run a: 8 client workers list a good customer's orders in a loop: healthy dumps (debug=0/1/2). Then
#     4 requests for the customer with an unparsable row (each keeps its rows, and so a connection,
#     open) exhaust the pool of 4; the 8 workers' next requests wait for a connection: exhausted dumps
#     (debug=0/1/2), and the server is dumped by SIGQUIT.
#   run b: the same healthy load: SIGQUIT of the server.
#
# ./regenerate.sh [GO]: with another Go (/usr/lib/go-1.23/bin/go), the dumps go to dumps/go<version>/.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../lib/common.sh"
choose_go "${1:-}"
(cd "$HERE" && GO111MODULE=off "$GO" build -o "$WORK/orders-api" main.go)

SRV=127.0.0.1:7621 DBG=http://127.0.0.1:7620
stat() { curl -sf "$DBG/stats" | awk -v k="$1" '{for (i = 1; i < NF; i++) if ($i == k) print $(i + 1)}'; }
# exhausted: every connection in use and nothing served for 2 s
wait_exhausted() {
	local last now
	last=$(stat served)
	for _ in $(seq 1 60); do
		sleep 2
		now=$(stat served)
		[ "$now" = "$last" ] && [ "$(stat inuse)" = 4 ] && return 0
		last=$now
	done
	echo "the pool was not exhausted" >&2; exit 1
}

start() { # start RUN: a server and 8 workers on a good customer
	"$WORK/orders-api" server -addr $SRV -debug 127.0.0.1:7620 -for 3m 2>"$WORK/server-$1.log" &
	SERVER=$!; PIDS+=("$SERVER")
	wait_http "$DBG/stats"
	"$WORK/orders-api" client -addr $SRV -workers 8 -customer acme -for 3m 2>>"$WORK/client-$1.log" & PIDS+=($!)
	sleep 3
}

# Run a
start a
dump "$DBG" 1 "$OUT/healthy.debug1.txt"
dump "$DBG" 0 "$OUT/healthy.debug0.pb.gz"
dump "$DBG" 2 "$OUT/healthy.debug2.txt.gz"
"$WORK/orders-api" client -addr $SRV -workers 4 -n 1 -customer globex -for 3m 2>>"$WORK/client-a.log" & PIDS+=($!)
wait_exhausted
dump "$DBG" 1 "$OUT/exhausted.debug1.txt"
dump "$DBG" 0 "$OUT/exhausted.debug0.pb.gz"
dump "$DBG" 2 "$OUT/exhausted.debug2.txt.gz"
sigdump "$SERVER" QUIT "$WORK/server-a.log" "$OUT/exhausted.sigquit.txt.gz"
for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
PIDS=()
sleep 1

# Run b
start b
sigdump "$SERVER" QUIT "$WORK/server-b.log" "$OUT/healthy.sigquit.txt.gz"
ls -la "$OUT"
