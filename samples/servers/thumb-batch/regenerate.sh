#!/usr/bin/env bash
# Regenerates the thumb-batch dumps: main.go on Debian's golang.org/x/sync (errgroup with SetLimit;
# golang-golang-x-sync-dev 0.1.0-1) built in GOPATH mode with Go 1.19.8 (golang-1.19; dumps/) and
# Go 1.23 (golang-1.23-go from bookworm-backports; dumps/go1.23/), everything on 127.0.0.1, bounded
# (every process stops itself after 3 minutes; this script kills what it started on exit).
#
#   run a: the server and 4 client workers posting good batches of 8 ids: healthy dumps (debug=1/0/2;
#     they may catch handlers waiting in g.Go for one of the group's 4 slots while tasks render, and
#     tasks waiting for the collector to take their result: the script prints how many). Then 3
#     batches with a bad id first and 9 good ones, each by curl --max-time 2: the collector returns at
#     the failure, 4 tasks per batch block sending their results, and the handler blocks in g.Go for a
#     slot; curl gives up, the server side stays stuck. The good clients are then stopped and the
#     script waits until only the 3 stuck batches are in flight (/stats), so that no good batch caught
#     mid-flight adds to the counts: those handlers and tasks wait at the very same lines. 3 s later:
#     stalled dumps (debug=1/0/2), then SIGQUIT of the server. The script checks that every stalled
#     dump holds exactly 3 handlers in errgroup's (*Group).Go (called at serveBatch's g.Go line; in
#     [chan send] where the dump says) and 12 tasks at renderTask's send (the same).
#   run b: a fresh server under the same good load: SIGQUIT of the server.
#
# ./regenerate.sh [GO]: with another Go (/usr/lib/go-1.23/bin/go), the dumps go to dumps/go<version>/.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../lib/common.sh"
choose_go "${1:-}"
(cd "$HERE" && GO111MODULE=off GOPATH="$WORK/gp:/usr/share/gocode" "$GO" build -o "$WORK/thumb-batch" main.go)

DBG=http://127.0.0.1:7710
API=http://127.0.0.1:7711
stats_field() { curl -sf "$DBG/stats" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }
# The lines the dumps must show: the task's send and the handler's g.Go.
TASKLINE=$(grep -n 'results <- thumbResult{' "$HERE/main.go" | cut -d: -f1)
GOLINE=$(grep -n 'g.Go(func() error' "$HERE/main.go" | cut -d: -f1)
[ -n "$TASKLINE" ] && [ -n "$GOLINE" ] || { echo "main.go: no send or g.Go line" >&2; exit 1; }

start() { # start RUN: the server and 4 client workers
	"$WORK/thumb-batch" server -addr 127.0.0.1:7711 -debug 127.0.0.1:7710 -for 3m 2>"$WORK/server-$1.log" &
	SERVER=$!; PIDS+=("$SERVER")
	wait_http "$DBG/stats"
	"$WORK/thumb-batch" client -addr 127.0.0.1:7711 -workers 4 -ids 8 -for 3m 2>>"$WORK/client-$1.log" &
	CLIENT=$!; PIDS+=("$CLIENT")
	sleep 3
	[ "$(stats_field batches)" -gt 10 ] || { echo "the server served no batches" >&2; exit 1; }
}

