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
#     widened as much).
# usage: live_viewer HVTRACE ARCHIVE LIVE_OUTPUT WORK (check() from lib.sh)
live_viewer() {
	local hv=$1 archive=$2 live=$3 work=$4 layer late
	check "the live relay ended by itself with the recording, status 0" \
		grep -q "the live relay ended with status 0" "$work/demo.out"
	check "babeltrace2 live ended by itself with the recording, status 0" \
		grep -q "the live viewer ended with status 0" "$work/demo.out" ||
		grep -v '^ ' "$live.err" | tail -n 5
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
}
