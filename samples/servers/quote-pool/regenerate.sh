#!/usr/bin/env bash
# Regenerates the quote-pool dumps: main.go on Debian's puddle 1.2.1 (golang-github-jackc-puddle-dev
# 1.2.1-2) built in GOPATH mode with Go 1.19.8 (golang-1.19; dumps/) and Go 1.23 (golang-1.23-go from
# bookworm-backports; dumps/go1.23/), everything on 127.0.0.1, bounded (every process stops itself
# after 3 minutes; this script kills what it started on exit). No pricing engine is installed: the
# binary's `engine` role serves the line protocol.
#
#   run a: the engine, the api (pool of 4 connections, acquired with the request's context) and 8
#     client workers asking for good symbols in a loop: healthy dumps (debug=0/1/2). Then 4 requests
#     for the symbol whose price does not parse (curl; each gets its 502 at once, and its handler keeps
#     its connection) exhaust the pool; 3 s later the 8 workers' handlers wait in puddle's
#     (*Pool).Acquire, each beside the goroutine Acquire started to wait on the pool's sync.Cond:
#     exhausted dumps (debug=0/1/2), and the api is dumped by SIGQUIT.
#   run b: a fresh engine, api and the same healthy load: SIGQUIT of the api.
#
# ./regenerate.sh [GO]: with another Go (/usr/lib/go-1.23/bin/go), the dumps go to dumps/go<version>/.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../lib/common.sh"
choose_go "${1:-}"
(cd "$HERE" && GO111MODULE=off GOPATH="$WORK/gp:/usr/share/gocode" "$GO" build -o "$WORK/quote-pool" main.go)

SRV=127.0.0.1:7661 ENG=127.0.0.1:7662 DBG=http://127.0.0.1:7660
# the line where the handler calls pool.Acquire: the waiters' frame in main.(*api).quote
LINE=$(grep -n 'res, err := a.pool.Acquire(r.Context())' "$HERE/main.go" | cut -d: -f1)
stat() { curl -sf "$DBG/stats" | awk -v k="$1" '{for (i = 1; i < NF; i++) if ($i == k) print $(i + 1)}'; }
# waiters FILE: goroutines of a gzipped dump parked in a select in (*Pool).Acquire under the handler's
# Acquire (not the goroutines Acquire started: those are in Acquire.func1, under no handler); a SIGQUIT
# dump of Go 1.23 prints "goroutine N gp=... m=... [select]:"
waiters() {
	zcat "$1" | awk -v RS= -v at="quote-pool/main.go:$LINE " \
		'/^goroutine [0-9]+ [^[]*\[select/ && /github\.com\/jackc\/puddle\.\(\*Pool\)\.Acquire\(/ && !/Acquire\.func/ && index($0, at) {n++} END {print n + 0}'
}
# helpers FILE: the goroutines Acquire started, waiting on the pool's sync.Cond
helpers() {
	zcat "$1" | awk -v RS= \
		'/sync\.\(\*Cond\)\.Wait\(/ && /github\.com\/jackc\/puddle\.\(\*Pool\)\.Acquire\.func1\(/ {n++} END {print n + 0}'
}
check() { # check FILE: 8 waiters at main.go:LINE, each with its helper
	local w h
	w=$(waiters "$1") h=$(helpers "$1")
	[ "$w" = 8 ] || { echo "$1: $w handlers wait in (*Pool).Acquire at main.go:$LINE, not 8" >&2; exit 1; }
	[ "$h" = 8 ] || { echo "$1: $h goroutines wait on the pool's Cond in Acquire.func1, not 8" >&2; exit 1; }
}

start() { # start RUN: the engine, the api and 8 workers on good symbols
	"$WORK/quote-pool" engine -addr $ENG -for 3m 2>"$WORK/engine-$1.log" & PIDS+=($!)
	"$WORK/quote-pool" api -addr $SRV -engine $ENG -debug 127.0.0.1:7660 -for 3m 2>"$WORK/api-$1.log" &
	API=$!; PIDS+=("$API")
	wait_http "$DBG/stats"
	"$WORK/quote-pool" client -addr $SRV -workers 8 -for 3m 2>>"$WORK/client-$1.log" & PIDS+=($!)
	sleep 3
	[ "$(stat served)" -gt 0 ] || { echo "the api served nothing" >&2; exit 1; }
}

# Run a
start a
dump "$DBG" 1 "$OUT/healthy.debug1.txt"
dump "$DBG" 0 "$OUT/healthy.debug0.pb.gz"
dump "$DBG" 2 "$OUT/healthy.debug2.txt.gz"
before=$(stat served)
for _ in 1 2 3 4; do
	code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://$SRV/quote?sym=BAD" || true)
	[ "$code" = 502 ] || { echo "the bad symbol got $code, not 502" >&2; exit 1; }
done
sleep 3
[ "$(stat acquired)" = 4 ] && [ "$(stat idle)" = 0 ] && [ "$(stat total)" = 4 ] ||
	{ echo "the pool is not exhausted: $(curl -sf "$DBG/stats")" >&2; exit 1; }
dump "$DBG" 1 "$OUT/exhausted.debug1.txt"
dump "$DBG" 0 "$OUT/exhausted.debug0.pb.gz"
dump "$DBG" 2 "$OUT/exhausted.debug2.txt.gz"
check "$OUT/exhausted.debug2.txt.gz"
stats=$(curl -sf "$DBG/stats")
sigdump "$API" QUIT "$WORK/api-a.log" "$OUT/exhausted.sigquit.txt.gz"
check "$OUT/exhausted.sigquit.txt.gz"
echo "served $before before the bad requests; 8 waiters at main.go:$LINE, 8 helpers; $stats"
for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
PIDS=()
sleep 1

# Run b
start b
sigdump "$API" QUIT "$WORK/api-b.log" "$OUT/healthy.sigquit.txt.gz"
ls -la "$OUT"
