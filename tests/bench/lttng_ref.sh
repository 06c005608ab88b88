#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# lttng_ref.sh PROGRAM RESULT - the LTTng-UST reference of bench_tracepoint.
# Runs PROGRAM (the build's bench/lttng_ref) while an LTTng session records
# its event, then writes to RESULT the program's ns per event and what the
# trace holds (key=value lines, read by bench_tracepoint via HVT_BENCH_LTTNG).
#
# A session daemon of its own. A root lttng-sessiond always uses
# /var/run/lttng (fixed at build time; LTTNG_HOME does not move it), and root's
# lttng command always talks to that one: it would collide with the system's
# daemon (Debian's lttng-tools enables one at boot). A non-root daemon keeps
# everything under $LTTNG_HOME/.lttng instead. So, run as root, the daemon,
# the lttng commands and PROGRAM run as nobody (setpriv, no supplementary
# groups) with LTTNG_HOME in a fresh temporary directory; run as another
# user, as that user. lttng gets --group with a group that does not exist,
# because a member of the tracing group would try the root daemon first, and
# --no-sessiond, so that it never spawns a daemon by itself. The daemon is
# stopped by its pid (SIGTERM, SIGKILL after 10 s), on success and failure
# alike, and then any of its children (consumer daemons) that outlived it.
#
# Channel: per-uid buffers, discard mode, 8 x 1 MiB sub-buffers per CPU: the
# consumer keeps up with the loop here (the discarded count says so when it
# does not).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/proc.sh
. "$here/../../scripts/proc.sh"

[ $# -eq 2 ] || { echo "usage: lttng_ref.sh PROGRAM RESULT" >&2; exit 2; }
prog=$1
result=$2
session=hvtbench
subbuf=1M
nr_subbuf=8

tmp=""
sessiond=""
created=0
as_user=()
if [ "$(id -u)" = 0 ]; then
	as_user=(setpriv --reuid="$(id -u nobody)" --regid="$(id -g nobody)" --clear-groups --)
fi

log() { echo "lttng_ref: $*" >&2; }

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

cleanup() {
	local rc=$? kids f
	trap - EXIT INT TERM HUP
	if [ -n "$sessiond" ]; then
		if [ "$created" = 1 ] && is_running "$sessiond"; then
			lt destroy "$session" || true
		fi
		kids=$(descendants "$sessiond")
		stop_pid "$sessiond" TERM 10
		wait "$sessiond" 2>/dev/null || true
		# shellcheck disable=SC2086
		kill_leftovers $kids
	fi
	if [ "$rc" != 0 ] && [ -n "$tmp" ]; then
		for f in sessiond.log lttng.log; do
			[ -s "$tmp/$f" ] && { log "$f:"; tail -n 30 "$tmp/$f" >&2; }
		done
	fi
	[ -z "$tmp" ] || rm -rf "$tmp"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

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

# Events in the trace, as babeltrace2 reads them.
count_events() {
	babeltrace2 "$tmp/trace" -c sink.utils.counter -p step=+0 |
		sed -n 's/^ *\([0-9]*\) Event messages$/\1/p'
}

main() {
	local discarded recorded version
	tmp=$(mktemp -d /tmp/hvtrace-bench-lttng-XXXXXX)
	mkdir "$tmp/home" "$tmp/no-sessions"
	# a copy nobody may run, whatever the permissions of the build directory
	cp "$prog" "$tmp/lttng_ref"
	[ "$(id -u)" != 0 ] || chown -R nobody: "$tmp"
	export LTTNG_HOME="$tmp/home" HOME="$tmp/home"

	start_sessiond
	lt create "$session" --output="$tmp/trace"
	created=1
	lt enable-channel -u -s "$session" --buffers-uid --discard \
		--subbuf-size="$subbuf" --num-subbuf="$nr_subbuf" ch
	lt enable-event -u -s "$session" -c ch bench_lttng:three
	lt start "$session"
	LTTNG_UST_REGISTER_TIMEOUT=10000 "${as_user[@]}" "$tmp/lttng_ref" "$tmp/result"
	lt stop "$session"	# returns once the consumer wrote every sub-buffer
	discarded=$(lttng_cmd list "$session" -u -c ch | sed -n 's/^ *Discarded events: *//p')
	lt destroy "$session"
	created=0

	[ -n "$discarded" ] || { log "lttng list gave no discarded count"; exit 1; }

	recorded=$(count_events)
	if [ -z "$recorded" ] || [ "$recorded" -eq 0 ]; then
		log "the trace holds no event"
		exit 1
	fi
	version=$(pkg-config --modversion lttng-ust 2>/dev/null || echo 2.13)
	{
		cat "$tmp/result"
		echo "recorded=$recorded"
		echo "discarded=$discarded"
		echo "version=$version"
	} >"$result"
	echo "lttng_ref: LTTng-UST $version, enabled 3 x u64:" \
		"$(sed -n 's/^enabled_ns=//p' "$tmp/result") ns/event;" \
		"$(sed -n 's/^emitted=//p' "$tmp/result") events emitted, $recorded recorded," \
		"$discarded discarded ($nr_subbuf x $subbuf sub-buffers per CPU)"
}

main
