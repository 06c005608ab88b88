#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# guest_link.sh BUILD [GUEST_DIR] - guest data throughput over virtio-serial
# with zero loss at the default buffer sizes: how many MB/s (10^6 bytes) of
# trace data a guest pushes to `hvtrace record` before an event is lost,
# with the agent's default kernel buffers (8 x 64 KiB per CPU) and
# libhvtrace's default per-thread buffers (16 x 128 KiB). Next to it, the
# reference measured in the same run: the same collector and agent on this
# host over a unix socket, no VM. Takes 35 s here (a minute with
# paced_events in the image).
#
# 1. Reference (host, no VM). `hvtrace record --listen unix:... --no-host-trace`
#    and `hvtrace agent --connect unix:...`, as tests/e2e/user_stress.sh
#    does. First hvtrace-ust-stress with 2 threads at full speed; it may
#    lose events (its threads write faster than one core stores), so then
#    paced_events (tests/bench/paced_events.c) with 2
#    threads at a fixed rate, doubling the rate until events are lost and
#    bisecting: the highest rate without loss is the reference. Each
#    generator run is one process: its bytes and losses are those of its
#    trace's streams in info.json (trace pid = the process), read once every
#    stream of it is closed.
# 2. Guest. The TCG guest of BUILD/guest (2 vCPUs), with a virtio-serial
#    port org.hvtrace.0 on a unix socket, recorded with `hvtrace record
#    --channel unix:SOCK --qemu-pid PID --no-host-trace`. The image's own
#    /init runs only `hvdemo ROUNDS 5000` (hvtrace.rounds=ROUNDS: a 5 ms sleep
#    per round, about 200 rounds/s, a few tens of KB/s), so the kernel
#    command line starts busybox instead (rdinit=/bin/busybox -- sh -c
#    "..."): the same set-up as scripts/guest-init (modules, hvtrace.ko, the
#    agent), then the generator, then the agent's clean stop and poweroff.
#    Only what is in the image runs. The generator:
#      - hvdemo (what the image has): HVDEMO_PROCS copies of `hvdemo ROUNDS
#        0`, ping-pong without the sleep, as fast as the vCPUs go: user
#        events and, mostly, the guest kernel's sched_switch events. If that
#        loses events, boots again with a sleep per round (hvdemo's
#        SLEEP_US, its only pacing) until nothing is lost.
#      - paced_events, if the image has /usr/bin/paced_events (it does):
#        2 threads at full speed, then at a ladder of fixed rates, one
#        process each, in the same boot. The result is the highest rate up to which no rate
#        lost events (the guest kernel's losses count for the whole boot).
#    Bytes received and events lost come from the archive (info.json: every
#    stream's bytes and lost count; they match the collector's summary,
#    which is printed), the seconds from the archive too: hvdemo's
#    hvdemo:phase begin and end events on the host time line (`hvtrace
#    merge`), or paced_events' own elapsed time.
#
# Without the host layer (--no-host-trace) on both sides: the measurement
# is of the guest link, the host layer's ftrace pages would add disk writes
# and a reader per CPU competing with the two TCG vCPU threads on this
# 2-core machine, and the reference cannot have a host layer anyway (no VM).
#
# Environment: HVDEMO_PROCS (default 4), HVDEMO_ROUNDS (rounds of each,
# default 20000, about 10 s here), KEEP=1 keeps the work directory.
#
# The binaries are copied into the work directory first, so that a rebuild
# during the run cannot change them. paced_events: BUILD/bench/paced_events
# if it exists, else compiled from tests/bench/paced_events.c into the work
# directory against BUILD's libhvtrace.
# start_bg assigns the pid variables; the guest's script is single-quoted on purpose.
# shellcheck disable=SC2154,SC2016
set -uo pipefail
build=${1:?usage: guest_link.sh BUILD [GUEST_DIR]}
guest=${2:-$build/guest}
build=$(cd "$build" && pwd) && guest=$(cd "$guest" && pwd) || exit 1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=tests/e2e/lib.sh
. "$root/tests/e2e/lib.sh"	# start_bg, reap, stop_all (scripts/proc.sh: wait_for, stop_pid)

procs=${HVDEMO_PROCS:-4}
rounds=${HVDEMO_ROUNDS:-20000}
threads=2		# paced_events and hvtrace-ust-stress threads, host and guest
trial_s=1.5		# one host paced_events trial
guest_trial_s=3		# one guest paced_events phase
guest_ladder="100000 300000 1000000 3000000"	# events/s per thread, as data_path.sh's

