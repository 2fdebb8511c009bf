#!/usr/bin/env bash
# Regenerates the catalog-proxy dumps: main.go (standard library only) built with Go 1.19.8
# (golang-1.19; dumps/) and Go 1.23 (golang-1.23-go from bookworm-backports; dumps/go1.23/),
# everything on 127.0.0.1, bounded (every process stops itself after 3 minutes; this script kills
# what it started on exit).
#
#   run a: the upstream catalog, the proxy (one http.Client, MaxConnsPerHost 4, no timeout) and 8
#     client workers asking for known items in a loop: healthy dumps (debug=0/1/2). Then 4 requests
#     for an unknown item (curl; each gets its 502 at once, and the upstream's 404 body is left
#     unread and unclosed, so its connection's readLoop waits for it and the connection is never
#     given back) use up the 4 connections; 3 s later nothing is served any more and the 8 workers'
#     handlers wait in net/http's (*Transport).getConn: exhausted dumps (debug=0/1/2), and the proxy
#     is dumped by SIGQUIT.
#   run b: a fresh upstream, proxy and the same healthy load: SIGQUIT of the proxy.
#
# ./regenerate.sh [GO]: with another Go (/usr/lib/go-1.23/bin/go), the dumps go to dumps/go<version>/.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../lib/common.sh"
choose_go "${1:-}"
(cd "$HERE" && GO111MODULE=off "$GO" build -o "$WORK/catalog-proxy" main.go)

SRV=127.0.0.1:7681 UP=127.0.0.1:7682 DBG=http://127.0.0.1:7680
# the line where the handler calls the upstream: the waiters' frame in main.(*proxy).item
LINE=$(grep -n 'res, err := p.client.Get(' "$HERE/main.go" | cut -d: -f1)
[ -n "$LINE" ] || { echo "no upstream call in main.go" >&2; exit 1; }
# the line of readLoop's select that waits for the response body to be read (this Go's transport.go)
TRANSPORT="$("$GO" env GOROOT)/src/net/http/transport.go"
RL=$(($(grep -n 'case bodyEOF := <-waitForBodyRead:' "$TRANSPORT" | cut -d: -f1) - 1))
sed -n "${RL}p" "$TRANSPORT" | grep -q '^[[:space:]]*select {$' || { echo "$TRANSPORT:$RL is not readLoop's body select" >&2; exit 1; }
stat() { curl -sf "$DBG/stats" | awk -v k="$1" '{for (i = 1; i < NF; i++) if ($i == k) print $(i + 1)}'; }
# count FILE AWK-CONDITION: goroutines of a gzipped debug=2 or signal dump matching the condition (a
# SIGQUIT dump of Go 1.23 prints "goroutine N gp=... m=... [select]:")
count() { zcat "$1" | awk -v RS= -v at="catalog-proxy/main.go:$LINE " -v rl="net/http/transport.go:$RL " "$2 {n++} END {print n + 0}"; }
check() { # check FILE: 8 handlers in getConn at main.go:LINE, 4 readLoops waiting for their body, 4 writeLoops
	local w g h r wl
	w=$(count "$1" '/^goroutine [0-9]+ [^[]*\[select/ && /\nnet\/http\.\(\*Transport\)\.getConn\(/ && index($0, at)')
	g=$(count "$1" '/\nnet\/http\.\(\*Transport\)\.getConn\(/')
	h=$(count "$1" '/^goroutine [0-9]+ [^[]*\[select/ && /\nnet\/http\.\(\*persistConn\)\.readLoop\(/ && index($0, rl)')
	r=$(count "$1" '/\nnet\/http\.\(\*persistConn\)\.readLoop\(/')
	wl=$(count "$1" '/^goroutine [0-9]+ [^[]*\[select/ && /\nnet\/http\.\(\*persistConn\)\.writeLoop\(/')
	[ "$w" = 8 ] && [ "$g" = 8 ] || { echo "$1: $w handlers wait in (*Transport).getConn at main.go:$LINE ($g in getConn), not 8" >&2; exit 1; }
	[ "$h" = 4 ] && [ "$r" = 4 ] || { echo "$1: $h readLoops wait in select at transport.go:$RL for their body ($r readLoops), not 4" >&2; exit 1; }
	[ "$wl" = 4 ] || { echo "$1: $wl writeLoops in select, not 4" >&2; exit 1; }
	echo "$(basename "$1"): $w in getConn at main.go:$LINE, $h readLoops at transport.go:$RL, $wl writeLoops"
}
# check1 FILE: the debug=1 dump's records under getConn at main.go:LINE count 8 goroutines
check1() {
	local n
	n=$(awk -v RS= -v at="catalog-proxy/main.go:$LINE" '/net\/http\.\(\*Transport\)\.getConn\+/ && index($0, at) {n += $1} END {print n + 0}' "$1")
	[ "$n" = 8 ] || { echo "$1: $n goroutines in getConn at main.go:$LINE, not 8" >&2; exit 1; }
}

