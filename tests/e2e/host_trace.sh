#!/bin/bash
# End to end on this host, no VM: merge --host-trace, the host layer from a
# trace-cmd trace.dat instead of the archive's own; and merge TRACE.DAT, the
# trace.dat on its own.
#
# trace-cmd record cannot run here (it insists on writing
# /proc/sys/kernel/ftrace_enabled, read-only in this container), so the
# trace.dat is made by trace-cmd itself from the archive's own raw pages:
# `trace-cmd restore`, with the top-level trace clock set to x86-tsc while
# it runs (it records that clock in the file) and put back afterwards. The
# merge from that file must then be the merge from the archive, line for
# line. Then the refusals: a trace.dat on another clock, a truncated one,
# and a file that is no trace.dat at all.
set -uo pipefail
build=${1:?usage: host_trace.sh BUILD}
hvtrace=$(realpath "$build/hvtrace")
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d /tmp/hvtrace-e2e-hosttrace-XXXXXX)
trap 'stop_all; tracefs_clock_reset; rm -rf "$work"' EXIT

# An archive with a host layer: a shell of this test's that keeps switching.
start_bg target bash -c 'for i in $(seq 150); do sleep 0.01; done'
start_bg rec "$hvtrace" record --qemu-pid "$target" --vm target -o "$work/archive" \
	> "$work/record.out" 2>&1
reap "$target" 30
reap "$rec" 30
check "hvtrace record ends with its process" test $? -eq 0

