#!/usr/bin/env bash
# rclone 1.60.1 (Debian rclone 1.60.1+dfsg-2+b5, Go 1.19) `serve http` of a local directory on
# 127.0.0.1, dumped through its remote-control server (--rc, 127.0.0.1:5572/debug/pprof) and by
# SIGQUIT. Bounded: clients hold at most 60 s, every process this script starts is killed on exit.
#   healthy:    20 curl loops downloading a 256 KiB file for 8 s; dumps debug=0/1/2 during the load
#   stalled-N:  N raw TCP clients GET a 64 MiB file and never read (N = 50, 100, 200: growing);
#               debug=1 each, debug=0/2 at 200, then SIGQUIT while stalled
#   healthy.sigquit: a fresh rclone under the same healthy load, SIGQUIT
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../lib/common.sh"
OUT="$HERE/dumps"; mkdir -p "$OUT"
RC=http://127.0.0.1:5572 SITE=127.0.0.1:7501
mkdir -p "$WORK/www"
head -c 262144 /dev/urandom >"$WORK/www/small.bin"
head -c 67108864 /dev/urandom >"$WORK/www/big.bin"
start() {
	rclone serve http "$WORK/www" --addr $SITE --rc --rc-addr 127.0.0.1:5572 --rc-no-auth \
		--config /dev/null --cache-dir "$WORK/cache" 2>"$WORK/rclone-$1.log" &
	RCLONE=$!; PIDS+=("$RCLONE")
	wait_http "http://$SITE/small.bin"
}

start a
"$LIB/read-clients.sh" "http://$SITE/small.bin" 20 8 & LOAD=$!; PIDS+=("$LOAD")
sleep 4
dump $RC 1 "$OUT/healthy.debug1.txt"
dump $RC 0 "$OUT/healthy.debug0.pb.gz"
dump $RC 2 "$OUT/healthy.debug2.txt.gz"
wait "$LOAD"
n=0
for add in 50 50 100; do
	"$LIB/stall-clients.py" 127.0.0.1 7501 /big.bin $add --hold 60 & PIDS+=($!)
	n=$((n + add))
	sleep 5
	dump $RC 1 "$OUT/stalled-$n.debug1.txt"
done
dump $RC 0 "$OUT/stalled-200.debug0.pb.gz"
dump $RC 2 "$OUT/stalled-200.debug2.txt.gz"
sigdump "$RCLONE" QUIT "$WORK/rclone-a.log" "$OUT/stalled-200.sigquit.txt.gz"

start b
"$LIB/read-clients.sh" "http://$SITE/small.bin" 20 6 & LOAD=$!; PIDS+=("$LOAD")
sleep 3
sigdump "$RCLONE" QUIT "$WORK/rclone-b.log" "$OUT/healthy.sigquit.txt.gz"
wait "$LOAD" || true
ls -la "$OUT"
