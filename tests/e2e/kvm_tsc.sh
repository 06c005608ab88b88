#!/bin/bash
# The KVM TSC timeline without a guest: a VMM of our own
# (tests/host/kvm_offsets.c) creates a VM and vCPUs through /dev/kvm and sets
# known TSC offsets with KVM_SET_DEVICE_ATTR(KVM_VCPU_TSC_OFFSET) while
# `hvtrace record --qemu-pid` records the host layer only. `hvtrace tsc`
# must then show each change on its vCPU, with its offset, at a host TSC
# instant between the VMM's own reads just before and after the ioctl.
# Then `merge HOST.DAT --guest-trace VM=GUEST.DAT` without the archive: a
# guest trace.dat whose events sit at known guest TSCs (host TSC + the
# VMM's offset) lands on those host TSCs exactly, through the host trace's
# kvm_write_tsc_offset events alone, across each vCPU's changes (vCPU 0's
# send its guest TSC back, vCPU 1's forward).
set -uo pipefail
build=${1:?usage: kvm_tsc.sh BUILD}
hvtrace=$(realpath "$build/hvtrace")
vmm_bin=$(realpath "$build/hvtrace-kvm-offsets")
. "$(dirname "$0")/lib.sh"

VCPUS=2
CHANGES=8

if [ "$(id -u)" -ne 0 ]; then
	echo "kvm tsc: skipped: recording the host layer needs root"
	exit 0
fi
work=$(mktemp -d /tmp/hvtrace-e2e-kvm-XXXXXX)
# the trace clock, if a restore below changed it, is put back on any exit
trap 'stop_all; tracefs_clock_reset; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

# The VMM changes nothing until the file go exists.
start_vmm "kvm tsc" vmm "$work/vmm.out" "$vmm_bin" "$VCPUS" "$CHANGES" "$work/changes.tsv" "$work/go"
pass "the VMM created a VM with $VCPUS vCPUs"
"$hvtrace" record --list > "$work/list.out" 2>&1
check "record --list finds the VM in debugfs, with its vCPUs" \
	grep -Eq "^  pid $vmm +[^ ]+ +vm fd [0-9]+ +$VCPUS vCPUs +hvtrace record --qemu-pid $vmm\$" \
	"$work/list.out"

start_bg rec "$hvtrace" record --qemu-pid "$vmm" --vm kvmtest -o "$work/a" \
	> "$work/rec.out" 2> "$work/rec.err"
# The first snapshot is taken after the host layer started.
check "collector took its first snapshot" \
	wait_for 20 bash -c "[ \$(cat '$work/a/vm/kvmtest/kvm_tsc.tsv' 2>/dev/null | wc -l) -gt $VCPUS ]"
touch "$work/go"
reap "$vmm" 30
check "the VMM set $CHANGES offsets" test $? -eq 0
reap "$rec" 30
check "the collector stops when the VMM exits, status 0" test $? -eq 0
check "record saw KVM" grep -q "vm kvmtest (kvm)" "$work/rec.out"
check "the archive is complete" grep -q '"status": "complete"' "$work/a/hvtrace.json"
check "kvm_write_tsc_offset recorded" \
	test -f "$work/a/host/ftrace/events/kvm/kvm_write_tsc_offset/format"
# A row per vCPU at start; later ones only when a value changes (debugfs
# may not show the offsets set here: see the disagreements below).
vcpus=$(awk -F'\t' 'NR > 1 && $3 == 2 { seen[$5] = 1 } END { print length(seen) }' \
	"$work/a/vm/kvmtest/kvm_tsc.tsv")
check "a debugfs snapshot of every vCPU ($vcpus of $VCPUS)" test "$vcpus" -eq "$VCPUS"

