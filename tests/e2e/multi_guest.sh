#!/bin/bash
# Several guests in one recording, over TCP, each under the per-VM quotas,
# no VM needed: real `hvtrace agent`s on this host play the guests.
#   a  behaves, but sends faster than --rate: it is held back, not cut off,
#      and every event it emitted is recorded or counted as lost
#   b  opens more streams than --max-streams: cut off, with the reason, and
#      what it sent before stays readable
#   c  is not an agent at all and sends garbage: cut off, with the reason
# a goes on after b and c are gone, and the recording ends once every VM
# ended, with a summary per VM.
set -uo pipefail
build=${1:?usage: multi_guest.sh BUILD}
hvtrace=$(realpath "$build/hvtrace")
stress=$(realpath "$build/hvtrace-ust-stress")
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d /tmp/hvtrace-e2e-multi-XXXXXX)
trap 'stop_all; exec 3>&- 2>/dev/null; rm -rf "$work"' EXIT
"$stress" -w "$work/clock-page"

start_bg rec "$hvtrace" record --listen tcp:127.0.0.1:0 --vm a --vm b --vm c --no-host-trace \
	-o "$work/arc" --max-streams 6 --rate 524288 --guest-timeout 60 \
	> "$work/rec.out" 2> "$work/rec.err"
check "the collector listens on a TCP port of its choice" \
	wait_for 10 grep -q "listening on tcp:127.0.0.1:[1-9][0-9]* for 3 guests" "$work/rec.err"
port=$(sed -n 's/.*listening on tcp:127.0.0.1:\([0-9]*\) .*/\1/p' "$work/rec.err")
addr=tcp:127.0.0.1:${port:-1}

start_bg agent_a "$hvtrace" agent --connect "$addr" --socket "$work/a.sock" 2> "$work/a.err"
check "guest a is VM a" wait_for 10 grep -q "VM a: a guest connected from tcp:127.0.0.1:" \
	"$work/rec.err"
start_bg agent_b "$hvtrace" agent --connect "$addr" --socket "$work/b.sock" 2> "$work/b.err"
check "guest b is VM b" wait_for 10 grep -q "VM b: a guest connected" "$work/rec.err"
exec 3<> "/dev/tcp/127.0.0.1/${port:-1}"
printf 'this is not an hvtrace frame, not even close to one' >&3
check "garbage cuts VM c off, with the reason" \
	wait_for 10 grep -q "vm c: malformed frame from the guest: bad frame magic" "$work/rec.err"
exec 3>&-

run_app() {	# run_app VM THREADS EVENTS
	HVTRACE_AGENT_SOCKET=$work/$1.sock HVTRACE_DEVICE=$work/clock-page \
		"$stress" -t "$2" -n "$3" -m 1000000 > "$work/$1.emitted" 2> "$work/$1.app.err"
}
run_app b 8 2000
check "8 threads exceed b's stream quota of 6; b is cut off, with the reason" \
	wait_for 10 grep -q "vm b: guest disconnected: stream quota of 6 exceeded" "$work/rec.err"
reap "$agent_b" 10
check "b's agent learns the host closed the link" grep -q "the host closed the link" "$work/b.err"

# After b and c are gone: 2 x 20000 events of 40 bytes, 1.6 MB, at most
# 512 KiB/s read from a.
run_app a 2 20000
check "a's application ran" test "$(grep -c emitted "$work/a.emitted")" -eq 2
sleep 1
kill -TERM "$agent_a"
reap "$agent_a" 20
check "a's agent exits cleanly ($?)" test $? -eq 0
reap "$rec" 30
check "the collector ends once every VM ended, failing as b and c did not finish ($?)" \
	test $? -eq 1

check "a finished" grep -q "vm a (unknown): guest finished" "$work/rec.out"
# the quota line is a's: in its block of the summary, before the next VM's
check "a was held back by its rate quota, not cut off" \
	awk '/^  vm / { in_a = /^  vm a / } in_a && /quota  read at most 524288 bytes\/s: held back for/ { ok = 1 }
	     END { exit !ok }' "$work/rec.out"
check "b's summary gives its reason" \
	grep -q "vm b (unknown): guest disconnected: stream quota of 6 exceeded" "$work/rec.out"
check "c's summary gives its reason" grep -q "vm c (unknown): malformed frame" "$work/rec.out"
check "each VM has its directory" test -d "$work/arc/vm/a" -a -d "$work/arc/vm/b" -a -d "$work/arc/vm/c"
vms=$(jq -r '[.vms[].name] | join(",")' "$work/arc/hvtrace.json" 2>/dev/null)
check "the manifest lists a, b and c ($vms)" test "$vms" = "a,b,c"
check "b's streams, stored before the cut, stay readable by babeltrace2" \
	babeltrace2 "$work/arc/vm/b" -o dummy
check "b stored 6 streams, no more" \
	test "$(jq '[.streams[]] | length' "$work/arc/vm/b/info.json" 2>/dev/null)" = 6

# a's worker threads: recorded + lost == emitted, exactly.
"$hvtrace" merge --stats -o /dev/null "$work/arc" 2> "$work/stats" > /dev/null
"$hvtrace" merge --vm a "$work/arc" > "$work/a.txt" 2> /dev/null
emitted=$(awk '/emitted/ { n += $6 } END { print n + 0 }' "$work/a.emitted")
recorded=$(grep -c "stress:tick thread=[01] " "$work/a.txt")
lost=$(awk '$1 ~ /^vm\/a\/user-/ { n += $6 } END { print n + 0 }' "$work/stats")
check "a: recorded + lost == emitted ($recorded + $lost, $emitted)" \
	test $((recorded + lost)) -eq "$emitted" -a "$emitted" -eq 40000
if [ "$e2e_failed" -gt 0 ]; then
	for f in rec.err rec.out a.err b.err stats; do
		[ -f "$work/$f" ] && { echo "== $f (end)"; tail -n 15 "$work/$f"; }
	done
fi
summary "multi guest"
