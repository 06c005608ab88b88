#!/bin/bash
# End to end on this host, no VM: hvtrace record --listen, hvtrace agent
# --connect and the demo application talk through real sockets and memfds.
# There is no guest module here, so the agent records user space only:
# first on CLOCK_MONOTONIC_RAW (HVTRACE_CLOCK), which cannot be aligned;
# then, where the kernel keeps the TSC as its clocksource, on the TSC read
# without the module's page, which the agent sends as its guest TSC and the
# exchanges align. Then the collector is killed with SIGKILL in the middle
# of a third recording: what it wrote must still merge.
set -uo pipefail
build=${1:?usage: host_link.sh BUILD}
hvtrace=$(realpath "$build/hvtrace")
hvdemo=$(realpath "$build/hvdemo")
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d /tmp/hvtrace-e2e-host-XXXXXX)
trap 'stop_all; rm -rf "$work"' EXIT

# refused NAME PATTERN ARGS...: hvtrace record ARGS fails, says PATTERN and
# leaves no archive at a new -o path (with $out_dir set, -o is that instead).
refused() {
	local name=$1 pattern=$2 out=$work/refused-$((++refusals))
	shift 2
	"$hvtrace" record --no-host-trace --guest-timeout 2 -o "${out_dir:-$out}" "$@" \
		> "$work/refused.out" 2>&1
	local status=$?
	check "$name: refused (status $status)" test "$status" -ne 0
	check "$name: says '$pattern'" grep -q -- "$pattern" "$work/refused.out"
	[ -n "${out_dir:-}" ] || check "$name: leaves no archive" test ! -e "$out"
}
refusals=0

# 1. A whole recording.
start_link "$work" a1
HVTRACE_AGENT_SOCKET=$work/a1-agent.sock HVTRACE_CLOCK=monotonic_raw \
	start_bg app "$hvdemo" 40 1000 > "$work/app.out"
reap "$app" 60
check "application ran" grep -q "40 rounds done" "$work/app.out"
kill -TERM "$agent"
reap "$agent" 10
check "agent exits cleanly" test $? -eq 0
reap "$rec" 20
check "collector exits cleanly after the guest finished" test $? -eq 0
check "archive complete" grep -q '"status": "complete"' "$work/a1/hvtrace.json"

# Without the module the events are on CLOCK_MONOTONIC_RAW: recorded, but
# merge cannot align them and says so. babeltrace2 counts them.
"$hvtrace" merge "$work/a1" > "$work/a1.txt" 2> "$work/a1.err"
check "merge succeeds" test $? -eq 0
check "merge says the unaligned trace is skipped" grep -q "cannot be aligned" "$work/a1.err"
babeltrace2 "$work/a1/vm/local" > "$work/a1.bt" 2>&1
# 40 rounds: a send from each thread and a round_trip, plus begin and end
bt=$(grep -c "hvdemo:" "$work/a1.bt")
check "every user event arrives (got $bt of 122)" test "$bt" -eq 122
check "phase end recovered from the unflushed packet" grep -q 'hvdemo:phase.*name = "end"' "$work/a1.bt"
# The one check that must fail is layers-present: merge skips the unaligned
# trace, so the timeline holds no layer. Any other FAIL is a failure here.
"$hvtrace" check "$work/a1" > "$work/a1.check" 2>&1
status=$?
check "hvtrace check exits 1 (status $status)" test "$status" -eq 1
fails=$(grep '^FAIL' "$work/a1.check" | cut -d: -f1)
check "hvtrace check fails layers-present only (${fails//$'\n'/, })" \
	test "$fails" = "FAIL layers-present"
check "hvtrace check: streams decode, exchanges causal" \
	bash -c "grep -q 'PASS stream-decodes' '$work/a1.check' && grep -q 'PASS sync-causal' '$work/a1.check'"
[ "$fails" = "FAIL layers-present" ] || cat "$work/a1.check"

# 1b. The TSC without the module's page (HVT_CLOCK_TSC): the agent sends the
# trace as its guest TSC, the exchanges align it, every check passes.
if grep -qx tsc /sys/devices/system/clocksource/clocksource0/current_clocksource; then
	start_link "$work" a1b
	HVTRACE_AGENT_SOCKET=$work/a1b-agent.sock start_bg app "$hvdemo" 40 1000 \
		> "$work/app-b.out"
	reap "$app" 60
	kill -TERM "$agent"
	reap "$agent" 10
	reap "$rec" 20
	check "TSC: the trace is on the guest TSC" \
		grep -q '"domain": "guest_tsc"' "$work/a1b/vm/local/info.json"
	n=$("$hvtrace" merge "$work/a1b" 2> "$work/a1b.err" | grep -c " user .*hvdemo:")
	check "TSC: merge aligns every user event ($n of 122)" test "$n" -eq 122
	"$hvtrace" check "$work/a1b" > "$work/a1b.check" 2>&1
	check "TSC: hvtrace check passes (status $?)" test $? -eq 0
else
	echo "skipped 1b: the kernel's clocksource is not the TSC here"
fi

# 2. The collector dies mid-recording: the archive keeps what was written.
start_link "$work" a2
start_bg app2 env HVTRACE_AGENT_SOCKET="$work/a2-agent.sock" HVTRACE_SUBBUF_SIZE=4096 \
	"$hvdemo" 100000 100
check "20 KB of user streams written before the kill" \
	wait_for 20 bash -c "[ \$(cat $work/a2/vm/local/user-*/stream-* 2>/dev/null | wc -c) -gt 20000 ]"
kill -KILL "$rec"
reap "$rec" 10
check "the collector died of SIGKILL" test $? -eq $((128 + 9))
check "archive says it was still recording" grep -q '"status": "recording"' "$work/a2/hvtrace.json"
"$hvtrace" merge "$work/a2" > "$work/a2.txt" 2> "$work/a2.err"
check "a killed recording still merges" test $? -eq 0
n=$(babeltrace2 "$work/a2/vm/local" 2>/dev/null | grep -c "hvdemo:")
check "and holds the events written before the kill ($n)" test "$n" -gt 100
check "the agent notices the collector is gone" wait_for 10 has_exited "$agent"
kill -TERM "$app2" 2>/dev/null

# 3. What the options name is checked before the archive exists: a wrong
# one is said, and leaves no directory behind.
# A second collector on a waiting collector's socket, or on its archive, is
# refused and leaves both as they are.
start_bg rec0 "$hvtrace" record --listen "unix:$work/live.sock" --no-host-trace -o "$work/live" \
	--guest-timeout 60
check "a collector waits for its guest" wait_for 10 test -S "$work/live.sock"
refused "a --listen socket another collector listens on" "another process listens there" \
	--listen "unix:$work/live.sock"
out_dir=$work/live refused "an -o that exists, even with --listen on a live socket" \
	"already exists" --listen "unix:$work/live.sock"
check "the waiting collector's socket is still there" test -S "$work/live.sock"
kill -TERM "$rec0"
reap "$rec0" 10 > /dev/null
check "and its archive completes" grep -q '"status": "complete"' "$work/live/hvtrace.json"
refused "a malformed --channel" "--channel" --channel nowhere:1
refused "a --listen that cannot bind" "$work/no-dir/s" --listen "unix:$work/no-dir/s"
refused "a --qemu-pid that does not run" "--qemu-pid 2147483646: no such process" \
	--channel "unix:$work/c" --qemu-pid 2147483646
refused "a --qmp nobody answers" "--qmp unix:$work/no-qmp" --channel "unix:$work/c" \
	--qemu-pid $$ --qmp "unix:$work/no-qmp"

summary "host link"
