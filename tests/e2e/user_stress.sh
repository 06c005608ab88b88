#!/bin/bash
# End to end on this host, no VM: libhvtrace under stress, through the real
# agent and collector. More threads than CPUs move themselves from CPU to
# CPU while they write, with buffers small enough to overflow, and the
# process forks a child that traces too. babeltrace2 reads every stream;
# per thread, the events it recorded plus those its packets say were
# discarded must be exactly the events it emitted, in order, on a clock
# that never goes back. The library reads the TSC through a clock page, as
# in a guest with the module (RDTSCP, the CPU from TSC_AUX).
set -uo pipefail
build=${1:?usage: user_stress.sh BUILD}
hvtrace=$(realpath "$build/hvtrace")
stress=$(realpath "$build/hvtrace-ust-stress")
paced=$(realpath "$build/bench/paced_events")
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d /tmp/hvtrace-e2e-stress-XXXXXX)
trap 'stop_all; rm -rf "$work"' EXIT
events=40000

start_link "$work" a
"$stress" -w "$work/clock-page"
check "a clock page for the library" test -s "$work/clock-page"
# threads: 2 x CPUs + 1 in the parent, 2 in the forked child
start_bg app env HVTRACE_AGENT_SOCKET="$work/a-agent.sock" HVTRACE_DEVICE="$work/clock-page" \
	HVTRACE_SUBBUF_SIZE=4096 HVTRACE_NR_SUBBUFS=4 "$stress" -n "$events" -f 2 -m 97 \
	> "$work/emitted"
reap "$app" 120
status=$?
check "the stress program exits 0 (status $status)" test "$status" -eq 0
check "the stress program's processes report what they emitted" \
	test "$(grep -c emitted "$work/emitted")" -ge 4
kill -TERM "$agent"
reap "$agent" 10
check "agent exits cleanly" test $? -eq 0
reap "$rec" 20
check "collector exits cleanly" test $? -eq 0

check "no thread read the clock going back" \
	awk '$8 != 0 { bad = 1 } END { exit bad }' "$work/emitted"
parent=$(awk '$2 == 0 { print $4 }' "$work/emitted")
child=$(awk '$2 == 1000 { print $4 }' "$work/emitted")
check "the child is another process ($parent, $child)" test -n "$child" -a "$child" != "$parent"

# babeltrace2 reads every trace of the archive.
babeltrace2 "$work/a/vm/local" > /dev/null 2> "$work/bt.err"
check "babeltrace2 reads every stream (status $?)" test $? -eq 0
check "babeltrace2 reports nothing but discarded events" \
	bash -c "! grep -v 'discarded' '$work/bt.err' | grep -q ."

# One stream at a time (its trace's metadata beside it): what babeltrace2
# counts of it, what its packets say was discarded, and whether its seq
# numbers and timestamps only go up. One line per stream:
#   THREAD PID RECORDED DISCARDED ORDER_OK
for stream in "$work"/a/vm/local/user-*/stream-*; do
	one=$work/one
	rm -rf "$one" && mkdir "$one"
	ln -s "$(dirname "$stream")/metadata" "$one/metadata"
	ln -s "$stream" "$one/stream"
	pid=$(sed -n 's/.*hvtrace_pid = \([0-9]*\);.*/\1/p' "$one/metadata" | head -1)
	babeltrace2 --clock-cycles "$one" 2> "$work/one.err" |
		awk -v pid="$pid" -v err="$work/one.err" '
		/stress:tick/ {
			ts = substr($1, 2, length($1) - 2) + 0
			match($0, /thread = [0-9]+/); th = substr($0, RSTART + 9, RLENGTH - 9)
			match($0, /seq = [0-9]+/); seq = substr($0, RSTART + 6, RLENGTH - 6) + 0
			if (n && (th != thread || seq <= last_seq || ts < last_ts))
				ok = 0
			thread = th; last_seq = seq; last_ts = ts; n++
		}
		BEGIN { ok = 1 }
		END {
			while ((getline line < err) > 0)
				if (match(line, /discarded [0-9]+ events/))
					lost += substr(line, RSTART + 10, RLENGTH - 17)
			print thread, pid, n, lost + 0, ok
		}'
done > "$work/recorded"

# The main thread's first event (thread 18446744073709551615) only checks
# that tracing is on; the workers are what the test counts.
grep -v '^18446744073709551615 ' "$work/recorded" | sort -n > "$work/workers"
threads=$(wc -l < "$work/emitted")
check "one stream per thread ($(wc -l < "$work/workers") for $threads threads)" \
	test "$(wc -l < "$work/workers")" -eq "$threads"
