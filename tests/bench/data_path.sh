#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# data_path.sh BUILD - what reaches the archive from a busy application,
# hvtrace against LTTng-UST in the same run on the same machine.
#
# One program shape for both (tests/bench/paced_events.c, built against
# libhvtrace as BUILD/bench/paced_events and against LTTng-UST as
# BUILD/bench/paced_lttng): THREADS threads emit a 3 x u64 event at an
# offered rate per thread, or as fast as they can (rate 0), for SECONDS.
# The ladder: every rate of RATES for every count of THREADS.
#
#   hvtrace   `hvtrace record --listen unix:... --no-host-trace` and
#             `hvtrace agent --connect unix:...` on this host (no VM), both
#             at their defaults, the program at libhvtrace's default buffers
#   LTTng     a session of a session daemon of its own (lttng_session.sh),
#             `lttng enable-event -u` into the default channel (LTTng-UST
#             2.13: per-UID buffers, 4 x 512 KiB sub-buffers per CPU,
#             discard mode); then once more with a channel of the same
#             buffer memory as hvtrace's (THREADS x libhvtrace's per-thread
#             buffer, split over the CPUs)
#
# Per run it prints the events emitted (the program's own count), recorded
# (counted by babeltrace2's sink.utils.counter on the archive or the LTTng
# trace: what a reader gets, not what the tool says it kept), lost %, the
# tool's own count of lost events beside it, and the consumer side's CPU per
# million recorded events: hvtrace's agent and collector (user + system
# time of each, /usr/bin/time), LTTng's consumer daemon. For hvtrace also
# the MB/s the archive took, the agent's % of a core per 100 MB/s
# forwarded, and the clock exchanges' round trip (p50/p99 from the
# archive's sync.tsv, in microseconds), next to an idle recording's.
#
# Both tools write their trace into fresh page-cache pages. In a VM whose
# balloon reports free memory to its host (this machine: Firecracker,
# VIRTIO_BALLOON_F_REPORTING), memory freed a few seconds ago is unbacked
# again, and the first write into it costs about 5 times a write into
# memory the guest still holds (the reference line "page cache" measures
# both). Whichever tool ran right after another run's trace was deleted got
# the warm memory. So before every run, both tools', the script writes and
# deletes DATA_PATH_WARM_MB of a file (default 4096, at most half the
# available memory): each run starts with the same warm memory, as on a
# machine without a ballooned host.
#
# Environment: DATA_PATH_SECONDS (default 5), DATA_PATH_RATES (events/s per
# thread, default "100000 300000 1000000 3000000 0"), DATA_PATH_THREADS
# (default "1 2"), DATA_PATH_WARM_MB (above; 0: no warming), KEEP=1 keeps
# the work directory. Takes about 10 minutes
# at the defaults here (babeltrace2 reads about 2 M events/s).
# shellcheck disable=SC2154
set -uo pipefail
build=${1:?usage: data_path.sh BUILD}
build=$(cd "$build" && pwd) || exit 1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=tests/e2e/lib.sh
. "$root/tests/e2e/lib.sh"	# start_bg, reap, stop_all, paced_total, paced_secs
# shellcheck source=tests/bench/lttng_session.sh
. "$here/lttng_session.sh"

secs=${DATA_PATH_SECONDS:-5}
rates=${DATA_PATH_RATES:-"100000 300000 1000000 3000000 0"}
thread_counts=${DATA_PATH_THREADS:-"1 2"}
session=hvtpath
hvt_buffer_bytes=$((16 * 128 * 1024))	# libhvtrace's default per thread (vdso/buffer.c)
ncpu=$(nproc)

log() { echo "data_path: $*" >&2; }
die() { log "$*"; exit 1; }

