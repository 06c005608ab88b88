# shellcheck shell=bash
# Sourced by demo.sh: `hvtrace merge --follow --bounds --time=host-tsc` run
# while the demo recorded (scripts/demo's HVTRACE_DEMO_FOLLOW), against
# `merge --bounds --time=host-tsc` of the finished archive (on the host TSC:
# a host event's time is the same number in both, whatever clock pairs
# each had for seconds):
#   - it ended by itself once the recording completed, with status 0;
#   - it printed every event of the host, kernel and user layers the final
#     merge has (QEMU's log, kept at the end, is not followed), each stream's
#     events in the same order with the same fields: none missing, none
#     added, none twice;
#   - each event's live interval (time +/- bound) overlaps the final one:
#     both hold the event's true time, so they share it;
#   - no live bound is narrower than the final one (issue 37), past the
#     printing's rounding (0.1%, or 1.5 ns). It once failed for up to 4%
#     of the bounds, by up to 30%: the run fit's refits stopped when the
#     count of run-edge bounds repeated, not the set (run_constraints.c);
#     how many are under 90% of the final one is printed beside;
#   - its lines go back in time no more often than it says events came
#     late (later than --lag: a stream that stalled);
#   - its last alignment used the vCPU threads' run edges if the final
#     merge's does (the follower's last refit once read the host's CPU
#     files only as far as the manifest said at its open, and lost them).
# usage: follow_live HVTRACE ARCHIVE FOLLOW_OUTPUT WORK (check() from lib.sh)
follow_live() {
	local hv=$1 archive=$2 live=$3 work=$4 late back verdict hz
	check "merge --follow ended by itself with the recording, status 0" \
		grep -q "merge --follow ended with status 0" "$work/demo.out"
	check "merge --follow said what it followed" grep -q "followed: [0-9]* events" "$live.err"
	"$hv" merge --bounds --time=host-tsc --layer host,kernel,user "$archive" \
		> "$work/final.txt" 2> /dev/null
	hz=$(jq -r '.host.tsc_freq_hz' "$archive/hvtrace.json")
	# per stream (host: the CPU; kernel: the vCPU; user: the thread), in order:
	# the event and its fields, and the time and bound
	verdict=$(awk -v tpu="$hz" '
		BEGIN { tpu /= 1e6 }	# ticks per us: the bounds are in us
		function key() { tid = $6; sub(/^.*[^-]-/, "", tid)
			return $3 " " $4 " " ($3 == "user" ? tid : $5) }
		function rest(   r) { r = $0; sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +/, "", r)
			return r }
		function bound() { b = $2; sub(/^\+\/-/, "", b); return b }
		NR == FNR { k = key(); i = ++nf[k]; fr[k, i] = rest(); ft[k, i] = $1; fb[k, i] = bound()
			total++; next }
		{ k = key(); i = ++nl[k]
		  if (i > nf[k]) { extra++; next }
		  if (rest() != fr[k, i]) { if (!differ++) first = k " #" i ": " rest() " vs " fr[k, i]; next }
		  lb = bound(); b = fb[k, i]
		  if (lb == "?" || b == "?") { unbounded++; next }
		  d = $1 - ft[k, i]; if (d < 0) d = -d
		  if (d > (lb + b) * tpu + 1) { if (!apart++) sep = k " #" i ": " $1 "+/-" lb " vs " ft[k, i] "+/-" b }
		  slack = b * 0.001; if (slack < 0.0015) slack = 0.0015
		  if (lb + 0 < b - slack) { if (!narrow++) nar = k " #" i ": +/-" lb " < +/-" b }
		  if (lb + 0 < 0.9 * b - 0.0015) { if (!far++) farw = k " #" i ": +/-" lb " < 0.9 * +/-" b }
		}
		END { for (k in nf) if (nl[k] < nf[k]) missing += nf[k] - nl[k]
		      printf "%d %d %d %d %d %d %d %d|%s|%s|%s|%s\n", total, missing + 0, extra + 0,
			differ + 0, apart + 0, narrow + 0, unbounded + 0, far + 0, first, sep, nar, farw }
	' "$work/final.txt" "$live")
	echo "follow: $verdict"
	read -r total missing extra differ apart narrow unbounded far <<< "${verdict%%|*}"
	IFS='|' read -r _ _ _ nar _ <<< "$verdict"
	check "merge --follow: the final merge's $total host, kernel and user events" \
		test "$total" -gt 0 -a "$missing" -eq 0 -a "$extra" -eq 0
	check "merge --follow: each stream's events in order, the same fields ($differ differ)" \
		test "$differ" -eq 0
	check "merge --follow: each live interval overlaps the final one ($apart apart)" \
		test "$apart" -eq 0
	check "merge --follow: no live bound narrower than the final one ($narrow of $total narrower by more than 0.1%, $far under 90%${nar:+, first $nar})" \
		test "$narrow" -eq 0
	if "$hv" merge -v --layer kernel "$archive" 2>&1 > /dev/null | grep -q "vCPU run edges"; then
		check "merge --follow: its last alignment has the vCPU run edges, as the final one" \
			grep -q "vCPU run edges" "$live.err"
	fi
	late=$(sed -n 's/.*warning: \([0-9]*\) events came more than --lag late.*/\1/p' "$live.err")
	back=$(awk '$1 + 0 < max { n++ } $1 + 0 > max { max = $1 + 0 } END { print n + 0 }' "$live")
	check "merge --follow: lines back in time ($back) no more than the late events it said (${late:-0})" \
		test "$back" -le "${late:-0}"
}
