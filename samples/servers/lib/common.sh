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
