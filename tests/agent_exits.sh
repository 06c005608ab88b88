#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The guest agent's error exits, under ASan+UBSan: each exits with its own
# status (2 a usage error, 1 no link) and frees what it took, so that the
# sanitizer has nothing to report (a leak made it exit 23 instead).
# usage: tests/agent_exits.sh SAN_BUILD   (make unit runs it)
set -u
agent=${1:?usage: tests/agent_exits.sh SAN_BUILD}/hvtrace-agent
failed=0
log=$(mktemp /tmp/hvtrace-agent-exits-XXXXXX) || exit 1
trap 'rm -f "$log"' EXIT

expect() {	# expect STATUS ARGS...
	want=$1
	shift
	ASAN_OPTIONS=detect_leaks=1 timeout 30 "$agent" "$@" > "$log" 2>&1
	rc=$?
	if [ "$rc" -eq "$want" ] && ! grep -q Sanitizer "$log"; then
		echo "PASS hvtrace-agent $*: exit $rc, nothing for the sanitizer"
	else
		echo "FAIL hvtrace-agent $*: exit $rc (wanted $want)"
		grep -m 5 -A 3 Sanitizer "$log"
		failed=$((failed + 1))
	fi
}

expect 2 --no-such-option
expect 2 --wait x
expect 1 --port /nonexistent/port --wait 1
expect 1 --port /dev/null --wait 1
expect 1 --connect unix:/nonexistent/collector.sock --wait 1
echo "agent exits: $failed failed"
[ "$failed" -eq 0 ]
