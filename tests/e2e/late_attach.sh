#!/bin/bash
# End to end on this host, no VM: traced processes that outlive recordings.
# hvtrace record --listen and hvtrace agent --connect, as in host_link.sh,
# four times in a row on one applications' socket, whose directory does not
# exist at first; two processes run through all of it:
#   A  started before any agent existed;
#   B  started while the first agent waited for its collector;
# recording 1 (the agent waiting first, as its systemd unit runs it),
# recording 2 right after, recording 3 whose agent is killed with SIGKILL,
# recording 4 with a new agent. Each archive must hold, per thread of each
# process, one run of consecutive seq values with nothing missing that
# babeltrace2 does not count as discarded, and the runs of the archives
# must follow each other without overlapping: every event in the right
# archive. Also measured: the delay from `hvtrace record` starting to the
# first event of the processes already running.
set -uo pipefail
build=${1:?usage: late_attach.sh BUILD}
hvtrace=$(realpath "$build/hvtrace")
app=$(realpath "$build/hvtrace-late-app")
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d /tmp/hvtrace-e2e-late-XXXXXX)
trap 'stop_all; rm -rf "$work"' EXIT
sock=$work/run/agent.sock	# $work/run is made by the first agent

# finish: the agent stops the recording (SIGTERM), the collector completes it.
finish() {
	kill -TERM "$agent"
	reap "$agent" 20
	check "agent $1 exits cleanly" test $? -eq 0
	reap "$rec" 20
	check "collector $1 exits cleanly" test $? -eq 0
}

# seq_runs ARCHIVE: one line per thread of each traced process:
#   PID THREAD FIRST_SEQ LAST_SEQ RECORDED DISCARDED
seq_runs() {
	local trace pid
	for trace in "$1"/vm/local/user-*; do
		[ -d "$trace" ] || continue
		pid=$(sed -n 's/.*hvtrace_pid = \([0-9]*\);.*/\1/p' "$trace/metadata" | head -1)
		babeltrace2 "$trace" 2> "$work/bt.err" |
			awk -v pid="$pid" -v err="$work/bt.err" '
			/late:tick/ {
				match($0, /thread = [0-9]+/); th = substr($0, RSTART + 9, RLENGTH - 9)
				match($0, /seq = [0-9]+/); seq = substr($0, RSTART + 6, RLENGTH - 6) + 0
				if (!(th in n)) first[th] = seq
				last[th] = seq; n[th]++
			}
			END {
				while ((getline line < err) > 0)
					if (match(line, /discarded [0-9]+ events/))
						lost += substr(line, RSTART + 10, RLENGTH - 17)
				for (th in n)
					print pid, th, first[th], last[th], n[th], lost + 0
			}'
	done | sort -k1,1n -k2,2n
}

# Packets of 4 KiB: an agent killed with SIGKILL takes at most a few
# packets' worth of events (128 each) with it, not 2 s of them.
export HVTRACE_SUBBUF_SIZE=4096
export HVTRACE_AGENT_SOCKET=$sock