# records FILE: the dump as text; a debug=0 profile as its stacks in debug=1's shape (`N @`, `#` frames).
records() {
	case "$1" in
	*.pb.gz) "$GO" tool pprof -traces -lines "$1" 2>/dev/null | awk '
		/^-+\+-+$/ { print ""; next }
		/^ / { i = 1; if ($1 ~ /^[0-9]+$/) { print $1 " @"; i = 2 }; print "#\t0\t" $i "\t" $(i + 1) }' ;;
	*.gz) zcat "$1" ;;
	*) cat "$1" ;;
	esac
}
# count KIND FILE: goroutines (debug=2, signal) or goroutines by stack (debug=0/1) that are
#   handler: in errgroup's (*Group).Go called from serveBatch at its g.Go line (debug=2/signal: in [chan send]);
#   task: in renderTask at its send line (debug=2/signal: in [chan send]).
# Runtime frames are skipped (debug=0 and a Go 1.23 signal dump print runtime.gopark and chansend).
count() {
	records "$2" | awk -v kind="$1" -v tl="main.go:$TASKLINE" -v gl="main.go:$GOLINE" '
	BEGIN { RS = "" }
	{
		n = split($0, l, "\n"); m = 0; weight = 0; s = 1
		if (l[1] ~ /^goroutine profile: /) s = 2
		if (l[s] ~ /^goroutine [0-9]+ .*\[chan send[],]/) weight = 1
		else if (l[s] ~ /^[0-9]+ @( |$)/) { split(l[s], h, " "); weight = h[1] }
		if (!weight) next
		for (i = s + 1; i <= n; i++) {
			if (l[i] ~ /^#\t/) { split(l[i], f, /\t+/); fn = f[3]; sub(/\+0x[0-9a-f]+$/, "", fn); loc = f[4] }
			else if (l[i] !~ /^\t/ && l[i] !~ /^(created by |\.\.\.)/) { fn = l[i]; sub(/\([^()]*\)$/, "", fn); loc = l[i + 1]; i++ }
			else continue
			if (fn ~ /^runtime\./) continue
			sub(/^[ \t]+/, "", loc); sub(/ .*$/, "", loc)
			m++; fns[m] = fn; locs[m] = loc
		}
		if (kind == "handler" && fns[1] == "golang.org/x/sync/errgroup.(*Group).Go" && locs[1] ~ /errgroup\.go:[0-9]+$/ &&
		    fns[2] == "main.(*thumbService).serveBatch" && locs[2] ~ ("/" gl "$")) c += weight
		if (kind == "task" && fns[1] == "main.(*thumbService).renderTask" && locs[1] ~ ("/" tl "$")) c += weight
		delete fns; delete locs
	}
	END { print c + 0 }'
}
expect() { # expect FILE: 3 handlers in g.Go, 12 tasks at the send
	local h t
	h=$(count handler "$1"); t=$(count task "$1")
	echo "$(basename "$1"): $h handlers in (*Group).Go at main.go:$GOLINE, $t tasks at main.go:$TASKLINE"
	[ "$h" -eq 3 ] && [ "$t" -eq 12 ] || { echo "$1: expected 3 handlers in g.Go and 12 tasks blocked sending" >&2; exit 1; }
}

# Run a
start a
dump "$DBG" 1 "$OUT/healthy.debug1.txt"
dump "$DBG" 0 "$OUT/healthy.debug0.pb.gz"
dump "$DBG" 2 "$OUT/healthy.debug2.txt.gz"
for f in "$OUT/healthy.debug1.txt" "$OUT/healthy.debug0.pb.gz" "$OUT/healthy.debug2.txt.gz"; do
	echo "$(basename "$f") (healthy): $(count handler "$f") handlers in (*Group).Go, $(count task "$f") tasks at the send"
done
BAD=bad-0
for j in $(seq 1 9); do BAD="$BAD,img-x-$j"; done
CURLS=()
for b in 1 2 3; do
	curl -s -o /dev/null -X POST --max-time 2 "$API/batch?ids=${BAD//x/b$b}" & CURLS+=($!)
done
for c in "${CURLS[@]}"; do
	rc=0; wait "$c" || rc=$?
	[ "$rc" -eq 28 ] || { echo "a bad batch did not time out on the client side (curl exit $rc)" >&2; exit 1; }
done
kill "$CLIENT"
for _ in $(seq 1 50); do [ "$(stats_field inflight)" -eq 3 ] && break; sleep 0.2; done
[ "$(stats_field inflight)" -eq 3 ] || { echo "expected the 3 bad batches alone in flight: $(curl -sf "$DBG/stats")" >&2; exit 1; }
sleep 3
dump "$DBG" 1 "$OUT/stalled.debug1.txt"
dump "$DBG" 0 "$OUT/stalled.debug0.pb.gz"
dump "$DBG" 2 "$OUT/stalled.debug2.txt.gz"
curl -sf "$DBG/stats"
expect "$OUT/stalled.debug1.txt"
expect "$OUT/stalled.debug0.pb.gz"
expect "$OUT/stalled.debug2.txt.gz"
sigdump "$SERVER" QUIT "$WORK/server-a.log" "$OUT/stalled.sigquit.txt.gz"
expect "$OUT/stalled.sigquit.txt.gz"
for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
PIDS=()
sleep 1

# Run b
start b
sigdump "$SERVER" QUIT "$WORK/server-b.log" "$OUT/healthy.sigquit.txt.gz"
echo "healthy.sigquit.txt.gz (healthy): $(count handler "$OUT/healthy.sigquit.txt.gz") handlers in (*Group).Go, $(count task "$OUT/healthy.sigquit.txt.gz") tasks at the send"
ls -la "$OUT"