work=$(mktemp -d /tmp/hvtrace-bench-path-XXXXXX)
tmp=$work/lttng
mkdir -p "$tmp"
timed_pids=()
cleanup() {
	local p
	for p in "${timed_pids[@]}"; do	# the programs under /usr/bin/time, by pid
		kill -TERM "$p" 2>/dev/null
	done
	stop_all
	stop_sessiond
	[ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
cd "$work" || exit 1

for f in hvtrace bench/paced_events bench/paced_lttng hvtrace-ust-stress; do
	[ -x "$build/$f" ] || die "no $build/$f (make bench builds it)"
done
bin=$work/bin
mkdir -p "$bin"
cp -L "$build/hvtrace" "$build/hvtrace-ust-stress" "$build/libhvtrace.so.1" \
	"$build/bench/paced_events" "$build/bench/paced_lttng" "$bin/" || die "cannot copy the binaries"
chmod a+rx "$work" "$bin" && chmod a+r "$bin"/*	# paced_lttng runs as nobody
export LD_LIBRARY_PATH=$bin
hvtrace=$bin/hvtrace
"$bin/hvtrace-ust-stress" -w "$work/clock-page" || die "cannot write a clock page"

# --- helpers ------------------------------------------------------------
# start_timed VAR CPU_FILE OUT ERR COMMAND...: COMMAND under /usr/bin/time,
# which writes its user and system seconds to CPU_FILE when it exits, its
# output to OUT and ERR; the pid of COMMAND itself in VAR (signals go to
# it: time does not pass them on), that of time in VAR_timer.
start_timed() {
	local var=$1 cpu=$2 out=$3 err=$4 tpid child
	shift 4
	start_bg tpid /usr/bin/time -f "%U %S" -o "$cpu" "$@" > "$out" 2> "$err"
	wait_for 5 has_child "$tpid" || die "$1 did not start"
	child=$(cat "/proc/$tpid/task/$tpid/children")
	child=${child%% *}
	timed_pids+=("$child")
	printf -v "$var" '%s' "$child"
	printf -v "${var}_timer" '%s' "$tpid"
}
has_child() { [ -n "$(cat "/proc/$1/task/$1/children" 2> /dev/null)" ]; }
cpu_s() { awk '{ printf "%.3f", $1 + $2 }' "$1"; }
# proc_cpu_s PID: user + system seconds of a running process so far.
proc_cpu_s() {
	local s
	{ read -r s < "/proc/$1/stat"; } 2>/dev/null || { echo 0; return; }
	s=${s##*) }
	# shellcheck disable=SC2086
	set -- $s
	awk -v u="${12}" -v k="${13}" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.3f", (u + k) / hz }'
}
# warm_memory: writes and deletes DATA_PATH_WARM_MB of a file in the work
# directory, so that the pages a run's trace takes are backed (above).
warm_mb=${DATA_PATH_WARM_MB:-4096}
avail_mb=$(awk '/^MemAvailable:/ { printf "%d", $2 / 1024 / 2 }' /proc/meminfo)
[ "$warm_mb" -le "$avail_mb" ] || warm_mb=$avail_mb
warm_memory() {
	[ "$warm_mb" -gt 0 ] || return 0
	dd if=/dev/zero of="$work/warm" bs=1M count="$warm_mb" status=none
	rm -f "$work/warm"
}
# page_cache_rate COLD|WARM: GB/s of a 1 GiB write into the page cache, into
# memory left alone for 20 s (cold) or freed just before (warm).
page_cache_rate() {
	local t0 t1
	if [ "$1" = cold ]; then sleep 20; else warm_memory; fi
	t0=$(date +%s%N)
	dd if=/dev/zero of="$work/rate" bs=1M count=1024 status=none
	t1=$(date +%s%N)
	rm -f "$work/rate"
	awk -v ns=$((t1 - t0)) 'BEGIN { printf "%.1f", 1.073741824 / (ns / 1e9) }'
}
per_m() { awk -v c="$1" -v n="$2" 'BEGIN { printf "%.3f", (n > 0 ? c / (n / 1e6) : 0) }'; }
pct() { awk -v r="$1" -v e="$2" 'BEGIN { printf "%.3f", (e > 0 ? 100 * (e - r) / e : 0) }'; }

# rtt_us ARCHIVE [FROM_NS TO_NS]: "p50 p99 n" of the clock exchanges' round
# trip in microseconds, those sent between the two CLOCK_MONOTONIC instants
# if given; the host TSC rate from host/clock.tsv.
rtt_us() {
	awk -v from="${2:-0}" -v to="${3:-0}" '
		FNR == 1 { next }
		FILENAME ~ /clock.tsv$/ { if (!t0) { t0 = $1; m0 = $2 } t1 = $1; m1 = $2; next }
		{
			hz = (t1 - t0) / ((m1 - m0) / 1e9)
			ns = m0 + ($2 - t0) / hz * 1e9
			if (!to || (ns >= from && ns <= to))
				printf "%.3f\n", ($5 - $2) / hz * 1e6
		}' "$1/host/clock.tsv" "$1/vm/local/sync.tsv" | sort -n |
	awk '{ v[NR] = $1 } END {
		if (!NR) { print "- - 0"; exit }
		printf "%.0f %.0f %d\n", v[int((NR - 1) * 0.5) + 1], v[int((NR - 1) * 0.99) + 1], NR }'
}
# hvt_run NAME THREADS RATE: one recording of paced_events; sets emitted,
# recorded, lost_tool, agent_cpu, rec_cpu, bytes, rtt ("p50 p99 n").
hvt_run() {
	local name=$1 threads=$2 rate=$3 dir=$work/$1 t0 t1
	warm_memory
	start_timed rec "$work/$name-rec.cpu" "$work/$name-rec.out" "$work/$name-rec.err" \
		"$hvtrace" record --listen "unix:$work/$name.sock" --no-host-trace --vm local \
		-o "$dir" --guest-timeout 30
	wait_for 10 test -S "$work/$name.sock" || die "$name: the collector does not listen"
	start_timed agent "$work/$name-agent.cpu" /dev/null "$work/$name-agent.err" \
		"$hvtrace" agent --connect "unix:$work/$name.sock" --socket "$work/$name-agent.sock"
	wait_for 10 test -S "$work/$name-agent.sock" || die "$name: the agent does not serve applications"
	t0=$(date +%s%N)
	if [ "$threads" = 0 ]; then
		sleep "$secs"
	else
		HVTRACE_AGENT_SOCKET="$work/$name-agent.sock" HVTRACE_DEVICE="$work/clock-page" \
			"$bin/paced_events" -t "$threads" -r "$rate" -d "$secs" > "$work/$name.out" ||
			die "$name: paced_events failed"
	fi
	t1=$(date +%s%N)
	kill -TERM "$agent"
	reap "$agent_timer" 60 || log "$name: the agent exited with status $?"
	reap "$rec_timer" 60 || log "$name: the collector exited with status $?"
	timed_pids=()
	[ "$(jq -r .end_reason "$dir/vm/local/info.json")" = "guest finished" ] ||
		die "$name: the recording did not complete: $(tail -n 3 "$work/$name-rec.err")"
	agent_cpu=$(cpu_s "$work/$name-agent.cpu") rec_cpu=$(cpu_s "$work/$name-rec.cpu")
	bytes=$(jq '[.streams[].bytes] | add // 0' "$dir/vm/local/info.json")
	lost_tool=$(jq '[.streams[].lost] | add // 0' "$dir/vm/local/info.json")
	# the exchanges sent while the program ran (date +%s%N is CLOCK_REALTIME:
	# the archive's clock pairs map it)
	rtt=$(rtt_window "$dir" "$t0" "$t1")
	if [ "$threads" = 0 ]; then
		emitted=0 recorded=0
	else
		emitted=$(paced_total "$work/$name.out")
		recorded=$(count_events "$dir")
	fi
	[ -n "${KEEP:-}" ] || rm -rf "$dir"
}

# rtt_window ARCHIVE REALTIME_FROM REALTIME_TO: rtt_us between two
# CLOCK_REALTIME instants, turned into CLOCK_MONOTONIC by the clock pairs.
rtt_window() {
	local tsc mono real
	read -r tsc mono real _ < <(sed -n 2p "$1/host/clock.tsv")	# bash: 64-bit arithmetic
	rtt_us "$1" $(($2 - real + mono)) $(($3 - real + mono))
}

# lttng_run NAME THREADS RATE [SUBBUF NR]: the same under LTTng-UST, in the
# default channel or in one of NR x SUBBUF bytes per CPU; sets emitted,
# recorded, lost_tool, consumer_cpu.
lttng_run() {
	local name=$1 threads=$2 rate=$3 trace=$tmp/$1 c0
	warm_memory
	lt create "$session" --output="$trace" || die "$name: lttng create failed"
	created=1
	if [ $# -gt 3 ]; then
		lt enable-channel -u -s "$session" --buffers-uid --discard --subbuf-size="$4" \
			--num-subbuf="$5" ch || die "$name: lttng enable-channel failed"
		lt enable-event -u -s "$session" -c ch bench_lttng:three || die "$name: enable-event failed"
	else
		lt enable-event -u -s "$session" bench_lttng:three || die "$name: enable-event failed"
	fi
	lt start "$session" || die "$name: lttng start failed"
	c0=$(consumer_cpu_s)
	LTTNG_UST_REGISTER_TIMEOUT=10000 "${as_user[@]}" "$bin/paced_lttng" -t "$threads" -r "$rate" \
		-d "$secs" > "$work/$name.out" 2> "$work/$name.err" || die "$name: paced_lttng failed"
	lt stop "$session"	# returns once the consumer wrote every sub-buffer
	consumer_cpu=$(awk -v a="$c0" -v b="$(consumer_cpu_s)" 'BEGIN { printf "%.3f", b - a }')
	# per channel; a count past 2^62 is LTTng's "unknown" (-1), shown as "?"
	lost_tool=$(lttng_cmd list "$session" -u | sed -n 's/^ *Discarded events: *//p' |
		awk '$1 + 0 >= 2 ^ 62 { unknown = 1 } { n += $1 }
		     END { if (unknown) print "?"; else printf "%.0f\n", n }')
	lt destroy "$session"
	created=0
	emitted=$(paced_total "$work/$name.out")
	recorded=$(count_events "$trace")
	[ -n "${KEEP:-}" ] || rm -rf "$trace"
}

# consumer_cpu_s: CPU seconds of the session daemon's consumer daemons so far.
consumer_cpu_s() {
	local ps pid total=0
	for ps in $(descendants "$sessiond"); do
		pid=${ps%%:*}
		grep -q consumerd "/proc/$pid/comm" 2> /dev/null || continue
		total=$(awk -v a="$total" -v b="$(proc_cpu_s "$pid")" 'BEGIN { printf "%.3f", a + b }')
	done
	echo "$total"
}

row() {	# row TRACER THREADS RATE [EXTRA...]
	printf '%-22s %2s %9s %11s %11s %8s %10s' "$1" "$2" "$3" "$emitted" "$recorded" \
		"$(pct "$recorded" "$emitted")" "$lost_tool"
	shift 3
	printf ' %s' "$@"
	echo
}

# --- the runs -------------------------------------------------------------
lttng_home
start_sessiond
echo "== data path: $secs s per run, rates per thread: $rates (0: as fast as it can)"
echo "page cache write, 1 GiB: into cold memory $(page_cache_rate cold) GB/s, into warm" \
	"memory $(page_cache_rate warm) GB/s (each run is given warm memory: DATA_PATH_WARM_MB=$warm_mb)"
hvt_run idle 0 0
read -r idle_p50 idle_p99 idle_n <<< "$rtt"
echo "clock exchanges with no load: round trip p50 $idle_p50 us, p99 $idle_p99 us ($idle_n)"
printf '%-22s %2s %9s %11s %11s %8s %10s %s\n' tracer thr "rate/thr" emitted recorded "lost%" \
	"tool-lost" "consumer CPU s per M events (rate MB/s, agent % core per 100 MB/s, exchange p50/p99 us)"
declare -A kept
for t in $thread_counts; do
	for r in $rates; do
		hvt_run "hvt-$t-$r" "$t" "$r"
		read -r p50 p99 _ <<< "$rtt"
		s=$(paced_secs "$work/hvt-$t-$r.out")
		mbps=$(awk -v b="$bytes" -v s="$s" 'BEGIN { printf "%.0f", (s > 0 ? b / s / 1e6 : 0) }')
		agent_pct=$(awk -v c="$agent_cpu" -v b="$bytes" -v s="$s" \
			'BEGIN { printf "%.1f", (b > 0 ? 100 * c / s / (b / s / 1e8) : 0) }')
		kept[hvt-$t-$r]=$(awk -v n="$recorded" -v s="$s" 'BEGIN { printf "%.0f", n / s }')
		row "hvtrace (defaults)" "$t" "$r" "agent $(per_m "$agent_cpu" "$recorded")" \
			"collector $(per_m "$rec_cpu" "$recorded")" "($mbps MB/s, agent $agent_pct%," \
			"exch $p50/$p99)"
		lttng_run "lttng-$t-$r" "$t" "$r"
		s=$(paced_secs "$work/lttng-$t-$r.out")
		kept[lttng-$t-$r]=$(awk -v n="$recorded" -v s="$s" 'BEGIN { printf "%.0f", n / s }')
		row "LTTng-UST (defaults)" "$t" "$r" "consumerd $(per_m "$consumer_cpu" "$recorded")"
		# the same memory as hvtrace's buffers: THREADS x 2 MiB over the CPUs, 4 sub-buffers
		sub=$((t * hvt_buffer_bytes / ncpu / 4))
		lttng_run "lttng-eq-$t-$r" "$t" "$r" "$sub" 4
		row "LTTng-UST (=memory)" "$t" "$r" "consumerd $(per_m "$consumer_cpu" "$recorded")" \
			"(4 x $((sub / 1024)) KiB per CPU)"
	done
done
if [ -n "${kept[hvt-1-0]:-}" ] && [ -n "${kept[lttng-1-0]:-}" ]; then
	echo "flat out, 1 thread: recorded events/s hvtrace ${kept[hvt-1-0]}, LTTng-UST" \
		"${kept[lttng-1-0]}: ratio $(awk -v a="${kept[hvt-1-0]}" -v b="${kept[lttng-1-0]}" \
		'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
fi
