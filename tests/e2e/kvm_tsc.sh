#!/bin/bash
# The KVM TSC timeline without a guest: a VMM of our own
# (tests/host/kvm_offsets.c) creates a VM and vCPUs through /dev/kvm and sets
# known TSC offsets with KVM_SET_DEVICE_ATTR(KVM_VCPU_TSC_OFFSET) while
# `hvtrace record --qemu-pid` records the host layer only. `hvtrace tsc`
# must then show each change on its vCPU, with its offset, at a host TSC
# instant between the VMM's own reads just before and after the ioctl.
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
trap 'stop_all; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

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

summary "kvm tsc"
