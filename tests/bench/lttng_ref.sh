#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# lttng_ref.sh PROGRAM RESULT - the LTTng-UST reference of bench_tracepoint.
# Runs PROGRAM (the build's bench/lttng_ref) while an LTTng session records
# its event, then writes to RESULT the program's ns per event and what the
# trace holds (key=value lines, read by bench_tracepoint via HVT_BENCH_LTTNG).
#
# A session daemon of its own, run as nobody when run as root, stopped by
# its pid on success and failure alike (tests/bench/lttng_session.sh).
#
# Channel: per-uid buffers, discard mode, 8 x 1 MiB sub-buffers per CPU: the
# consumer keeps up with the loop here (the discarded count says so when it
# does not).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/proc.sh
. "$here/../../scripts/proc.sh"
# shellcheck source=tests/bench/lttng_session.sh
. "$here/lttng_session.sh"

[ $# -eq 2 ] || { echo "usage: lttng_ref.sh PROGRAM RESULT" >&2; exit 2; }
prog=$1
result=$2
session=hvtbench
subbuf=1M
nr_subbuf=8

log() { echo "lttng_ref: $*" >&2; }

cleanup() {
	local rc=$? f
	trap - EXIT INT TERM HUP
	stop_sessiond
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

main() {
	local discarded recorded version
	tmp=$(mktemp -d /tmp/hvtrace-bench-lttng-XXXXXX)
	# a copy nobody may run, whatever the permissions of the build directory
	cp "$prog" "$tmp/lttng_ref"
	lttng_home

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

	recorded=$(count_events "$tmp/trace")
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
