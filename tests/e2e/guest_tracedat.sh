#!/bin/bash
# merge --guest-trace: a trace-cmd recording made inside the guest, placed on
# the host timeline by the VM's own alignment. A TCG guest here (a KVM host
# runs the same script) runs the demo application under
# `trace-cmd record -C x86-tsc -e sched:sched_switch` while hvtrace records
# it (scripts/guest-init, hvtrace.tracecmd=1), and writes the trace.dat to a
# virtio-serial port of its own. Then:
#   - every event of the file is in the merge, and within each CPU in the
#     order `trace-cmd report` gives;
#   - each of the file's context switches was also recorded by hvtrace.ko,
#     on the same tracepoint call (its probe first: it was registered
#     first): on the host timeline the file's event must come right after
#     the module's record of the same switch on the same CPU, before the
#     next switch there. Both go through the VM's one alignment, so this
#     holds only if the file's raw guest TSC values were used, on that
#     vCPU's timeline, with none of trace-cmd's corrections. (Under TCG
#     the two probes are microseconds apart, more when the host preempts
#     the vCPU thread between them: no distance is asserted.)
#   - check --guest-trace judges them like the VM's own events: inside the
#     host runs of their vCPU's thread.
# The same QEMU writes its own trace events with its log backend
# (virtio-serial and console events, CLOCK_REALTIME microseconds), merged
# with --qemu-trace as the vmm layer:
#   - every line is merged;
#   - each event lies in a run of the host thread that wrote it, as the
#     host layer's sched_switch events give them (switched in before,
#     switched out after), within the bound merge states; a run whose
#     switch-in the kernel did not emit starts at its CPU's previous
#     switch, as hvtrace check's vcpu-threads rule has it;
#   - babeltrace2 reads the CTF merge that holds them.
# usage: guest_tracedat.sh BUILD
set -uo pipefail
build=${1:?usage: guest_tracedat.sh BUILD}
hvtrace=$build/hvtrace
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d /tmp/hvtrace-e2e-guestdat-XXXXXX)
trap 'stop_all; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

start_bg qemu qemu-system-x86_64 -nodefaults -display none -no-reboot -m 512 -smp 2 \
	-accel tcg,thread=multi -cpu max -name "hvguestdat,debug-threads=on" \
	-kernel "$build/guest/vmlinuz" -initrd "$build/guest/initrd.gz" \
	-serial "file:$work/console.log" \
	-append "console=ttyS0 quiet panic=-1 hvtrace.tracecmd=1 hvtrace.rounds=100" \
	-device virtio-serial-pci \
	-chardev "socket,id=hvt0,path=$work/guest.sock,server=on,wait=off" \
	-device virtserialport,chardev=hvt0,name=org.hvtrace.0 \
	-chardev "file,id=out,path=$work/guest.dat" \
	-device virtserialport,chardev=out,name=org.hvtrace.out \
	-trace "enable=virtio_serial*,enable=virtio_console*,file=$work/qemu.log" \
	-msg timestamp=on 2> "$work/qemu.err"
check "QEMU opens the guest's channel" wait_for 20 test -S "$work/guest.sock"
start_bg rec "$hvtrace" record --channel "unix:$work/guest.sock" --qemu-pid "$qemu" \
	--vm guest -o "$work/arc" --guest-timeout 120 > "$work/rec.out" 2> "$work/rec.err"
reap "$rec" 300
check "the recording completes ($?)" test $? -eq 0
reap "$qemu" 60
check "the guest powered off by itself ($?)" test $? -eq 0
check "the guest wrote its trace.dat" grep -q "trace-cmd: [0-9]* bytes written" \
	"$work/console.log"

# trace-cmd's own reading: "CPU next_pid" per context switch, in its order per CPU
trace-cmd report "$work/guest.dat" 2> /dev/null |
	sed -n 's/.*\[0*\([0-9][0-9]*\)\] [0-9.]*: sched_switch: .*==> .*:\([0-9]*\) \[[0-9]*\]$/\1 \2/p' \
	> "$work/report.txt"
n=$(wc -l < "$work/report.txt")
check "trace-cmd reads the guest's context switches ($n)" test "$n" -gt 100

"$hvtrace" merge "$work/arc" --guest-trace guest="$work/guest.dat" --layer kernel \
	> "$work/merge.txt" 2> "$work/merge.err"
check "merge --guest-trace runs ($?)" test $? -eq 0
# the file's events have trace-cmd's field names (next_pid), hvtrace.ko's its own (next_tid)
sed -n 's/.* vcpu\([0-9]*\) .* sched_switch .* next_pid=\([0-9]*\) .*/\1 \2/p' \
	"$work/merge.txt" > "$work/merged.txt"
check "every event of the file is merged ($(wc -l < "$work/merged.txt") of $n)" \
	test "$(wc -l < "$work/merged.txt")" -eq "$n"
same=1
for cpu in $(cut -d' ' -f1 "$work/report.txt" | sort -u); do
	cmp -s <(awk -v c="$cpu" '$1 == c' "$work/report.txt") \
		<(awk -v c="$cpu" '$1 == c' "$work/merged.txt") || same=0
done
check "within each CPU, in trace-cmd's order" test "$same" -eq 1
check "no warning" grep -q " 0 warnings" "$work/merge.err"

