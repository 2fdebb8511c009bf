#!/usr/bin/env bash
# Regenerates the upload-api dumps: main.go (standard library only) built with Go 1.19.8 (golang-1.19;
# dumps/) and Go 1.23 (golang-1.23-go from bookworm-backports; dumps/go1.23/), everything on
# 127.0.0.1, bounded (every process stops itself after 3 minutes; this script kills what it started
# on exit).
#
#   run a: the API (an http.Server without ReadTimeout, ReadHeaderTimeout or IdleTimeout), 8 client
#     workers uploading 256 KiB blobs as fast as they can and 6 uploading 2 MiB blobs at 64 KiB/s each
#     (32 s an upload, each read of the body waiting a moment for the next 4 KiB): healthy dumps
#     (debug=0/1/2). Then the slow uploader is stopped (SIGSTOP) in the middle of its 6 uploads, and 6
#     connections that send a request line and then one header line a second are opened and stopped
#     as well: 6 handlers wait in io.ReadAll(r.Body) for the rest of their bodies, 6 connections'
#     goroutines wait in net/http's header reader for the rest of their headers. 65 s later those
#     waits print `1 minutes` (stalled-1m debug=0/1/2, then SIGQUIT of the server); the fast uploads
#     go on beside them.
#   run b: a fresh server under the same healthy load: SIGQUIT.
#   run c: the server also serving over TLS (HTTP/2; -tls), 6 slow uploaders on it (one HTTP/2
#     connection, 6 streams) beside the 8 fast HTTP/1 ones: healthy-h2 (debug=2); then the slow
#     uploader is stopped: 65 s later its 6 handlers wait on their streams' pipes (sync.Cond.Wait
#     under net/http's http2requestBody.Read) for the rest of their bodies, `1 minutes` each
#     (stalled-h2-1m debug=2, then SIGQUIT).
#
# The script fails unless the stalled debug=2 and SIGQUIT dumps hold exactly 6 handlers in IO wait
# at main.go's io.ReadAll and 6 connections in IO wait under textproto's header reader, all waiting
# `1 minutes`, the same goroutines in both (by id); and the stalled-h2 ones 6 handlers in
# `sync.Cond.Wait, 1 minutes` at the same io.ReadAll, under http2requestBody.Read.
#
# ./regenerate.sh [GO]: with another Go (/usr/lib/go-1.23/bin/go), the dumps go to dumps/go<version>/.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../lib/common.sh"
choose_go "${1:-}"
(cd "$HERE" && GO111MODULE=off "$GO" build -o "$WORK/upload-api" main.go)

SRV=127.0.0.1:7731 TLS=127.0.0.1:7732 DBG=http://127.0.0.1:7730
# the line of the handler's body read: the body readers' frame in main.(*store).upload
LINE=$(grep -n 'body, err := io.ReadAll(r.Body)' "$HERE/main.go" | cut -d: -f1)
[ -n "$LINE" ] || { echo "no body read in main.go" >&2; exit 1; }
stat() { curl -sf "$DBG/stats" | awk -v k="$1" '{for (i = 1; i < NF; i++) if ($i == k) print $(i + 1)}'; }
fail() { echo "FAIL: $*" >&2; exit 1; }

