#!/usr/bin/env bash
# Regenerates the ticker-push dumps: main.go (standard library only) built with Go 1.19.8 (golang-1.19;
# dumps/) and Go 1.23 (golang-1.23-go from bookworm-backports; dumps/go1.23/), everything on 127.0.0.1,
# bounded (every process stops itself after 3 minutes; this script kills what it started on exit).
#
#   run a: the server's 12 feeds tick every 20 ms each and push every tick (a line of 250-270 bytes)
#     to every subscriber by calling its send (a mutex per subscriber, a bufio.Writer flushed per tick,
#     no write deadline); 3 client processes x 4 subscriber connections read and discard. healthy dumps
#     (debug=1/0/2) once /stats shows ticks flowing; then one client process is stopped (SIGSTOP): its 4
#     connections stop reading and their sockets fill. A feed that finds one of them full blocks in the
#     Flush (net.(*conn).Write, IO wait) holding that subscriber's mutex; every other feed that reaches
#     that subscriber queues in its s.mu.Lock; since each feed pushes to every subscriber in turn, all 12
#     feeds stop, for the subscribers that still read too. debug=2 dumps are polled (at most 30, a second
#     apart) until two in a row show every feed stuck, with the same counts, and nothing was sent in
#     between: stalled dumps (debug=1/0/2), and the server is dumped by SIGQUIT.
#   run b: a fresh server and the same 3 clients, all reading: SIGQUIT of the server.
#
# How many of the 4 stopped subscribers get a blocked writer (the holders) is up to the race: a feed
# stops at the first stopped subscriber in its (map-ordered) round whose socket is full, and once every
# feed is stopped the other stopped sockets are written no more. The script prints the counts of each
# dump and checks that every format of one run shows the same ones; dumps.json states them.
#
# The server sets each subscriber connection's socket send buffer to 64 KiB (-sndbuf 65536; the kernel
# doubles it), so a stopped subscriber's socket fills within seconds. With loopback's autotuned buffers
# (about 4 MiB a connection here) the same stall takes about 20 s at this rate.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# ./regenerate.sh [GO]: with another Go (/usr/lib/go-1.23/bin/go), the dumps go to dumps/go<version>/.
source "$HERE/../lib/common.sh"
choose_go "${1:-}"
(cd "$HERE" && GO111MODULE=off "$GO" build -o "$WORK/ticker-push" main.go)

SRV=127.0.0.1:7701 DBG=http://127.0.0.1:7700
FEEDS=12 STOPPED_CONNS=4
# send's lines: the lock (where queued feeds wait) and the flush (where a holder writes to the socket)
LOCK_LINE=$(grep -n '^	s\.mu\.Lock()$' "$HERE/main.go" | cut -d: -f1)
FLUSH_LINE=$(grep -n '^	return s\.w\.Flush()$' "$HERE/main.go" | cut -d: -f1)
[ -n "$LOCK_LINE" ] && [ -n "$FLUSH_LINE" ] || { echo "send's lines not found in main.go" >&2; exit 1; }
stat() { curl -sf "$DBG/stats" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }
wait_subscribers() { for _ in $(seq 1 100); do [ "$(stat subscribers)" = "$1" ] && return 0; sleep 0.2; done; echo "no $1 subscribers" >&2; exit 1; }

