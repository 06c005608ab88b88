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
# --wait: how long to wait for a collector; 0, as the systemd unit runs it, is no limit
work=$(mktemp -d /tmp/hvtrace-e2e-agent-XXXXXX)
trap 'stop_all; rm -rf "$work"' EXIT
start_bg forever "$agent" --connect "unix:$work/nobody.sock" --wait 0 --socket "$work/a.sock"
start_bg once "$agent" --connect "unix:$work/nobody.sock" --wait 1 --socket "$work/b.sock"
reap "$once" 10 2> /dev/null
check "--wait 1 gives up after a second, with status 1 ($?)" test $? -eq 1
sleep 1
check "--wait 0 is still waiting two seconds later" is_running "$forever"
stop_all
check "the guest image carries hvtrace-agent" test -x "$build/guest/root/usr/bin/hvtrace-agent"
check "and not the host's hvtrace" test ! -e "$build/guest/root/usr/bin/hvtrace"
check "its libraries: libc and libhvtrace ($(ls "$build/guest/root/lib/x86_64-linux-gnu" | tr '\n' ' '))" \
	test "$(ls "$build/guest/root/lib/x86_64-linux-gnu" | tr '\n' ' ')" = "libc.so.6 libhvtrace.so.1 "
summary "agent binary"
