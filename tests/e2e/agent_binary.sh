#!/bin/bash
# The guest side installs like a package: hvtrace-agent needs libc and
# nothing else (the hvtrace command links libvirt, libtracefs, jansson and
# what they bring), and the guest image carries it instead of hvtrace.
set -uo pipefail
build=${1:?usage: agent_binary.sh BUILD}
. "$(dirname "$0")/lib.sh"

agent=$build/hvtrace-agent
check "hvtrace-agent is built" test -x "$agent"
libs=$(ldd "$agent" | awk '{ print $1 }' | grep -v -E '^(linux-vdso\.so\.1|/lib64/ld-linux-x86-64\.so\.2)$')
check "hvtrace-agent links libc only (ldd: $(echo $libs))" test "$libs" = "libc.so.6"
check "hvtrace links far more ($(ldd "$build/hvtrace" | wc -l) lines of ldd)" \
	test "$(ldd "$build/hvtrace" | wc -l)" -gt 10
"$agent" --help > /dev/null
check "hvtrace-agent --help exits 0" test $? -eq 0
"$agent" --no-such-option > /dev/null 2>&1
check "a wrong option exits 2" test $? -eq 2
check "the guest image carries hvtrace-agent" test -x "$build/guest/root/usr/bin/hvtrace-agent"
check "and not the host's hvtrace" test ! -e "$build/guest/root/usr/bin/hvtrace"
check "its libraries: libc and libhvtrace ($(ls "$build/guest/root/lib/x86_64-linux-gnu" | tr '\n' ' '))" \
	test "$(ls "$build/guest/root/lib/x86_64-linux-gnu" | tr '\n' ' ')" = "libc.so.6 libhvtrace.so.1 "
summary "agent binary"