# ids FILE KIND: "ID STATE" of the body readers (body) or header readers (header) of a gzipped
# debug=2 or signal dump (Go 1.23's SIGQUIT header is `goroutine N gp=... m=... [STATE]:`)
ids() {
	zcat "$1" | awk -v RS= -v kind="$2" -v at="upload-api/main.go:$LINE " '
		kind == "body" && index($0, at) && /\nnet\/http\.\(\*body\)\.Read\(/ ||
		kind == "h2" && index($0, at) && /\nnet\/http\.\(\*http2requestBody\)\.Read\(/ ||
		kind == "header" && /\nnet\/textproto\.\(\*Reader\)\.(ReadMIMEHeader|readMIMEHeader)\(/ && /\nnet\/http\.\(\*conn\)\.serve\(/ {
			split($0, l, "\n"); s = l[1]; sub(/^[^[]*\[/, "", s); sub(/\]:$/, "", s); print $2, s }' | sort -n
}
# check FILE: 6 of each in `IO wait, 1 minutes` (the fast uploads' requests, read at that moment,
# wait no minute); prints their ids
check() {
	local k w
	for k in body header; do
		w=$(ids "$1" $k | grep 'IO wait, 1 minutes$' || true)
		[ "$(echo "$w" | grep -c .)" = 6 ] || fail "$1: $(echo "$w" | grep -c .) $k readers in 'IO wait, 1 minutes', not 6: $(ids "$1" $k)"
		echo "$w" | awk '{print $1}'
	done
}
# check1 FILE: the debug=1 records under io.ReadAll at main.go:LINE below (*body).Read count 6
check1() {
	local n
	n=$(awk -v RS= -v at="upload-api/main.go:$LINE" '/net\/http\.\(\*body\)\.Read\+/ && index($0, at) {n += $1} END {print n + 0}' "$1")
	[ "$n" -ge 6 ] || fail "$1: $n goroutines read bodies at main.go:$LINE, fewer than 6"
}

start() { # start RUN [h2]: the API, 8 fast uploaders and 6 slow ones (over TLS, HTTP/2, with h2)
	local tls=() slow=(-addr $SRV)
	[ "${2:-}" = h2 ] && tls=(-tls $TLS) && slow=(-addr $TLS -tls)
	"$WORK/upload-api" server -addr $SRV -debug 127.0.0.1:7730 "${tls[@]}" -for 3m 2>"$WORK/server-$1.log" &
	SERVER=$!; PIDS+=("$SERVER")
	wait_http "$DBG/stats"
	"$WORK/upload-api" client -addr $SRV -workers 8 -size 262144 -for 3m 2>>"$WORK/client-$1.log" & PIDS+=($!)
	"$WORK/upload-api" client "${slow[@]}" -workers 6 -size 2097152 -rate 65536 -for 3m 2>>"$WORK/slow-$1.log" &
	SLOW=$!; PIDS+=("$SLOW")
	sleep 4
	[ "$(stat stored)" -gt 0 ] || fail "the API stored nothing"
}

# Run a
start a
dump "$DBG" 1 "$OUT/healthy.debug1.txt"
dump "$DBG" 0 "$OUT/healthy.debug0.pb.gz"
dump "$DBG" 2 "$OUT/healthy.debug2.txt.gz"
kill -STOP "$SLOW"
"$WORK/upload-api" trickle -addr $SRV -conns 6 -for 3m 2>"$WORK/trickle.log" & TRICKLE=$!; PIDS+=("$TRICKLE")
sleep 2.5
kill -STOP "$TRICKLE"
sleep 65
[ "$(stat reading)" -ge 6 ] || fail "stalled-1m: $(stat reading) bodies being read, fewer than 6"
s1=$(stat stored)
sleep 1
[ "$(stat stored)" -gt "$s1" ] || fail "stalled-1m: the fast uploads stopped too"
dump "$DBG" 1 "$OUT/stalled-1m.debug1.txt"
dump "$DBG" 0 "$OUT/stalled-1m.debug0.pb.gz"
dump "$DBG" 2 "$OUT/stalled-1m.debug2.txt.gz"
check1 "$OUT/stalled-1m.debug1.txt"
want=$(check "$OUT/stalled-1m.debug2.txt.gz")
stats=$(curl -sf "$DBG/stats")
sigdump "$SERVER" QUIT "$WORK/server-a.log" "$OUT/stalled-1m.sigquit.txt.gz"
[ "$(check "$OUT/stalled-1m.sigquit.txt.gz")" = "$want" ] || fail "stalled-1m.sigquit: not the readers of the debug=2 dump"
echo "stalled: $stats"
for p in "${PIDS[@]}"; do kill -CONT "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done
PIDS=()
sleep 1

# Run b
start b
sigdump "$SERVER" QUIT "$WORK/server-b.log" "$OUT/healthy.sigquit.txt.gz"
for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
PIDS=()
sleep 1

# Run c
# h2 FILE: 6 slow HTTP/2 uploads' handlers in `sync.Cond.Wait, 1 minutes`; prints their ids
h2() {
	local w
	w=$(ids "$1" h2 | grep 'sync.Cond.Wait, 1 minutes$' || true)
	[ "$(echo "$w" | grep -c .)" = 6 ] || fail "$1: $(echo "$w" | grep -c .) HTTP/2 body readers in 'sync.Cond.Wait, 1 minutes', not 6: $(ids "$1" h2)"
	echo "$w" | awk '{print $1}'
}
start c h2
dump "$DBG" 2 "$OUT/healthy-h2.debug2.txt.gz"
[ "$(ids "$OUT/healthy-h2.debug2.txt.gz" h2 | grep -c .)" -ge 1 ] || fail "healthy-h2: no HTTP/2 upload in flight"
kill -STOP "$SLOW"
sleep 65
dump "$DBG" 2 "$OUT/stalled-h2-1m.debug2.txt.gz"
want=$(h2 "$OUT/stalled-h2-1m.debug2.txt.gz")
sigdump "$SERVER" QUIT "$WORK/server-c.log" "$OUT/stalled-h2-1m.sigquit.txt.gz"
[ "$(h2 "$OUT/stalled-h2-1m.sigquit.txt.gz")" = "$want" ] || fail "stalled-h2-1m.sigquit: not the readers of the debug=2 dump"
ls -la "$OUT"
