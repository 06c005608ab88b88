#!/bin/bash
# The guest side as a VM owner installs it: make install-guest lays out the
# agent, libhvtrace, a systemd unit, the udev rule that starts it, the
# module's autoload and its DKMS sources. What can be tried here is tried:
# systemd-analyze verify on the unit, and dkms add + build of the module
# against the guest kernels whose headers are installed (6.1 and 6.12,
# generic and PREEMPT_RT). The image this project boots is busybox, not systemd, so
# the unit is not run here. DKMS writes only below the test's directories:
# its trees are given, and /var/lib/dkms (where it would make a module
# signing key) is a tmpfs of a private mount namespace.
set -uo pipefail
build=${1:?usage: guest_package.sh BUILD}
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d /tmp/hvtrace-e2e-package-XXXXXX)
trap 'rm -rf "$work"' EXIT
version=$(sed -n 's/^#define HVTRACE_VERSION "\(.*\)"/\1/p' "$root/lib/version.h")

# 1. The layout, into a staging root as a package build would.
make -s -C "$root" BUILD="$build" install-guest DESTDIR="$work/root" PREFIX=/usr \
	> "$work/install.log" 2>&1
check "make install-guest succeeds (status $?)" test $? -eq 0
r=$work/root
for f in usr/bin/hvtrace-agent usr/lib/libhvtrace.so.1 usr/include/hvtrace/hvtrace.h \
	usr/lib/pkgconfig/hvtrace.pc etc/systemd/system/hvtrace-agent.service \
	etc/udev/rules.d/60-hvtrace.rules etc/modules-load.d/hvtrace.conf \
	"usr/src/hvtrace-$version/dkms.conf" "usr/src/hvtrace-$version/Kbuild" \
	"usr/src/hvtrace-$version/include/hvtrace/lockless_rb.h"; do
	check "installed: /$f" test -e "$r/$f"
done
check "the installed agent needs libc only" \
	test "$(ldd "$r/usr/bin/hvtrace-agent" | grep -c '=>')" -eq 1
check "the unit runs the installed agent" \
	grep -qx 'ExecStart=/usr/bin/hvtrace-agent --wait 0' "$r/etc/systemd/system/hvtrace-agent.service"
check "dkms.conf carries the version ($version)" \
	grep -qx "PACKAGE_VERSION=\"$version\"" "$r/usr/src/hvtrace-$version/dkms.conf"
check "the module loads at boot" grep -qx hvtrace "$r/etc/modules-load.d/hvtrace.conf"
check "the udev rule starts the agent for port org.hvtrace.0" \
	grep -q 'ATTR{name}=="org.hvtrace.0".*SYSTEMD_WANTS}+="hvtrace-agent.service"' \
	"$r/etc/udev/rules.d/60-hvtrace.rules"

# 2. The unit, as systemd reads it. verify checks the command and the man
# page exist, so this install is to real paths under the work directory.
p=$work/prefix
make -s -C "$root" BUILD="$build" install-guest PREFIX="$p" UNITDIR="$p/units" \
	UDEVRULESDIR="$p/udev" MODULESLOADDIR="$p/modules-load.d" DKMSSRCDIR="$p/src" \
	> "$work/install2.log" 2>&1
MANPATH=$p/share/man systemd-analyze verify "$p/units/hvtrace-agent.service" \
	> "$work/verify.out" 2>&1
status=$?
check "systemd-analyze verify accepts the unit, saying nothing (status $status$(head -c 300 \
	"$work/verify.out" | tr '\n' ' ' | sed 's/^./: &/'))" test "$status" -eq 0 -a ! -s "$work/verify.out"

# 3. DKMS builds the module for each guest kernel here.
dkms_build() {	# dkms_build KERNEL: add (once) and build, in a private namespace
	unshare --mount --propagation private sh -c '
		mount -t tmpfs hvtrace-dkms /var/lib/dkms || exit 1
		dkms add --sourcetree "$1/usr/src" --dkmstree "$1/dkms" -m hvtrace -v "$2" \
			> /dev/null 2>&1
		dkms build --sourcetree "$1/usr/src" --dkmstree "$1/dkms" -m hvtrace -v "$2" \
			-k "$3"' sh "$work/root" "$version" "$1" > "$work/dkms-$1.log" 2>&1
}
mkdir -p "$work/root/dkms"
for flavour in amd64 rt-amd64 6.12-amd64 6.12-rt-amd64; do
	kver=$("$root/scripts/guest-kernel" "$flavour")
	dkms_build "$kver"
	status=$?
	# compressed as the kernel's own modules are (6.12: CONFIG_MODULE_COMPRESS_XZ)
	ko=$(ls "$work/root/dkms/hvtrace/$version/$kver/x86_64/module/"hvtrace.ko* 2>/dev/null | head -n 1)
	check "dkms builds hvtrace.ko for $kver (status $status, ${ko##*/})" test "$status" -eq 0 -a \
		-n "$ko"
	check "without a compiler warning ($kver)" \
		bash -c "! grep -q 'warning:' '$work/root/dkms/hvtrace/$version/$kver/x86_64/log/make.log'"
done
check "nothing of DKMS's was left in /var/lib/dkms" test ! -e /var/lib/dkms/mok.key

summary "guest package"
