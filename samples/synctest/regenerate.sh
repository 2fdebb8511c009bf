#!/usr/bin/env bash
# Rebuilds the testing/synctest samples with Go 1.26 (offline, -trimpath). Each case is a package
# whose test fails in a bubble; the dump is `go test`'s output exactly as printed:
#   lease-close/go1.26/bubble-deadlock.txt  `panic: deadlock: all goroutines in bubble are blocked`
#                                            (Close's send is durably blocked in the bubble)
#   replica-query/go1.26/bubble-exit.txt    `deadlock: main bubble goroutine has exited but blocked
#                                            goroutines remain` (senders left behind)
#   rate-limiter/go1.26/test-timeout.txt    two parallel tests, each in its own bubble, waiting on a
#                                            mutex: not durable, so no bubble deadlock; the tests hang
#                                            until -timeout 3s prints both bubbles
# Usage: samples/synctest/regenerate.sh
#
# testing/synctest is standard from Go 1.25 (Go 1.24 has only the experimental synctest.Run behind
# GOEXPERIMENT=synctest, another API). Go 1.26 is not Debian bookworm's Go; install it beside
# Debian's own, with nothing else upgraded:
#   echo 'deb http://deb.debian.org/debian sid main' >/etc/apt/sources.list.d/sid.list
#   printf 'Package: *\nPin: release n=sid\nPin-Priority: 40\n' >/etc/apt/preferences.d/sid
#   apt-get update && apt-get install -y -t sid golang-1.26-go golang-1.26-src
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
GO=/usr/lib/go-1.26/bin/go
if [[ ! -x "$GO" ]]; then
	echo "== skipping samples/synctest: $GO is not installed (Go 1.26, see the comment at the top of this script)" >&2
	exit 0
fi
export GOFLAGS='-mod=mod -trimpath' GOPROXY=off GOSUMDB=off GOTOOLCHAIN=local GOWORK=off
unset GOTRACEBACK GODEBUG GOMAXPROCS GOEXPERIMENT || true
log() { printf '== %s\n' "$*" >&2; }

# run CASE FILE PATTERN [go test flags...]: the test must fail and print PATTERN.
run() {
	local c="$1" f="$2" pat="$3" out="$HERE/$1/go1.26/$2" rc=0
	shift 3
	mkdir -p "$HERE/$c/go1.26"
	(cd "$HERE" && "$GO" test -count=1 "$@" "./$c/" >"$out" 2>&1) || rc=$?
	[[ $rc -ne 0 ]] || { echo "$c: the test passed" >&2; exit 1; }
	grep -q "$pat" "$out" || { echo "$c/go1.26/$f: no '$pat'" >&2; exit 1; }
	log "$c/go1.26/$f"
}

(cd "$HERE" && "$GO" vet ./...)
run lease-close bubble-deadlock.txt '^panic: deadlock: all goroutines in bubble are blocked'
run replica-query bubble-exit.txt 'deadlock: main bubble goroutine has exited but blocked goroutines remain'
run rate-limiter test-timeout.txt '^panic: test timed out after 3s' -timeout 3s
f="$HERE/rate-limiter/go1.26/test-timeout.txt"
for b in 1 2; do grep -q "sync.Mutex.Lock, synctest bubble $b\]:" "$f" || { echo "rate-limiter: no mutex wait in bubble $b" >&2; exit 1; }; done
if grep -q 'deadlock: ' "$f"; then echo "rate-limiter: a bubble deadlock was reported; the mutex wait must not be durable" >&2; exit 1; fi
log done
