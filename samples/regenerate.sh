#!/usr/bin/env bash
# Rebuilds every sample program with the installed Go toolchain (offline, -trimpath: the dumps carry
# module-relative paths, not the path of this checkout) and
# rewrites its dumps. Usage: samples/regenerate.sh [case ...]
# Each program verifies its own dumps against its expected.json before writing
# them; this script then re-checks every written file with dumpkit/cmd/checkdump.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export GOFLAGS='-mod=mod -trimpath' GOPROXY=off GOSUMDB=off GONOSUMDB='*' GOTOOLCHAIN=local GOWORK=off
export GOCACHE="${GOCACHE:-$(go env GOCACHE)}"
unset GOTRACEBACK GODEBUG GOMAXPROCS || true

ALL_CASES=(
	apiproxy-leak apiproxy-leak-renamed apiproxy-fixed concurrent-map-crash watch-storm
	healthy-server blocked-receive nil-channel lock-inversion connection-leak
	unstopped-tickers waitgroup-leak race gotest-timeout
	soak-leak soak-healthy lock-pileup busy-client second-leak
)
# Cases whose goroutines must wait real minutes (wait times print only after a minute): built and
# started in the background before the others, checked at the end.
SLOW_CASES=(hung-sessions)

BIN="$(mktemp -d)"
trap 'rm -rf "$BIN"' EXIT

log() { printf '== %s\n' "$*" >&2; }

(cd "$HERE/dumpkit" && go build -o "$BIN/checkdump" ./cmd/checkdump)

# build CASE [go build flags...]
build() {
	local c="$1"; shift
	(cd "$HERE/$c" && go build "$@" -o "$BIN/$c" .)
}

# check CASE FILE [traces key]
check() {
	local c="$1" f="$2" t="${3:-}"
	if [[ -n "$t" ]]; then
		"$BIN/checkdump" -expect "$HERE/$c/expected.json" -file "$HERE/$c/$f" -trace "$t"
	else
		"$BIN/checkdump" -expect "$HERE/$c/expected.json" -file "$HERE/$c/$f"
	fi
}

# dump CASE [program flags...]: the program writes goroutine.debug{0,1,2}.
dump() { dump_within 30 "$@"; }

# dump_within SECONDS CASE [program flags...]
dump_within() {
	local t="$1" c="$2"; shift 2
	rm -f "$HERE/$c"/goroutine.debug0.pb.gz "$HERE/$c"/goroutine.debug1.txt "$HERE/$c"/goroutine.debug2.txt
	timeout "$t" "$BIN/$c" -out "$HERE/$c" "$@"
	for f in goroutine.debug0.pb.gz goroutine.debug1.txt goroutine.debug2.txt; do
		[[ -s "$HERE/$c/$f" ]] || { echo "missing $c/$f" >&2; exit 1; }
		check "$c" "$f"
	done
}

# sigquit CASE FILE GOTRACEBACK: run in -mode wait, SIGQUIT after READY, keep stderr.
sigquit() {
	local c="$1" f="$2" tb="$3" out="$HERE/$1/$2" ready="$BIN/$1.ready" pid i
	: >"$ready"
	GOTRACEBACK="$tb" "$BIN/$c" -out "$HERE/$c" -mode wait >"$ready" 2>"$out" &
	pid=$!
	for i in $(seq 300); do
		grep -q READY "$ready" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	grep -q READY "$ready" || { echo "$c: never READY" >&2; kill "$pid" 2>/dev/null || true; exit 1; }
	kill -QUIT "$pid"
	wait "$pid" || true
	# drop the program's own progress lines printed before the trace
	sed -i -n '/^SIGQUIT: quit/,$p' "$out"
	check "$c" "$f" "$f"
}

# crash CASE FILE PATTERN TRIES [program flags...]: rerun with GOTRACEBACK=all
# until stderr contains PATTERN and the trace matches expected.json.
crash() {
	local c="$1" f="$2" pat="$3" tries="$4" out="$HERE/$1/$2" i
	shift 4
	for ((i = 1; i <= tries; i++)); do
		GOTRACEBACK=all timeout 30 "$BIN/$c" -out "$HERE/$c" "$@" >/dev/null 2>"$out" || true
		if grep -q "$pat" "$out" && check "$c" "$f" "$f" >/dev/null 2>&1; then
			log "$c: got '$pat' on try $i"
			check "$c" "$f" "$f"
			return 0
		fi
	done
	echo "$c: no '$pat' after $tries tries" >&2
	exit 1
}

case_apiproxy-leak() {
	build apiproxy-leak
	dump apiproxy-leak
	sigquit apiproxy-leak goroutine-sigquit.txt all
}

case_apiproxy-fixed() {
	build apiproxy-fixed
	dump apiproxy-fixed
}

