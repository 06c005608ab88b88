# Helpers for the end-to-end tests: assertions with a PASS/FAIL line each,
# and processes started by the test and stopped by their pid, also on failure.
# shellcheck shell=bash

# is_running, wait_for, stop_pid
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/proc.sh"

e2e_passed=0
e2e_failed=0
e2e_pids=()	# started by start_bg and not reaped yet

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
# pids in rec and agent. Needs $hvtrace.
start_link() {
	local dir=$1 name=$2
	shift 2
	start_bg rec "$hvtrace" record --listen "unix:$dir/$name.sock" --no-host-trace \
		--vm local -o "$dir/$name" --guest-timeout 30 "$@"
	check "collector listens ($name)" wait_for 10 test -S "$dir/$name.sock"
	start_bg agent "$hvtrace" agent --connect "unix:$dir/$name.sock" \
		--socket "$dir/$name-agent.sock"
	check "agent serves applications ($name)" wait_for 10 test -S "$dir/$name-agent.sock"
}

summary() {
	echo "$1: $e2e_passed passed, $e2e_failed failed"
	[ "$e2e_failed" -eq 0 ]
}
