#!/usr/bin/env bash
# InfluxDB 1.6.7~rc0 (Debian, Go 1.19) on 127.0.0.1: clients that never read a chunked query while
# influxd is still computing it. Bounded: the clients close after 40 s, every process this script
# starts is killed on exit. Writes dumps/noread-busy.debug2.txt.gz: serveQuery handlers wait in
# `for r := range results` (handler.go:550) while the query executors that send those results are
# running or runnable — busy, not gone: no "nobody sends".
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../lib/common.sh"
OUT="$HERE/dumps"; mkdir -p "$OUT"
N="${N:-60}"
source "$HERE/setup.sh"
influxd run -config "$WORK/influxdb.conf" 2>"$WORK/influxd.log" &
INFLUXD=$!; PIDS+=("$INFLUXD")
wait_http "$API/ping"
curl -sf -XPOST "$API/query" --data-urlencode "q=CREATE DATABASE bench" >/dev/null
curl -sf -XPOST "$API/write?db=bench" --data-binary @"$WORK/points.txt"
Q="/query?db=bench&chunked=true&chunk_size=100&q=SELECT%20*%20FROM%20cpu"
"$LIB/stall-clients.py" 127.0.0.1 8086 "$Q" "$N" --hold 40 & PIDS+=($!)
sleep "${WAIT:-3}"
dump $API 2 "$OUT/noread-busy.debug2.txt.gz"
ls -la "$OUT/noread-busy.debug2.txt.gz"
