#!/bin/bash
# hvtrace check's vCPU windows on a real KVM guest: a VMM of our own
# (tests/host/kvm_guest_tsc.c) runs real guest code that reads the TSC in
# guest mode, while `hvtrace record --qemu-pid` records the host layer
# (kvm_entry, kvm_exit from the kernel's tracepoints). The VMM then adds its
# guest side to the archive: one event per guest TSC reading, and the
# KVM_RUN brackets as clock exchanges. Every such event must fall inside a
# recorded kvm_entry -> kvm_exit window of vCPU 0; events the VMM stamps
# itself between two runs (FORGED) must fail the check, named.
set -uo pipefail
build=${1:?usage: vcpu_windows.sh BUILD}
hvtrace=$(realpath "$build/hvtrace")
vmm_bin=$(realpath "$build/hvtrace-kvm-guest-tsc")
. "$(dirname "$0")/lib.sh"

ROUNDS=300

if [ "$(id -u)" -ne 0 ]; then
	echo "vcpu windows: skipped: recording the host layer needs root"
	exit 0
fi
work=$(mktemp -d /tmp/hvtrace-e2e-windows-XXXXXX)
trap 'stop_all; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

start_vmm "vcpu windows" vmm "$work/vmm.out" "$vmm_bin" run "$ROUNDS" "$work/rounds.tsv" "$work/go"
pass "the VMM runs guest code"

start_bg rec "$hvtrace" record --qemu-pid "$vmm" --vm kvmrun -o "$work/a" \
	> "$work/rec.out" 2> "$work/rec.err"
check "collector took its first snapshot" \
	wait_for 20 bash -c "[ \$(cat '$work/a/vm/kvmrun/kvm_tsc.tsv' 2>/dev/null | wc -l) -gt 1 ]"
touch "$work/go"
reap "$vmm" 60
check "the VMM ran $ROUNDS rounds" test "$(wc -l < "$work/rounds.tsv")" -eq "$ROUNDS"
reap "$rec" 30
check "the collector stops when the VMM exits, status 0" test $? -eq 0
check "kvm_entry and kvm_exit enabled in the host layer" \
	test -f "$work/a/host/ftrace/events/kvm/kvm_entry/format" -a \
	-f "$work/a/host/ftrace/events/kvm/kvm_exit/format"

# The I/O path through KVM is recorded too, where the kernel has it: the
# guest code's two "out" to port 0x10 a round are kvm_pio exits (as far as
# this host's KVM fires its tracepoints at all).
if [ -d /sys/kernel/tracing/events/kvm/kvm_pio ] || [ -d /sys/kernel/debug/tracing/events/kvm/kvm_pio ]; then
	check "kvm_pio, kvm_inj_virq enabled in the host layer" \
		test -f "$work/a/host/ftrace/events/kvm/kvm_pio/format" -a \
		-f "$work/a/host/ftrace/events/kvm/kvm_inj_virq/format"
	"$hvtrace" merge "$work/a" --layer host --event kvm_pio 2>/dev/null > "$work/pio.txt"
	pio=$(wc -l < "$work/pio.txt")
	if [ "$pio" -gt 0 ]; then
		check "the rounds' port writes are kvm_pio events on port 0x10 ($pio)" \
			test "$(grep -Ec ' port=(0x10|16) ' "$work/pio.txt")" -ge "$ROUNDS"
	else
		echo "vcpu windows: this host's KVM fired no kvm_pio"
	fi
fi
cp -a "$work/a" "$work/forged"
check "the guest side is written" \
	"$vmm_bin" write "$work/a" kvmrun "$work/rounds.tsv"
check "the forged guest side is written" \
	"$vmm_bin" write "$work/forged" kvmrun "$work/rounds.tsv" FORGED

"$hvtrace" check "$work/a" > "$work/check.out" 2> "$work/check.err"
status=$?
cat "$work/check.out" "$work/check.err" | sed 's/^/    /'
check "every round is a guest event with an error bound" \
	grep -q "^INFO error-bound\[kvmrun\]: $ROUNDS guest events, .*; 0 without a guaranteed bound$" \
	"$work/check.out"
check "the exchanges stay causal once aligned" grep -q '^PASS sync-causal\[kvmrun\]' "$work/check.out"
check "the only other failure may be kvm-tsc (this host's debugfs)" \
	test -z "$(grep '^FAIL' "$work/check.out" | grep -v '^FAIL kvm-tsc')"
# Some KVM implementations (this project's CI host runs kvm_pvm) never fire
# kvm_entry/kvm_exit: check must say so instead of judging.
if grep -q '^SKIP vcpu-windows\[kvmrun\]: the host layer has no kvm_entry or kvm_exit event$' \
	"$work/check.out"; then
	pass "check skips the windows, saying why: this host's KVM fired no kvm_entry/kvm_exit"
	echo "vcpu windows: the windows themselves cannot be judged on this host"
	summary "vcpu windows"
	exit
fi
line=$(grep '^[A-Z]* vcpu-windows\[kvmrun\]' "$work/check.out")
check "check judges the guest events against real windows" \
	grep -q '^PASS vcpu-windows\[kvmrun\]: ' <<< "$line"
inside=$(sed -n 's/^PASS vcpu-windows\[kvmrun\]: \([0-9]*\) guest events inside.*/\1/p' <<< "$line")
# Rounds before the host saw the vCPU enter are not judged; most are.
check "most rounds judged inside a window (${inside:-0} of $ROUNDS)" \
	test "${inside:-0}" -ge $((ROUNDS * 9 / 10))

"$hvtrace" check "$work/forged" > "$work/forged.out" 2> "$work/forged.err"
check "check fails the forged archive" test $? -eq 1
grep '^FAIL vcpu-windows' "$work/forged.out" | sed 's/^/    /'
forged=$(( (ROUNDS - 1) / 10 ))
check "every forged event is outside, and named" \
	grep -Eq "^FAIL vcpu-windows\[kvmrun\]: ([0-9]+) of [0-9]+ guest events lie outside .* the first is event [0-9]+ of vm/kvmrun/kernel/stream-0 on vCPU 0" "$work/forged.out"
outside=$(sed -En 's/^FAIL vcpu-windows\[kvmrun\]: ([0-9]+) of .*/\1/p' "$work/forged.out")
check "the forged events and no other (${outside:-0} of $forged)" \
	test "${outside:-0}" -eq "$forged"
summary "vcpu windows"
