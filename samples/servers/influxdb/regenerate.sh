#!/usr/bin/env bash
# InfluxDB 1.6.7~rc0 (Debian influxdb 1.6.7~rc0-1+b13, Go 1.19) on 127.0.0.1, dumped through its own
# /debug/pprof (HTTP API, 127.0.0.1:8086) and by SIGQUIT. Bounded: clients hold at most 60 s, every
# process this script starts is killed on exit.
#   healthy:    4 writers and 8 readers (curl loops) for 8 s; dumps debug=0/1/2 during the load
#   healthy-after-load.sigquit: the same influxd by SIGQUIT once the load has ended
# (No stalled-peer case: 20 to 100 raw clients that never read a chunked 100,000-point query kept
# influxd computing, not writing, for the seconds this machine allowed; see notes.)
#   healthy.sigquit: a fresh influxd under the same healthy load, SIGQUIT
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../lib/common.sh"
OUT="$HERE/dumps"; mkdir -p "$OUT"
source "$HERE/setup.sh"
start() {
	influxd run -config "$WORK/influxdb.conf" 2>"$WORK/influxd-$1.log" &
	INFLUXD=$!; PIDS+=("$INFLUXD")
	wait_http "$API/ping"
	curl -sf -XPOST "$API/query" --data-urlencode "q=CREATE DATABASE bench" >/dev/null
	[ "$1" = a ] && curl -sf -XPOST "$API/write?db=bench" --data-binary @"$WORK/points.txt"
	return 0
}
load() { # load SECONDS: writers and readers, each response read in full
	local end=$((SECONDS + $1))
	for w in 1 2 3 4; do ( i=0; while [ $SECONDS -lt $end ]; do i=$((i + 1)); curl -s -o /dev/null -XPOST "$API/write?db=bench" --data-binary "load,w=$w v=$i"; done ) & done
	for r in 1 2 3 4 5 6 7 8; do ( while [ $SECONDS -lt $end ]; do curl -s -o /dev/null -G "$API/query" --data-urlencode db=bench --data-urlencode "q=SELECT mean(usage) FROM cpu GROUP BY host"; done ) & done
	wait
}

start a
load 8 & LOAD=$!; PIDS+=("$LOAD")
sleep 4
dump $API 1 "$OUT/healthy.debug1.txt"
dump $API 0 "$OUT/healthy.debug0.pb.gz"
dump $API 2 "$OUT/healthy.debug2.txt.gz"
wait "$LOAD"
sigdump "$INFLUXD" QUIT "$WORK/influxd-a.log" "$OUT/healthy-after-load.sigquit.txt.gz"

start b
load 6 & LOAD=$!; PIDS+=("$LOAD")
sleep 3
sigdump "$INFLUXD" QUIT "$WORK/influxd-b.log" "$OUT/healthy.sigquit.txt.gz"
wait "$LOAD" || true
ls -la "$OUT"