work=$(mktemp -d /tmp/hvtrace-bench-link-XXXXXX)
trap 'stop_all; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
trap 'exit 1' INT TERM HUP
cd "$work" || exit 1	# whatever a command writes by mistake lands here
log() { echo "guest_link: $*" >&2; }
die() { log "$*"; exit 1; }

# --- binaries -----------------------------------------------------------
bin=$work/bin
mkdir -p "$bin"
for f in hvtrace hvtrace-ust-stress libhvtrace.so.1; do
	cp -L "$build/$f" "$bin/" || die "cannot copy $build/$f"
done
if [ -x "$build/bench/paced_events" ]; then
	cp -L "$build/bench/paced_events" "$bin/"
else
	${CC:-cc} -std=gnu11 -O2 -D_GNU_SOURCE -I"$root/include" -I"$root" \
		-o "$bin/paced_events" "$root/tests/bench/paced_events.c" \
		-L"$build" -lhvtrace -pthread || die "cannot build paced_events"
fi
export LD_LIBRARY_PATH=$bin	# the copied libhvtrace, whatever RUNPATH says
hvtrace=$bin/hvtrace
"$hvtrace" record --help > /dev/null 2>&1 || die "$build/hvtrace does not run"
for f in vmlinuz initrd.gz; do
	[ -r "$guest/$f" ] || die "no $guest/$f (make image)"
done

# --- helpers ------------------------------------------------------------
mbps() { awk -v b="$1" -v s="$2" 'BEGIN { printf "%.2f", (s > 0 ? b / s / 1e6 : 0) }'; }

