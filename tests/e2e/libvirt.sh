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
qemu_pid2=""
cleanup() {
	local d
	for d in hvtest hvtest2; do
		"${V[@]}" destroy "$d" > /dev/null 2>&1
		"${V[@]}" undefine "$d" > /dev/null 2>&1
	done
	for d in $qemu_pid $qemu_pid2; do
		stop_pid "$d" TERM 5
	done
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

domain_xml() {	# domain_xml NAME ROUNDS: a TCG domain with its own channel and console
	cat <<XML
<domain type='qemu'>
  <name>$1</name>
  <memory unit='MiB'>512</memory>
  <vcpu>2</vcpu>
  <os>
    <type arch='x86_64' machine='pc'>hvm</type>
    <kernel>$(realpath "$build/guest/vmlinuz")</kernel>
    <initrd>$(realpath "$build/guest/initrd.gz")</initrd>
    <cmdline>console=ttyS0 quiet panic=-1 hvtrace.rounds=$2</cmdline>
  </os>
  <features><acpi/></features>
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>destroy</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
    <emulator>$(command -v qemu-system-x86_64)</emulator>
    <serial type='file'><source path='$work/console-$1.log'/><target port='0'/></serial>
    <channel type='unix'>
      <source mode='bind' path='$work/$1.sock'/>
      <target type='virtio' name='org.hvtrace.0'/>
    </channel>
    <memballoon model='none'/>
  </devices>
</domain>
XML
}
domain_xml hvtest 50 > "$work/domain.xml"
check "the domain is defined" "${V[@]}" define "$work/domain.xml"
domain_xml hvtest2 100000 > "$work/domain2.xml"
check "a second domain is defined" "${V[@]}" define "$work/domain2.xml"

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
	grep -q "domain hvtest: QEMU pid ${qemu_pid:-?}, 2 vCPUs, channel $work/hvtest.sock" \
		"$work/rec.err"
check "the guest finished" grep -q "vm hvtest (tcg): guest finished" "$work/rec.out"
n=$(jq '.vms[0] | select(.vcpu_threads.source == "qmp") | .vcpu_threads.tids | map(select(. > 0)) | length' \
	"$work/a/hvtrace.json" 2>/dev/null)
check "the manifest has the 2 vCPU threads libvirt's QMP named (${n:-none})" test "${n:-0}" -eq 2
exchanges=$(jq '.sync.exchanges' "$work/a/vm/hvtest/info.json" 2>/dev/null)
check "clock exchanges recorded (${exchanges:-none})" test "${exchanges:-0}" -ge 32
"$hvtrace" merge "$work/a" > "$work/merge.txt" 2> "$work/merge.err"
for layer in host kernel user; do
	n=$(awk -v l="$layer" '$2 == l' "$work/merge.txt" | wc -l)
	check "layer $layer present ($n events)" test "$n" -gt 0
done
"$hvtrace" check "$work/a" > "$work/check.out" 2>&1
check "hvtrace check passes" test $? -eq 0

# --all: domains that start while recording join it; one destroyed while
# recording ends there, its data kept, and the others go on.
"${V[@]}" destroy hvtest > /dev/null 2>&1	# powered off by now; if not, now
start_bg rec "$hvtrace" record --all --connect "$uri" -o "$work/b" --guest-timeout 120 \
	> "$work/all.out" 2> "$work/all.err"
check "--all with no domain running waits for one" \
	wait_for 20 grep -q "no libvirt domain runs yet" "$work/all.err"
check "a second domain starts" "${V[@]}" start hvtest2
qemu_pid2=$(cat "$work/state/run/qemu/hvtest2.pid" 2>/dev/null)
check "it joins the recording" wait_for 20 grep -q "VM hvtest2 joins the recording" "$work/all.err"
check "the first domain starts again" "${V[@]}" start hvtest
qemu_pid=$(cat "$work/state/run/qemu/hvtest.pid" 2>/dev/null)
check "it joins too" wait_for 20 grep -q "VM hvtest joins the recording" "$work/all.err"
check "hvtest2's guest sends user-space data" wait_for 180 \
	sh -c "find '$work/b/vm/hvtest2' -path '*/user-*/stream-*' -size +0 | grep -q ."
check "hvtest2 is destroyed while recording" "${V[@]}" destroy hvtest2
# Which the collector sees first, QEMU's exit or its end of the link reset,
# is a race (a loaded machine sees the reset first): each says why.
ended='\(QEMU process exited\|disconnected\|link to the guest broken\)'
check "hvtest2 ends there, hvtest goes on" \
	wait_for 20 grep -q "vm hvtest2: .*$ended" "$work/all.err"
check "hvtest's guest finishes" wait_for 240 grep -q "vm hvtest: guest finished" "$work/all.err"
kill -INT "$rec"
reap "$rec" 60
check "Ctrl-C ends the --all recording, successfully ($?)" test $? -eq 0
vms=$(jq -r '[.vms[] | .name + "=" + .libvirt_domain] | sort | join(",")' "$work/b/hvtrace.json")
check "the manifest has both domains ($vms)" test "$vms" = "hvtest2=hvtest2,hvtest=hvtest"
check "the summary says why hvtest2 ended" \
	grep -q "vm hvtest2 (tcg): .*$ended" "$work/all.out"
"$hvtrace" merge "$work/b" > "$work/merge-b.txt" 2> "$work/merge-b.err"
check "the --all archive merges ($?)" test $? -eq 0
for vm in hvtest hvtest2; do
	for layer in kernel user; do
		n=$(awk -v l="$layer" -v v="$vm" '$2 == l && $3 == v' "$work/merge-b.txt" | wc -l)
		check "$vm: layer $layer present ($n events)" test "$n" -gt 0
	done
done
n=$(awk '$2 == "host"' "$work/merge-b.txt" | wc -l)
check "host layer present, filtered to both QEMUs' threads ($n events)" test "$n" -gt 0
babeltrace2 "$work/b/vm/hvtest2" -o dummy 2> "$work/bt2.err"
check "hvtest2's streams, cut by the destroy, stay readable ($?)" test $? -eq 0

if [ "$e2e_failed" -gt 0 ]; then
	for f in libvirtd.log rec.err rec.out merge.err check.out console-hvtest.log all.err all.out \
		merge-b.err console-hvtest2.log; do
		[ -f "$work/$f" ] && { echo "== $f (end)"; tail -n 15 "$work/$f"; }
	done
fi
summary "libvirt"