"$hvtrace" tsc --format tsv "$work/a" > "$work/tsc.tsv" 2> "$work/tsc.err"
check "hvtrace tsc succeeds" test $? -eq 0
# Each change the VMM made: one tracepoint segment on its vCPU, its offset,
# starting within the VMM's [before, after].
matched=$(awk -F'\t' '
	NR == FNR { seg[NR] = $0; n = NR; next }
	{
		for (i = 2; i <= n; i++) {
			split(seg[i], s, "\t")
			if (s[1] == "kvmtest" && s[2] == $1 && s[7] == "kvm_write_tsc_offset" &&
			    s[4] == $4 && s[3] + 0 >= $2 + 0 && s[3] + 0 <= $3 + 0) { found++; break }
		}
	}
	END { print found + 0 }' "$work/tsc.tsv" "$work/changes.tsv")
check "every change at its instant, with its offset ($matched of $CHANGES)" \
	test "$matched" -eq "$CHANGES"
traced=$(grep -c $'\tkvm_write_tsc_offset$' "$work/tsc.tsv")
check "no other change on the timeline ($traced segments)" test "$traced" -eq "$CHANGES"
for v in $(seq 0 $((VCPUS - 1))); do
	first=$(awk -F'\t' -v v="$v" '$2 == v { print $3; exit }' "$work/tsc.tsv")
	check "vcpu $v: a segment from the start of the recording" test "$first" = 0
done
"$hvtrace" tsc "$work/a" > "$work/tsc.txt"
check "hvtrace tsc text names both vCPUs" \
	bash -c "grep -q '^  vcpu 0: ' '$work/tsc.txt' && grep -q '^  vcpu 1: ' '$work/tsc.txt'"
cat "$work/tsc.txt"
# A host-only archive merges: the changes are host events.
"$hvtrace" merge "$work/a" > "$work/merge.txt" 2> "$work/merge.err"
check "merge of a host-only archive succeeds" test $? -eq 0
n=$(grep -c "kvm_write_tsc_offset" "$work/merge.txt")
check "merge shows the $CHANGES changes ($n)" test "$n" -eq "$CHANGES"

# merge HOST.DAT --guest-trace VM=GUEST.DAT, no archive: the guest placed
# by the host trace's own kvm_write_tsc_offset events. HOST.DAT is made by
# trace-cmd from the archive's host pages (trace-cmd record cannot run in
# this container; see host_trace.sh), GUEST.DAT by trace-cmd from pages of
# events at guest TSC = host TSC + the offset the VMM set (changes.tsv),
# half way between a vCPU's changes: each must land on that host TSC.
# shellcheck disable=SC2046 # one argument per CPU file
tracedat_restore x86-tsc "$work/host.dat" $(ls "$work"/a/host/ftrace/cpu*.raw | sort -V)
check "trace-cmd makes host.dat of the host layer" test $? -eq 0
# "VCPU HOST GUEST" per event, from each change to the next of its vCPU.
# Each vCPU's first event comes before its first change, at the offset that
# change's previous_tsc_offset gives (as a real guest's trace has events
# before a change; without one, a guest TSC that a change sent back would be
# taken for the time before the change, which it repeats).
sort -t$'\t' -k1,1n -k2,2n "$work/changes.tsv" > "$work/changes.sorted"
trace-cmd report "$work/host.dat" 2> /dev/null |
	sed -n 's/.*kvm_write_tsc_offset: *vcpu=\([0-9]*\) prev=\([0-9]*\) .*/\1 \2/p' |
	awk '!seen[$1]++' > "$work/initial.txt"
: > "$work/events.txt"
while read -r v p0; do
	b1=$(awk -F'\t' -v v="$v" '$1 == v { print $2; exit }' "$work/changes.sorted")
	h=$((b1 - 1000000))
	printf '%s %s %u\n' "$v" "$h" $((h + p0)) >> "$work/events.txt"
done < "$work/initial.txt"
prev_v="" prev_after="" prev_off=""
while IFS=$'\t' read -r v before after off; do
	if [ "$v" = "$prev_v" ]; then
		h=$((prev_after + (before - prev_after) / 2))
		printf '%s %s %u\n' "$v" "$h" $((h + prev_off)) >> "$work/events.txt"
	elif [ -n "$prev_v" ]; then
		h=$((prev_after + 1000000))
		printf '%s %s %u\n' "$prev_v" "$h" $((h + prev_off)) >> "$work/events.txt"
	fi
	prev_v=$v prev_after=$after prev_off=$off
done < "$work/changes.sorted"
h=$((prev_after + 1000000))
printf '%s %s %u\n' "$prev_v" "$h" $((h + prev_off)) >> "$work/events.txt"
sort -s -k1,1n "$work/events.txt" -o "$work/events.txt"	# per vCPU, in time order
mkdir -p "$work/gp"
"$(dirname "$vmm_bin")/hvtrace-guest-pages" "$work/gp" \
	"$work/a/host/ftrace/events/kvm/kvm_write_tsc_offset/format" "$VCPUS" < "$work/events.txt"
# shellcheck disable=SC2046
tracedat_restore x86-tsc "$work/guest.dat" $(ls "$work"/gp/cpu*.raw | sort -V)
status=$?
check "trace-cmd makes guest.dat of $(wc -l < "$work/events.txt") guest events" \
	test "$status" -eq 0 -a "$(trace-cmd report "$work/guest.dat" 2> /dev/null | grep -c kvm_write_tsc_offset)" \
	-eq "$(wc -l < "$work/events.txt")"
"$hvtrace" merge "$work/host.dat" --guest-trace kvmtest="$work/guest.dat" --layer kernel \
	--time=host-tsc > "$work/guest.txt" 2> "$work/guest.err"
check "merge HOST.DAT --guest-trace succeeds ($?)" test $? -eq 0
check "... aligned by KVM's parameters" grep -q "aligned exactly with KVM's TSC parameters" \
	"$work/guest.err"
placed=$(awk '{ for (i = 7; i <= NF; i++) if ($i ~ /^previous_tsc_offset=/) {
		split($i, f, "="); if (f[2] == $1) ok++ } } END { print ok + 0 }' "$work/guest.txt")
check "every guest event on the host TSC its vCPU's offset gives ($placed of $(wc -l < "$work/events.txt"))" \
	test "$placed" -eq "$(wc -l < "$work/events.txt")" -a "$(wc -l < "$work/guest.txt")" -eq "$placed"
# check judges them too: exact bounds; its one failure is this VMM's own
# (KVM reports previous offsets that disagree with the changes it made)
"$hvtrace" check "$work/host.dat" --guest-trace kvmtest="$work/guest.dat" > "$work/check.txt" 2>&1
check "check HOST.DAT --guest-trace: the guest's events exact" \
	grep -q "error-bound\[kvmtest\]: $(wc -l < "$work/events.txt") guest events, exact" \
	"$work/check.txt"
check "... and no failure but KVM's previous offsets" \
	test -z "$(grep '^FAIL' "$work/check.txt" | grep -v '^FAIL kvm-tsc\[kvmtest\]: .*disagree')"
"$hvtrace" merge "$work/host.dat" --guest-trace a=x.dat --guest-trace b=y.dat \
	> /dev/null 2> "$work/two.err"
check "two VMs beside one host trace.dat are refused" \
	grep -q "kvm_write_tsc_offset names no VM" "$work/two.err"

summary "kvm tsc"