# pid_stats INFO PID: "BYTES LOST STREAMS OPEN" over the streams of PID's traces.
pid_stats() {
	jq -r --argjson pid "$2" '[.traces[] | select(.pid == $pid) | .id] as $ids
		| [.streams[] | select(.trace as $t | $ids | index($t))]
		| "\(map(.bytes) | add // 0) \(map(.lost) | add // 0) \(length) \(map(select(.closed | not)) | length)"' \
		"$1" 2> /dev/null
}
# closed INFO PID: PID has streams and all of them are closed.
closed() {
	local s
	s=$(pid_stats "$1" "$2") || return 1
	# shellcheck disable=SC2086
	set -- $s
	[ "${3:-0}" -gt 0 ] && [ "${4:-1}" -eq 0 ]
}
# all_stats INFO: "BYTES LOST KERNEL_BYTES KERNEL_LOST USER_BYTES USER_LOST"
all_stats() {
	jq -r '(.traces | map({key: (.id | tostring), value: .layer}) | from_entries) as $l
		| [.streams[] | . + {layer: $l[.trace | tostring]}] as $s
		| def sum(f): (map(f) | add // 0);
		"\($s | sum(.bytes)) \($s | sum(.lost))"
		+ " \($s | map(select(.layer == "kernel")) | sum(.bytes)) \($s | map(select(.layer == "kernel")) | sum(.lost))"
		+ " \($s | map(select(.layer == "user")) | sum(.bytes)) \($s | map(select(.layer == "user")) | sum(.lost))"' \
		"$1"
}
# summary_lost REC_OUT: the events lost of the collector's summary, all layers.
summary_lost() {
	awk '/ events lost$/ { n += $(NF - 2) } END { print n + 0 }' "$1"
}

# --- 1. reference: the same collector and agent on this host ------------
ref=$work/ref
ref_info=$ref/vm/local/info.json
start_bg ref_rec "$hvtrace" record --listen "unix:$work/ref.sock" --no-host-trace --vm local \
	-o "$ref" --guest-timeout 30 > "$work/ref-rec.out" 2> "$work/ref-rec.err"
wait_for 10 test -S "$work/ref.sock" || die "the reference collector does not listen"
start_bg ref_agent "$hvtrace" agent --connect "unix:$work/ref.sock" \
	--socket "$work/ref-agent.sock" 2> "$work/ref-agent.err"
wait_for 10 test -S "$work/ref-agent.sock" || die "the reference agent does not serve applications"
"$bin/hvtrace-ust-stress" -w "$work/clock-page" || die "cannot write a clock page"
app_env=(env HVTRACE_AGENT_SOCKET="$work/ref-agent.sock" HVTRACE_DEVICE="$work/clock-page")

# host_run OUT COMMAND...: runs a generator, waits until the archive has
# closed all its streams; sets run_pid, run_s (wall time), run_bytes, run_lost.
host_run() {
	local out=$1 t0 t1 s
	shift
	t0=$(date +%s%N)
	start_bg run_pid "${app_env[@]}" "$@" > "$out"
	reap "$run_pid" 60 || die "$1 failed (status $?)"
	t1=$(date +%s%N)
	run_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", (b - a) / 1e9 }')
	wait_for 10 closed "$ref_info" "$run_pid" || die "the archive did not close the streams of pid $run_pid"
	s=$(pid_stats "$ref_info" "$run_pid")
	# shellcheck disable=SC2086
	set -- $s
	run_bytes=$1 run_lost=$2
}

echo "== reference: collector and agent on this host over a unix socket, no VM"
host_run "$work/stress.out" "$bin/hvtrace-ust-stress" -t "$threads" -n 40000000 -m 1000000000
stress_bytes=$run_bytes stress_lost=$run_lost stress_s=$run_s
echo "host stress: hvtrace-ust-stress -t $threads at full speed: $run_bytes bytes in $run_s s:" \
	"$(mbps "$run_bytes" "$run_s") MB/s, $run_lost events lost"

# paced_trial RATE: sets ok (1: nothing lost), t_bytes, t_s, t_lost, t_mbps.
paced_trial() {
	host_run "$work/paced-$1.out" "$bin/paced_events" -t "$threads" -r "$1" -d "$trial_s"
	t_s=$(paced_secs "$work/paced-$1.out")
	t_bytes=$run_bytes t_lost=$run_lost t_mbps=$(mbps "$run_bytes" "$t_s")
	ok=0; [ "$t_lost" -eq 0 ] && ok=1
	echo "host paced: $threads x $1 events/s: $t_bytes bytes in $t_s s: $t_mbps MB/s," \
		"$t_lost events lost"
}
lo=0 hi=0 rate=25000 best_mbps=0 best_rate=0 best_bytes=0 best_s=0
while [ "$rate" -le 3200000 ]; do	# double until a rate loses events
	paced_trial "$rate"
	if [ "$ok" = 1 ]; then
		lo=$rate best_rate=$rate best_mbps=$t_mbps best_bytes=$t_bytes best_s=$t_s
		rate=$((rate * 2))
	else
		hi=$rate
		break
	fi
done
if [ "$hi" -gt 0 ]; then
	for _ in 1 2 3 4; do	# then halve the interval four times
		rate=$(((lo + hi) / 2))
		paced_trial "$rate"
		if [ "$ok" = 1 ]; then
			lo=$rate best_rate=$rate best_mbps=$t_mbps best_bytes=$t_bytes best_s=$t_s
		else
			hi=$rate
		fi
	done
fi
kill -TERM "$ref_agent"
reap "$ref_agent" 20 || log "the reference agent exited with status $?"
reap "$ref_rec" 30 || log "the reference collector exited with status $?"
echo "collector summary (reference):"
sed -n '/^  vm /,$p' "$work/ref-rec.out" | grep -v '^merge it'
[ "$best_rate" -gt 0 ] || die "the reference lost events at every rate tried"
if [ "$hi" -gt 0 ]; then
	over="$hi events/s per thread lost some"
else
	over="no rate tried lost any (the ladder stops at 3200000 per thread)"
fi
echo "host reference: $threads threads x $best_rate events/s: $best_bytes bytes in $best_s s," \
	"0 events lost; $over"

# --- 2. the guest -------------------------------------------------------
# The guest's /init, on the kernel command line: scripts/guest-init's
# set-up, then the generator. No double quote may appear in it (the kernel
# command line quotes it), and it must stay well under 2048 bytes.
# guest_script SLEEP_US: hvdemo's sleep per round (hvdemo mode).
guest_script() {
	local s
	s='/bin/busybox --install -s /bin; mount -t proc proc /proc; mount -t sysfs sys /sys;'
	s+=' mount -t devtmpfs dev /dev; mount -t tmpfs run /run; mkdir -p /tmp;'
	s+=' while read -r m; do insmod /lib/modules/$m.ko; done < /lib/modules/load-order;'
	s+=' insmod /lib/modules/hvtrace.ko || echo hvbench: no hvtrace.ko;'
	s+=' hvtrace-agent --wait 90 & a=$!; i=0;'
	s+=' while [ ! -S /run/hvtrace/agent.sock ] && [ $i -lt 900 ]; do sleep 0.1; i=$((i+1)); done;'
	s+=' [ -S /run/hvtrace/agent.sock ] || echo hvbench: the agent did not start;'
	s+=' if [ -x /usr/bin/paced_events ]; then echo hvbench: generator paced_events;'
	s+=" for r in 0 $guest_ladder; do paced_events -t $threads -r \$r -d $guest_trial_s > /tmp/o & p=\$!;"
	s+=' wait $p; echo hvbench: pid $p status $? $(tail -n 1 /tmp/o); sleep 1; done;'
	s+=" else echo hvbench: generator hvdemo $procs x $rounds rounds, sleep $1 us; p=;"
	s+=" for j in \$(seq $procs); do hvdemo $rounds $1 > /dev/null & p=\$p' '\$!; done;"
	s+=' for j in $p; do wait $j || echo hvbench: hvdemo $j status $?; done; fi;'
	s+=' echo hvbench: done; kill -TERM $a; wait $a; echo hvbench: agent status $?; sync; poweroff -f'
	printf '%s' "$s"
}

# guest_boot NAME SLEEP_US: one boot, recorded into $work/NAME; sets g_dir,
# g_info, g_console; fails if the recording did not complete.
guest_boot() {
	local name=$1 script status
	g_dir=$work/$name g_info=$work/$name/vm/guest/info.json g_console=$work/$name-console.log
	script=$(guest_script "$2")
	[ "${#script}" -lt 1900 ] || die "the guest script is too long (${#script} bytes)"
	start_bg qemu qemu-system-x86_64 -nodefaults -display none -no-reboot -m 512 -smp 2 \
		-accel tcg,thread=multi -cpu max -name hvlink,debug-threads=on \
		-kernel "$guest/vmlinuz" -initrd "$guest/initrd.gz" \
		-serial "file:$g_console" \
		-append "console=ttyS0 quiet panic=-1 rdinit=/bin/busybox -- sh -c \"$script\"" \
		-device virtio-serial-pci \
		-chardev "socket,id=hvt0,path=$work/$name.sock,server=on,wait=off" \
		-device virtserialport,chardev=hvt0,name=org.hvtrace.0 \
		2> "$work/$name-qemu.err"
	wait_for 20 test -S "$work/$name.sock" || die "QEMU did not start: $(cat "$work/$name-qemu.err")"
	start_bg grec "$hvtrace" record --channel "unix:$work/$name.sock" --qemu-pid "$qemu" \
		--no-host-trace --vm guest -o "$g_dir" --guest-timeout 90 \
		> "$work/$name-rec.out" 2> "$work/$name-rec.err"
	reap "$grec" 150
	status=$?
	reap "$qemu" 30 || log "QEMU exited with status $? (or is still running)"
	tr -d '\r' < "$g_console" > "$g_console.txt"
	if [ "$status" -ne 0 ] || ! grep -q "^hvbench: done" "$g_console.txt" ||
	   [ "$(jq -r '.end_reason' "$g_info" 2> /dev/null)" != "guest finished" ]; then
		log "the guest recording $name did not complete (collector status $status)"
		tail -n 5 "$work/$name-rec.err" >&2
		grep -E "hvbench|hvtrace" "$g_console.txt" | tail -n 10 >&2
		exit 1
	fi
	grep "^hvbench: " "$g_console.txt" | grep -v "^hvbench: pid " | sed 's/^hvbench: /guest: /'
}

# hvdemo_window: the seconds from the first hvdemo:phase begin to the last end.
hvdemo_window() {
	"$hvtrace" merge "$g_dir" --layer user --event 'hvdemo:phase' 2> "$work/merge.err" |
		awk '/name=begin/ && !b { b = $1 } /name=end/ { e = $1 }
		     END { if (b != "" && e != "") printf "%.6f", e - b }'
}

echo "== guest: TCG, 2 vCPUs, virtio-serial port org.hvtrace.0 on a unix socket"
guest_boot g0 0
echo "collector summary (guest):"
sed -n '/^  vm /,$p' "$work/g0-rec.out" | grep -v '^merge it'
read -r g_bytes g_lost k_bytes k_lost u_bytes u_lost < <(all_stats "$g_info")
[ "$g_lost" -eq "$(summary_lost "$work/g0-rec.out")" ] ||
	log "info.json says $g_lost events lost, the collector's summary $(summary_lost "$work/g0-rec.out")"
echo "guest archive: kernel $k_bytes bytes ($k_lost lost), user $u_bytes bytes ($u_lost lost)"

if grep -q "^hvbench: generator paced_events" "$g_console.txt"; then
	# One process per rate; its user streams say what it lost. The guest
	# kernel's losses are counted once per boot, for all the rates together.
	# The result: the highest rate of the ascending ladder up to which no
	# rate lost anything (a higher rate that happens to lose nothing after
	# one that lost some is reported, not taken: one stall of the VM of
	# about 150 ms is enough to lose events at those rates).
	result_mbps="" result_lost=0 result_how="" failed_at="" lucky=""
	while read -r _ _ pid _ status _ _ _ r _ _ secs _ emitted _; do
		read -r b l _ _ < <(pid_stats "$g_info" "$pid")
		m=$(mbps "$b" "$secs")
		# emitted below the rate asked: the generator, on the vCPUs, was the limit
		echo "guest paced: $threads x $r events/s (pid $pid, status $status): $emitted emitted," \
			"$b bytes in $secs s: $m MB/s, $l events lost"
		if [ "$r" = 0 ]; then
			full_mbps=$m full_lost=$l
		elif [ -n "$failed_at" ]; then
			[ "$l" -ne 0 ] || lucky+=" $r ($m MB/s)"
		elif [ "$l" -eq 0 ]; then
			result_mbps=$m result_how="$threads threads x $r events/s, paced"
		else
			failed_at=$r
		fi
	done < <(grep "^hvbench: pid " "$g_console.txt")
	if [ "${full_lost:-1}" -eq 0 ]; then
		result_mbps=$full_mbps result_how="$threads threads at full speed"
	fi
	[ -n "$result_how" ] || die "the guest lost events at every rate of the ladder"
	[ -z "$failed_at" ] || result_how+="; $failed_at events/s per thread lost some"
	[ -z "$lucky" ] || result_how+="; higher rates that lost nothing, not taken:$lucky"
	[ "$k_lost" -eq 0 ] || log "the guest kernel lost $k_lost events in this boot (not counted per rate)"
	result_lost=$((result_lost + k_lost))
else
	secs=$(hvdemo_window)
	[ -n "$secs" ] || die "no hvdemo:phase begin and end events in the archive"
	g_mbps=$(mbps "$g_bytes" "$secs")
	echo "guest hvdemo: $procs x $rounds rounds, sleep 0: $g_bytes bytes in $secs s: $g_mbps MB/s," \
		"$g_lost events lost"
	result_mbps=$g_mbps result_lost=$g_lost
	result_how="hvdemo x $procs at full speed: zero loss, so the vCPUs, not the link, were the limit: a lower bound"
	if [ "$g_lost" -gt 0 ]; then	# pace hvdemo by its sleep per round, fewer rounds
		result_how="lost events at every pace tried"
		# each copy's round at full speed, in seconds (the copies run side by side)
		round_s=$(awk -v r="$rounds" -v s="$secs" 'BEGIN { printf "%.9f", s / r }')
		for sleep_us in 200 1000; do	# rounds for about 10 s
			rounds=$(awk -v t="$round_s" -v u="$sleep_us" \
				'BEGIN { n = int(10 / (t + (u + 100) / 1e6)); print (n < 100 ? 100 : n) }')
			guest_boot "g-$sleep_us" "$sleep_us"
			read -r g_bytes g_lost _ < <(all_stats "$g_info")
			secs=$(hvdemo_window)
			g_mbps=$(mbps "$g_bytes" "$secs")
			echo "guest hvdemo: $procs x $rounds rounds, sleep $sleep_us us: $g_bytes bytes in" \
				"$secs s: $g_mbps MB/s, $g_lost events lost"
			result_mbps=$g_mbps result_lost=$g_lost
			if [ "$g_lost" -eq 0 ]; then
				result_how="hvdemo x $procs paced with a $sleep_us us sleep per round"
				break
			fi
		done
	fi
fi

ratio=$(awk -v g="$result_mbps" -v h="$best_mbps" 'BEGIN { printf "%.3f", (h > 0 ? g / h : 0) }')
echo
echo "guest link: $result_mbps MB/s over virtio-serial, $result_lost events lost (default buffers)"
echo "  ($result_how)"
echo "host reference: $best_mbps MB/s over a unix socket, 0 events lost (default buffers," \
	"no VM, $threads threads x $best_rate events/s; at full speed" \
	"$(mbps "$stress_bytes" "$stress_s") MB/s with $stress_lost events lost)"
echo "ratio guest/host: $ratio"
