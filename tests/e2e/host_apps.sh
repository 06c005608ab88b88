#!/bin/bash
# The host's own applications (hvtrace record --host-apps): a program linked
# with libhvtrace on the host reads the TSC itself (the kernel's clocksource
# here), and the collector's host agent takes its buffers into the archive
# (host/apps). The program starts before the recording: its watcher connects
# it when the socket appears. Its events must land on the host timeline
# exactly: each between its own thread's sched_switch in and out on its CPU,
# in the host layer the same recording made. A program that is not the
# VMM has its threads followed by the host layer once it is traced. Then a
# socket another process listens on: a warning, and the recording goes on
# without host applications.
set -uo pipefail
build=${1:?usage: host_apps.sh BUILD}
hvtrace=$(realpath "$build/hvtrace")
hvdemo=$(realpath "$build/hvdemo")
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "host apps: skipped: recording the host layer needs root"
	exit 0
fi
if ! grep -qx tsc /sys/devices/system/clocksource/clocksource0/current_clocksource; then
	echo "host apps: skipped: the kernel's clocksource is not the TSC, libhvtrace" \
		"stays on CLOCK_MONOTONIC_RAW"
	exit 0
fi
work=$(mktemp -d /tmp/hvtrace-e2e-apps-XXXXXX)
trap 'stop_all; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

# 1. A recording with the program as its --qemu-pid: the host layer follows
# its threads, and it ends when the program exits.
HVTRACE_AGENT_SOCKET=$work/apps.sock start_bg app "$hvdemo" 600 5000 > "$work/app.out"
start_bg rec "$hvtrace" record --qemu-pid "$app" --host-apps "$work/apps.sock" -o "$work/a" \
	> "$work/rec.out" 2> "$work/rec.err"
check "the host agent serves the program's socket" wait_for 10 test -S "$work/apps.sock"
hostagent=$(pgrep -f -- "[-]-host --link-fd 3 --socket $work/apps.sock")
check "the host agent is the collector's child ($hostagent)" \
	test -n "$hostagent" -a "$(ps -o ppid= -p "${hostagent:-0}" | tr -d ' ')" = "$rec"
check "... and holds none of the collector's tracefs files" \
	bash -c "! ls -l /proc/${hostagent:-0}/fd 2> /dev/null | grep -q tracing"
# both drain ahead of the program (lib/priority.h), at record's default
# --nice where they may (as this shell may), the program as started
base=$(nice)
want=$base
if [ "$base" -gt -10 ] && [ -z "$(nice -n -1 true 2>&1)" ]; then want=-10; fi
check "the collector runs at nice $want, ahead of the program it records" \
	test "$(ps -o ni= -p "$rec" | tr -d ' ')" = "$want"
check "... and so does its host agent" test "$(ps -o ni= -p "${hostagent:-0}" | tr -d ' ')" = "$want"
check "... the program as it was started ($base)" test "$(ps -o ni= -p "$app" | tr -d ' ')" = "$base"
reap "$app" 60
check "the program ran" grep -q "600 rounds done" "$work/app.out"
reap "$rec" 60
check "the collector exits cleanly when the program exits (status $?)" test $? -eq 0
check "its host agent is gone with it" \
	bash -c "! pgrep -f -- '[-]-host --link-fd 3 --socket $work/apps.sock' > /dev/null"
check "the socket is removed" test ! -e "$work/apps.sock"
check "the manifest names host/apps" grep -q '"dir": "host/apps"' "$work/a/hvtrace.json"
check "the trace is on the host TSC" grep -q '"domain": "host_tsc"' "$work/a/host/apps/info.json"
check "the summary counts the host applications' streams" \
	grep -Eq "^    user   [1-9][0-9]* streams" "$work/rec.out"

"$hvtrace" merge --time=host-tsc "$work/a" > "$work/merged.txt" 2> "$work/merge.err"
check "merge succeeds" test $? -eq 0
check "merge warns of nothing" bash -c "! grep -q 'warning:' '$work/merge.err'"
grep 'warning:' "$work/merge.err"
n=$(grep -c '^ *[0-9]* user   -  .*hvdemo:' "$work/merged.txt")
check "the program's events are on the timeline, layer user, no VM ($n)" test "$n" -gt 500
bt=$(babeltrace2 "$work/a/host/apps" 2> /dev/null | grep -c "hvdemo:")
check "babeltrace2 reads host/apps and counts the same ($bt)" test "$bt" -eq "$n"

