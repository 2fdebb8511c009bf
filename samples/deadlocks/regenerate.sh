#!/usr/bin/env bash
# Rebuilds every dump of samples/deadlocks with Go 1.19 (`go`), Go 1.23, 1.24 and 1.26
# (/usr/lib/go-1.NN/bin/go), offline and with -trimpath (the dumps carry module-relative paths, not
# the checkout's), then checks each dump against its case's expected.json (tools/checkdumps).
# Usage: samples/deadlocks/regenerate.sh [case ...]      (~3 minutes: the 75 s timeouts run in parallel)
#        GO_VERSIONS="go1.24 go1.26" samples/deadlocks/regenerate.sh   (only these toolchains)
# A toolchain that is not installed is skipped with a line saying so, and its dumps are left as they
# are. Go 1.24 and 1.26 are Debian packages of trixie and sid; see samples/README.md ("Newer Go
# runtimes") for the apt source and low pin that install them beside Debian's own Go.
#
# Per case and toolchain, up to three dumps (the table below says which):
#   test-timeout.txt  `go test -count=1 -run '^T$' -timeout D ./case/`, stdout+stderr exactly as printed
#                     (nothing dropped: the go tool's own lines are the trailing FAIL lines).
#   leak-report.txt   `go test -count=1 -run '^T$' ./case/`: the test defers internal/leakcheck.VerifyNone,
#                     OUR goleak look-alike (see its package comment); the stacks are the runtime's.
#   sigquit.txt       the compiled test binary run with GOTRACEBACK=all -test.timeout=10m, SIGQUIT after
#                     2 s; stderr from `SIGQUIT: quit` on (the lines before it are dropped).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export GOFLAGS='-mod=mod -trimpath' GOPROXY=off GOSUMDB=off GONOSUMDB='*' GOTOOLCHAIN=local GOWORK=off
unset GOTRACEBACK GODEBUG GOMAXPROCS || true
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/leakscope-deadlocks"
# gobin VER: the toolchain of Go VER (go1.19 is Debian's default `go`).
gobin() { if [[ "$1" == go1.19 ]]; then echo /usr/bin/go; else echo "/usr/lib/go-${1#go}/bin/go"; fi; }
VERSIONS=()
for v in ${GO_VERSIONS:-go1.19 go1.23 go1.24 go1.26}; do
	if [[ -x "$(gobin "$v")" ]]; then VERSIONS+=("$v"); else printf '== skipping %s: %s is not installed (see samples/README.md, "Newer Go runtimes")\n' "$v" "$(gobin "$v")" >&2; fi
