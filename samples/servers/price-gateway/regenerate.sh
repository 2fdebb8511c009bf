#!/usr/bin/env bash
# Regenerates the price-gateway dumps: main.go on Debian's grpc-go 1.33.3 (golang-google-grpc-dev
# 1.33.3-2) built in GOPATH mode with Go 1.19.8 (golang-1.19; dumps/) and Go 1.23 (golang-1.23-go from
# bookworm-backports; dumps/go1.23/), everything on 127.0.0.1, bounded (every process stops itself
# after 3 minutes; this script kills what it started on exit).
#
#   run a: a gRPC pricing backend, the HTTP gateway (one shared grpc.ClientConn, WithInsecure, default
#     options) and 8 client workers: healthy dumps (debug=0/1/2). Then the backend is stopped
#     (SIGSTOP): its connection stays open and nothing comes back, so every gateway handler waits
#     inside grpc's (*ClientConn).Invoke (context.Background(): no deadline): hung dumps 3 s later
#     (debug=0/1/2), and again after 65 s, when the waits print `1 minutes` (hung-1m debug=2, then
#     SIGQUIT of the gateway).
#   run b: the same, the backend answering: SIGQUIT of the gateway.
#
# The script fails unless the hung debug=2 and SIGQUIT dumps hold exactly 8 handler goroutines
# (stacks with both grpc.(*ClientConn).Invoke and main.(*gatewayServer).price) that are parked, the
# same 8 (by goroutine id) from the 3 s dump to the SIGQUIT 65 s later, waiting `1 minutes` then:
# nothing (no keepalive: the default client sends no pings) ends the wait.
#
# ./regenerate.sh [GO]: with another Go (/usr/lib/go-1.23/bin/go), the dumps go to dumps/go<version>/.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../lib/common.sh"
choose_go "${1:-}"
(cd "$HERE" && GO111MODULE=off GOPATH="$WORK/gp:/usr/share/gocode" "$GO" build -o "$WORK/price-gateway" main.go)

DBG=http://127.0.0.1:7720
stat() { curl -sf "$DBG/stats" | awk -v k="$1" '{for (i = 1; i < NF; i++) if ($i == k) print $(i + 1)}'; }
fail() { echo "FAIL: $*" >&2; exit 1; }

# waiters FILE: "ID STATE" of each goroutine whose stack holds both grpc's Invoke and the handler
# (the header is `goroutine ID [STATE]:`, or `goroutine ID gp=... m=... [STATE]:` in Go 1.23's SIGQUIT)
waiters() {
	zcat -f "$1" | awk -v RS= '/google\.golang\.org\/grpc\.\(\*ClientConn\)\.Invoke\(/ && /main\.\(\*gatewayServer\)\.price\(/ {
		split($0, l, "\n"); s = l[1]; sub(/^[^[]*\[/, "", s); sub(/\]:$/, "", s); print $2, s }'
}
# check FILE WANT_MINUTES: exactly 8 waiters, none running/runnable/in a syscall, each waiting
# WANT_MINUTES (0: no minutes printed); prints their ids
check() {
	local w n
	w="$(waiters "$1")"
	n=$(printf '%s\n' "$w" | grep -c . || true)
	[ "$n" -eq 8 ] || fail "$1: $n goroutines wait inside Invoke from the handler, not 8"$'\n'"$w"
	if printf '%s\n' "$w" | grep -Eq ' (running|runnable|syscall)'; then fail "$1: a waiter is not parked"$'\n'"$w"; fi
	if [ "$2" -eq 0 ]; then
		if printf '%s\n' "$w" | grep -q minutes; then fail "$1: a wait of minutes already"$'\n'"$w"; fi
	else
		[ "$(printf '%s\n' "$w" | grep -c ", $2 minutes\$")" -eq 8 ] || fail "$1: not all waits print $2 minutes"$'\n'"$w"
	fi
	echo "$1: 8 parked waiters: $(printf '%s\n' "$w" | cut -d' ' -f2- | sort | uniq -c | sed 's/^ *//' | paste -sd';')" >&2
	printf '%s\n' "$w" | cut -d' ' -f1 | sort -n | paste -sd' '
}
# check_debug1 FILE: one record of 8 goroutines with Invoke and the handler (debug=1 prints no states)
check_debug1() {
	awk -v RS= '/google\.golang\.org\/grpc\.\(\*ClientConn\)\.Invoke\+/ && /main\.\(\*gatewayServer\)\.price\+/ { print $1 }' "$1" | grep -qx 8 ||
		fail "$1: no record of 8 goroutines inside Invoke from the handler"
}

start() { # start RUN: backend, gateway, 8 workers
	"$WORK/price-gateway" backend -addr 127.0.0.1:7721 -for 3m 2>"$WORK/backend-$1.log" &
	BACKEND=$!; PIDS+=("$BACKEND")
	"$WORK/price-gateway" gateway -addr 127.0.0.1:7722 -backend 127.0.0.1:7721 -debug 127.0.0.1:7720 -for 3m 2>"$WORK/gateway-$1.log" &
	GATEWAY=$!; PIDS+=("$GATEWAY")
	wait_http "$DBG/stats"
	"$WORK/price-gateway" client -addr 127.0.0.1:7722 -workers 8 -for 3m 2>>"$WORK/client-$1.log" & PIDS+=($!)
	sleep 3
	[ "$(stat served)" -gt 0 ] || fail "the gateway served no price"
	echo "run $1: $(curl -sf "$DBG/stats")" >&2
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
served=$(stat served)
[ "$(stat inflight)" -eq 8 ] || fail "hung: $(stat inflight) calls in flight, not 8"
check_debug1 "$OUT/hung.debug1.txt"
ids=$(check "$OUT/hung.debug2.txt.gz" 0)
sleep 65
dump "$DBG" 2 "$OUT/hung-1m.debug2.txt.gz"
[ "$(stat served)" -eq "$served" ] || fail "hung-1m: the gateway served $(( $(stat served) - served )) more prices"
[ "$(stat inflight)" -eq 8 ] || fail "hung-1m: $(stat inflight) calls in flight, not 8"
[ "$(check "$OUT/hung-1m.debug2.txt.gz" 1)" = "$ids" ] || fail "hung-1m: not the waiters of the 3 s dump"
sigdump "$GATEWAY" QUIT "$WORK/gateway-a.log" "$OUT/hung-1m.sigquit.txt.gz"
[ "$(check "$OUT/hung-1m.sigquit.txt.gz" 1)" = "$ids" ] || fail "hung-1m.sigquit: not the waiters of the 3 s dump"
kill -CONT "$BACKEND" 2>/dev/null || true
for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
PIDS=()
sleep 1

# Run b
start b
sigdump "$GATEWAY" QUIT "$WORK/gateway-b.log" "$OUT/healthy.sigquit.txt.gz"
ls -la "$OUT"
