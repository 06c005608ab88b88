# SPDX-License-Identifier: GPL-2.0-only
#
# lttng_session.sh - sourced by the benchmarks that run LTTng-UST beside
# hvtrace (lttng_ref.sh, data_path.sh): a session daemon of their own, its
# commands, and its stop by pid.
#
# A root lttng-sessiond always uses /var/run/lttng (fixed at build time;
# LTTNG_HOME does not move it), and root's lttng command always talks to
# that one: it would collide with the system's daemon (Debian's lttng-tools
# enables one at boot). A non-root daemon keeps everything under
# $LTTNG_HOME/.lttng instead. So, run as root, the daemon, the lttng
# commands and the traced program run as nobody (setpriv, no supplementary
# groups; "${as_user[@]}" PROGRAM) with LTTNG_HOME in a fresh temporary
# directory; run as another user, as that user. lttng gets --group with a
# group that does not exist, because a member of the tracing group would
# try the root daemon first, and --no-sessiond, so that it never spawns a
# daemon by itself. stop_sessiond stops the daemon by its pid (SIGTERM,
# SIGKILL after 10 s), then any of its children (consumer daemons) that
# outlived it.
#
# The caller defines log(), sources scripts/proc.sh, sets tmp (a fresh
# directory) and session (a name), calls lttng_home, then start_sessiond.
# shellcheck shell=bash

tmp=""
sessiond=""
created=0
as_user=()
if [ "$(id -u)" = 0 ]; then
	as_user=(setpriv --reuid="$(id -u nobody)" --regid="$(id -g nobody)" --clear-groups --)
fi

# lttng_cmd ARGS...: an lttng command on our daemon; lt: the same, logged in lttng.log.
lttng_cmd() { "${as_user[@]}" lttng --no-sessiond --group=hvtrace-bench-no-such-group "$@"; }
lt() { lttng_cmd "$@" >>"$tmp/lttng.log" 2>&1; }

# descendants PID: "pid:starttime" of every process below PID; the start
# time tells a reused pid from the process seen here.
descendants() {
	local all="" queue=$1 found="" f s pid ppid start p
	for f in /proc/[0-9]*/stat; do
		{ read -r s <"$f"; } 2>/dev/null || continue
		pid=${s%% *}
		s=${s##*) }
		# shellcheck disable=SC2086
		set -- $s
		all+="$pid $2 ${20}"$'\n'
	done
	while [ -n "$queue" ]; do
		p=${queue%% *}
		[ "$p" = "$queue" ] && queue="" || queue=${queue#* }
		while read -r pid ppid start; do
			[ "$ppid" = "$p" ] || continue
			found+=" $pid:$start"
			queue+="${queue:+ }$pid"
		done <<<"$all"
	done
	echo "$found"
}

# kill_leftovers PID:START...: SIGKILL to those still running with that start time.
kill_leftovers() {
	local ps s
	for ps in "$@"; do
		{ read -r s <"/proc/${ps%%:*}/stat"; } 2>/dev/null || continue
		s=${s##*) }
		# shellcheck disable=SC2086
		set -- $s
		[ "${20}" = "${ps#*:}" ] || continue
		log "stopping ${ps%%:*}, left behind by lttng-sessiond"
		kill -KILL "${ps%%:*}" 2>/dev/null || true
	done
}

# Ready once it answers a command; or gone.
ready_or_gone() { lttng_cmd list >/dev/null 2>&1 || has_exited "$sessiond"; }

# In the foreground, a child of this shell: its pid is $!. Not --sig-parent:
# a daemon run as nobody may not signal a root shell.
# --load: an empty directory, so that no saved session is loaded.
start_sessiond() {
	"${as_user[@]}" lttng-sessiond --no-kernel --load="$tmp/no-sessions" \
		</dev/null >"$tmp/sessiond.log" 2>&1 &
	sessiond=$!
	wait_for 20 ready_or_gone || true
	if ! is_running "$sessiond" || ! lt list; then
		log "lttng-sessiond did not start"
		exit 1
	fi
}

# count_events DIR: events in the traces under DIR, as babeltrace2 reads them.
count_events() {
	babeltrace2 "$1" -c sink.utils.counter -p step=+0 |
		sed -n 's/^ *\([0-9]*\) Event messages$/\1/p'
}

# lttng_home: the daemon's home in $tmp, which nobody may use when run as root.
lttng_home() {
	mkdir -p "$tmp/home" "$tmp/no-sessions"
	[ "$(id -u)" != 0 ] || chown -R nobody: "$tmp"
	export LTTNG_HOME="$tmp/home" HOME="$tmp/home"
}

# stop_sessiond: destroys the session if it was created, stops the daemon and what it left.
stop_sessiond() {
	local kids
	[ -n "$sessiond" ] || return 0
	if [ "$created" = 1 ] && is_running "$sessiond"; then
		lt destroy "$session" || true
	fi
	created=0
	kids=$(descendants "$sessiond")
	stop_pid "$sessiond" TERM 10
	wait "$sessiond" 2>/dev/null || true
	# shellcheck disable=SC2086
	kill_leftovers $kids
	sessiond=""
}