start() { # start RUN: the upstream, the proxy and 8 workers on known items
	"$WORK/catalog-proxy" upstream -addr $UP -for 3m 2>"$WORK/upstream-$1.log" & PIDS+=($!)
	"$WORK/catalog-proxy" proxy -addr $SRV -upstream $UP -debug 127.0.0.1:7680 -for 3m 2>"$WORK/proxy-$1.log" &
	PROXY=$!; PIDS+=("$PROXY")
	wait_http "$DBG/stats"
	wait_http "http://$UP/item?id=100"
	"$WORK/catalog-proxy" client -addr $SRV -workers 8 -for 3m 2>>"$WORK/client-$1.log" & PIDS+=($!)
	sleep 3
	[ "$(stat served)" -gt 0 ] || { echo "the proxy served nothing" >&2; exit 1; }
}

# Run a
start a
# the upstream's 404 has a body (an empty one would leave nothing to read, and the connection free)
read -r code size < <(curl -s -o /dev/null -w '%{http_code} %{size_download}\n' --max-time 5 "http://$UP/item?id=999" || true)
[ "$code" = 404 ] && [ "$size" -gt 0 ] || { echo "the upstream answered $code with $size bytes for an unknown item, not a 404 with a body" >&2; exit 1; }
dump "$DBG" 1 "$OUT/healthy.debug1.txt"
dump "$DBG" 0 "$OUT/healthy.debug0.pb.gz"
dump "$DBG" 2 "$OUT/healthy.debug2.txt.gz"
before=$(stat served)
for _ in 1 2 3 4; do
	code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://$SRV/item?id=999" || true)
	[ "$code" = 502 ] || { echo "the unknown item got $code, not 502" >&2; exit 1; }
done
sleep 3
s1=$(stat served)
sleep 2
s2=$(stat served)
[ "$s1" = "$s2" ] && [ "$(stat failed)" = 4 ] || { echo "the proxy still serves ($s1 -> $s2): $(curl -sf "$DBG/stats")" >&2; exit 1; }
dump "$DBG" 1 "$OUT/exhausted.debug1.txt"
dump "$DBG" 0 "$OUT/exhausted.debug0.pb.gz"
dump "$DBG" 2 "$OUT/exhausted.debug2.txt.gz"
check1 "$OUT/exhausted.debug1.txt"
check "$OUT/exhausted.debug2.txt.gz"
stats=$(curl -sf "$DBG/stats")
sigdump "$PROXY" QUIT "$WORK/proxy-a.log" "$OUT/exhausted.sigquit.txt.gz"
check "$OUT/exhausted.sigquit.txt.gz"
echo "served $before before the unknown items, $s2 in all; $stats"
for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
PIDS=()
sleep 1

# Run b
start b
sigdump "$PROXY" QUIT "$WORK/proxy-b.log" "$OUT/healthy.sigquit.txt.gz"
ls -la "$OUT"