check "every stream holds one thread's events, in order, clock not going back" \
	awk '$5 != 1 { bad = 1 } END { exit bad }' "$work/workers"
# recorded + discarded == emitted, and the thread's pid is its process's
awk 'NR == FNR { emitted[$2] = $6; pid[$2] = $4; next }
     { total = $3 + $4
       if (!($1 in emitted) || total != emitted[$1] || $2 != pid[$1]) {
		printf "thread %s (pid %s): %d recorded + %d discarded = %d, emitted %s\n",
		       $1, $2, $3, $4, total, emitted[$1]; bad = 1 } }
     END { exit bad }' "$work/emitted" "$work/workers" > "$work/mismatch"
check "per thread, recorded + discarded == emitted ($events each)" test $? -eq 0
cat "$work/mismatch"
lost=$(awk '{ s += $4 } END { print s + 0 }' "$work/workers")
recorded=$(awk '{ s += $3 } END { print s + 0 }' "$work/workers")
echo "user stress: $recorded events recorded, $lost discarded, in $threads threads"
check "the small buffers overflowed, so discarding was tested ($lost)" test "$lost" -gt 0
check "and every thread kept some ($recorded in all)" \
	awk '$3 == 0 { bad = 1 } END { exit bad }' "$work/workers"

# 2. The application is killed (SIGKILL) while it writes: what its threads
# committed is in shared memory, and the agent still forwards it.
start_link "$work" b
start_bg app2 env HVTRACE_AGENT_SOCKET="$work/b-agent.sock" HVTRACE_DEVICE="$work/clock-page" \
	"$stress" -t 3 -n 2000000000 -m 97 > /dev/null
check "the application's threads write packets" \
	wait_for 20 bash -c "[ \$(cat $work/b/vm/local/user-*/stream-* 2>/dev/null | wc -c) -gt 100000 ]"
kill -KILL "$app2"
reap "$app2" 10
check "the application died of SIGKILL" test $? -eq $((128 + 9))
kill -TERM "$agent"
reap "$agent" 10
check "second agent exits cleanly" test $? -eq 0
reap "$rec" 20
check "second collector exits cleanly" test $? -eq 0
babeltrace2 --clock-cycles "$work/b/vm/local" > "$work/b.bt" 2> "$work/b.err"
check "babeltrace2 reads the killed application's streams (status $?)" test $? -eq 0
check "and reports nothing but discarded events" \
	bash -c "! grep -v 'discarded' '$work/b.err' | grep -q ."
# per thread: seq numbers only go up
check "the killed threads' events read back in order ($(grep -c stress:tick "$work/b.bt") events)" \
	awk '/stress:tick/ { match($0, /thread = [0-9]+/); th = substr($0, RSTART, RLENGTH)
			     match($0, /seq = [0-9]+/); seq = substr($0, RSTART + 6, RLENGTH - 6) + 0
			     if ((th in last) && seq <= last[th]) bad = 1
			     last[th] = seq; n++ }
	     END { exit bad || n == 0 }' "$work/b.bt"

# 3. Wakeups. With the agent's periodic drain an hour away, every packet a
# writer completes still reaches the archive while the program runs: the
# writer that closes a packet wakes the agent. Two 4 KiB sub-buffers hold
# about 220 of these events, 0.45 s at 500 events/s; without a wakeup per
# packet the buffer would stay full after that and the 4 s would lose
# nearly everything (the last packet is recovered at the end).
agent_args=(--drain-interval 3600000)
start_link "$work" c
agent_args=()
start_bg app3 env HVTRACE_AGENT_SOCKET="$work/c-agent.sock" HVTRACE_DEVICE="$work/clock-page" \
	HVTRACE_SUBBUF_SIZE=4096 HVTRACE_NR_SUBBUFS=2 "$paced" -t 1 -r 500 -d 4 > "$work/c.out"
reap "$app3" 60
check "the paced program exits 0 (status $?)" test $? -eq 0
kill -TERM "$agent"
reap "$agent" 10
check "third agent exits cleanly" test $? -eq 0
reap "$rec" 20
check "third collector exits cleanly" test $? -eq 0
emitted=$(paced_total "$work/c.out")
recorded=$(babeltrace2 "$work/c/vm/local" 2> /dev/null | grep -c 'bench:paced')
check "every event reached the archive with the periodic drain off ($recorded of ${emitted:-?})" \
	test -n "$emitted" -a "$recorded" -eq "${emitted:-0}"
check "and the archive counts no loss" \
	test "$(jq '[.streams[].lost] | add' "$work/c/vm/local/info.json")" -eq 0