# HELD_AWK: over paragraphs (one goroutine in debug=2 and signal dumps, one stack with its count first
# in debug=1, one trace in `go tool pprof -traces -lines` of debug=0), counts the goroutines whose frame
# of main.(*subscriber).send is at the flush line below net.(*conn).Write (holders) and at the lock line
# below sync.(*Mutex).Lock (queued); where the state is printed (debug=2, signal dumps) a holder must be
# in IO wait and a queued goroutine in semacquire (Go 1.19) or sync.Mutex.Lock (Go 1.23). Any other
# goroutine in send (a feed in the write syscall, or runnable, of a healthy dump) is `other`. With args=1
# (debug=2 and signal dumps) it also prints send's receiver arguments: each holder's, then the queued
# goroutines' (how many on each), and how many of them carry the `?` of an inexact value.
HELD_AWK='
function name(s) { sub(/ \(inline\)$/, "", s); sub(/ [^ ]+:[0-9]+$/, "", s); sub(/\+0x[0-9a-f]+$/, "", s); sub(/\([^()]*\)$/, "", s); return s }
function lineof(s) { if (match(s, /:[0-9]+( |$)/)) return substr(s, RSTART + 1, RLENGTH - 1) + 0; return -1 }
{
	n = split($0, L, "\n"); count = 0; k = 0; st = ""
	if (L[1] ~ /^[0-9]+ @ /) {
		count = L[1] + 0
		for (i = 2; i <= n; i++) { if (L[i] !~ /^#\t/) continue; split(L[i], P, /\t+/); k++; fn[k] = name(P[3]); ln[k] = lineof(P[4]) }
	} else if (L[1] ~ /^goroutine [0-9]+ /) {
		count = 1; st = L[1]; sub(/^[^[]*\[/, "", st); sub(/[],].*$/, "", st)
		for (i = 2; i <= n; i++) {
			if (L[i] ~ /^created by /) { i++; continue }
			if (L[i] ~ /^\t/) { if (k) ln[k] = lineof(L[i]); continue }
			k++; fn[k] = name(L[i]); ar[k] = L[i]; sub(/^[^(]*\([^(]*\)[^(]*\(/, "", ar[k]); sub(/,.*$/, "", ar[k]); sub(/\)$/, "", ar[k])
		}
	} else if (L[1] ~ /^ +[0-9]+ +[^ ]/) {
		s = L[1]; sub(/^ +/, "", s); count = s + 0; sub(/^[0-9]+ +/, "", s); L[1] = s
		for (i = 1; i <= n; i++) { s = L[i]; sub(/^ +/, "", s); k++; fn[k] = name(s); ln[k] = lineof(s) }
	}
	for (j = 1; j <= k; j++) if (fn[j] == "main.(*subscriber).send") break
	if (j <= k) {
		w = 0; l = 0
		for (i = 1; i < j; i++) { if (fn[i] == "net.(*conn).Write") w = 1; if (fn[i] == "sync.(*Mutex).Lock") l = 1 }
		if (w && ln[j] == flush && (st == "" || st == "IO wait")) { holders += count; if (ar[j] != "") H[ar[j]]++ }
		else if (l && ln[j] == lock && (st == "" || st == "semacquire" || st == "sync.Mutex.Lock")) { queued += count; if (ar[j] != "") Q[ar[j]]++ }
		else other += count
		if (ar[j] ~ /\?$/) inexact += count
	}
	delete fn; delete ln; delete ar
}
END {
	printf "%d %d %d", holders, queued, other
	if (args) {
		printf " |"; for (r in H) printf " holder %s x%d", r, H[r]
		for (r in Q) printf " queued %s x%d", r, Q[r]
		printf " | inexact %d", inexact
	}
	print ""
}'
held() { # held FILE|- [args]: "HOLDERS QUEUED OTHER[ | receivers]" of a dump (- : stdin, debug=2)
	case "$1" in
	*.pb.gz) "$GO" tool pprof -traces -lines "$1" 2>/dev/null | sed 's/^-----------+-*$//' ;;
	-) sed '/^goroutine profile: total /d' ;;
	*) zcat -f "$1" | sed '/^goroutine profile: total /d' ;;
	esac | awk -v lock="$LOCK_LINE" -v flush="$FLUSH_LINE" -v args="${2:-0}" 'BEGIN { RS = "" } '"$HELD_AWK"
}
# expect FILE "H Q": fail loudly unless FILE shows exactly H holders and Q queued, and no other goroutine
# in send ("healthy": at most 2 goroutines in send at all, at most one of them waiting for a mutex: a
# snapshot may catch a feed writing, and another about to)
expect() {
	local got h q o
	got=$(held "$1"); read -r h q o <<<"$got"
	echo "$(basename "$(dirname "$1")")/$(basename "$1"): $h holders blocked writing in send (main.go:$FLUSH_LINE), $q queued in s.mu.Lock (main.go:$LOCK_LINE), $o other in send"
	if [ "$2" = healthy ]; then [ $((h + q + o)) -le 2 ] && [ "$q" -le 1 ] && return 0
	else [ "$h $q $o" = "$2 0" ] && return 0; fi
	echo "$1: $h holders, $q queued, $o other, expected $2" >&2; exit 1
}
# receivers FILE H: in a debug=2 or signal dump, the H holders write to H different subscribers (send's
# receiver argument), and every queued goroutine waits for the mutex of one of them
receivers() {
	local got
	got=$(held "$1" 1)
	echo "$(basename "$(dirname "$1")")/$(basename "$1"): receivers:${got#*|}"
	awk -v h="$2" '{
		split($0, P, "|"); n = split(P[2], F, " ")
		for (i = 1; i < n; i += 3) { r = F[i + 1]; sub(/\?$/, "", r); if (F[i] == "holder") { if (F[i + 2] != "x1") bad = 1; H[r] = 1; nh++ } else Q[r] = 1 }
		for (r in Q) if (!(r in H)) bad = 1
		exit (bad || nh != h)
	}' <<<"$got" || { echo "$1: the queued goroutines do not wait for the holders' subscribers (or $2 holders are not on $2 subscribers)" >&2; exit 1; }
}
# wait_stalled: poll debug=2 dumps (at most 30, a second apart) until two in a row show every feed in
# send, blocked writing (at least one) or queued, with the same counts, and nothing sent in between
wait_stalled() {
	local last="" now h q o sent0 sent1
	sent0=$(stat sent)
	for _ in $(seq 1 30); do
		sleep 1
		now=$(curl -sf "$DBG/debug/pprof/goroutine?debug=2" | held -)
		sent1=$(stat sent)
		read -r h q o <<<"$now"
		if [ "$now" = "$last" ] && [ "$sent1" = "$sent0" ] && [ "$h" -ge 1 ] && [ "$h" -le $STOPPED_CONNS ] && [ "$o" = 0 ] && [ $((h + q)) = $FEEDS ]; then
			HELD="$h $q"
			echo "run a: stalled: $h holders, $q queued, $sent1 lines sent"
			return 0
		fi
		last=$now sent0=$sent1
	done
	echo "the feeds did not stall: $now (holders queued other), $sent0 -> $sent1 sent" >&2; exit 1
}

start() { # start RUN: a server and 3 clients of 4 subscriber connections
	"$WORK/ticker-push" server -addr $SRV -debug 127.0.0.1:7700 -every 20ms -sndbuf 65536 -for 3m 2>"$WORK/server-$1.log" &
	SERVER=$!; PIDS+=("$SERVER")
	wait_http "$DBG/stats"
	CLIENTS=()
	for _ in 0 1 2; do
		"$WORK/ticker-push" client -addr $SRV -conns 4 -for 3m 2>>"$WORK/clients-$1.log" &
		CLIENTS+=($!); PIDS+=($!)
	done
	wait_subscribers 12
	sleep 2
	local t0 t1 s0 s1
	t0=$(stat ticks); s0=$(stat sent); sleep 1; t1=$(stat ticks); s1=$(stat sent)
	echo "run $1: $((t1 - t0)) ticks, $((s1 - s0)) lines a second to 12 subscribers"
	[ $((t1 - t0)) -ge 300 ] && [ $((s1 - s0)) -ge 3600 ] || { echo "ticks are not flowing: $t0 -> $t1 ticks, $s0 -> $s1 lines" >&2; exit 1; }
}

# Run a
start a
dump "$DBG" 1 "$OUT/healthy.debug1.txt"
dump "$DBG" 0 "$OUT/healthy.debug0.pb.gz"
dump "$DBG" 2 "$OUT/healthy.debug2.txt.gz"
for f in debug1.txt debug0.pb.gz debug2.txt.gz; do expect "$OUT/healthy.$f" healthy; done
kill -STOP "${CLIENTS[0]}"
wait_stalled
dump "$DBG" 1 "$OUT/stalled.debug1.txt"
dump "$DBG" 0 "$OUT/stalled.debug0.pb.gz"
dump "$DBG" 2 "$OUT/stalled.debug2.txt.gz"
sigdump "$SERVER" QUIT "$WORK/server-a.log" "$OUT/stalled.sigquit.txt.gz"
for f in debug1.txt debug0.pb.gz debug2.txt.gz sigquit.txt.gz; do expect "$OUT/stalled.$f" "$HELD"; done
for f in debug2.txt.gz sigquit.txt.gz; do receivers "$OUT/stalled.$f" "${HELD% *}"; done
for p in "${PIDS[@]}"; do kill -CONT "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done
PIDS=()
sleep 1

# Run b
start b
sigdump "$SERVER" QUIT "$WORK/server-b.log" "$OUT/healthy.sigquit.txt.gz"
expect "$OUT/healthy.sigquit.txt.gz" healthy
for p in "${CLIENTS[@]}"; do kill "$p" 2>/dev/null || true; done
echo "heldwrite: {\"holder\": \"main.(*subscriber).send\", \"holderLine\": $FLUSH_LINE, \"queued\": ${HELD#* }, \"queuedLine\": $LOCK_LINE, \"holders\": ${HELD% *}}"
ls -la "$OUT"
