#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# guest_probes.sh BUILD [GUEST_DIR] - in the guest: what recording an
# event adds to the work that fires it, hvtrace.ko's probe against
# ftrace's for the same tracepoint, side by side: sched_switch on a pipe
# ping-pong, block_rq_issue/_complete on direct reads of null_blk,
# net_dev_xmit/netif_receive_skb on UDP datagrams over lo
# (tests/bench/guest_probes.c, which the image has as hvtrace-guest-bench).
# Boots the guest of GUEST_DIR (default BUILD/guest), one vCPU, under KVM
# if it boots the guest here, else TCG, with hvtrace.bench=ROUNDS
# (scripts/guest-init loads hvtrace.ko and null_blk, runs the benchmark and
# powers off), and prints its results.
#
# One vCPU: the workload needs no more, and each run connects and
# disconnects the probes, which patches kernel text; a TCG guest with two
# vCPUs was once seen stuck on a stale breakpoint while the other patched
# (docs/architecture.md).
#
# Under TCG every guest instruction is emulated: the nanoseconds are TCG's,
# tens of times those of hardware, and only the ratio of the two tracers'
# added costs says something about hardware, roughly. The script says which
# it was.
#
# Many short runs rather than a few long ones: a stall of the host (another
# process on one of its two cores) spoils one run, and the median does not
# see it. Environment: GUEST_BENCH_ROUNDS (round trips, I/Os or datagrams
# per run; default 50000 under KVM, 5000 under TCG, where a run takes
# about 0.4 s), GUEST_BENCH_REPEATS (runs of each configuration, default
# 31). Takes about three minutes under TCG.
# start_bg assigns vm
# shellcheck disable=SC2154
set -uo pipefail
build=${1:?usage: guest_probes.sh BUILD [GUEST_DIR]}
guest=${2:-$build/guest}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=tests/e2e/lib.sh
. "$root/tests/e2e/lib.sh"	# start_bg, reap, stop_all
# shellcheck source=scripts/guest-accel.sh
. "$root/scripts/guest-accel.sh"	# choose_accel

die() { echo "guest_probes: $*" >&2; exit 1; }
{ [ -f "$guest/initrd.gz" ] && [ -e "$guest/vmlinuz" ]; } || die "no guest in $guest: run 'make image'"

work=$(mktemp -d /tmp/hvtrace-bench-probes-XXXXXX)
trap 'stop_pid "$probe_pid" KILL 1; stop_all; rm -rf "$work"' EXIT
trap 'exit 1' INT TERM HUP

qemu=(qemu-system-x86_64 -nodefaults -display none -no-reboot -m 512 -smp 1
	-kernel "$guest/vmlinuz" -initrd "$guest/initrd.gz")
choose_accel "$work/probe.log" "${qemu[@]}"
echo "$accel_why"
if [ "$accel" = kvm ]; then rounds=${GUEST_BENCH_ROUNDS:-50000}; else rounds=${GUEST_BENCH_ROUNDS:-5000}; fi
repeats=${GUEST_BENCH_REPEATS:-31}

start_bg vm "${qemu[@]}" "${accel_args[@]}" -name hvbench,debug-threads=on \
	-serial "file:$work/console.log" \
	-append "console=ttyS0 quiet panic=-1 hvtrace.bench=$rounds hvtrace.repeats=$repeats"
reap "$vm" 600 || die "the guest did not power off by itself (status $?)"
tr -d '\r' < "$work/console.log" > "$work/console.txt"
echo "guest ($accel, $(basename "$(readlink "$guest/vmlinuz")")):"
grep "^hvbench: " "$work/console.txt" | sed 's/^hvbench: /  /'
[ "$(grep -c "^hvbench: [a-z]*: ratio " "$work/console.txt")" -ge 1 ] || {
	grep -E "hvtrace-guest|hvbench" "$work/console.txt" | tail -n 5 >&2
	die "the benchmark did not complete"
}
