#!/bin/bash
# The guest module's CTF, read by babeltrace2: in a TCG guest (2 vCPUs)
# the agent records sched_switch and the two events of hvtrace_selftest.ko,
# which loads once tracing runs (its events register during the session:
# the registry reaches the host again), and the guest emits N of each event
# on vCPU 0, then N on vCPU 1 (scripts/guest-init, hvtrace.selftest=N),
# recorded by `hvtrace record` over virtio-serial. babeltrace2 must decode every stream of the
# guest kernel without error, and what it prints must be what was emitted:
# every field of every event (a function of its seq, see
# guest-kmod/hvtrace_selftest.c), seq 0..N-1 in order on CPU 0 and N..2N-1
# on CPU 1, nothing lost. hvtrace's own reader (merge) must see the same
# events.
# usage: kmod_ctf.sh BUILD [GUEST_DIR] (GUEST_DIR default BUILD/guest)
set -uo pipefail
build=${1:?usage: kmod_ctf.sh BUILD [GUEST_DIR]}
guest=${2:-$build/guest}
hvtrace=$build/hvtrace
kernel=$(basename "$(readlink "$guest/vmlinuz")")
n=${KMOD_CTF_EVENTS:-2000}	# of each event, per vCPU
here=$(dirname "$0")
. "$here/lib.sh"

work=$(mktemp -d /tmp/hvtrace-e2e-kmodctf-XXXXXX)
trap 'stop_all; rm -rf "$work"' EXIT
console=$work/console.log
arc=$work/arc

start_bg qemu qemu-system-x86_64 -nodefaults -display none -no-reboot -m 512 -smp 2 \
	-accel tcg,thread=multi -cpu max -name hvkmodctf,debug-threads=on \
	-kernel "$guest/vmlinuz" -initrd "$guest/initrd.gz" -serial "file:$console" \
	-append "console=ttyS0 quiet panic=-1 hvtrace.selftest=$n" \
	-device virtio-serial-pci \
	-chardev "socket,id=hvt0,path=$work/guest.sock,server=on,wait=off" \
	-device virtserialport,chardev=hvt0,name=org.hvtrace.0 2> "$work/qemu.err"
check "QEMU opens the guest's channel" wait_for 20 test -S "$work/guest.sock"
start_bg rec "$hvtrace" record --channel "unix:$work/guest.sock" --qemu-pid "$qemu" \
	--no-host-trace --vm guest -o "$arc" --guest-timeout 120 > "$work/rec.out" 2> "$work/rec.err"
reap "$rec" 600
check "the recording completes ($?)" test $? -eq 0
reap "$qemu" 30
check "the guest powered off by itself ($?)" test $? -eq 0
tr -d '\r' < "$console" > "$work/console.txt"
check "the guest emitted $n of each event on each vCPU" \
	grep -q "hvtrace-guest: selftest: emitted $n of each event on each of 2 vCPUs" "$work/console.txt"

kdir=$arc/vm/guest/kernel
babeltrace2 "$kdir" > "$work/bt.txt" 2> "$work/bt.err"
check "babeltrace2 decodes the guest kernel's streams ($?)" test $? -eq 0 -a ! -s "$work/bt.err"
check "babeltrace2 saw sched_switch too" grep -q "sched_switch:" "$work/bt.txt"
verdict=$(awk -v n="$n" -f "$here/selftest_ctf.awk" "$work/bt.txt")
check "babeltrace2 prints what the guest emitted: $verdict" test $? -eq 0
lost=$(jq '[.streams[] | select(.file | startswith("kernel/")) | .lost] | add' "$arc/vm/guest/info.json")
check "no kernel event was lost ($lost)" test "$lost" = 0

"$hvtrace" merge --layer kernel "$arc" > "$work/merge.txt" 2> "$work/merge.err"
for ev in hvtrace_selftest_fields hvtrace_selftest_blob; do
	ours=$(grep -c " $ev " "$work/merge.txt")
	bt=$(grep -c "$ev:" "$work/bt.txt")
	check "hvtrace merge and babeltrace2 agree on $ev ($ours, $bt)" test "$ours" -eq "$bt"
done

if [ "$e2e_failed" -gt 0 ]; then
	for f in console.txt rec.err bt.err merge.err; do
		[ -s "$work/$f" ] && { echo "== $f (end)"; tail -n 20 "$work/$f"; }
	done
	echo "== babeltrace2 (first selftest lines)"
	grep -m 4 selftest "$work/bt.txt"
fi
summary "kmod CTF ($kernel)"
