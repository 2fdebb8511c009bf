#!/usr/bin/env bash
# Regenerates the tunnel-feed dumps: main.go on Debian's hashicorp/yamux
# (golang-github-hashicorp-yamux-dev 0.0+git20190923.df201c7-1) built in GOPATH mode with Go 1.19.8
# (golang-1.19; dumps/) and Go 1.23 (golang-1.23-go from bookworm-backports; dumps/go1.23/),
# everything on 127.0.0.1, bounded (the server and the clients stop themselves after 3 minutes; this
# script kills what it started on exit).
#
#   run a: 4 client processes x 25 streams over one yamux session each = 100 subscriptions, the
#     server writing a 4 KiB record to each every 10 ms. healthy dumps (debug=1/0/2) once /stats shows
#     records flowing; then one client process is stopped (SIGSTOP): its 25 streams stop reading, and
#     once their 256 KiB windows are used up their 25 producers park in yamux's (*Stream).write:
#     stalled-25 dumps (debug=1/0/2); a second client process is stopped: stalled-50 (debug=1/0/2),
#     and the server is dumped by SIGQUIT.
#   run b: a fresh server and the same 100 subscriptions, all reading: SIGQUIT of the server.
#
# The server sets each connection's socket send buffer to 4 MiB (-sndbuf; the kernel doubles it), so
# one connection holds more than its 25 windows (6.25 MiB), as a long path does: the windows run
# out first and the session's send loop stays free. With loopback's autotuned buffers (about 4.4 MiB
# here) the socket fills first instead: the send loop blocks in its conn.Write and the producers wait
# for it in (*Session).waitForSendErr, which gives up after yamux's ConnectionWriteTimeout (10 s).
#
# yamux's keepalive (default config: a ping every 30 s, 10 s for the answer) closes a session whose
# peer is stopped: every stalled dump is taken well within 30 s of the clients connecting (checked).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# ./regenerate.sh [GO]: with another Go (/usr/lib/go-1.23/bin/go), the dumps go to dumps/go<version>/.
source "$HERE/../lib/common.sh"
choose_go "${1:-}"
(cd "$HERE" && GO111MODULE=off GOPATH="$WORK/gp:/usr/share/gocode" "$GO" build -o "$WORK/tunnel-feed" main.go)

SRV=127.0.0.1:7671 DBG=http://127.0.0.1:7670
PRODUCER='main.(*feed).stream'
stat() { curl -sf "$DBG/stats" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }
wait_streams() { for _ in $(seq 1 100); do [ "$(stat streams)" = "$1" ] && return 0; sleep 0.2; done; echo "no $1 streams" >&2; exit 1; }

