# shellcheck shell=bash
# Sourced by demo.sh: babeltrace2 attached to `hvtrace relay --from-start`
# over the LTTng live protocol while the demo recorded (scripts/demo's
# HVTRACE_DEMO_LIVE), against babeltrace2 reading `merge --format=ctf` of
# the finished archive:
#   - the relay and the viewer ended by themselves with the recording,
#     status 0;
#   - when the recording ended the viewer had events of the host, kernel
#     and user layers already;
#   - in the end it had received every event of those layers the export
#     has, once each, with the same fields (QEMU's log, the vmm layer, is
#     not followed): as a multiset of lines without time and bound, which
#     the live alignment places within its own bounds (follow.sh checks
#     those; an event the relay placed later than its time has its bound
#     widened as much);
#   - stream by stream, in order, each event is the export's, its live
#     interval (time +/- bound) overlaps the final one: the live
#     alignment, with the exchanges so far, and the relay's placing of late
#     events (its bound widened by as much as it moved) still hold its time.
#     No live bound is narrower than the final one (issue 37), past the
#     rounding (1 ns, or 0.1%); how many are under 90% of it is printed.
# usage: live_viewer HVTRACE ARCHIVE LIVE_OUTPUT WORK (check() from lib.sh)
live_viewer() {
	local hv=$1 archive=$2 live=$3 work=$4 layer late verdict pairs differ apart narrow first
	check "the live relay ended by itself with the recording, status 0" \
		grep -q "the live relay ended with status 0" "$work/demo.out"
	check "babeltrace2 live ended by itself with the recording, status 0" \
		grep -q "the live viewer ended with status 0" "$work/demo.out"
	grep -q "the live viewer ended with status 0" "$work/demo.out" ||
		grep -A3 "^CAUSED BY" "$live.err" | tail -n 12	# the work directory goes
	for layer in host kernel user; do
		check "babeltrace2 live had $layer events when the recording ended" \
			grep -q "layer = ( \"$layer\"" "$live.at-end"
	done
	"$hv" merge --format=ctf -o "$work/live-ctf" "$archive" 2> /dev/null
	babeltrace2 --clock-cycles "$work/live-ctf" | grep -v 'layer = ( "vmm"' > "$work/live-final.txt"
	# the event, its context and fields, without the time and the bound
	strip() { sed -e 's/^\[[0-9]*\] ([^)]*) //' -e 's/bound_ns = -\?[0-9]*/bound_ns/' "$1" | sort; }
	late=$(sed -n 's/.*; \([0-9]*\) placed later than their time.*/\1/p' "$live.relay")
	check "the relay said how many events it placed later than their time (${late:-not said})" \
		test -n "$late"
	check "babeltrace2 live received the $(wc -l < "$work/live-final.txt") events of merge --format=ctf (host, kernel, user), each once" \
		cmp -s <(strip "$live") <(strip "$work/live-final.txt")
	# each stream's events in order, live against final: the same event, the
	# intervals overlap, no live bound narrower than the final one (by more
	# than 1 ns, the rounding, or 0.1%); counted, those under 90% of it
	verdict=$(python3 - "$live" "$work/live-final.txt" "$(jq -r '.host.tsc_freq_hz' "$archive/hvtrace.json")" <<'PY'
import re, sys
line = re.compile(r'^\[(\d+)\] \([^)]*\) (.*)bound_ns = (-?\d+)(.*)$')
def streams(path):
    out = {}
    for l in open(path):
        m = line.match(l)
        rest = m.group(2) + m.group(4)
        c = re.search(r'cpu_id = (\d+), tid = (-?\d+), layer = \( "(\w+)".*?vm = \( "([^"]*)"', rest)
        key = (c.group(3), c.group(4), c.group(2) if c.group(3) == 'user' else c.group(1))
        out.setdefault(key, []).append((int(m.group(1)), int(m.group(3)), rest))
    return out
live, final, hz = streams(sys.argv[1]), streams(sys.argv[2]), float(sys.argv[3])
n = differ = apart = narrow = far = 0
first = ''
for key, evs in final.items():
    for (tf, bf, rf), (tl, bl, rl) in zip(evs, live.get(key, [])):
        n += 1
        if rf != rl:
            differ += 1
            continue
        if bf < 0 or bl < 0:
            continue
        if abs(tl - tf) / hz * 1e9 > bl + bf + 1:
            apart += 1
            first = first or '%s: %d+/-%d vs %d+/-%d' % (key, tl, bl, tf, bf)
        if bl + max(1, bf // 1000) < bf:
            narrow += 1
        if bl + 1 < 0.9 * bf:
            far += 1
print(n, differ, apart, narrow, far, first)
PY
)
	read -r pairs differ apart narrow far first <<< "$verdict"
	check "babeltrace2 live: each stream's events in order are the export's (${differ:-?} of ${pairs:-?} differ)" \
		test "${differ:-1}" -eq 0
	check "babeltrace2 live: each event's interval overlaps the final one (${apart:-?} apart${first:+, first $first})" \
		test "${apart:-1}" -eq 0
	check "babeltrace2 live: no bound narrower than the final one (${narrow:-?} of ${pairs:-?} narrower by more than 0.1%, ${far:-?} under 90%)" \
		test "${narrow:-1}" -eq 0
}