check "in packets of about 4 KiB, not a few large ones ($(jq '[.streams[].packets] | add' \
	"$work/c/vm/local/info.json"))" \
	test "$(jq '[.streams[].packets] | add' "$work/c/vm/local/info.json")" -ge 8

# 4. What goes untraced is counted where users look. More short-lived
# processes than the 63 trace ids a recording used to have, all traced, up
# to their user's share (--uid-share 10: 102 of the 1024 trace ids); past
# it, each process refused is in info.json with its pid, uid and reason,
# and another user is still traced. The processes are nobody's: root is
# not limited. Each only loads the library (-w writes a clock page and
# exits): it greets the agent and takes a trace id, and no stream.
agent_args=(--uid-share 10)
start_link "$work" d
agent_args=()
chmod 755 "$work"	# for the other user: the agent's socket is 0666 in it
mkdir "$work/pages" && chown nobody "$work/pages"
nobody=$(id -u nobody)
ran=0
for i in $(seq 110); do
	setpriv --reuid nobody --regid nogroup --clear-groups \
		env HVTRACE_AGENT_SOCKET="$work/d-agent.sock" "$stress" -w "$work/pages/$i" &&
		ran=$((ran + 1))
done
check "110 short-lived processes of nobody ran ($ran)" test "$ran" -eq 110
HVTRACE_AGENT_SOCKET="$work/d-agent.sock" "$stress" -t 1 -n 100 > /dev/null
check "another user's process (root's) is traced once nobody's share is taken (status $?)" \
	test $? -eq 0
kill -TERM "$agent"
reap "$agent" 10
check "fourth agent exits cleanly" test $? -eq 0
reap "$rec" 20
check "fourth collector exits cleanly" test $? -eq 0
info=$work/d/vm/local/info.json
traced=$(jq '[.traces[] | select(.layer == "user" and .pid != 0)] | length' "$info")
check "102 of nobody's processes and the other user's are traced ($traced)" test "$traced" -eq 103
check "the 8 refused are counted" test "$(jq .untraced_processes_total "$info")" -eq 8
check "... and listed: pid, nobody's uid, comm, the uid's share as the reason" \
	test "$(jq --argjson u "$nobody" '[.untraced_processes[] | select(.uid == $u and .pid > 0 and
		.comm == "hvtrace-ust-str" and .reason == "uid share of trace ids")] | length' \
		"$info")" -eq 8
"$hvtrace" merge "$work/d" > /dev/null 2> "$work/d.merge"
check "merge warns that 8 processes went untraced" \
	grep -q "warning: vm local: 8 processes and 0 threads went untraced" "$work/d.merge"
"$hvtrace" check "$work/d" > "$work/d.check" 2>&1
check "check fails (status $?) ..." test $? -ne 0
check "... on untraced[local], with the numbers" \
	grep -q "^FAIL untraced\[local\].*8 processes and 0 threads" "$work/d.check"

# 5. Threads past the library's cap (HVTRACE_BUFFER_CAP_MB=1, 64 KiB a
# thread: 16 at once) are counted: the library tells the agent, the archive
# holds the process's count, and streams + untraced threads = threads.
start_link "$work" e
start_bg app5 env HVTRACE_AGENT_SOCKET="$work/e-agent.sock" HVTRACE_DEVICE="$work/clock-page" \
	HVTRACE_SUBBUF_SIZE=4096 HVTRACE_NR_SUBBUFS=16 HVTRACE_BUFFER_CAP_MB=1 \
	"$stress" -t 60 -n 20000 -m 97 > "$work/e.emitted"
reap "$app5" 120
check "60 threads ran (status $?)" test "$(grep -c emitted "$work/e.emitted")" -eq 60
kill -TERM "$agent"
reap "$agent" 10
check "fifth agent exits cleanly" test $? -eq 0
reap "$rec" 20
check "fifth collector exits cleanly" test $? -eq 0
info=$work/e/vm/local/info.json
untraced=$(jq '[.traces[].untraced_threads] | add' "$info")
streams=$(jq '[.streams[] | select(.tid != 0)] | length' "$info")
check "threads past the cap are counted ($untraced untraced, $streams streams)" \
	test "$untraced" -gt 0 -a "$((untraced + streams))" -eq 61
"$hvtrace" merge "$work/e" > /dev/null 2> "$work/e.merge"
check "merge warns of the untraced threads" \
	grep -q "warning: vm local: 0 processes and $untraced threads went untraced" "$work/e.merge"
"$hvtrace" check "$work/e" > "$work/e.check" 2>&1
check "check fails on untraced[local]" grep -q "^FAIL untraced\[local\]" "$work/e.check"

summary "user stress"
