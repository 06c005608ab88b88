# choose_accel LOG QEMU_ARGS...: KVM if it really boots the guest, else TCG.
# /dev/kvm may exist and still be unable to run a stock kernel, so this
# boots QEMU_ARGS (QEMU and the guest's kernel and initrd) under KVM with
# hvtrace.probe (scripts/guest-init prints "probe ok" and powers off), its
# console in LOG, for at most 10 s. Sets accel (kvm or tcg), accel_args
# (QEMU's options for it) and accel_why (one line for the user). While the
# probe runs its pid is in probe_pid, for the caller's cleanup; a caller
# that sets interrupted=1 from a trap ends the wait early.
# Sourced by scripts/demo and tests/bench/guest_probes.sh; needs
# scripts/proc.sh.
# shellcheck shell=bash
# shellcheck disable=SC2034 # accel, accel_args, accel_why are for the caller
# shellcheck disable=SC2054 # tcg,thread=multi is one word

probe_pid=""

choose_accel() {
	local log=$1
	shift
	accel=tcg accel_args=(-accel tcg,thread=multi -cpu max)
	if [ ! -w /dev/kvm ]; then
		accel_why="no usable /dev/kvm: the guest runs under TCG (emulation)"
		return
	fi
	"$@" -accel kvm -cpu host -serial "file:$log" \
		-append "console=ttyS0 quiet panic=-1 hvtrace.probe" >/dev/null 2>&1 &
	probe_pid=$!
	disown "$probe_pid"	# its crash, if KVM is unusable, is an answer, not news
	wait_for 10 accel_probe_over "$log" || true
	if grep -q "hvtrace-guest: probe ok" "$log" 2>/dev/null; then
		stop_pid "$probe_pid" TERM 2
		probe_pid=""
		accel=kvm accel_args=(-accel kvm -cpu host)
		accel_why="KVM boots the guest: using KVM"
		return
	fi
	stop_pid "$probe_pid" KILL 1
	probe_pid=""
	accel_why="KVM cannot boot the guest here (tried for 10 s): using TCG (emulation)"
}

accel_probe_over() {
	grep -q "hvtrace-guest: probe ok" "$1" 2>/dev/null || has_exited "$probe_pid" ||
		[ "${interrupted:-0}" = 1 ]
}
