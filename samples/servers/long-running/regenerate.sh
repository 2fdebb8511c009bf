#!/usr/bin/env bash
# Signal dumps of long-running servers: caddy 2.6.2, rclone 1.60.1 (serve http), influxdb 1.6.7~rc0
# (Debian packages, Go 1.19) and grpc-feed (../grpc-feed, Debian grpc-go 1.33.3) with 2 x 25 streaming
# clients run side by side on 127.0.0.1 for UPTIME seconds (default 200) under light load (a request
# every second), so that their accept loops, listeners, signal and shutdown waiters have waited
# minutes (the runtime prints wait times from one minute on, stamped at garbage collection: forced
# every two minutes). Then each is dumped by signal (caddy by SIGABRT: it traps SIGQUIT). Bounded: every
# process this script starts is killed on exit.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../lib/common.sh"
OUT="$HERE/dumps"; mkdir -p "$OUT"
UPTIME=${UPTIME:-200}
mkdir -p "$WORK/www"; head -c 65536 /dev/urandom >"$WORK/www/small.bin"
(cd "$HERE/../grpc-feed" && GO111MODULE=off GOPATH="$WORK/gp:/usr/share/gocode" go build -o "$WORK/grpc-feed" main.go)
cat >"$WORK/Caddyfile" <<CF
{
	admin 127.0.0.1:2019
	auto_https off
}
http://127.0.0.1:7401 {
	root * $WORK/www
	file_server
}
CF
influxd config 2>/dev/null \
	| sed -e "s#/var/lib/influxdb#$WORK/influxdb#" -e 's#bind-address = ":#bind-address = "127.0.0.1:#' \
		-e 's#^  log-enabled = true#  log-enabled = false#' -e 's#query-log-enabled = true#query-log-enabled = false#' \
		-e 's#reporting-disabled = false#reporting-disabled = true#' >"$WORK/influxdb.conf"

XDG_DATA_HOME="$WORK/data" XDG_CONFIG_HOME="$WORK/config" caddy run --config "$WORK/Caddyfile" --adapter caddyfile 2>"$WORK/caddy.log" & CADDY=$!; PIDS+=($!)
rclone serve http "$WORK/www" --addr 127.0.0.1:7501 --rc --rc-addr 127.0.0.1:5572 --rc-no-auth --config /dev/null --cache-dir "$WORK/cache" 2>"$WORK/rclone.log" & RCLONE=$!; PIDS+=($!)
influxd run -config "$WORK/influxdb.conf" 2>"$WORK/influxd.log" & INFLUXD=$!; PIDS+=($!)
"$WORK/grpc-feed" server -addr 127.0.0.1:7301 -debug 127.0.0.1:7300 -size 1024 -rate 5 -for $((UPTIME + 60))s 2>"$WORK/grpc-server.log" & GRPC=$!; PIDS+=($!)
wait_http http://127.0.0.1:7401/small.bin; wait_http http://127.0.0.1:7501/small.bin; wait_http http://127.0.0.1:8086/ping; wait_http http://127.0.0.1:7300/stats
"$WORK/grpc-feed" client -addr 127.0.0.1:7301 -debug 127.0.0.1:7310 -conns 25 -for $((UPTIME + 60))s 2>"$WORK/grpc-client.log" & GCLIENT=$!; PIDS+=($!)
"$WORK/grpc-feed" client -addr 127.0.0.1:7301 -debug 127.0.0.1:7311 -conns 25 -for $((UPTIME + 60))s 2>"$WORK/grpc-client2.log" & PIDS+=($!)
curl -sf -XPOST http://127.0.0.1:8086/query --data-urlencode "q=CREATE DATABASE bench" >/dev/null
end=$((SECONDS + UPTIME)); i=0
while [ $SECONDS -lt $end ]; do
	i=$((i + 1))
	curl -s -o /dev/null http://127.0.0.1:7401/small.bin; curl -s -o /dev/null http://127.0.0.1:7501/small.bin
	curl -s -o /dev/null -XPOST "http://127.0.0.1:8086/write?db=bench" --data-binary "load v=$i"
	curl -s -o /dev/null -G http://127.0.0.1:8086/query --data-urlencode db=bench --data-urlencode "q=SELECT count(v) FROM load"
	sleep 1
done
sigdump "$CADDY" ABRT "$WORK/caddy.log" "$OUT/caddy.sigabrt.txt.gz"
sigdump "$RCLONE" QUIT "$WORK/rclone.log" "$OUT/rclone.sigquit.txt.gz"
sigdump "$INFLUXD" QUIT "$WORK/influxd.log" "$OUT/influxdb.sigquit.txt.gz"
sigdump "$GRPC" QUIT "$WORK/grpc-server.log" "$OUT/grpc-feed-server.sigquit.txt.gz"
sigdump "$GCLIENT" QUIT "$WORK/grpc-client.log" "$OUT/grpc-feed-client.sigquit.txt.gz"
ls -la "$OUT"