# parked FILE: the producer goroutines (a frame of $PRODUCER) whose first frame outside the runtime is
# yamux's (*Stream).write, i.e. parked in its select waiting for the stream's window (stream.go:211).
# Reads debug=2 and signal dumps (one goroutine a paragraph), debug=1 (one stack a paragraph, its count
# first) and debug=0 (through `go tool pprof -traces`).
PARKED_AWK='
function name(s) { sub(/ \(inline\)$/, "", s); sub(/\+0x[0-9a-f]+$/, "", s); sub(/\([^()]*\)$/, "", s); return s }
{
	n = split($0, L, "\n"); count = 0; first = ""; prod = 0
	if (L[1] ~ /^[0-9]+ @ /) { count = L[1] + 0; for (i = 2; i <= n; i++) { if (L[i] !~ /^#\t/) continue; split(L[i], F, "\t"); f[i] = name(F[3]) } }
	else if (L[1] ~ /^goroutine [0-9]+ /) { count = 1; for (i = 2; i <= n; i++) { if (L[i] ~ /^\t/ || L[i] ~ /^created by /) continue; f[i] = name(L[i]) } }
	else if (L[1] ~ /^ +[0-9]+ +[^ ]/) { split(L[1], F, " "); count = F[1] + 0; f[1] = name(F[2]); for (i = 2; i <= n; i++) { s = L[i]; gsub(/^ +/, "", s); f[i] = name(s) } }
	for (i = 1; i <= n; i++) {
		if (!(i in f)) continue
		if (first == "" && f[i] !~ /^runtime\./) first = f[i]
		if (f[i] == prod_name) prod = 1
	}
	if (first == "github.com/hashicorp/yamux.(*Stream).write" && prod) total += count
	delete f
}
END { print total + 0 }'
parked() {
	case "$1" in
	*.pb.gz) "$GO" tool pprof -traces "$1" 2>/dev/null | sed 's/^-----------+-*$//' ;;
	*) zcat -f "$1" | sed '/^goroutine profile: total /d' ;;
	esac | awk -v prod_name="$PRODUCER" 'BEGIN { RS = "" } '"$PARKED_AWK"
}
# expect FILE N: fail loudly unless FILE shows exactly N parked producers (N=0: fewer than 5)
expect() {
	local got
	got=$(parked "$1")
	echo "$(basename "$1"): $got producers parked in (*Stream).write"
	if [ "$2" = 0 ]; then [ "$got" -lt 5 ] && return 0; else [ "$got" = "$2" ] && return 0; fi
	echo "$1: $got producers parked in yamux's (*Stream).write, expected $2" >&2; exit 1
}
# wait_parked N: poll debug=2 dumps (at most 60, half a second apart) until two in a row show exactly N
wait_parked() {
	local last=-1 now
	for _ in $(seq 1 60); do
		sleep 0.5
		now=$(curl -sf "$DBG/debug/pprof/goroutine?debug=2" | awk -v prod_name="$PRODUCER" 'BEGIN { RS = "" } '"$PARKED_AWK")
		[ "$now" = "$1" ] && [ "$last" = "$1" ] && return 0
		last=$now
	done
	echo "the producers did not stall: $now parked, expected $1" >&2; exit 1
}
# stalled N: debug=1/0/2 of the server with N producers parked, and its /stats
stalled() {
	dump "$DBG" 1 "$OUT/stalled-$1.debug1.txt"
	dump "$DBG" 0 "$OUT/stalled-$1.debug0.pb.gz"
	dump "$DBG" 2 "$OUT/stalled-$1.debug2.txt.gz"
	curl -sf "$DBG/stats" >"$OUT/stalled-$1.stats.txt"
	for f in debug1.txt debug0.pb.gz debug2.txt.gz; do expect "$OUT/stalled-$1.$f" "$1"; done
}

start() { # start RUN: a server and 4 clients of 25 streams
	"$WORK/tunnel-feed" server -addr $SRV -debug 127.0.0.1:7670 -size 4096 -every 10ms -sndbuf 4194304 -for 3m 2>"$WORK/server-$1.log" &
	SERVER=$!; PIDS+=("$SERVER")
	wait_http "$DBG/stats"
	CLIENTS=()
	for _ in 0 1 2 3; do
		"$WORK/tunnel-feed" client -addr $SRV -streams 25 -for 3m 2>>"$WORK/clients-$1.log" &
		CLIENTS+=($!); PIDS+=($!)
	done
	wait_streams 100
	CONNECTED=$SECONDS
	sleep 3
	local r0 r1
	r0=$(stat records); sleep 1; r1=$(stat records)
	echo "run $1: $((r1 - r0)) records a second to 100 streams"
	[ $((r1 - r0)) -ge 2000 ] || { echo "records are not flowing: $r0 -> $r1" >&2; exit 1; }
}

# Run a
start a
dump "$DBG" 1 "$OUT/healthy.debug1.txt"
dump "$DBG" 0 "$OUT/healthy.debug0.pb.gz"
dump "$DBG" 2 "$OUT/healthy.debug2.txt.gz"
curl -sf "$DBG/stats" >"$OUT/healthy.stats.txt"
for f in debug1.txt debug0.pb.gz debug2.txt.gz; do expect "$OUT/healthy.$f" 0; done
kill -STOP "${CLIENTS[0]}"
wait_parked 25
stalled 25
kill -STOP "${CLIENTS[1]}"
wait_parked 50
stalled 50
sigdump "$SERVER" QUIT "$WORK/server-a.log" "$OUT/stalled-50.sigquit.txt.gz"
expect "$OUT/stalled-50.sigquit.txt.gz" 50
echo "run a: the stalled dumps were taken $((SECONDS - CONNECTED)) s after the clients connected"
[ $((SECONDS - CONNECTED)) -lt 30 ] || { echo "too late: yamux's keepalive may have closed a stalled session" >&2; exit 1; }
for p in "${CLIENTS[@]}"; do kill -CONT "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done
sleep 1

# Run b
start b
sigdump "$SERVER" QUIT "$WORK/server-b.log" "$OUT/healthy.sigquit.txt.gz"
expect "$OUT/healthy.sigquit.txt.gz" 0
for p in "${CLIENTS[@]}"; do kill "$p" 2>/dev/null || true; done
ls -la "$OUT"
