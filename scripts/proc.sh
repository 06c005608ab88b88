# Waiting for and stopping the processes a script started itself, by pid:
# sourced by scripts/demo and tests/e2e/lib.sh.
# shellcheck shell=bash

# is_running PID: PID is a live child of this shell. A pid that was reaped
# and then reused by another process is not one (its parent differs), nor is
# a child that exited and awaits reaping (a zombie).
is_running() {
	local stat
	[ -n "$1" ] || return 1
	{ read -r stat < "/proc/$1/stat"; } 2>/dev/null || return 1
	stat=${stat##*) }	# the fields after "(comm) ": state ppid ...
	# shellcheck disable=SC2086
	set -- $stat
	[ "$1" != Z ] && [ "$1" != X ] && [ "$2" = "$$" ]
}

has_exited() { ! is_running "$1"; }

# wait_for SECONDS COMMAND...: runs COMMAND every 0.1 s until it succeeds;
# fails if it did not within SECONDS.
wait_for() {
	local i limit=$(($1 * 10))
	shift
	for ((i = 0; i < limit; i++)); do
		"$@" && return 0
		sleep 0.1 || true	# a signal may end the sleep early: not an error
	done
	"$@"
}

# stop_pid PID SIGNAL SECONDS: sends SIGNAL to PID, a child of this shell,
# and SIGKILL if it has not exited SECONDS later. Nothing if PID is empty or
# not running. The caller still reaps it (wait).
stop_pid() {
	local pid=$1 sig=$2 wait_s=$3
	is_running "$pid" || return 0
	kill "-$sig" "$pid" 2>/dev/null || true
	wait_for "$wait_s" has_exited "$pid" && return 0
	kill -KILL "$pid" 2>/dev/null || true
	wait_for 5 has_exited "$pid" || true
}
