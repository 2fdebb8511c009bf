#!/usr/bin/env bash
# Regenerates the rpc-inventory dumps: main.go (standard library only: net/rpc, gob over TCP) built
# with Go 1.19.8 (golang-1.19; dumps/) and Go 1.23 (golang-1.23-go from bookworm-backports;
# dumps/go1.23/), everything on 127.0.0.1, bounded (every process stops itself after 3 minutes; this
# script kills what it started on exit).
#
# The server answers Inventory.List with a page of 2048 stock records (about 250 KiB of gob) after a
# 1 s simulated query; each client process runs 20 callers on one connection (rpc.Dial), started
# spread over that second, each calling in a loop with 20 ms between calls, so nearly all 20 calls of
# a client are in flight at any time.
# The server runs with -sndbuf 65536 (SetWriteBuffer on every accepted connection: a send buffer of
# 128 KiB, as the kernel doubles it). With the kernel's default, autotuned buffers (tcp_wmem up to
# 4 MiB here) a stopped client's connection took every response in flight (measured: about 2.8 MB in
# the server's send queue, 2.3 MB in the stopped client's receive queue) and nothing blocked. The
# stopped client's receive buffer is left to the kernel (autotuned: 0.8 to 1.8 MB measured, now and
# then 3.5 MB): it takes 3 to 7 responses before the server's write blocks, leaving 12 to 16 calls
# queued; when it has grown so large that fewer than 10 are left, the script fails (run it again).
#
#   run a: the server and 3 client processes: healthy dumps (debug=1/0/2; /stats must show calls
#     served). Then one client process is stopped (SIGSTOP): its connection's socket fills; the
#     goroutine writing a response to it blocks in the socket write inside (*Server).sendResponse,
#     holding the connection's `sending` mutex, and every other goroutine answering that client's
#     calls queues for the mutex in sendResponse. debug=2 dumps are polled (bounded) until exactly 1
#     goroutine is in IO wait under sendResponse and at least 10 wait in (*Mutex).Lock under it for
#     the same mutex (sendResponse's 2nd argument), the same two polls in a row and no other goroutine
#     under sendResponse; then the stalled dumps (debug=1/0/2; retaken, bounded, until the three show
#     the same holder and queue and nothing else under sendResponse) and SIGQUIT of the server.
#   run b: a fresh server and 3 clients, all reading: SIGQUIT of the server.
#
# ./regenerate.sh [GO]: with another Go (/usr/lib/go-1.23/bin/go), the dumps go to dumps/go<version>/.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../lib/common.sh"
choose_go "${1:-}"
(cd "$HERE" && GO111MODULE=off "$GO" build -o "$WORK/rpc-inventory" main.go)

DBG=http://127.0.0.1:7690
stat() { curl -sf "$DBG/stats" | awk -v k="$1" '{for (i = 1; i < NF; i++) if ($i == k) print $(i + 1)}'; }
fail() { echo "rpc-inventory: $*" >&2; exit 1; }

