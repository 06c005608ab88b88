#!/bin/bash
# End to end on this host, no VM: `hvtrace merge --follow` on recordings of
# the host layer while `hvtrace record` writes them (the demo's test,
# follow.sh, does the same with a guest's layers):
#   1. a recording that completes: the follower ends by itself, status 0,
#      within 10 s of the collector; it printed each event of the final
#      merge once, each CPU's in the same order (the whole order too, when
#      it says no event came late), and no line goes back in time more
#      often than the late events it counted; it said how long after their
#      time it printed them; a follower in JSON lines (--format=jsonl) gave
#      the same number of events, each a JSON object;
#   2. a recording whose collector is killed (SIGKILL): the follower ends
#      by itself, status 1, saying the collector is gone; what it printed
#      is what a merge of the archive holds; the archive still merges;
#   3. Ctrl-C (SIGINT) stops a follower of a recording that goes on: status
#      130, what was final printed, the recording untouched (it completes;
#      and it removes the tracefs instance the killed collector of 2 left).
set -uo pipefail
build=${1:?usage: follow_host.sh BUILD}
hvtrace=$(realpath "$build/hvtrace")
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d /tmp/hvtrace-e2e-follow-XXXXXX)
trap 'stop_all; rm -rf "$work"' EXIT

# merge's line without the thread's name (learnt as the events come: a
# follower may know a name later than the final merge does), per CPU or all
strip_names() { awk '{ t = $6; sub(/^.*[^-]-/, "", t); $6 = t; print }' "$1"; }
per_cpu() { strip_names "$1" | sort -s -k5,5; }

# 1. A shell of this test's that keeps switching, recorded for 4 s.
start_bg target bash -c 'while :; do sleep 0.005; done'
start_bg rec "$hvtrace" record --qemu-pid "$target" --vm target -o "$work/a1" --duration 4 \
	> "$work/record1.out" 2>&1
start_bg follow "$hvtrace" merge --follow --bounds --time=host-tsc "$work/a1" \
	> "$work/follow1.txt" 2> "$work/follow1.err"
start_bg jsonl "$hvtrace" merge --follow --format=jsonl "$work/a1" > "$work/follow1.jsonl" 2> /dev/null
reap "$rec" 30
check "recording 1 completes" test $? -eq 0
reap "$follow" 10
status=$?
check "merge --follow ends by itself with the recording, status 0 ($status)" test "$status" -eq 0
"$hvtrace" merge --bounds --time=host-tsc "$work/a1" > "$work/final1.txt" 2> /dev/null
n=$(wc -l < "$work/final1.txt")
reap "$jsonl" 10
status=$?
objects=$(jq -c 'select(type == "object" and .event != null)' "$work/follow1.jsonl" | wc -l)
check "merge --follow --format=jsonl ends with the recording (status $status), the $n events as JSON objects ($objects)" \
	test "$status" -eq 0 -a "$objects" -eq "$n"
check "merge --follow printed the final merge's $n events, each CPU's in order" \
	cmp -s <(per_cpu "$work/follow1.txt") <(per_cpu "$work/final1.txt")
late=$(sed -n 's/.*warning: \([0-9]*\) events came more than --lag late.*/\1/p' \
	"$work/follow1.err")
if [ -z "$late" ]; then
	check "merge --follow, no event late: the final merge's order, line for line" \
		cmp -s <(strip_names "$work/follow1.txt") <(strip_names "$work/final1.txt")
fi
back=$(awk '$1 + 0 < max { n++ } $1 + 0 > max { max = $1 + 0 } END { print n + 0 }' \
	"$work/follow1.txt")
check "merge --follow: lines back in time ($back) no more than the late events it said (${late:-0})" \
	test "$back" -le "${late:-0}"
delays=$(sed -n 's/.*followed: [0-9]* events printed as they became final, \(.*\) (--lag.*/\1/p' \
	"$work/follow1.err")
check "merge --follow said how long after their time it printed them (${delays:-nothing})" \
	test -n "$delays"
stop_pid "$target" TERM 5

# 2. The collector killed mid-way.
start_bg target bash -c 'while :; do sleep 0.005; done'
start_bg rec "$hvtrace" record --qemu-pid "$target" --vm target -o "$work/a2" \
	> "$work/record2.out" 2>&1
start_bg follow "$hvtrace" merge --follow --time=host-tsc "$work/a2" \
	> "$work/follow2.txt" 2> "$work/follow2.err"
sleep 3
kill -KILL "$rec"
reap "$rec" 10
reap "$follow" 15
status=$?
check "merge --follow ends when the collector is killed, status 1 ($status)" test "$status" -eq 1
check "merge --follow says the collector is gone" \
	grep -q "the recording's collector (pid $rec) is gone" "$work/follow2.err"
"$hvtrace" merge --time=host-tsc "$work/a2" > "$work/final2.txt" 2> "$work/final2.err"
check "the killed recording still merges ($(wc -l < "$work/final2.txt") events)" \
	test -s "$work/final2.txt"
check "merge --follow printed what the killed recording holds" \
	cmp -s <(per_cpu "$work/follow2.txt") <(per_cpu "$work/final2.txt")
stop_pid "$target" TERM 5

# 3. Ctrl-C stops the follower, not the recording.
start_bg target bash -c 'while :; do sleep 0.005; done'
start_bg rec "$hvtrace" record --qemu-pid "$target" --vm target -o "$work/a3" --duration 5 \
	> "$work/record3.out" 2>&1
start_bg follow "$hvtrace" merge --follow "$work/a3" > "$work/follow3.txt" \
	2> "$work/follow3.err"
sleep 2.5
kill -INT "$follow"
reap "$follow" 5
status=$?
check "merge --follow stops at SIGINT, status 130 ($status)" test "$status" -eq 130
check "merge --follow, stopped: it says so" grep -q "stopped before the recording completed" \
	"$work/follow3.err"
reap "$rec" 30
check "the recording it followed completes all the same" test $? -eq 0
check "... and says so" grep -q '"status": "complete"' "$work/a3/hvtrace.json"
stop_pid "$target" TERM 5

if [ "$e2e_failed" -gt 0 ]; then	# what explains it, before the work directory goes
	for f in follow1.err follow2.err follow3.err record1.out record2.out record3.out; do
		[ -s "$work/$f" ] && { echo "== $f"; tail -n 5 "$work/$f"; }
	done
	for n in 1 2; do
		[ -s "$work/final$n.txt" ] && { echo "== follow$n vs final$n, per CPU (diff head)"
			diff <(per_cpu "$work/follow$n.txt") <(per_cpu "$work/final$n.txt") | head -n 8; }
	done
fi
summary "follow (host)"
