# Helpers for the end-to-end tests: assertions with a PASS/FAIL line each,
# and processes started by the test and stopped by their pid, also on failure.
# shellcheck shell=bash

# is_running, wait_for, stop_pid
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/proc.sh"

e2e_passed=0
e2e_failed=0
e2e_pids=()	# started by start_bg and not reaped yet
agent_args=()	# extra options of start_link's agent

pass() { echo "PASS $*"; e2e_passed=$((e2e_passed + 1)); }
fail() { echo "FAIL $*"; e2e_failed=$((e2e_failed + 1)); }
check() {	# check NAME COMMAND...
	local name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name"; fi
}

start_bg() {	# start_bg VAR COMMAND...: runs COMMAND in the background, its pid in VAR
	local var=$1
	shift
	"$@" &
	printf -v "$var" '%s' "$!"
	e2e_pids+=("$!")
}

# reap PID SECONDS: waits up to SECONDS for PID (from start_bg) to exit and
# returns its exit status. If it is still running it stays tracked, for
# stop_all, and the status is 124.
reap() {
	local pid=$1 p status=0 kept=()
	if ! wait_for "$2" has_exited "$pid"; then
		echo "reap: pid $pid still running after $2 s" >&2
		return 124
	fi
	wait "$pid" 2>/dev/null || status=$?
	for p in "${e2e_pids[@]}"; do
		[ "$p" = "$pid" ] || kept+=("$p")
	done
	e2e_pids=("${kept[@]}")
	return "$status"
}

# vcpu_tid QEMU_PID N: the host thread of TCG vCPU N (debug-threads=on names it)
vcpu_tid() {
	local t
	for t in /proc/"$1"/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = "CPU $2/TCG" ] && { basename "$t"; return 0; }
	done
	return 1
}

stop_all() {	# stops and reaps whatever start_bg started and nobody reaped
	local pid
	for pid in "${e2e_pids[@]}"; do
		stop_pid "$pid" TERM 5
		has_exited "$pid" && wait "$pid" 2>/dev/null
	done
	e2e_pids=()
}

# start_vmm TEST VAR OUT COMMAND...: starts a VMM of the tests' own in the
# background, its pid in VAR, stdout in OUT and stderr in OUT.err, and waits
# until it prints "ready". A VMM that exits with 77 cannot run here (no
# KVM, say): the test TEST is skipped, with the VMM's reason, and the script
# exits 0. Any other failure to start fails TEST and exits 1.
start_vmm() {
	local test=$1 var=$2 out=$3 status
	shift 3
	start_bg "$var" "$@" > "$out" 2> "$out.err"
	wait_for 10 grep -q ready "$out" && return 0
	reap "${!var}" 5
	status=$?
	if [ "$status" -eq 77 ]; then
		echo "$test: skipped: $(cat "$out.err")"
		exit 0
	fi
	fail "the VMM starts (status $status: $(cat "$out.err"))"
	summary "$test"
	exit 1
}

# start_link DIR NAME [RECORD_OPTION...]: hvtrace record --listen on
# DIR/NAME.sock (no host layer, VM "local", archive DIR/NAME) and hvtrace
# agent --connect to it, serving applications on DIR/NAME-agent.sock; the
# pids in rec and agent. Needs $hvtrace. ARGS go to the collector, the
# array agent_args (if set) to the agent.
start_link() {
	local dir=$1 name=$2
	shift 2
	start_bg rec "$hvtrace" record --listen "unix:$dir/$name.sock" --no-host-trace \
		--vm local -o "$dir/$name" --guest-timeout 30 "$@"
	check "collector listens ($name)" wait_for 10 test -S "$dir/$name.sock"
	start_bg agent "$hvtrace" agent --connect "unix:$dir/$name.sock" \
		--socket "$dir/$name-agent.sock" "${agent_args[@]}"
	check "agent serves applications ($name)" wait_for 10 test -S "$dir/$name-agent.sock"
}

# guest_hang_report MONITOR CONSOLE PID: for a guest that did not finish in
# time, on QEMU's human monitor (unix socket MONITOR): each vCPU's RIP,
# privilege level and whether it halted, three samples a second apart; then
# an NMI, which a guest booted with unknown_nmi_panic and panic_print=0x41
# answers on its console CONSOLE with every CPU's backtrace and every task's
# stack, then (panic=-1 and -no-reboot) QEMU, process PID, exits. Printed:
# the panic and the backtraces, then the stacks of the tasks that are not
# kernel threads. A monitor that does not answer (QEMU itself stuck) is said,
# with the console's end.
guest_hang_report() {
	local mon=$1 console=$2 pid=$3 round
	for round in 1 2 3; do
		echo "== vCPUs, sample $round"
		printf 'info registers -a\n' | socat -t 3 - "UNIX-CONNECT:$mon" > "$mon.out" 2>&1
		if ! grep -aq '^RIP=' "$mon.out"; then
			echo "the monitor does not answer; the console's end:"
			tr -d '\r' < "$console" | tail -n 40
			return
		fi
		tr -d '\r' < "$mon.out" | grep -a '^RIP='
		sleep 1
	done
	echo "== the guest's answer to an NMI"
	printf 'nmi\n' | socat -t 3 - "UNIX-CONNECT:$mon" > /dev/null 2>&1
	wait_for 60 has_exited "$pid" || echo "(QEMU still runs 60 s after the NMI)"
	tr -d '\r' < "$console" | awk '
		/Kernel panic|NMI received|Uhhuh/ { on = 1 }
		!on { next }
		/task:.* pid:/ { task = 1; kthread = / ppid:2 / || / pid:2 / }
		!task || !kthread' | head -n 1000
}

# paced_total OUT, paced_secs OUT: the events and seconds of the summary line
# of tests/bench/paced_events.c's output OUT ("paced: ..., S s, N events").
paced_total() { sed -n 's/^paced: .*, \([0-9]*\) events$/\1/p' "$1"; }
paced_secs() { sed -n 's/^paced: .*, \([0-9.]*\) s, .*/\1/p' "$1"; }

summary() {
	echo "$1: $e2e_passed passed, $e2e_failed failed"
	[ "$e2e_failed" -eq 0 ]
}

# tracedat_restore CLOCK OUT RAW...: OUT, a trace.dat that trace-cmd makes of
# raw ring-buffer page files (trace-cmd record cannot run in this container:
# it insists on writing the read-only /proc/sys/kernel/ftrace_enabled).
# trace-cmd restore records the top-level trace clock in the file, so that is
# CLOCK while it runs, then put back. Needs tracefs mounted (hvtrace record
# mounts it); the caller's EXIT trap should put tracefs_clock back too
# (tracefs_clock_reset), in case the script dies in between. WORK/head.dat
# holds the headers.
tracefs=/sys/kernel/tracing
tracefs_clock=""
tracedat_restore() {
	local clock=$1 out=$2 status
	shift 2
	[ -e "$tracefs/trace_clock" ] || tracefs=/sys/kernel/debug/tracing
	[ -n "$tracefs_clock" ] ||
		tracefs_clock=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$tracefs/trace_clock")
	echo "$clock" > "$tracefs/trace_clock" &&
	trace-cmd restore -c -o "$work/head.dat" > /dev/null 2>&1 &&
	trace-cmd restore -i "$work/head.dat" -o "$out" "$@" > /dev/null 2>&1
	status=$?
	tracefs_clock_reset
	return $status
}
tracefs_clock_reset() {	# puts back the trace clock tracedat_restore found
	[ -z "$tracefs_clock" ] || echo "$tracefs_clock" > "$tracefs/trace_clock"
}
