# Helpers for the end-to-end tests: assertions with a PASS/FAIL line each,
# and processes started by the test and stopped by their pid, also on failure.
# shellcheck shell=bash

e2e_passed=0
e2e_failed=0
e2e_pids=()

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

stop_all() {
	local pid
	for pid in "${e2e_pids[@]}"; do
		kill -0 "$pid" 2>/dev/null || continue
		kill -TERM "$pid" 2>/dev/null || true
		sleep 0.5
		kill -KILL "$pid" 2>/dev/null || true
	done
	wait 2>/dev/null || true
}

wait_for() {	# wait_for SECONDS COMMAND...: until COMMAND succeeds
	local i limit=$(($1 * 10))
	shift
	for ((i = 0; i < limit; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

summary() {
	echo "$1: $e2e_passed passed, $e2e_failed failed"
	[ "$e2e_failed" -eq 0 ]
}
