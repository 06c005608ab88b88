#!/bin/bash
# The guest side as a VM owner installs it (README, "Trace your VM"): a
# Debian 12 guest with systemd (scripts/debian-guest: debootstrap, then
# make install-guest and dkms install in it), booted under TCG with
# Debian's kernel and its own initramfs. The guest's hvtrace-report.service
# writes its state on the console every 2 s. Asserts:
#   - hvtrace.ko is loaded at boot (modules-load.d, the DKMS build);
#   - the agent runs once the port org.hvtrace.0 is there (udev, systemd);
#   - a recording from the host gets kernel events and the user events of
#     hvdemo.service, a program started at boot, before the recording;
#   - after it the agent is back, and a second recording gets them again;
#   - systemd reports no failed unit.
# usage: debian_guest.sh BUILD   (root; the first run builds the image)
set -uo pipefail
build=$(cd "${1:?usage: debian_guest.sh BUILD}" && pwd) || exit 1
hvtrace=$build/hvtrace
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "SKIP Debian guest: needs root (debootstrap, chroot, tracefs)"
	exit 0
fi
work=$(mktemp -d /tmp/hvtrace-e2e-debian-XXXXXX)
trap 'stop_all; rm -rf "$work"' EXIT

"$top/scripts/debian-guest" "$build" > "$work/image.log" 2>&1
status=$?
check "the Debian 12 guest is built with the guest side installed ($status)" test "$status" -eq 0
if [ "$status" -ne 0 ]; then
	tail -n 20 "$work/image.log"
	summary "Debian guest"
	exit
fi
img=$build/debian-guest

start_bg qemu qemu-system-x86_64 -nodefaults -display none -no-reboot -m 1024 -smp 2 \
	-accel tcg,thread=multi -cpu max -name "debian,debug-threads=on" \
	-kernel "$img/vmlinuz" -initrd "$img/initrd.img" \
	-append "root=LABEL=root rw console=ttyS0 quiet systemd.show_status=0" \
	-drive "file=$img/disk.img,if=virtio,format=raw,snapshot=on" \
	-serial "file:$work/console.log" \
	-qmp "unix:$work/qmp.sock,server=on,wait=off" \
	-device virtio-serial-pci \
	-chardev "socket,id=hvt0,path=$work/guest.sock,server=on,wait=off" \
	-device virtserialport,chardev=hvt0,name=org.hvtrace.0 2> "$work/qemu.err"

# report: the console's last REPORT line; reported PATTERN: whether it matches
report() { grep -a '^REPORT ' "$work/console.log" 2> /dev/null | tail -n 1 | tr -d '\r'; }
reported() { report | grep -q "$1"; }
check "the guest boots with systemd and reports its state" wait_for 300 reported '^REPORT '
check "hvtrace.ko is loaded at boot" wait_for 60 reported ' module=1 '
check "the agent runs once the port is there" wait_for 60 reported 'agent=active '
echo "the guest: $(report)"

# record ARCHIVE: one recording of 8 s from the host; its status
record() {
	timeout 120 "$hvtrace" record --channel "unix:$work/guest.sock" --qemu-pid "$qemu" \
		--qmp "unix:$work/qmp.sock" --vm debian --duration 8 -o "$1" \
		> "$1.out" 2>&1
}

for round in 1 2; do
	arc=$work/arc$round
	record "$arc"
	status=$?
	check "recording $round completes ($status)" test "$status" -eq 0
	"$hvtrace" merge -q "$arc" > "$arc.txt" 2> "$arc.err"
	kernel=$(awk '$2 == "kernel"' "$arc.txt" | wc -l)
	user=$(grep -c ' user   debian .*hvdemo:' "$arc.txt")
	check "recording $round: the guest kernel's events ($kernel)" test "$kernel" -gt 100
	check "recording $round: hvdemo.service's events, started at boot ($user)" test "$user" -gt 10
	# the agent ends with each recording and systemd starts it again
	check "after recording $round the agent is back" wait_for 60 reported 'agent=active '
done
echo "the guest: $(report)"
check "systemd runs with no failed unit" reported 'system=running failed=0$'

stop_pid "$qemu" TERM 10
reap "$qemu" 20 > /dev/null
if [ "$e2e_failed" -gt 0 ]; then
	for f in console.log qemu.err arc1.out arc2.out; do
		[ -s "$work/$f" ] && { echo "== $f (end)"; tail -n 25 "$work/$f"; }
	done
fi
summary "Debian guest"
