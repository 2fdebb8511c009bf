#!/usr/bin/env bash
# Regenerates the avatar-cache dumps: main.go on Debian's golang.org/x/sync
# (golang-golang-x-sync-dev 0.1.0-1) built in GOPATH mode with Go 1.19.8 (golang-1.19; dumps/) and
# Go 1.23 (golang-1.23-go from bookworm-backports; dumps/go1.23/), everything on 127.0.0.1, bounded
# (every process stops itself after 3 minutes; this script kills what it started on exit).
#
#   run a: an origin answering in 40 ms, the cache (entries fresh for 100 ms) and 16 client workers
#     asking for 4 users: healthy dumps (debug=0/1/2; the debug=2 one is retaken until it shows
#     requests waiting behind a leader's load in flight, as a busy healthy cache does). Then the origin is stopped (SIGSTOP): each user's leader waits for
#     the origin's answer (http.Get, no timeout) and the other 12 requests wait behind the leaders in
#     singleflight's Do: hung dumps 3 s later (debug=0/1/2), and again after 65 s, when the waits
#     print `1 minutes` (hung-1m debug=2, then SIGQUIT of the cache).
#   run b: the same, the origin answering: SIGQUIT of the cache.
#   run c: the cache with -chan (DoChan, each request waiting on its channel in a select with its
#     request's context), the same load, the origin stopped: 4 loads (doCall goroutines DoChan
#     started) wait for the origin, and all 16 requests in getChan's select: hung-chan dumps 3 s later
#     (debug=0/1/2), and after 65 s (hung-chan-1m debug=2, then SIGQUIT).
#
# ./regenerate.sh [GO]: with another Go (/usr/lib/go-1.23/bin/go), the dumps go to dumps/go<version>/.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../lib/common.sh"
choose_go "${1:-}"
(cd "$HERE" && GO111MODULE=off GOPATH="$WORK/gp:/usr/share/gocode" "$GO" build -o "$WORK/avatar-cache" main.go)

DBG=http://127.0.0.1:7640
fetched() { curl -sf "$DBG/stats" | awk '{print $4}'; }

start() { # start RUN [CACHE-FLAGS]: origin, cache, 16 workers over 4 users
	"$WORK/avatar-cache" origin -addr 127.0.0.1:7642 -for 3m 2>"$WORK/origin-$1.log" &
	ORIGIN=$!; PIDS+=("$ORIGIN")
	"$WORK/avatar-cache" cache -addr 127.0.0.1:7641 -origin 127.0.0.1:7642 -debug 127.0.0.1:7640 -for 3m "${@:2}" 2>"$WORK/cache-$1.log" &
	CACHE=$!; PIDS+=("$CACHE")
	wait_http "$DBG/stats"
	"$WORK/avatar-cache" client -addr 127.0.0.1:7641 -workers 16 -users 4 -for 3m 2>>"$WORK/client-$1.log" & PIDS+=($!)
	sleep 3
	[ "$(fetched)" -gt 10 ] || { echo "the cache fetched nothing from the origin" >&2; exit 1; }
}

# inflight FILE.gz: goroutines in singleflight's Do (leaders and waiters); waiting FILE.gz: waiters
inflight() { zcat "$1" | grep -c '^golang.org/x/sync/singleflight.(\*Group).Do(' || true; }
waiting() { zcat "$1" | grep -A2 '^sync.(\*WaitGroup).Wait(' | grep -c '^golang.org/x/sync/singleflight.(\*Group).Do(' || true; }

# Run a
start a
dump "$DBG" 1 "$OUT/healthy.debug1.txt"
dump "$DBG" 0 "$OUT/healthy.debug0.pb.gz"
for _ in $(seq 1 20); do
	dump "$DBG" 2 "$OUT/healthy.debug2.txt.gz"
	[ "$(waiting "$OUT/healthy.debug2.txt.gz")" -gt 0 ] && break
	sleep 0.3
done
[ "$(waiting "$OUT/healthy.debug2.txt.gz")" -gt 0 ] || { echo "healthy: no request waited behind a load in 20 dumps" >&2; exit 1; }
kill -STOP "$ORIGIN"
sleep 3
dump "$DBG" 1 "$OUT/hung.debug1.txt"
dump "$DBG" 0 "$OUT/hung.debug0.pb.gz"
dump "$DBG" 2 "$OUT/hung.debug2.txt.gz"
# 4 leaders (in doCall) and 12 waiters: every worker is held
[ "$(inflight "$OUT/hung.debug2.txt.gz")" -eq 16 ] && [ "$(waiting "$OUT/hung.debug2.txt.gz")" -eq 12 ] || { echo "hung: expected 16 goroutines in singleflight's Do" >&2; exit 1; }
sleep 65
dump "$DBG" 2 "$OUT/hung-1m.debug2.txt.gz"
sigdump "$CACHE" QUIT "$WORK/cache-a.log" "$OUT/hung-1m.sigquit.txt.gz"
kill -CONT "$ORIGIN" 2>/dev/null || true
for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
PIDS=()
sleep 1

# Run b
start b
sigdump "$CACHE" QUIT "$WORK/cache-b.log" "$OUT/healthy.sigquit.txt.gz"
for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
PIDS=()
sleep 1

# Run c
# chan FILE.gz: "LOADS CALLERS": doCall goroutines DoChan started, requests in getChan's select
SELECT=$(grep -n '^	select {$' "$HERE/main.go" | awk -F: -v d="$(grep -n 'c.loads.DoChan(' "$HERE/main.go" | cut -d: -f1)" '$1 > d {print $1; exit}')
chan() {
	local loads callers
	loads=$(zcat "$1" | grep -c '^golang.org/x/sync/singleflight.(\*Group).doCall(' || true)
	callers=$(zcat "$1" | grep -A1 '^main.(\*avatarCache).getChan(' | grep -c "avatar-cache/main.go:$SELECT " || true)
	echo "$loads $callers"
}
start c -chan
kill -STOP "$ORIGIN"
sleep 3
dump "$DBG" 1 "$OUT/hung-chan.debug1.txt"
dump "$DBG" 0 "$OUT/hung-chan.debug0.pb.gz"
dump "$DBG" 2 "$OUT/hung-chan.debug2.txt.gz"
[ "$(chan "$OUT/hung-chan.debug2.txt.gz")" = "4 16" ] || { echo "hung-chan: $(chan "$OUT/hung-chan.debug2.txt.gz") (loads, callers at main.go:$SELECT), not 4 16" >&2; exit 1; }
sleep 65
dump "$DBG" 2 "$OUT/hung-chan-1m.debug2.txt.gz"
sigdump "$CACHE" QUIT "$WORK/cache-c.log" "$OUT/hung-chan-1m.sigquit.txt.gz"
[ "$(chan "$OUT/hung-chan-1m.sigquit.txt.gz")" = "4 16" ] || { echo "hung-chan-1m.sigquit: $(chan "$OUT/hung-chan-1m.sigquit.txt.gz"), not 4 16" >&2; exit 1; }
kill -CONT "$ORIGIN" 2>/dev/null || true
ls -la "$OUT"