case_apiproxy-leak-renamed() {
	build apiproxy-leak-renamed -trimpath
	dump apiproxy-leak-renamed
}

case_concurrent-map-crash() {
	build concurrent-map-crash
	crash concurrent-map-crash crash.txt 'fatal error: concurrent map iteration and map write' 20
}

case_healthy-server() {
	build healthy-server
	dump healthy-server
}

case_watch-storm() {
	build watch-storm
	dump watch-storm
}

case_blocked-receive() {
	build blocked-receive
	dump blocked-receive
}

case_nil-channel() {
	build nil-channel
	dump nil-channel
}

case_lock-inversion() {
	build lock-inversion
	dump lock-inversion
	crash lock-inversion deadlock.txt 'fatal error: all goroutines are asleep - deadlock!' 3 -global-deadlock
}

case_connection-leak() {
	build connection-leak
	dump connection-leak
}

case_unstopped-tickers() {
	build unstopped-tickers
	dump unstopped-tickers
}

case_waitgroup-leak() {
	build waitgroup-leak
	dump waitgroup-leak
}

case_race() {
	local c=race rc=0
	if ! build race -race 2>"$BIN/race.build"; then
		cat "$BIN/race.build" >&2
		log "race: go build -race is not available here; race.txt left as is"
		return 0
	fi
	timeout 30 "$BIN/race" -out "$HERE/$c" >/dev/null 2>"$HERE/$c/race.txt" || rc=$?
	[[ $rc -eq 66 ]] || { echo "race: exit status $rc, want 66" >&2; exit 1; }
	check race race.txt race.txt
}

case_gotest-timeout() {
	local d="$HERE/gotest-timeout" rc=0
	(cd "$d" && go test -count=1 -timeout 2s ./... >"$d/gotest-timeout.txt" 2>&1) || rc=$?
	[[ $rc -eq 1 ]] || { echo "gotest-timeout: go test exit status $rc, want 1" >&2; exit 1; }
	rc=0
	(cd "$d" && go test -count=1 -json -timeout 2s ./... >"$d/gotest-timeout.jsonl" 2>&1) || rc=$?
	[[ $rc -eq 1 ]] || { echo "gotest-timeout: go test -json exit status $rc, want 1" >&2; exit 1; }
	check gotest-timeout gotest-timeout.txt gotest-timeout.txt
	check gotest-timeout gotest-timeout.jsonl gotest-timeout.jsonl
}

# soak CASE: the program runs its service under load for ~10 s and writes
# series/ and expected.json (counts of this run); then re-check every snapshot.
soak() {
	local c="$1"
	build "$c"
	timeout 60 "$BIN/$c" -out "$HERE/$c"
	"$BIN/$c" -out "$HERE/$c" -verify
}

case_lock-pileup() {
	build lock-pileup
	dump lock-pileup
}

case_busy-client() {
	build busy-client
	dump busy-client
}

case_second-leak() {
	build second-leak
	dump second-leak
}

# ~3.2 min: the pools wait 3 minutes, the sessions 2 (see hung-sessions/main.go).
case_hung-sessions() {
	build hung-sessions
	dump_within 300 hung-sessions
}

case_soak-leak() { soak soak-leak; }

case_soak-healthy() { soak soak-healthy; }

# Optional, not in ALL_CASES (takes minutes): samples/regenerate.sh deadlocks
case_deadlocks() { "$HERE/deadlocks/regenerate.sh"; }

run_case() {
	local c="$1"
	[[ -d "$HERE/$c" ]] || { echo "unknown case $c" >&2; exit 2; }
	log "$c"
	"case_$c"
}

is_slow() {
	local s
	for s in "${SLOW_CASES[@]}"; do [[ "$s" == "$1" ]] && return 0; done
	return 1
}

CASES=("$@")
[[ $# -gt 0 ]] || CASES=("${ALL_CASES[@]}" "${SLOW_CASES[@]}")
SLOW_PIDS=()
for c in "${CASES[@]}"; do
	is_slow "$c" || continue
	log "$c (in the background)"
	(run_case "$c") >"$BIN/$c.log" 2>&1 &
	SLOW_PIDS+=("$!:$c")
done
for c in "${CASES[@]}"; do is_slow "$c" || run_case "$c"; done
for p in "${SLOW_PIDS[@]}"; do
	rc=0
	wait "${p%%:*}" || rc=$?
	cat "$BIN/${p#*:}.log" >&2
	[[ $rc -eq 0 ]] || { echo "${p#*:}: failed (exit status $rc)" >&2; exit 1; }
done
# The go tool pprof listings are made from the debug=0 profiles just written: rewrite them too.
log "pprof-listings"
"$HERE/pprof-listings/regenerate.sh"
log "done"