# linked FILE (debug=2 or a signal dump, gzipped or not): every goroutine under
# net/rpc.(*Server).sendResponse, by the mutex it was given (its 2nd argument). Prints
# "holders=H mutex=M holderLine=L queued=Q queuedLine=L otherQueued=O otherWriting=W": H goroutines in
# IO wait under sendResponse (M, holderLine and queued for the one if H is 1), Q of them in
# sync.(*Mutex).Lock for M, O in Lock for another mutex, W under sendResponse in any other state.
linked() {
	zcat -f "$1" | awk '
	function flush() {
		if (sr) {
			if (lock) { q[mu]++; ql[mu] = line }
			else if (state ~ /^IO wait/) { nh++; hm = mu; hl = line }
			else other++
		}
		sr = 0; lock = 0; state = ""; mu = ""
	}
	/^goroutine [0-9]+ .*\[/ { flush(); state = $0; sub(/^[^[]*\[/, "", state); next }
	/^sync\.\(\*Mutex\)\.Lock\(/ { lock = 1 }
	/^net\/rpc\.\(\*Server\)\.sendResponse\(/ {
		sr = 1; s = $0; sub(/^[^(]*\(\*Server\)\.sendResponse\(/, "", s); split(s, a, ", "); mu = a[2]
		getline; line = $1; sub(/.*:/, "", line)
	}
	END {
		flush()
		printf "holders=%d", nh
		if (nh == 1) printf " mutex=%s holderLine=%s queued=%d queuedLine=%s", hm, hl, q[hm], ql[hm]
		for (m in q) if (nh != 1 || m != hm) oq += q[m]
		printf " otherQueued=%d otherWriting=%d\n", oq, other
	}'
}
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# unlinked1 FILE (debug=1): "holders=H queued=Q other=O", the goroutines of the stacks under
# sendResponse waiting in the socket write (pollDesc.waitWrite), in sync.(*Mutex).Lock, or else.
unlinked1() {
	awk '
	function flush() { if (sr) { if (lock) q += n; else if (w) h += n; else o += n } sr = 0; lock = 0; w = 0 }
	/^[0-9]+ @ / { flush(); n = $1; next }
	/^#.*net\/rpc\.\(\*Server\)\.sendResponse\+/ { sr = 1 }
	/^#.*sync\.\(\*Mutex\)\.Lock\+/ { lock = 1 }
	/^#.*internal\/poll\.\(\*pollDesc\)\.waitWrite\+/ { w = 1 }
	END { flush(); printf "holders=%d queued=%d other=%d\n", h, q, o }' "$1"
}
# unlinked0 FILE (debug=0, a gzipped profile): the same, read with `go tool pprof -traces`.
unlinked0() {
	"$GO" tool pprof -traces "$1" 2>/dev/null | awk '
	function flush() { if (sr) { if (lock) q += n; else if (w) h += n; else o += n } sr = 0; lock = 0; w = 0 }
	/^-+\+-+$/ { flush(); n = 0; next }
	/^ +[0-9]+ +[^ ]/ && n == 0 { n = $1 }
	/net\/rpc\.\(\*Server\)\.sendResponse$/ { sr = 1 }
	/sync\.\(\*Mutex\)\.Lock( \(inline\))?$/ { lock = 1 }
	/internal\/poll\.\(\*pollDesc\)\.waitWrite( \(inline\))?$/ { w = 1 }
	END { flush(); printf "holders=%d queued=%d other=%d\n", h, q, o }'
}

start() { # start RUN: the server and 3 client processes of 20 callers
	"$WORK/rpc-inventory" server -addr 127.0.0.1:7691 -debug 127.0.0.1:7690 -sndbuf 65536 -for 3m 2>"$WORK/server-$1.log" &
	SERVER=$!; PIDS+=("$SERVER")
	wait_http "$DBG/stats"
	CLIENTS=()
	for _ in 0 1 2; do
		"$WORK/rpc-inventory" client -addr 127.0.0.1:7691 -callers 20 -for 3m 2>>"$WORK/client-$1.log" &
		CLIENTS+=($!); PIDS+=($!)
	done
	sleep 4
	[ "$(stat conns)" = 3 ] || fail "the server has $(stat conns) connections, not 3"
	local s
	s=$(stat served)
	[ "$s" -gt 0 ] || fail "the server served no call"
	echo "run $1: $s calls served, pages of $(stat pagebytes) bytes"
}

# Run a
start a
dump "$DBG" 1 "$OUT/healthy.debug1.txt"
dump "$DBG" 0 "$OUT/healthy.debug0.pb.gz"
dump "$DBG" 2 "$OUT/healthy.debug2.txt.gz"
served=$(stat served)
sleep 1
[ "$(stat served)" -gt "$served" ] || fail "no call served after the healthy dumps"
kill -STOP "${CLIENTS[0]}"
sleep 2 # the stopped client's calls in flight finish their 1 s query and answer
prev=""
ok=""
for _ in $(seq 1 60); do
	dump "$DBG" 2 "$WORK/poll.debug2.txt.gz"
	got=$(linked "$WORK/poll.debug2.txt.gz")
	if [ "$(field "$got" holders)" = 1 ] && [ "$(field "$got" queued)" -ge 10 ] &&
		[ "$(field "$got" otherQueued)" = 0 ] && [ "$(field "$got" otherWriting)" = 0 ]; then
		[ "$got" = "$prev" ] && { ok=1; break; }
		prev=$got
	else
		prev=""
	fi
	sleep 0.5
done
[ -n "$ok" ] || fail "the stall did not show (last debug=2: $got)"
echo "stalled: $got"
want=$(field "$got" queued)
ok=""
for _ in $(seq 1 10); do
	dump "$DBG" 1 "$OUT/stalled.debug1.txt"
	dump "$DBG" 0 "$OUT/stalled.debug0.pb.gz"
	dump "$DBG" 2 "$OUT/stalled.debug2.txt.gz"
	d1=$(unlinked1 "$OUT/stalled.debug1.txt")
	d0=$(unlinked0 "$OUT/stalled.debug0.pb.gz")
	d2=$(linked "$OUT/stalled.debug2.txt.gz")
	echo "debug=1: $d1; debug=0: $d0; debug=2: $d2"
	[ "$d1" = "holders=1 queued=$want other=0" ] && [ "$d0" = "$d1" ] && [ "$d2" = "$got" ] && { ok=1; break; }
	sleep 1
done
[ -n "$ok" ] || fail "the stalled dumps do not agree with the stall ($got)"
sigdump "$SERVER" QUIT "$WORK/server-a.log" "$OUT/stalled.sigquit.txt.gz"
dq=$(linked "$OUT/stalled.sigquit.txt.gz")
echo "SIGQUIT: $dq"
[ "$dq" = "$got" ] || fail "the SIGQUIT dump does not show the stall ($got): $dq"
kill -CONT "${CLIENTS[0]}"
for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
PIDS=()
sleep 1

# Run b
start b
sigdump "$SERVER" QUIT "$WORK/server-b.log" "$OUT/healthy.sigquit.txt.gz"
echo "healthy SIGQUIT: $(linked "$OUT/healthy.sigquit.txt.gz")"
ls -la "$OUT"
