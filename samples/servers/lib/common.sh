# Shared by the servers' regenerate scripts: source it. Kills what it started on exit.
LIB="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PIDS=()
WORK="$(mktemp -d)"
cleanup() { for p in "${PIDS[@]}"; do kill -CONT "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done; sleep 0.5; for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT
unset GOTRACEBACK GODEBUG GOMAXPROCS || true
# dump URLBASE DEBUG OUT: a pprof goroutine dump (debug=2 gzipped, debug=0 is already gzip)
dump() {
	case "$2" in
	2) curl -sf "$1/debug/pprof/goroutine?debug=2" | gzip -9n >"$3" ;;
	*) curl -sf "$1/debug/pprof/goroutine?debug=$2" -o "$3" ;;
	esac
}
# sigdump PID SIGNAL LOG OUT: on SIGQUIT (or SIGABRT, for a server that traps SIGQUIT) the runtime
# writes every goroutine to stderr and exits; keep the log from the signal's line on, gzipped
sigdump() {
	kill -"$2" "$1"
	for _ in $(seq 1 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
	sed -n '/^SIG[A-Z]*: /,$p' "$3" | gzip -9n >"$4"
	[ "$(zcat "$4" | grep -c '^goroutine ')" -gt 0 ] || { echo "no goroutines in $4" >&2; exit 1; }
}
wait_http() { for _ in $(seq 1 100); do curl -sf -o /dev/null "$1" && return 0; sleep 0.2; done; echo "not up: $1" >&2; exit 1; }
# file_server_scenario DEBUGURL HOST PORT SIGNAL: for a server started by the caller's `start RUN`
# (which sets SERVER and logs to $WORK/server-RUN.log) that serves small.bin and big.bin:
#   run a: healthy dumps (debug=1/0/2) under 20 reading curl loops; then raw clients that never read
#          GET big.bin, 50 -> 100 -> 200 (debug=1 each, debug=0/2 at 200), signal dump while stalled;
#   run b: a fresh server under the same load, signal dump.
file_server_scenario() {
	local dbg=$1 host=$2 port=$3 sig=$4 ext n add load
	ext=$(echo "sig$4" | tr 'A-Z' 'a-z')
	start a
	"$LIB/read-clients.sh" "http://$host:$port/small.bin" 20 8 & load=$!; PIDS+=("$load")
	sleep 4
	dump "$dbg" 1 "$OUT/healthy.debug1.txt"
	dump "$dbg" 0 "$OUT/healthy.debug0.pb.gz"
	dump "$dbg" 2 "$OUT/healthy.debug2.txt.gz"
	wait "$load"
	n=0
	for add in 50 50 100; do
		"$LIB/stall-clients.py" "$host" "$port" /big.bin $add --hold 60 & PIDS+=($!)
		n=$((n + add))
		sleep 5
		dump "$dbg" 1 "$OUT/stalled-$n.debug1.txt"
	done
	dump "$dbg" 0 "$OUT/stalled-200.debug0.pb.gz"
	dump "$dbg" 2 "$OUT/stalled-200.debug2.txt.gz"
	sigdump "$SERVER" "$sig" "$WORK/server-a.log" "$OUT/stalled-200.$ext.txt.gz"
	start b
	"$LIB/read-clients.sh" "http://$host:$port/small.bin" 20 6 & load=$!; PIDS+=("$load")
	sleep 3
	sigdump "$SERVER" "$sig" "$WORK/server-b.log" "$OUT/healthy.$ext.txt.gz"
	wait "$load" || true
}
# choose_go [GO]: GO, the Go to build with (default `go`, Debian's Go 1.19.8), and OUT, the folder of
# its dumps: $HERE/dumps for Go 1.19.8, $HERE/dumps/go<major.minor>/ for another (created).
choose_go() {
	GO="${1:-go}"
	local v
	v="$("$GO" env GOVERSION)"
	OUT="$HERE/dumps"
	[ "$v" = go1.19.8 ] || OUT="$HERE/dumps/${v%.*}"
	mkdir -p "$OUT"
}