# Each of the file's switches beside hvtrace.ko's record of it: the
# module's probe was registered first, so on the same CPU its event must
# be the one right before the file's (same prev and next), with no other
# switch between. One line per file event: "ok|bad DISTANCE_US".
awk '
/ sched_switch / {
	cpu = $4; prev = ""; nx = ""; own = 0
	for (i = 7; i <= NF; i++) {
		if ($i ~ /^prev_(pid|tid)=/) { prev = $i; sub(/^[a-z_]*=/, "", prev) }
		if ($i ~ /^next_(pid|tid)=/) { nx = $i; sub(/^[a-z_]*=/, "", nx) }
		if ($i ~ /^next_tid=/) own = 1
	}
	k = prev " " nx
	if (own) { last[cpu] = k; at[cpu] = $1; next }
	printf "%s %.3f\n", (cpu in last && last[cpu] == k) ? "ok" : "bad", ($1 - at[cpu]) * 1e6
	delete last[cpu]
}' "$work/merge.txt" > "$work/pairs.txt"
paired=$(grep -c '^ok' "$work/pairs.txt")
grep '^ok' "$work/pairs.txt" | cut -d' ' -f2 | sort -n > "$work/dist.txt"
echo "guest trace.dat: $n switches, $paired right after hvtrace.ko's own record of them;" \
	"the two probes' distance: median $(sed -n "$(((paired + 1) / 2))p" "$work/dist.txt") us," \
	"max $(tail -n 1 "$work/dist.txt") us"
check "each switch of the file comes right after hvtrace.ko's record of it ($paired of $n)" \
	test "$paired" -eq "$n"

# check judges the file's events with the VM's own: inside their vCPU thread's runs
judged() { sed -n 's/^PASS vcpu-threads\[guest\]: \([0-9]*\) guest events inside.*/\1/p' "$1"; }
"$hvtrace" check "$work/arc" > "$work/check.txt" 2>&1
"$hvtrace" check "$work/arc" --guest-trace guest="$work/guest.dat" > "$work/check-dat.txt" 2>&1
check "check --guest-trace passes ($?)" test $? -eq 0
check "... its vcpu-threads check judges the file's events too ($(judged "$work/check.txt") + $n)" \
	test "$(judged "$work/check-dat.txt")" -eq $(($(judged "$work/check.txt") + n))

# QEMU's own events
q=$(grep -c '^[0-9]*@[0-9]*\.[0-9]\{6\}:[a-z_]' "$work/qemu.log")
check "QEMU logged its trace events ($q)" test "$q" -gt 10
"$hvtrace" merge "$work/arc" --qemu-trace "$work/qemu.log" --layer host,vmm \
	> "$work/vmm.txt" 2> "$work/vmm.err"
check "merge --qemu-trace runs ($?)" test $? -eq 0
check "every QEMU event is merged" test "$(grep -c ' vmm ' "$work/vmm.txt")" -eq "$q"
bound=$(sed -n 's/.*host clock pairs within +\/-\([0-9.]*\) us.*/\1/p' "$work/vmm.err")
check "merge states the bound of their placement ($bound us)" test -n "$bound"
# Runs per host thread (lenient), then each vmm event inside one of its
# thread's runs, widened by the bound; events outside the host layer's
# span (QEMU logs before and after the recording) are not judged: prints
# "inside outside not-judged".
awk -v b="${bound:-0}" '
function run(tid, from, to) { runs[tid] = runs[tid] " " from ":" to }
$2 == "host" && $6 == "sched_switch" {
	t = $1; cpu = $4; prev = ""; nx = ""
	if (first == "") first = t
	final = t
	for (i = 7; i <= NF; i++) {
		if ($i ~ /^prev_pid=/) prev = substr($i, 10)
		if ($i ~ /^next_pid=/) nx = substr($i, 10)
	}
	if (prev in since) run(prev, since[prev], t)
	else run(prev, (cpu in last) ? last[cpu] : -1e18, t)
	delete since[prev]
	since[nx] = t; last[cpu] = t
	next
}
$2 == "vmm" { n++; t = $5; sub(/^.*[^-]-/, "", t); tid[n] = t; at[n] = $1 }	# COMM-TID
END {
	for (tid_ in since) run(tid_, since[tid_], 1e18)
	for (i = 1; i <= n; i++) {
		if (at[i] < first || at[i] > final) { unjudged++; continue }
		k = split(runs[tid[i]], r, " "); ok = 0
		for (j = 1; j <= k && !ok; j++) {
			split(r[j], e, ":")
			if (at[i] >= e[1] - b / 1e6 && at[i] <= e[2] + b / 1e6) ok = 1
		}
		if (ok) inside++; else { outside++; if (outside <= 3) print "outside:", tid[i], at[i] > "/dev/stderr" }
	}
	print inside + 0, outside + 0, unjudged + 0
}' "$work/vmm.txt" > "$work/runs.txt"
read -r inside outside unjudged < "$work/runs.txt"
check "each QEMU event lies in a run of its thread ($inside inside, $outside outside, $unjudged not judged)" \
	test "$outside" -eq 0 -a "$inside" -ge $((q * 9 / 10)) -a $((inside + unjudged)) -eq "$q"
"$hvtrace" merge "$work/arc" --qemu-trace "$work/qemu.log" --format=ctf -o "$work/ctf" \
	2> /dev/null
check "babeltrace2 reads a CTF merge with them" \
	test "$(babeltrace2 "$work/ctf" 2> /dev/null | grep -c '"vmm"')" -eq "$q"
# a log named like CTF's metadata file does not overwrite it
cp "$work/qemu.log" "$work/metadata"
"$hvtrace" merge "$work/arc" --qemu-trace "$work/metadata" --format=ctf -o "$work/ctf2" \
	2> /dev/null
check "... also from a log named metadata" \
	test "$(babeltrace2 "$work/ctf2" 2> /dev/null | grep -c '"vmm"')" -eq "$q"

if [ "$e2e_failed" -gt 0 ]; then
	for f in rec.err merge.err vmm.err console.log; do
		[ -s "$work/$f" ] && { echo "== $f (end)"; tail -n 25 "$work/$f"; }
	done
fi
summary "guest trace.dat"
