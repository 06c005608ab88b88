#!/bin/bash
# A guest clock change while recording: a TCG guest runs the demo
# application while the collector records; QEMU is paused and resumed over
# QMP, which under TCG moves the guest TSC against the host's. The collector
# must see the change in its exchanges, synchronise again and send the
# guest a new transform, which the guest module applies (one
# hvtrace_clock_change "set_clock", a new generation, per transform); merge must align
# the guest piecewise and hvtrace check must find every exchange causal.
# Then QEMU gets SIGSTOP for STALL_S (12 s): a guest starved on a busy host,
# its TSC going on (a TCG guest's is the host's, plus its offset). The
# collector must say that the guest stopped answering clock exchanges after
# 10 s and wait for it (up to --guest-timeout). The recording is stopped
# (SIGTERM) during the stall, and the stall goes on for STOP_WAIT_S (20 s)
# more, past the 15 s a stop waits for a guest that is not stalled: the
# stop must wait for the stalled guest too, and the recording completes,
# the guest finished, with every check above.
set -uo pipefail
build=${1:?usage: guest_pause.sh BUILD}
hvtrace=$(realpath "$build/hvtrace")
. "$(dirname "$0")/lib.sh"

PAUSE_S=2
STALL_S=12
STOP_WAIT_S=20
work=$(mktemp -d /tmp/hvtrace-e2e-pause-XXXXXX)
trap 'stop_all; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
qmp() {	# qmp COMMAND: one QMP command, after the capabilities handshake
	printf '{"execute":"qmp_capabilities"}\n{"execute":"%s"}\n' "$1" |
		socat -t 2 - "UNIX-CONNECT:$work/qmp.sock" > "$work/qmp-$1.out" 2>&1
	grep -q '"return"' "$work/qmp-$1.out"
}

start_bg qemu qemu-system-x86_64 -nodefaults -display none -no-reboot -m 512 -smp 2 \
	-accel tcg,thread=multi -cpu max -name hvpause,debug-threads=on \
	-kernel "$build/guest/vmlinuz" -initrd "$build/guest/initrd.gz" \
	-serial "file:$work/console.log" \
	-append "console=ttyS0 quiet panic=-1 hvtrace.rounds=2500" \
	-qmp "unix:$work/qmp.sock,server=on,wait=off" \
	-device virtio-serial-pci \
	-chardev "socket,id=hvt0,path=$work/hvtrace.sock,server=on,wait=off" \
	-device virtserialport,chardev=hvt0,name=org.hvtrace.0
check "QEMU is up" wait_for 20 test -S "$work/hvtrace.sock"
start_bg rec "$hvtrace" record --channel "unix:$work/hvtrace.sock" --qemu-pid "$qemu" \
	--qmp "unix:$work/qmp.sock" --vm pause -o "$work/a" --guest-timeout 120 \
	> "$work/rec.out" 2> "$work/rec.err"
# Tracing has started once the guest sends its first stream.
guest_traces() { jq -e '.streams | length > 0' "$work/a/vm/pause/info.json" >/dev/null 2>&1; }
check "the guest traces" wait_for 120 guest_traces
# QMP's vCPU threads are QEMU's threads named "CPU N/TCG" (debug-threads=on).
vcpus=$(jq -c '.vms[0].vcpu_threads' "$work/a/hvtrace.json" 2>/dev/null)
named=$(for t in /proc/"$qemu"/task/*; do
	c=$(cat "$t/comm" 2>/dev/null)
	case $c in "CPU "*/*) n=${c#CPU }; echo "${n%%/*} ${t##*/}" ;; esac
done | sort -n | awk '{ printf "%s%s", (NR > 1 ? "," : ""), $2 }')
check "the manifest has QEMU's vCPU threads from QMP ($vcpus; by name: $named)" \
	test "$vcpus" = "{\"source\":\"qmp\",\"tids\":[$named]}" -a -n "$named"
sleep 2
check "QMP stop" qmp stop
sleep "$PAUSE_S"
check "QMP cont" qmp cont
sleep 2
check "QEMU stopped (SIGSTOP)" kill -STOP "$qemu"
sleep "$STALL_S"
check "the recording is stopped during the stall (SIGTERM)" kill -TERM "$rec"
sleep "$STOP_WAIT_S"
check "QEMU continued (SIGCONT)" kill -CONT "$qemu"
reap "$rec" 240
check "the recording completes (status $?)" test $? -eq 0
reap "$qemu" 30

check "the collector said the stalled guest did not answer for 10 s" \
	grep -q "no answer to clock exchange [0-9]* for 10 s (the guest stalled or paused?); waiting up to 120 s" \
	"$work/rec.err"
check "... and went on once it answered" \
	grep -q "clock exchange [0-9]* answered after [0-9.]* s; exchanges go on" "$work/rec.err"
check "the stop said it waits for the stalled guest" \
	grep -q "VM pause: its guest is stalled; the stop waits for it" "$work/rec.err"
check "the guest finished after the stall" \
	grep -q "vm pause: guest finished tracing" "$work/rec.err"
check "the collector saw the guest clock change" \
	grep -q "contradicts the guest TSC offset so far" "$work/rec.err"
changes=$(jq '.sync.clock_changes' "$work/a/vm/pause/info.json" 2>/dev/null)
sent=$(jq '.sync.params_sent' "$work/a/vm/pause/info.json" 2>/dev/null)
check "info.json counts the change ($changes)" test "${changes:-0}" -ge 1
"$hvtrace" merge -v "$work/a" > "$work/merge.txt" 2> "$work/merge.err"	# -v: how it aligned
check "merge succeeds" test $? -eq 0
# The first transform arrives before tracing starts, as generation 1; each
# later one must show as the next generation.
gens=$(grep 'hvtrace_clock_change .*cause=set_clock' "$work/merge.txt" |
	sed 's/.*generation=\([0-9]*\).*/\1/' | tr '\n' ' ')
want=$(seq -s ' ' 2 "${sent:-0}" 2>/dev/null)
check "the guest applied every transform sent after the start (generations ${gens:-none}of 2..$sent)" \
	test "${sent:-0}" -ge 2 -a "$gens" = "$want "
check "merge aligns the guest piecewise" grep -q "guest clock changed" "$work/merge.err"
"$hvtrace" check "$work/a" > "$work/check.out" 2>&1
check "hvtrace check passes across the change" test $? -eq 0
# Each exchange is judged by its own round trip, so the one in flight
# across the pause leaves no segment without a guaranteed bound; the vCPU
# threads' runs then bound both segments (docs/clock-model.md).
grep "host runs of its vCPU threads\|runs are not used" "$work/merge.err"
bound=$(grep "^INFO error-bound" "$work/check.out")
echo "$bound"
check "every guest event has a guaranteed bound" grep -q "; 0 without a guaranteed bound" \
	<<< "$bound"
check "the vCPU threads' runs bound the clock across the change" \
	grep -q "the host runs of its vCPU threads place" "$work/merge.err"
if [ "$e2e_failed" -gt 0 ]; then
	for f in rec.err rec.out merge.err check.out; do
		echo "== $f (end)"; tail -n 20 "$work/$f"
	done
	grep -E "hvtrace|hvdemo" "$work/console.log" | tail -n 20
fi
summary "guest pause"