done
((${#VERSIONS[@]})) || { echo "no Go toolchain to run" >&2; exit 1; }

# The last 13 rows are the programs of an independent held-out evaluation; TestProgram runs their main.
# case                      | timeout test (duration)          | leak-report test          | sigquit test
TABLE='
ledger-transfer             TestLedgerSettles:3s               -                          TestLedgerSettles
config-reload-double-lock   TestReloadAppliesDefinitions:3s    TestReloadInBackground     -
session-evict-double-lock   TestEvictKeepsAdmins:3s            -                          TestEvictKeepsAdmins
inventory-move-abba         TestRebalanceBothWays:3s           -                          TestRebalanceBothWays
graph-link-abba             TestLinkIsSymmetric:75s            -                          -
metrics-snapshot-rlock      TestSnapshotWhileRecording:3s      TestSnapshotLeaksReader    -
dns-cache-rlock             TestResolveStale:3s                -                          TestResolveStale
search-first-result         TestSoakQueries:3s                 TestFirstAnswerWins        -
log-shipper-range           TestShipFlushesAll:3s              -                          -
rpc-timeout-abandon         TestSoakCalls:3s                   TestCallTimesOut           TestSoakCalls
event-stream-ctx            TestRunStopsEarly:3s               -                          TestRunStopsEarly
number-generator-ctx        TestSoakTake:3s                    TestTakeThree              -
job-queue-cond              TestRetryIsPickedUp:3s             -                          TestRetryIsPickedUp
startup-gate-cond           TestBootAfterOpen:3s               TestBootLeaksWaiters       -
crawler-wg-results          TestCrawlTwoPages:3s               -                          TestCrawlTwoPages
batch-upload-wg             TestUploadSkipsEmpty:3s            -                          -
errgroup-fanout             TestSumReportsShardError:3s        -                          TestSumReportsShardError
pubsub-broker-lock          TestPublishTwo:75s                 -                          -
conn-pool-reply-lock        TestAcquireDials:3s                TestAcquireWithDeadline    TestAcquireDials
worker-pool-self-enqueue    TestWalkTree:3s                    -                          TestWalkTree
service-shutdown-wg         TestShutdownReportsCounts:75s      -                          -
index-flush-cond-lock       TestFlushAfterAppend:3s            -                          TestFlushAfterAppend
metrics-aggregator-wg       TestCollectTwoSources:3s           TestCollectInBackground    -
shutdown-order-wg           TestStopAfterRequests:3s           -                          TestStopAfterRequests
metrics-fanout-stall        TestRecordReachesSinks:3s          -                          TestRecordReachesSinks
healthy-http-idle           -                                  -                          TestServeIdle
healthy-worker-pool-idle    -                                  -                          TestPoolAtRest
healthy-background-loops    -                                  -                          TestHeartbeats
healthy-pipeline-busy       -                                  -                          TestPipelineCompletes
healthy-select-server       -                                  -                          TestHubServes
seat-booking-audit          TestReserveSeat:3s                 -                          TestProgram
rail-segment-cycle          TestLoopSchedule:3s                -                          TestProgram
feature-flag-rlock          TestRolloutDefault:3s              -                          TestProgram
game-lobby-announce         TestJoinThree:3s                   -                          TestProgram
device-flash-cond           TestFlash:3s                       -                          TestProgram
thumbnail-batch-skip        TestRenderThumbnails:3s            -                          TestProgram
contact-import-abandon      TestImportRejectsBadAddress:3s     -                          TestProgram
sensor-merge-nocancel       TestSoakFirstAlarm:3s              -                          TestSoakFirstAlarm
cache-warm-lock-wait        TestWarmAll:3s                     -                          TestProgram
mail-dispatch-shutdown      TestShutdownDrains:3s              -                          TestProgram
healthy-render-pool         -                                  -                          TestProgram
healthy-metrics-ticker      -                                  -                          TestProgram
healthy-kv-http-idle        -                                  -                          TestProgram
'
# Cases whose timeout is 75 s: their dumps must show `, 1 minutes` waits.
SLOW=(graph-link-abba pubsub-broker-lock service-shutdown-wg)

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
log() { printf '== %s\n' "$*" >&2; }

# run_go VER ARGS...: the toolchain VER with its own build cache, from the module root.
run_go() {
	local v="$1"; shift
	(cd "$HERE" && GOCACHE="$CACHE/$v" "$(gobin "$v")" "$@")
}

# job KIND VER CASE TEST [DURATION]: writes CASE/VER/KIND.txt; any failure is logged into $WORK/failed.
job() {
	local kind="$1" v="$2" c="$3" t="$4" d="${5:-}" out="$HERE/$3/$2/$1.txt" rc=0
	mkdir -p "$HERE/$c/$v"
	case "$kind" in
	test-timeout)
		run_go "$v" test -count=1 -run "^$t\$" -timeout "$d" "./$c/" >"$out" 2>&1 || rc=$?
		grep -q '^panic: test timed out after' "$out" || { echo "$c/$v/$kind: no test timeout (exit $rc)" >>"$WORK/failed"; return; } ;;
	leak-report)
		run_go "$v" test -count=1 -run "^$t\$" "./$c/" >"$out" 2>&1 || rc=$?
		grep -q 'found unexpected goroutines:' "$out" || { echo "$c/$v/$kind: no leak report (exit $rc)" >>"$WORK/failed"; return; } ;;
	sigquit)
		local bin="$WORK/$c.$v.test" pid
		run_go "$v" test -c -o "$bin" "./$c/"
		(cd "$HERE/$c" && GOTRACEBACK=all exec "$bin" -test.run "^$t\$" -test.timeout 10m >/dev/null 2>"$out") &
		pid=$!
		sleep 2
		kill -QUIT "$pid"
		wait "$pid" || true
		sed -i -n '/^SIGQUIT: quit/,$p' "$out"
		[[ -s "$out" ]] || { echo "$c/$v/$kind: no SIGQUIT dump" >>"$WORK/failed"; return; } ;;
	esac
	log "$c/$v/$kind"
}
export -f job run_go log gobin
export HERE CACHE WORK

want=("$@")
jobs=()
while read -r c to lk sq; do
	[[ -z "$c" ]] && continue
	if ((${#want[@]})) && [[ ! " ${want[*]} " == *" $c "* ]]; then continue; fi
	[[ -d "$HERE/$c" ]] || { echo "unknown case $c" >&2; exit 2; }
	for v in "${VERSIONS[@]}"; do
		rm -rf "${HERE:?}/$c/$v"
		[[ "$to" != - ]] && jobs+=("test-timeout $v $c ${to%%:*} ${to##*:}")
		[[ "$lk" != - ]] && jobs+=("leak-report $v $c $lk")
		[[ "$sq" != - ]] && jobs+=("sigquit $v $c $sq")
	done
done <<<"$TABLE"

# Build caches first (one toolchain at a time), so the timed runs do not compete with compiles.
for v in "${VERSIONS[@]}"; do run_go "$v" vet ./...; run_go "$v" test -count=1 -run '^$' ./... >/dev/null; done

# Slow (75 s) jobs first, then the rest, 6 at a time: most jobs only wait.
printf '%s\n' "${jobs[@]}" | awk '/:75s|75s$/ {print; next} {rest[NR]=$0} END {for (i in rest) print rest[i]}' >"$WORK/jobs"
: >"$WORK/failed"
xargs -P 6 -L 1 bash -c 'job "$@"' _ <"$WORK/jobs"
if [[ -s "$WORK/failed" ]]; then cat "$WORK/failed" >&2; exit 1; fi

for c in "${SLOW[@]}"; do
	if ((${#want[@]})) && [[ ! " ${want[*]} " == *" $c "* ]]; then continue; fi
	for v in "${VERSIONS[@]}"; do
		f="$HERE/$c/$v/test-timeout.txt"
		[[ -f "$f" ]] || continue
		grep -q ', 1 minutes\]:' "$f" || { echo "$c/$v/test-timeout.txt: no ', 1 minutes' wait" >&2; exit 1; }
	done
done

cases=()
while read -r c _; do [[ -n "$c" ]] && { ((${#want[@]})) && [[ ! " ${want[*]} " == *" $c "* ]] && continue; cases+=("$c"); }; done <<<"$TABLE"
# expected.json lists the dumps on disk (and the states per version): rewrite it, then prove it.
node "$HERE/tools/expected.mjs"
run_go "${VERSIONS[0]}" run ./tools/checkdumps "${cases[@]}"
log "done"
