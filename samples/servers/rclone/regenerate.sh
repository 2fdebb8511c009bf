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
		--config /dev/null --cache-dir "$WORK/cache" 2>"$WORK/server-$1.log" &
	SERVER=$!; PIDS+=("$SERVER")
	wait_http "http://$SITE/small.bin"
}

file_server_scenario $RC 127.0.0.1 7501 QUIT
ls -la "$OUT"