# 0. A starts before any agent: nothing listens, not even the directory exists.
start_bg a "$app" -i 0 > "$work/a.out"
sleep 0.5
check "A runs, waiting for an agent" is_running "$a"
# The waiting costs nothing: A's watcher thread does not wake while nothing
# happens to the agent's socket (its context switches stay as they were).
switches() {	# switches PID: voluntary + involuntary switches of its hvtrace-watch thread
	local task
	for task in /proc/"$1"/task/*; do
		[ "$(cat "$task/comm" 2>/dev/null)" = hvtrace-watch ] || continue
		awk '/ctxt_switches/ { n += $2 } END { print n }' "$task/status"
	done
}
before=$(switches "$a")
sleep 2
after=$(switches "$a")
check "A's watcher thread exists and sleeps while no agent comes ($before, then $after switches)" \
	test -n "$before" -a "$before" = "$after"

# 1. The agent waits for its collector (as --wait 0 under systemd); B starts
# meanwhile; then the collector.
start_bg agent "$hvtrace" agent --connect "unix:$work/r1.sock" --socket "$sock" --wait 0
sleep 0.3
start_bg b "$app" -i 1 -t 1 > "$work/b.out"
sleep 0.5
read -r t0 hz < <("$app" -T)	# the events' clock and its rate
start_bg rec "$hvtrace" record --listen "unix:$work/r1.sock" --no-host-trace --vm local \
	-o "$work/r1" --guest-timeout 30
check "the agent serves applications (recording 1)" wait_for 10 test -S "$sock"
# Both drain ahead of the programs they record (lib/priority.h): nice -10
# at their defaults where they may (root, CAP_SYS_NICE, RLIMIT_NICE: as
# this shell may), as started where not; the programs as started.
base=$(nice)
want=$base
if [ "$base" -gt -10 ] && [ -z "$(nice -n -1 true 2>&1)" ]; then want=-10; fi
nice_of() { ps -o ni= -p "$1" | tr -d ' '; }
check "the collector and the agent run at nice $want, the programs at $base" \
	test "$(nice_of "$rec") $(nice_of "$agent") $(nice_of "$a") $(nice_of "$b")" = \
	"$want $want $base $base"
sleep 2
finish 1

for n in 2 3 4; do
	start_bg rec "$hvtrace" record --listen "unix:$work/r$n.sock" --no-host-trace --vm local \
		-o "$work/r$n" --guest-timeout 30
	check "collector listens (recording $n)" wait_for 10 test -S "$work/r$n.sock"
	start_bg agent "$hvtrace" agent --connect "unix:$work/r$n.sock" --socket "$sock"
	check "the agent serves applications (recording $n)" wait_for 10 test -S "$sock"
	sleep 2
	if [ "$n" -eq 3 ]; then
		kill -KILL "$agent"
		reap "$agent" 10
		check "agent 3 died of SIGKILL" test $? -eq $((128 + 9))
		reap "$rec" 20
		check "collector 3 ends when its guest is gone" test $? -ne 124
		sleep 0.5	# the processes notice and wait again, untraced
	else
		finish "$n"
	fi
done

kill -TERM "$a" "$b"
reap "$a" 10
check "A exits cleanly" test $? -eq 0
reap "$b" 10
check "B exits cleanly" test $? -eq 0
cat "$work/a.out" "$work/b.out" > "$work/emitted"

for n in 1 2 3 4; do
	seq_runs "$work/r$n" > "$work/runs$n"
	sed "s/^/recording $n: pid thread first last recorded discarded: /" "$work/runs$n"
	check "recording $n holds A's two threads and B's one ($(wc -l < "$work/runs$n") runs)" \
		test "$(wc -l < "$work/runs$n")" -eq 3
	check "recording $n: every run is whole (recorded + discarded = last - first + 1)" \
		awk '$5 + $6 != $4 - $3 + 1 || $5 < 100 { bad = 1 } END { exit bad }' "$work/runs$n"
	check "recording $n: nothing discarded" awk '$6 != 0 { bad = 1 } END { exit bad }' \
		"$work/runs$n"
done
for n in 2 3 4; do
	check "recording $n's runs begin after recording $((n - 1))'s end" \
		awk 'FILENAME == ARGV[1] { last[$1 " " $2] = $4; next }
		     !(($1 " " $2) in last) || $3 <= last[$1 " " $2] { bad = 1 }
		     END { exit bad || FNR == 0 }' "$work/runs$((n - 1))" "$work/runs$n"
done
# Every event that found the event enabled is in an archive, but for those
# written in the moments between an agent's end and the process noticing it
# (a few per recording at 2000 events/s per thread: 20 allowed for each),
# and the packets the killed agent had not forwarded (3 of 128 allowed).
awk 'FILENAME == ARGV[1] { rec[$2] += $5; next }
     { th = $2; en = $6; if (!(th in rec) || en < rec[th] || en - rec[th] > 4 * 20 + 3 * 128) bad = 1
       printf "thread %s: enabled %d, recorded %d\n", th, en, rec[th] }
     END { exit bad }' <(cat "$work"/runs[1-4]) "$work/emitted" > "$work/enabled"
check "every enabled event but those at a recording's end was recorded" test $? -eq 0
cat "$work/enabled"

# The delay from `hvtrace record` starting to A's first event (recording 1).
first=$(babeltrace2 --clock-cycles "$work"/r1/vm/local/user-* 2>/dev/null |
	awk '/late:tick/ && /thread = 0,/ { c = substr($1, 2, length($1) - 2); sub(/^0+/, "", c)
						    print c; exit }')
if [ -z "${hz:-}" ] || [ "$hz" -le 0 ]; then
	fail "hvtrace-late-app -T gives the events' clock rate (got '${hz:-}')"
elif [ -n "$first" ]; then
	echo "late attach: first event of a running process $(( (first - t0) * 1000 / hz )) ms" \
		"after hvtrace record started"
	check "a running process is traced within 5 s of the recording's start" \
		test $((first - t0)) -gt 0 -a $(((first - t0) / hz)) -lt 5
else
	fail "recording 1 holds A's thread 0"
fi

summary "late attach"
