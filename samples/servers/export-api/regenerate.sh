#!/usr/bin/env bash
# Regenerates the export-api dumps: main.go (standard library only) built with Go 1.19.8
# (golang-1.19; dumps/) and Go 1.23 (golang-1.23-go from bookworm-backports; dumps/go1.23/),
# everything on 127.0.0.1, bounded (every process stops itself after 3 minutes; this script kills
# what it started on exit).
#
#   run a: the API (per-connection send buffer 16 KiB, no WriteTimeout) and 4 workers downloading
#     200,000-row exports in a loop (receive buffer 16 KiB): healthy dumps (debug=0/1/2). Then a
#     second client process of 2 workers starts downloading and is stopped (SIGSTOP) 2 s later: its 2
#     connections stay open and stop reading, and their 2 handlers block in the socket write under
#     the export's Fprintf: stalled dumps 3 s later (debug=0/1/2), and 65 s later, when the 2 writes
#     print `1 minutes` (stalled-1m debug=0/1/2, then SIGQUIT of the server); the 4 readers go on.
#   run b: a fresh server under the same healthy load: SIGQUIT.
#
# The script fails unless the stalled-1m debug=2 and SIGQUIT dumps hold exactly 2 handlers in
# `IO wait, 1 minutes` at the export's write line, and the exports go on meanwhile.
#
# ./regenerate.sh [GO]: with another Go (/usr/lib/go-1.23/bin/go), the dumps go to dumps/go<version>/.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../lib/common.sh"
choose_go "${1:-}"
(cd "$HERE" && GO111MODULE=off "$GO" build -o "$WORK/export-api" main.go)

SRV=127.0.0.1:7771 DBG=http://127.0.0.1:7770
LINE=$(grep -n 'if _, err := fmt.Fprintf(bw, ' "$HERE/main.go" | cut -d: -f1)
[ -n "$LINE" ] || { echo "no export write in main.go" >&2; exit 1; }
stat() { curl -sf "$DBG/stats" | awk -v k="$1" '{for (i = 1; i < NF; i++) if ($i == k) print $(i + 1)}'; }
fail() { echo "FAIL: $*" >&2; exit 1; }
# stuck FILE: handlers in `IO wait, 1 minutes` whose frame main.(*exporter).export is at main.go:LINE
stuck() {
	zcat "$1" | awk -v RS= -v at="export-api/main.go:$LINE " '
		{ split($0, l, "\n"); s = l[1]; sub(/^[^[]*\[/, "", s); sub(/\]:$/, "", s) }
		s == "IO wait, 1 minutes" { for (i = 2; i < length(l); i++) if (index(l[i], "main.(*exporter).export(") == 1 && index(l[i + 1] " ", at)) { n++; break } }
		END { print n + 0 }'
}

start() { # start RUN: the API and 4 reading workers
	"$WORK/export-api" server -addr $SRV -debug 127.0.0.1:7770 -sndbuf 16384 -for 3m 2>"$WORK/server-$1.log" &
	SERVER=$!; PIDS+=("$SERVER")
	wait_http "$DBG/stats"
	"$WORK/export-api" client -addr $SRV -workers 4 -rcvbuf 16384 -for 3m 2>>"$WORK/client-$1.log" & PIDS+=($!)
	sleep 3
	[ "$(stat exports)" -gt 0 ] || fail "no export finished"
}

# Run a
start a
dump "$DBG" 1 "$OUT/healthy.debug1.txt"
dump "$DBG" 0 "$OUT/healthy.debug0.pb.gz"
dump "$DBG" 2 "$OUT/healthy.debug2.txt.gz"
"$WORK/export-api" client -addr $SRV -workers 2 -rcvbuf 16384 -for 3m 2>>"$WORK/stopped.log" & STOPPED=$!; PIDS+=("$STOPPED")
sleep 2
kill -STOP "$STOPPED"
sleep 3
dump "$DBG" 1 "$OUT/stalled.debug1.txt"
dump "$DBG" 0 "$OUT/stalled.debug0.pb.gz"
dump "$DBG" 2 "$OUT/stalled.debug2.txt.gz"
sleep 65
e1=$(stat exports)
sleep 2
[ "$(stat exports)" -gt "$e1" ] || fail "the reading workers' exports stopped too"
dump "$DBG" 1 "$OUT/stalled-1m.debug1.txt"
dump "$DBG" 0 "$OUT/stalled-1m.debug0.pb.gz"
dump "$DBG" 2 "$OUT/stalled-1m.debug2.txt.gz"
[ "$(stuck "$OUT/stalled-1m.debug2.txt.gz")" = 2 ] || fail "stalled-1m: $(stuck "$OUT/stalled-1m.debug2.txt.gz") handlers in 'IO wait, 1 minutes' at main.go:$LINE, not 2"
sigdump "$SERVER" QUIT "$WORK/server-a.log" "$OUT/stalled-1m.sigquit.txt.gz"
[ "$(stuck "$OUT/stalled-1m.sigquit.txt.gz")" = 2 ] || fail "stalled-1m.sigquit: $(stuck "$OUT/stalled-1m.sigquit.txt.gz") handlers in 'IO wait, 1 minutes', not 2"
for p in "${PIDS[@]}"; do kill -CONT "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done
PIDS=()
sleep 1

# Run b
start b
sigdump "$SERVER" QUIT "$WORK/server-b.log" "$OUT/healthy.sigquit.txt.gz"
ls -la "$OUT"
