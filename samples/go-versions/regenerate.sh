#!/usr/bin/env bash
# Runs some of the sample programs of samples/ under the newer Go runtimes (Go 1.24 and 1.26 by
# default), offline and with -trimpath, and writes their dumps to samples/go-versions/<case>/<go1.N>/.
# Each dump is checked against the case's own samples/<case>/expected.json with dumpkit's checkdump,
# the same check samples/regenerate.sh does for Go 1.19: the expectations hold in every version.
#   blocked-receive, nil-channel                goroutine.debug{0,1,2} (leak programs)
#   concurrent-map-crash                       crash.txt (GOTRACEBACK=all) and crash-system.txt
#                                              (GOTRACEBACK=system: gp= m= headers, runtime frames)
#   race                                       race.txt (go build -race)
#   gotest-timeout                             gotest-timeout.txt (go test -timeout 2s; its testing.go
#                                              lines differ per version, the test's own sites do not)
# (The deadlock programs, with their test timeouts, leak-checker reports and SIGQUIT dumps, are run
# under every version by samples/deadlocks/regenerate.sh.)
# Usage: samples/go-versions/regenerate.sh            GO_VERSIONS="go1.26" samples/go-versions/regenerate.sh
#
# A version that is not installed is skipped with a line saying so. Go 1.24 and 1.26 are not Debian
# bookworm's Go; to install them beside Debian's own, with nothing else upgraded from trixie or sid:
#   echo 'deb http://deb.debian.org/debian trixie main' >/etc/apt/sources.list.d/trixie.list
#   echo 'deb http://deb.debian.org/debian sid main' >/etc/apt/sources.list.d/sid.list
#   printf 'Package: *\nPin: release n=trixie\nPin-Priority: 50\n' >/etc/apt/preferences.d/trixie
#   printf 'Package: *\nPin: release n=sid\nPin-Priority: 40\n' >/etc/apt/preferences.d/sid
#   apt-get update
#   apt-get install -y -t trixie golang-1.24-go golang-1.24-src
#   apt-get install -y -t sid golang-1.26-go golang-1.26-src
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SAMPLES="$(dirname "$HERE")"
export GOFLAGS='-mod=mod -trimpath' GOPROXY=off GOSUMDB=off GONOSUMDB='*' GOTOOLCHAIN=local GOWORK=off
unset GOTRACEBACK GODEBUG GOMAXPROCS GOEXPERIMENT || true
BIN="$(mktemp -d)"
trap 'rm -rf "$BIN"' EXIT
log() { printf '== %s\n' "$*" >&2; }

(cd "$SAMPLES/dumpkit" && go build -o "$BIN/checkdump" ./cmd/checkdump)

# check CASE FILE [trace key [skipped contains]]: FILE (under the version's folder) against
# samples/CASE/expected.json.
check() {
	"$BIN/checkdump" -expect "$SAMPLES/$1/expected.json" -file "$OUT/$1/$2" ${3:+-trace "$3"} ${4:+-skip-contains "$4"}
}

run_version() {
	local v="$1" go="/usr/lib/go-${1#go}/bin/go" c rc f
	if [[ ! -x "$go" ]]; then
		log "skipping $v: $go is not installed (see the apt steps at the top of this script)"
		return 0
	fi
	export GOCACHE="${XDG_CACHE_HOME:-$HOME/.cache}/leakscope-go-versions/$v"
	for c in blocked-receive nil-channel; do
		f="$OUT/$c/$v" && rm -rf "$f" && mkdir -p "$f"
		(cd "$SAMPLES/$c" && "$go" build -o "$BIN/$c.$v" .)
		timeout 30 "$BIN/$c.$v" -out "$f" -expect "$SAMPLES/$c/expected.json" >/dev/null
		for d in goroutine.debug0.pb.gz goroutine.debug1.txt goroutine.debug2.txt; do check "$c" "$v/$d"; done
	done

	# Go 1.24's swiss maps iterate in internal/runtime/maps.(*Iter).Next and reflect.mapIterNext:
	# the crash has no reflect.mapiternext( frame any more (docs/go-versions.md).
	local MAPITER='reflect.mapiternext('
	c=concurrent-map-crash f="$OUT/$c/$v" && rm -rf "$f" && mkdir -p "$f"
	(cd "$SAMPLES/$c" && "$go" build -o "$BIN/$c.$v" .)
	local ok=
	for _ in $(seq 20); do
		GOTRACEBACK=all timeout 30 "$BIN/$c.$v" -out "$f" >/dev/null 2>"$f/crash.txt" || true
		if grep -q 'fatal error: concurrent map iteration and map write' "$f/crash.txt" && check "$c" "$v/crash.txt" crash.txt "$MAPITER" >/dev/null 2>&1; then ok=1; break; fi
	done
	[[ -n "$ok" ]] || { echo "$c/$v/crash.txt: no checked crash after 20 tries" >&2; exit 1; }
	check "$c" "$v/crash.txt" crash.txt "$MAPITER"
	# GOTRACEBACK=system adds the runtime's goroutines and gp=/m= headers, which checkdump does not
	# parse: checked here by its markers, and by the tests (test/samples/go-versions.test.ts).
	ok=
	for _ in $(seq 20); do
		GOTRACEBACK=system timeout 30 "$BIN/$c.$v" -out "$f" >/dev/null 2>"$f/crash-system.txt" || true
		if grep -q '^fatal error: concurrent map iteration and map write' "$f/crash-system.txt" &&
			grep -q '^goroutine [0-9]* gp=0x[0-9a-f]* m=[0-9]* mp=0x[0-9a-f]* \[running\]:' "$f/crash-system.txt" &&
			grep -q 'WebSocketWriter).writeLoop' "$f/crash-system.txt"; then ok=1; break; fi
	done
	[[ -n "$ok" ]] || { echo "$c/$v/crash-system.txt: no crash with gp= m= headers after 20 tries" >&2; exit 1; }

	c=race f="$OUT/$c/$v" && rm -rf "$f" && mkdir -p "$f"
	if (cd "$SAMPLES/$c" && "$go" build -race -o "$BIN/$c.$v" .) 2>"$BIN/race.build"; then
		rc=0
		timeout 30 "$BIN/$c.$v" -out "$f" >/dev/null 2>"$f/race.txt" || rc=$?
		[[ $rc -eq 66 ]] || { echo "race/$v: exit status $rc, want 66" >&2; exit 1; }
		check race "$v/race.txt" race.txt
	else
		cat "$BIN/race.build" >&2
		log "race/$v: go build -race is not available here"
	fi

	c=gotest-timeout f="$OUT/$c/$v" && rm -rf "$f" && mkdir -p "$f"
	rc=0
	(cd "$SAMPLES/$c" && "$go" test -count=1 -timeout 2s ./... >"$f/gotest-timeout.txt" 2>&1) || rc=$?
	[[ $rc -eq 1 ]] || { echo "gotest-timeout/$v: go test exit status $rc, want 1" >&2; exit 1; }
	# (expected.json pins the testing package's own line numbers, which move between versions: the
	# test's own stuck sites are checked by test/samples/go-versions.test.ts.)
	grep -q '^panic: test timed out after 2s' "$f/gotest-timeout.txt" || { echo "gotest-timeout/$v: no test timeout" >&2; exit 1; }
	log "$v: done"
}

OUT="$HERE"
for v in ${GO_VERSIONS:-go1.24 go1.26}; do run_version "$v"; done