# Each user event inside a run of its thread, on its CPU. The host layer
# records every switch of the program's threads out, but not every switch
# in (ftrace's pid filter misses some from the idle task), so a run is
# judged by what ends and starts it: a thread that switched out asleep
# cannot stamp an event until it is woken (or switched in), and the
# thread's next switch out after an event is on the event's CPU. Events of
# a thread before its first switch cannot be judged.
awk '
$2 == "host" && ($6 == "sched_switch" || $6 == "sched_wakeup") {
	for (i = 7; i <= NF; i++) {
		if ($i ~ /^prev_pid=/) prev = substr($i, 10)
		if ($i ~ /^prev_state=/) state = substr($i, 12)
		if ($i ~ /^next_pid=/) nxt = substr($i, 10)
		if ($i ~ /^pid=/) woken = substr($i, 5)
	}
	if ($6 == "sched_wakeup") { if (woken in asleep) asleep[woken] = 0; next }
	for (e in pending)	# its events ran on the CPU it leaves
		if (pending[e] == prev) {
			if (cpu_of[e] == $4) inside++
			else bad("switched out on " $4 " after", e)
			delete pending[e]
		}
	asleep[prev] = state !~ /^R/; asleep[nxt] = 0	# prev_state in letters: R, R+ runnable
	next
}
$2 == "user" {
	tid = $5; sub(/^.*[^-]-/, "", tid)	# the thread column: COMM-TID
	if (!(tid in asleep)) { early++; next }
	if (asleep[tid]) { bad("asleep at", NR); next }
	pending[NR] = tid; cpu_of[NR] = $4; line[NR] = $0
}
function bad(why, e) {
	outside++
	if (outside <= 5) print why ": " (e in line ? line[e] : $0) > "/dev/stderr"
}
END { for (e in pending) unjudged++; printf "%d %d %d %d\n", inside, outside, early, unjudged }' \
	"$work/merged.txt" > "$work/bracket" 2> "$work/bracket.err"
read -r inside outside early unjudged < "$work/bracket"
cat "$work/bracket.err"
check "every judged event lies in a run of its thread on its CPU ($inside inside, $outside outside, $early before the thread's first switch, $unjudged after its last)" \
	test "$inside" -gt 500 -a "$outside" -eq 0 -a "$early" -lt 10 -a "$unjudged" -lt 10

"$hvtrace" check "$work/a" > "$work/check.out" 2>&1
check "hvtrace check passes (status $?)" test $? -eq 0
check "... the host agent's exchanges allow offset 0" \
	grep -q '^PASS host-apps-clock' "$work/check.out"
grep -q '^FAIL' "$work/check.out" && cat "$work/check.out"
"$hvtrace" merge --layer user --format=json "$work/a" > "$work/user.json" 2> /dev/null
check "JSON: the program's events are the host's process (pid 1), on their threads" \
	python3 -c "
import json, sys
ev = [e for e in json.load(open('$work/user.json'))['traceEvents'] if e.get('cat') == 'user']
sys.exit(not (len(ev) == $n and all(e['pid'] == 1 and e['tid'] == e['args']['tid'] for e in ev)))"

# 2. A host program that is not the VMM: once traced, its threads join the
# host layer's filter (within a second), so its own scheduling is recorded
# too, and the manifest lists them.
start_bg vmm sleep 4
HVTRACE_AGENT_SOCKET=$work/apps2.sock start_bg app2 "$hvdemo" 400 5000 > "$work/app2.out"
"$hvtrace" record --qemu-pid "$vmm" --host-apps "$work/apps2.sock" -o "$work/f" \
	> "$work/f.out" 2> "$work/f.err"
check "a recording of another VMM completes (status $?)" test $? -eq 0
reap "$app2" 60
reap "$vmm" 10
check "the manifest's pids list the program" \
	python3 -c "import json,sys; sys.exit($app2 not in json.load(open('$work/f/hvtrace.json'))['host']['ftrace']['pids'])"
n=$("$hvtrace" merge "$work/f" 2> /dev/null | grep -c " sched_switch prev_comm=hvdemo prev_pid=$app2 ")
check "the host layer records the program's own switches ($n)" test "$n" -gt 50
n=$("$hvtrace" merge "$work/f" 2> /dev/null | grep -c '^ *[0-9.]* user   -  .*hvdemo:')
check "and its events ($n)" test "$n" -gt 100

# 3. Another process listens on the socket: said, and the recording goes on.
start_bg holder python3 -c "
import socket, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.bind('$work/taken.sock'); s.listen(1)
open('$work/taken.ready', 'w').close()
time.sleep(60)"
wait_for 10 test -e "$work/taken.ready"
start_bg sleeper sleep 2
"$hvtrace" record --qemu-pid "$sleeper" --host-apps "$work/taken.sock" -o "$work/b" \
	> "$work/b.out" 2> "$work/b.err"
check "a socket another process listens on: the recording goes on (status $?)" test $? -eq 0
check "... saying host applications are not traced, and why" \
	grep -q "host applications are not traced: another process listens on $work/taken.sock" \
	"$work/b.err"
check "... and the manifest has no host.apps" bash -c "! grep -q '\"apps\"' '$work/b/hvtrace.json'"
stop_pid "$holder" TERM 5

"$hvtrace" record --qemu-pid $$ --host-apps relative.sock -o "$work/c" > /dev/null \
	2> "$work/c.err"
check "--host-apps needs an absolute path (status $?)" test $? -eq 2
check "... and says so" grep -q "an absolute path" "$work/c.err"

summary "host apps"
