#!/usr/bin/env bash
# Caddy 2.6.2 (Debian caddy 2.6.2-5, built with Go 1.19) serving files on 127.0.0.1, dumped through its
# admin endpoint (127.0.0.1:2019/debug/pprof) and by SIGABRT (caddy traps SIGQUIT to quit
# without a dump). Bounded: clients hold at most 60 s,
# every process this script starts is killed on exit.
#   healthy:    20 curl loops downloading a 256 KiB file for 8 s; dumps debug=0/1/2 during the load
#   stalled-N:  N raw TCP clients GET a 64 MiB file and never read (N = 50, 100, 200: growing);
#               debug=1 each, debug=0/2 at 200, then SIGABRT while stalled
#   healthy.sigabrt: a fresh caddy under the same healthy load, SIGABRT
#   h2-stalled-N: caddy with h2c on, N curl processes (HTTP/2 prior knowledge, rate-limited) download
#               the 64 MiB file and are stopped (SIGSTOP): N = 25, 50; debug=1 each, debug=0/2 at 50
set -euo pipefail
CURLS=()
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../lib/common.sh"
OUT="$HERE/dumps"; mkdir -p "$OUT"
ADMIN=http://127.0.0.1:2019 SITE=127.0.0.1:7401
mkdir -p "$WORK/www"
head -c 262144 /dev/urandom >"$WORK/www/small.bin"
truncate -s 64M "$WORK/www/big.bin"
cat >"$WORK/Caddyfile" <<CF
{
	admin 127.0.0.1:2019
	auto_https off
}
http://$SITE {
	root * $WORK/www
	file_server
}
CF
cat >"$WORK/Caddyfile-h2c" <<CF
{
	admin 127.0.0.1:2019
	auto_https off
	servers {
		protocols h1 h2c
	}
}
http://$SITE {
	root * $WORK/www
	file_server
}
CF
start() {
	XDG_DATA_HOME="$WORK/data" XDG_CONFIG_HOME="$WORK/config" caddy run --config "$WORK/${2:-Caddyfile}" --adapter caddyfile 2>"$WORK/server-$1.log" &
	SERVER=$!; PIDS+=("$SERVER")
	wait_http "http://$SITE/small.bin"
}

file_server_scenario $ADMIN 127.0.0.1 7401 ABRT

start c Caddyfile-h2c
n=0
for add in 25 25; do
	for _ in $(seq 1 $add); do
		curl -s --http2-prior-knowledge --limit-rate 200k --max-time 90 -o /dev/null "http://$SITE/big.bin" & PIDS+=($!)
		CURLS+=($!)
	done
	sleep 2
	for p in "${CURLS[@]}"; do kill -STOP "$p"; done
	n=$((n + add))
	sleep 5
	dump $ADMIN 1 "$OUT/h2-stalled-$n.debug1.txt"
done
dump $ADMIN 0 "$OUT/h2-stalled-50.debug0.pb.gz"
dump $ADMIN 2 "$OUT/h2-stalled-50.debug2.txt.gz"
ls -la "$OUT"
