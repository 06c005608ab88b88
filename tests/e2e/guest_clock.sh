#!/bin/bash
# The guest module's clock, tested inside a guest: boots the test image under
# TCG with 2 vCPUs and hvtrace.test=clock, where scripts/guest-init runs
# hvtrace-guest-test (tests/guest/clock_test.c) as root and powers off. Each
# of its PASS/FAIL lines on the console becomes one here. TCG on purpose:
# the sync-point test must see the hypercall refused as unavailable.
# usage: guest_clock.sh BUILD [GUEST_DIR]: GUEST_DIR holds vmlinuz and
# initrd.gz (default BUILD/guest; BUILD/guest-rt is the PREEMPT_RT kernel's).
set -uo pipefail
build=${1:?usage: guest_clock.sh BUILD [GUEST_DIR]}
guest=${2:-$build/guest}
kernel=$(basename "$(readlink "$guest/vmlinuz")")
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d /tmp/hvtrace-e2e-clock-XXXXXX)
trap 'stop_all; rm -rf "$work"' EXIT
console=$work/console.log

start_bg qemu qemu-system-x86_64 -nodefaults -display none -no-reboot -m 512 -smp 2 \
	-accel tcg,thread=multi -cpu max -name hvclock,debug-threads=on \
	-kernel "$guest/vmlinuz" -initrd "$guest/initrd.gz" \
	-serial "file:$console" -append "console=ttyS0 quiet panic=-1 hvtrace.test=clock"
reap "$qemu" 900
status=$?
check "the test guest powered off by itself (status $status)" test "$status" -eq 0

# The runner's lines, without the console's carriage returns.
tr -d '\r' < "$console" > "$work/lines"
while IFS= read -r line; do
	case "$line" in
	"PASS "*) pass "guest: ${line#PASS }" ;;
	"FAIL "*) fail "guest: ${line#FAIL }" ;;
	esac
done < "$work/lines"
verdict=$(grep "^guest clock: " "$work/lines")
check "the guest ran all 8 tests ($verdict)" test "$verdict" = "guest clock: 8 passed, 0 failed"
if [ "$verdict" != "guest clock: 8 passed, 0 failed" ]; then
	echo "== console (end)"
	tail -n 40 "$work/lines"
fi
summary "guest clock ($kernel)"
