#!/usr/bin/env bash
# read-clients.sh URL PARALLEL SECONDS: bounded healthy load, PARALLEL curl loops that read every response.
url=$1 par=$2 secs=$3
end=$((SECONDS + secs))
for _ in $(seq 1 "$par"); do
	( while [ $SECONDS -lt $end ]; do curl -s -o /dev/null --max-time 5 "$url" || sleep 0.1; done ) &
done
wait
