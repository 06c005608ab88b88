#!/bin/bash
# hvtrace record --vm NAME against a real libvirtd: the test starts its own
# libvirtd as root, in a mount namespace of its own where /etc/libvirt (with
# the qemu.conf it writes: QEMU as root, no security driver; and the domain
# definitions) and the state directories (/run/libvirt, /var/lib/libvirt,
# /var/cache/libvirt, /var/log/libvirt) are this test's directories: nothing
# it defines or writes outlives it. It listens on a socket here too. It defines a TCG domain booting the guest image
# directly, with a virtio-serial <channel type='unix'> named org.hvtrace.0.
# The collector must find the domain's QEMU and channel through libvirt and
# record all three layers and the clock exchanges. The domain and libvirtd
# are stopped by pid, also on failure.
set -uo pipefail
build=${1:?usage: libvirt.sh BUILD}
hvtrace=$(realpath "$build/hvtrace")
. "$(dirname "$0")/lib.sh"

# libvirtd needs its QEMU user to exist even when qemu.conf says root.
if [ "$(id -u)" -ne 0 ] || ! command -v libvirtd > /dev/null || ! command -v virsh > /dev/null ||
	! id libvirt-qemu > /dev/null 2>&1; then
	echo "libvirt: skipped: needs root, libvirtd, virsh and the libvirt-qemu user" \
		"(scripts/install-deps installs libvirt-daemon-system)"
	exit 0
fi
work=$(mktemp -d /tmp/hvtrace-e2e-libvirt-XXXXXX)
uri="qemu:///system?socket=$work/sock/libvirt-sock"
V=(virsh -q -c "$uri")
qemu_pid=""
cleanup() {
	"${V[@]}" destroy hvtest > /dev/null 2>&1
	"${V[@]}" undefine hvtest > /dev/null 2>&1
	[ -n "$qemu_pid" ] && stop_pid "$qemu_pid" TERM 5
	stop_all
	[ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/sock" "$work/state/etc/qemu" "$work/state/run" "$work/state/lib" \
	"$work/state/cache" "$work/state/log"
cat > "$work/libvirtd.conf" <<CONF
unix_sock_dir = "$work/sock"
unix_sock_rw_perms = "0700"
auth_unix_rw = "none"
auth_unix_ro = "none"
CONF
cat > "$work/state/etc/qemu.conf" <<CONF
user = "root"
group = "root"
dynamic_ownership = 0
remember_owner = 0
security_driver = "none"
stdio_handler = "file"
CONF
cat > "$work/libvirtd.sh" <<SCRIPT
#!/bin/sh
# Runs in a mount namespace of its own (unshare -m): nothing here is seen outside.
set -e
mount --make-rprivate /
for d in etc run lib cache log; do
	case \$d in etc) t=/etc/libvirt ;; run) t=/run/libvirt ;; *) t=/var/\$d/libvirt ;; esac
	[ -d "\$t" ] || mkdir -p "\$t"
	mount --bind "$work/state/\$d" "\$t"
done
exec libvirtd --config "$work/libvirtd.conf"
SCRIPT
chmod +x "$work/libvirtd.sh"
start_bg libvirtd unshare -m "$work/libvirtd.sh" > "$work/libvirtd.log" 2>&1
check "libvirtd listens on its own socket" wait_for 20 test -S "$work/sock/libvirt-sock"

cat > "$work/domain.xml" <<XML
<domain type='qemu'>
  <name>hvtest</name>
  <memory unit='MiB'>512</memory>
  <vcpu>2</vcpu>
  <os>
    <type arch='x86_64' machine='pc'>hvm</type>
    <kernel>$(realpath "$build/guest/vmlinuz")</kernel>
    <initrd>$(realpath "$build/guest/initrd.gz")</initrd>
    <cmdline>console=ttyS0 quiet panic=-1 hvtrace.rounds=50</cmdline>
  </os>
  <features><acpi/></features>
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>destroy</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
    <emulator>$(command -v qemu-system-x86_64)</emulator>
    <serial type='file'><source path='$work/console.log'/><target port='0'/></serial>
    <channel type='unix'>
      <source mode='bind' path='$work/hvtrace.sock'/>
      <target type='virtio' name='org.hvtrace.0'/>
    </channel>
    <memballoon model='none'/>
  </devices>
</domain>
XML
check "the domain is defined" "${V[@]}" define "$work/domain.xml"

"$hvtrace" record --vm hvtest --connect "$uri" -o "$work/none" > /dev/null 2> "$work/off.err"
check "a domain that is not running is refused ($?)" \
	grep -q "domain hvtest is not running" "$work/off.err"
"$hvtrace" record --vm nosuch --connect "$uri" -o "$work/none" > /dev/null 2> "$work/nosuch.err"
check "an unknown domain is refused, named" grep -q "no domain nosuch" "$work/nosuch.err"

check "the domain starts" "${V[@]}" start hvtest
qemu_pid=$(cat "$work/state/run/qemu/hvtest.pid" 2>/dev/null)
start_bg rec "$hvtrace" record --vm hvtest --connect "$uri" -o "$work/a" --guest-timeout 120 \
	> "$work/rec.out" 2> "$work/rec.err"
reap "$rec" 240
check "the recording completes (status $?)" test $? -eq 0
check "record found QEMU and the channel through libvirt" \
	grep -q "domain hvtest: QEMU pid ${qemu_pid:-?}, 2 vCPUs, channel $work/hvtrace.sock" \
		"$work/rec.err"
check "the guest finished" grep -q "vm hvtest (tcg): guest finished" "$work/rec.out"
exchanges=$(jq '.sync.exchanges' "$work/a/vm/hvtest/info.json" 2>/dev/null)
check "clock exchanges recorded (${exchanges:-none})" test "${exchanges:-0}" -ge 32
"$hvtrace" merge "$work/a" > "$work/merge.txt" 2> "$work/merge.err"
for layer in host kernel user; do
	n=$(awk -v l="$layer" '$2 == l' "$work/merge.txt" | wc -l)
	check "layer $layer present ($n events)" test "$n" -gt 0
done
"$hvtrace" check "$work/a" > "$work/check.out" 2>&1
check "hvtrace check passes" test $? -eq 0
if [ "$e2e_failed" -gt 0 ]; then
	for f in libvirtd.log rec.err rec.out merge.err check.out console.log; do
		[ -f "$work/$f" ] && { echo "== $f (end)"; tail -n 15 "$work/$f"; }
	done
fi
summary "libvirt"
