# Shared by the influxdb scripts (source after ../lib/common.sh): a 127.0.0.1-only config in $WORK and
# 100,000 points (50 hosts, 7 regions) in $WORK/points.txt.
API=http://127.0.0.1:8086
influxd config 2>/dev/null \
	| sed -e "s#/var/lib/influxdb#$WORK/influxdb#" -e 's#bind-address = ":#bind-address = "127.0.0.1:#' \
		-e 's#^  log-enabled = true#  log-enabled = false#' -e 's#query-log-enabled = true#query-log-enabled = false#' \
		-e 's#reporting-disabled = false#reporting-disabled = true#' >"$WORK/influxdb.conf"
python3 - "$WORK/points.txt" <<'PY'
import sys
with open(sys.argv[1], 'w') as f:
    for i in range(100000):
        f.write(f'cpu,host=h{i % 50},region=r{i % 7} usage={i % 100}.5,idle={(i * 7) % 100}.25 {1500000000000000000 + i * 1000000000}\n')
PY
