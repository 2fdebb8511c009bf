#!/usr/bin/env bash
# Regenerates the live-reload dumps: main.go on Debian's fsnotify 1.6.0
# (golang-github-fsnotify-fsnotify-dev 1.6.0-2, with golang-golang-x-sys-dev) built in GOPATH mode
# with Go 1.19.8 (golang-1.19; dumps/) and Go 1.23 (golang-1.23-go from bookworm-backports;
# dumps/go1.23/), everything on 127.0.0.1, bounded (the server stops itself after 3 minutes; this
# script kills what it started on exit). The site directory is a temporary one nothing changes.
#
#   run a: the server, and 4 browsers each holding one long poll open (60 s): healthy dumps
#     (debug=0/1/2; 4 watchers, each in use by its poll), then SIGQUIT.
#   run b: the server, and 4 browsers polling 5 times each, giving up on each poll after 200 ms
#     (navigating away): leaking-20 (debug=0/1/2, 20 watchers nobody closed); 10 more polls each:
#     leaking-60 (debug=0/1/2); 10 more each: leaking-100 (debug=0/1/2), then SIGQUIT. (Linux allows
#     128 inotify instances per user by default: a few more polls and NewWatcher fails.)
#
# The script fails unless each dump holds one fsnotify.(*Watcher).readEvents goroutine per watcher
# (4; 20, 60, 100) and the leaking ones no handler (every poll ended).
#
# ./regenerate.sh [GO]: with another Go (/usr/lib/go-1.23/bin/go), the dumps go to dumps/go<version>/.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../lib/common.sh"
choose_go "${1:-}"
(cd "$HERE" && GO111MODULE=off GOPATH="$WORK/gp:/usr/share/gocode" "$GO" build -o "$WORK/live-reload" main.go)
mkdir -p "$WORK/site" && echo '<h1>preview</h1>' >"$WORK/site/index.html"

SRV=127.0.0.1:7761 DBG=http://127.0.0.1:7760
stat() { curl -sf "$DBG/stats" | awk -v k="$1" '{for (i = 1; i < NF; i++) if ($i == k) print $(i + 1)}'; }
fail() { echo "FAIL: $*" >&2; exit 1; }
# count FILE FUNC: goroutines with FUNC on their stack (a debug=1 record counts its goroutines)
count() {
	case "$1" in
	*.debug1.txt) awk -v fn="$2+" '/^[0-9]+ @/ {n = $1} index($0, fn) {t += n} END {print t + 0}' "$1" ;;
	*) zcat "$1" | grep -cF "$2(" || true ;;
	esac
}
check() { # check FILE WATCHERS HANDLERS
	local w h
	w=$(count "$1" 'github.com/fsnotify/fsnotify.(*Watcher).readEvents')
	h=$(count "$1" 'main.(*site).reload')
	[ "$w" = "$2" ] && [ "$h" = "$3" ] || fail "$1: $w readEvents, $h handlers; want $2, $3"
	echo "$(basename "$1"): $w watchers, $h polls in progress"
}

start() { # start RUN: the server
	"$WORK/live-reload" server -addr $SRV -debug 127.0.0.1:7760 -dir "$WORK/site" -for 3m 2>"$WORK/server-$1.log" &
	SERVER=$!; PIDS+=("$SERVER")
	wait_http "$DBG/stats"
}

# Run a
start a
"$WORK/live-reload" client -addr $SRV -workers 4 -n 1 -wait 60s & LOAD=$!; PIDS+=("$LOAD")
for _ in $(seq 1 50); do [ "$(stat polls)" = 4 ] && break; sleep 0.1; done
sleep 0.5
dump "$DBG" 1 "$OUT/healthy.debug1.txt"
dump "$DBG" 0 "$OUT/healthy.debug0.pb.gz"
dump "$DBG" 2 "$OUT/healthy.debug2.txt.gz"
check "$OUT/healthy.debug1.txt" 4 4
check "$OUT/healthy.debug2.txt.gz" 4 4
sigdump "$SERVER" QUIT "$WORK/server-a.log" "$OUT/healthy.sigquit.txt.gz"
check "$OUT/healthy.sigquit.txt.gz" 4 4
for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
PIDS=()
sleep 1

# Run b
start b
total=0
for n in 5 10 10; do
	"$WORK/live-reload" client -addr $SRV -workers 4 -n $n -wait 200ms
	total=$((total + 4 * n))
	sleep 0.5
	[ "$(stat polls)" = "$total" ] && [ "$(stat failed)" = 0 ] || fail "$(curl -sf "$DBG/stats"), want $total polls, none failed"
	dump "$DBG" 1 "$OUT/leaking-$total.debug1.txt"
	dump "$DBG" 0 "$OUT/leaking-$total.debug0.pb.gz"
	dump "$DBG" 2 "$OUT/leaking-$total.debug2.txt.gz"
	check "$OUT/leaking-$total.debug1.txt" $total 0
	check "$OUT/leaking-$total.debug2.txt.gz" $total 0
done
sigdump "$SERVER" QUIT "$WORK/server-b.log" "$OUT/leaking-100.sigquit.txt.gz"
check "$OUT/leaking-100.sigquit.txt.gz" 100 0
ls -la "$OUT"
