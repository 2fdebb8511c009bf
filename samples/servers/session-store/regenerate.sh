#!/usr/bin/env bash
# Regenerates the session-store dumps: main.go on Debian's redigo 1.8.3
# (golang-github-gomodule-redigo-dev 1:1.8.3-1) built in GOPATH mode with Go 1.19.8 (golang-1.19;
# dumps/) and Go 1.23 (golang-1.23-go from bookworm-backports; dumps/go1.23/), everything on
# 127.0.0.1, bounded (every process stops itself after 3 minutes; this script kills what it started
# on exit). No Redis is installed: the binary's `redis` role serves the Redis protocol.
#
#   run a: the redis role, the api (pool of 4 connections) and 8 client workers reading good sessions
#     in a loop: healthy dumps (debug=0/1/2). Then 4 requests for the session that does not parse
#     (curl; each gets its 500 at once, and its handler keeps its connection) exhaust the pool; 3 s
#     later the 8 workers' handlers wait in redigo's (*Pool).Get for a connection: exhausted dumps
#     (debug=0/1/2), and the api is dumped by SIGQUIT.
#   run b: a fresh redis, api and the same healthy load: SIGQUIT of the api.
#
# ./regenerate.sh [GO]: with another Go (/usr/lib/go-1.23/bin/go), the dumps go to dumps/go<version>/.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../lib/common.sh"
choose_go "${1:-}"
(cd "$HERE" && GO111MODULE=off GOPATH="$WORK/gp:/usr/share/gocode" "$GO" build -o "$WORK/session-store" main.go)

SRV=127.0.0.1:7651 RDS=127.0.0.1:7652 DBG=http://127.0.0.1:7650
# the line where the handler calls pool.Get(): the waiters' frame in main.(*api).session
LINE=$(grep -n 'conn := a.pool.Get()' "$HERE/main.go" | cut -d: -f1)
stat() { curl -sf "$DBG/stats" | awk -v k="$1" '{for (i = 1; i < NF; i++) if ($i == k) print $(i + 1)}'; }
# waiters FILE: goroutines of a gzipped dump waiting in (*Pool).waitVacantConn under the handler's Get
waiters() {
	zcat "$1" | awk -v RS= -v at="session-store/main.go:$LINE " \
		'/github\.com\/gomodule\/redigo\/redis\.\(\*Pool\)\.waitVacantConn/ && index($0, at) {n++} END {print n + 0}'
}

start() { # start RUN: redis, the api and 8 workers on good sessions
	"$WORK/session-store" redis -addr $RDS -for 3m 2>"$WORK/redis-$1.log" & PIDS+=($!)
	"$WORK/session-store" api -addr $SRV -redis $RDS -debug 127.0.0.1:7650 -for 3m 2>"$WORK/api-$1.log" &
	API=$!; PIDS+=("$API")
	wait_http "$DBG/stats"
	"$WORK/session-store" client -addr $SRV -workers 8 -for 3m 2>>"$WORK/client-$1.log" & PIDS+=($!)
	sleep 3
	[ "$(stat served)" -gt 0 ] || { echo "the api served nothing" >&2; exit 1; }
}

# Run a
start a
dump "$DBG" 1 "$OUT/healthy.debug1.txt"
dump "$DBG" 0 "$OUT/healthy.debug0.pb.gz"
dump "$DBG" 2 "$OUT/healthy.debug2.txt.gz"
before=$(stat served)
[ "$before" -gt 0 ] || { echo "the api served nothing before the bad requests" >&2; exit 1; }
for _ in 1 2 3 4; do
	code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://$SRV/session?id=bad" || true)
	[ "$code" = 500 ] || { echo "the bad session got $code, not 500" >&2; exit 1; }
done
sleep 3
[ "$(stat active)" = 4 ] && [ "$(stat idle)" = 0 ] || { echo "the pool is not exhausted: $(curl -sf "$DBG/stats")" >&2; exit 1; }
dump "$DBG" 1 "$OUT/exhausted.debug1.txt"
dump "$DBG" 0 "$OUT/exhausted.debug0.pb.gz"
dump "$DBG" 2 "$OUT/exhausted.debug2.txt.gz"
n=$(waiters "$OUT/exhausted.debug2.txt.gz")
[ "$n" = 8 ] || { echo "exhausted.debug2: $n handlers wait in waitVacantConn at main.go:$LINE, not 8" >&2; exit 1; }
sigdump "$API" QUIT "$WORK/api-a.log" "$OUT/exhausted.sigquit.txt.gz"
n=$(waiters "$OUT/exhausted.sigquit.txt.gz")
[ "$n" = 8 ] || { echo "exhausted.sigquit: $n handlers wait in waitVacantConn at main.go:$LINE, not 8" >&2; exit 1; }
echo "served $before before the bad requests; 8 waiters at main.go:$LINE"
for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
PIDS=()
sleep 1

# Run b
start b
sigdump "$API" QUIT "$WORK/api-b.log" "$OUT/healthy.sigquit.txt.gz"
ls -la "$OUT"