# trace.dat files from its raw pages, on the x86-tsc clock and on another
restore() {	# restore CLOCK OUT [CPU.raw...]: of all CPUs, or of those given
	if [ $# -gt 2 ]; then
		tracedat_restore "$@"
	else
		# shellcheck disable=SC2046 # one argument per CPU file
		tracedat_restore "$1" "$2" $(ls "$work"/archive/host/ftrace/cpu*.raw | sort -V)
	fi
}
check "trace-cmd restore makes a trace.dat on x86-tsc" restore x86-tsc "$work/trace.dat"
n=$(trace-cmd report -q "$work/trace.dat" 2> /dev/null | grep -c ' sched_switch: ')
check "trace-cmd reads its events ($n)" test "$n" -gt 0

"$hvtrace" merge "$work/archive" > "$work/own.txt" 2> /dev/null
"$hvtrace" merge "$work/archive" --host-trace "$work/trace.dat" > "$work/dat.txt" \
	2> "$work/dat.err"
check "merge --host-trace succeeds" test $? -eq 0
check "it merges what merging the archive gives, line for line ($(wc -l < "$work/dat.txt"))" \
	cmp -s "$work/own.txt" "$work/dat.txt"
check "every trace.dat event is there" \
	test "$(grep -c ' sched_switch prev_comm=' "$work/dat.txt")" -eq "$n"
"$hvtrace" merge "$work/archive" --host-trace "$work/trace.dat" --format=null --stats \
	2> "$work/stats.txt"
check "--stats names the trace.dat's CPUs" grep -q "^trace.dat:cpu0 " "$work/stats.txt"
"$hvtrace" merge "$work/archive" --host-trace "$work/trace.dat" --format=ctf \
	--output "$work/ctf" 2> /dev/null
bt=$(babeltrace2 "$work/ctf" 2> /dev/null | wc -l)
check "and to CTF, which babeltrace2 reads ($bt events)" test "$bt" -eq "$(wc -l < "$work/dat.txt")"

# A trace.dat on its own, as a user who has one tries hvtrace first: every
# event of it, on its own clock. With --time=host-tsc (the file's own
# timestamps) it is line for line the archive's host layer.
"$hvtrace" merge "$work/archive" --layer host --time=host-tsc > "$work/own-host.txt" 2> /dev/null
"$hvtrace" merge "$work/trace.dat" --time=host-tsc > "$work/alone.txt" 2> "$work/alone.err"
check "merge TRACE.DAT on its own succeeds" test $? -eq 0
# The thread column's name may differ: the archive names a thread before
# its first switch from host/ftrace/tasks.tsv, which a trace.dat lacks
# ("<...>"); the tid, and all else, must not.
tid_only() { awk '{ t = $5; sub(/^.*[^-]-/, "", t); $5 = t; print }' "$1"; }
check "... line for line the archive's host layer ($(wc -l < "$work/alone.txt") events)" \
	cmp -s <(tid_only "$work/own-host.txt") <(tid_only "$work/alone.txt")
check "... saying how it converts x86-tsc" grep -q "converted at this machine's TSC rate" \
	"$work/alone.err"
"$hvtrace" merge "$work/trace.dat" --format=ctf --output "$work/alone-ctf" 2> /dev/null
bt=$(babeltrace2 "$work/alone-ctf" 2> /dev/null | wc -l)
check "... and to CTF, which babeltrace2 reads ($bt events)" \
	test "$bt" -eq "$(wc -l < "$work/alone.txt")"
"$hvtrace" check "$work/trace.dat" > "$work/alone.check" 2>&1
check "hvtrace check TRACE.DAT passes" test $? -eq 0
"$hvtrace" merge "$work/trace.dat" --output "$work/trace.dat" > /dev/null 2>&1
check "merge TRACE.DAT --output TRACE.DAT is refused" test $? -eq 2
check "... and the file is left as it was" test "$(trace-cmd report -q "$work/trace.dat" \
	2> /dev/null | grep -c ' sched_switch: ')" -eq "$n"

# Several trace.dat files on one clock: one per host CPU here (each file's
# CPU 0), merged, are the whole file's merge but for the CPU column.
raws=$(ls "$work"/archive/host/ftrace/cpu*.raw | sort -V)
parts=()
for raw in $raws; do
	restore x86-tsc "$work/part-$(basename "$raw" .raw).dat" "$raw" &&
		parts+=("$work/part-$(basename "$raw" .raw).dat")
done
check "trace-cmd restore makes a trace.dat per CPU (${#parts[@]})" test "${#parts[@]}" -ge 2
"$hvtrace" merge "${parts[@]}" --time=host-tsc > "$work/parts.txt" 2> "$work/parts.err"
check "merge of several trace.dat files succeeds" test $? -eq 0
check "... the whole file's events, in its order, but for the CPU column" \
	cmp -s <(awk '{ $4 = ""; print }' "$work/alone.txt") \
	<(awk '{ $4 = ""; print }' "$work/parts.txt")

# Two files of one base name: distinct streams (FILE:cpuN, then FILE:cpuN#2),
# each its own file in CTF output, all of which babeltrace2 reads.
mkdir -p "$work/x" "$work/y"
cp "${parts[0]}" "$work/x/trace.dat" && cp "${parts[1]}" "$work/y/trace.dat"
"$hvtrace" merge "$work/x/trace.dat" "$work/y/trace.dat" --format=ctf --output "$work/xy" \
	2> /dev/null
check "two trace.dat files of one name merge to CTF apart ($(ls "$work/xy" | tr '\n' ' '))" \
	test -f "$work/xy/trace.dat:cpu0" -a -f "$work/xy/trace.dat:cpu0#2"
check "... all of whose events babeltrace2 reads" \
	test "$(babeltrace2 "$work/xy" 2> /dev/null | wc -l)" -eq "$(wc -l < "$work/parts.txt")"

# Refusals: exit 1, naming the problem.
check "trace-cmd restore makes a trace.dat on the local clock" restore local "$work/local.dat"
"$hvtrace" merge "$work/local.dat" > "$work/local.txt" 2> /dev/null
check "a trace.dat on the local clock merges on its own (ns)" \
	test "$(wc -l < "$work/local.txt")" -eq "$(wc -l < "$work/alone.txt")"
check "trace-cmd restore makes a trace.dat on the counter clock" \
	restore counter "$work/counter.dat"
"$hvtrace" merge "$work/counter.dat" > /dev/null 2> "$work/c.err"
check "a trace.dat on a clock of no unit is refused" test $? -eq 1
check "... naming it" grep -q "trace clock 'counter'" "$work/c.err"
"$hvtrace" merge "$work/trace.dat" "$work/local.dat" > /dev/null 2> "$work/two.err"
check "trace.dat files on two clocks are refused" test $? -eq 1
check "... naming both" grep -q "trace clock 'local', .*trace.dat with 'x86-tsc'" \
	"$work/two.err"
"$hvtrace" merge "$work/local.dat" --guest-trace vm=$work/trace.dat > /dev/null 2> "$work/lg.err"
check "a guest beside a host trace.dat not on x86-tsc is refused" test $? -eq 1
check "... saying so" grep -q "needs the host TSC" "$work/lg.err"
"$hvtrace" merge "$work/trace.dat" --guest-trace vm=$work/trace.dat > /dev/null 2> "$work/ng.err"
check "a guest beside a host trace.dat without KVM offset changes is refused" test $? -eq 1
check "... saying why" grep -q "no KVM TSC change or snapshot was recorded" "$work/ng.err"
"$hvtrace" merge "$work/archive" "$work/trace.dat" > /dev/null 2> "$work/at.err"
check "an archive with more trace.dat files is a usage error" test $? -eq 2
"$hvtrace" merge "$work/archive" --host-trace "$work/local.dat" > /dev/null 2> "$work/l.err"
check "a trace.dat on another clock is refused" test $? -eq 1
check "... saying which clock it has" grep -q "trace clock 'local'" "$work/l.err"
"$hvtrace" merge "$work/archive" --guest-trace target="$work/local.dat" > /dev/null \
	2> "$work/gl.err"
check "a guest trace.dat on another clock is refused" test $? -eq 1
check "... saying which clock it has" grep -q "trace clock 'local'" "$work/gl.err"
"$hvtrace" merge "$work/archive" --guest-trace target="$work/trace.dat" > /dev/null \
	2> "$work/gt.err"
check "a guest trace.dat for a VM without a guest clock is refused" test $? -eq 1
check "... saying why" grep -q "clock cannot be aligned" "$work/gt.err"
"$hvtrace" merge "$work/archive" --guest-trace nosuch="$work/trace.dat" > /dev/null \
	2> "$work/gn.err"
check "a guest trace.dat for a VM the archive lacks is refused" test $? -eq 1
check "... naming the VM" grep -q "no VM named 'nosuch'" "$work/gn.err"
"$hvtrace" merge "$work/archive" --guest-trace "$work/trace.dat" > /dev/null 2> "$work/gu.err"
check "--guest-trace without VM= is a usage error" test $? -eq 2
"$hvtrace" merge "$work/archive" --guest-trace target="$work/trace.dat" \
	-o "$work/trace.dat" > /dev/null 2> /dev/null
check "--output over a guest trace.dat is refused" test $? -eq 2
head -c "$(($(stat -c %s "$work/trace.dat") / 2))" "$work/trace.dat" > "$work/half.dat"
"$hvtrace" merge "$work/archive" --host-trace "$work/half.dat" > /dev/null 2> "$work/h.err"
check "a truncated trace.dat is refused" test $? -eq 1
head -c 3000 /dev/urandom > "$work/garbage.dat"
"$hvtrace" merge "$work/archive" --host-trace "$work/garbage.dat" > /dev/null 2> "$work/g.err"
check "a file that is no trace.dat is refused" test $? -eq 1
check "... saying so" grep -q "cannot read it as a trace-cmd trace.dat" "$work/g.err"
summary "host trace"
