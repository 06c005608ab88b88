#!/bin/bash
# End to end with a real guest: `make demo`'s script records a QEMU guest
# (KVM if it can boot, TCG otherwise); the archive must hold all three
# layers on one ordered timeline, every clock exchange must be causal after
# alignment, and babeltrace2 must read every guest stream, agreeing with
# hvtrace on the number of events; the merge, as CTF, must read back in
# the same order through babeltrace2. The SQL cookbook's queries agree with
# analyze and merge on it, and so do analyze's wake chains (who woke each
# vCPU thread and guest thread) with merge's sched_switch and sched_wakeup,
# and merge --pid with the host's threads the recording listed. While it
# records, merge --follow and a babeltrace2 attached over the LTTng live
# protocol get what the finished archive has.
set -uo pipefail
build=${1:?usage: demo.sh BUILD}
hvtrace=$build/hvtrace
. "$(dirname "$0")/lib.sh"
# sql_cookbook: docs/sql.md's queries checked against analyze and merge
. "$(dirname "$0")/sql_cookbook.sh"
# wake_chains: analyze's wakers checked against merge's sched events
. "$(dirname "$0")/wake_chains.sh"
# host_tasks: the host's threads listed, and merge --pid with them
. "$(dirname "$0")/host_tasks.sh"
# io_events: the guest's block and network events of the demo's I/O
. "$(dirname "$0")/io_events.sh"
# io_flows: the guest's disk requests followed through QEMU (analyze --io, io-causal)
. "$(dirname "$0")/io_flows.sh"
# follow_live: merge --follow while the demo recorded, against the final merge
. "$(dirname "$0")/follow.sh"
# live_viewer: babeltrace2 over the LTTng live protocol, against merge --format=ctf
. "$(dirname "$0")/live_viewer.sh"

work=$(mktemp -d /tmp/hvtrace-e2e-demo-XXXXXX)
trap '[ "${KEEP:-}" ] || rm -rf "$work"' EXIT
archive=$work/archive

HVTRACE_DEMO_ROUNDS=100 HVTRACE_DEMO_IO=20 HVTRACE_DEMO_DISK_DELAY_NS=20000000 \
	HVTRACE_DEMO_FOLLOW=$work/follow.txt HVTRACE_DEMO_FOLLOW_ARGS="--bounds --time=host-tsc" \
	HVTRACE_DEMO_LIVE=$work/live.txt \
	scripts/demo "$build" "$archive" > "$work/demo.out" 2>&1
status=$?
check "the demo completes" test "$status" -eq 0
if [ "$status" -ne 0 ]; then	# the work directory goes: show what explains the failure
	tail -n 30 "$work/demo.out"
	for f in "$archive.run/console.log" "$archive.run/record.out"; do
		[ -f "$f" ] && { echo "== $f (end)"; tail -n 50 "$f"; }
	done
	summary "demo"
	exit 1
fi
timeline=$archive/timeline.txt

for layer in host kernel user; do
	n=$(awk -v l="$layer" '$2 == l' "$timeline" | wc -l)
	check "layer $layer present ($n events)" test "$n" -gt 0
done
check "user events: 100 rounds x 3 + 2" test "$(awk '$2 == "user"' "$timeline" | wc -l)" -eq 302
check "kernel recorded the demo's context switches" grep -q "kernel demo .*sched_switch.*hvdemo" "$timeline"
# Sync points: hypercalls under KVM; under TCG the module says why not.
if grep -q "booting the guest (kvm)" "$work/demo.out"; then
	n=$(grep -c "kernel demo .*hvtrace_sync_end" "$timeline")
	check "KVM: the kernel layer recorded sync points ($n)" test "$n" -gt 0
else
	check "TCG: the kernel layer recorded why there are no sync points" \
		grep -q "kernel demo .*hvtrace_sync_unavailable.*is not KVM's" "$timeline"
	check "TCG: no sync point was issued" \
		test "$(grep -c "hvtrace_sync_end" "$timeline")" -eq 0
fi
check "merged time never goes backwards" \
	awk 'NR > 1 && $1 + 0 < prev + 0 { bad = 1 } { prev = $1 } END { exit bad }' "$timeline"

# The same merge as Chrome trace-event JSON (Perfetto): valid JSON, and per
# layer as many events as the text timeline has.
"$hvtrace" merge --format=json --output "$work/timeline.json" "$archive" 2> "$work/json.err"
for layer in host kernel user; do
	n=$(awk -v l="$layer" '$2 == l' "$timeline" | wc -l)
	j=$(jq --arg l "$layer" '[.traceEvents[] | select(.ph == "i" and .cat == $l)] | length' \
		"$work/timeline.json")
	check "JSON: $layer has the text's $n events ($j)" test "$j" = "$n"
done
n=$(jq '[.traceEvents[] | select(.ph == "X" and .cat == "vcpu" and .dur >= 0)] | length' \
	"$work/timeline.json")
check "JSON: the vCPUs' host states are tracks ($n states)" test "$n" -gt 0
n=$(jq '[.traceEvents[] | select(.ph == "X" and .cat == "sched" and .pid == 2)] | length' \
	"$work/timeline.json")
check "JSON: the guest's CPUs have who ran as slices ($n)" test "$n" -gt 0
check "JSON: the guest's user threads are named after their task" test "$(jq -r \
	'.traceEvents[] | select(.name == "thread_name" and .pid == 2 and .tid < 1073741823) |
	.args.name' "$work/timeline.json" | grep -c '^hvdemo [0-9]*$')" -ge 2
check "JSON: the VM is a process named 'vm demo'" test "$(jq -r \
	'.traceEvents[] | select(.name == "process_name" and .pid == 2) | .args.name' \
	"$work/timeline.json")" = "vm demo"

# The same merge as one CTF trace: babeltrace2 reads it, every event at its
# host TSC and in hvtrace's order (see same_order.awk).
"$hvtrace" merge --format=ctf --output "$work/timeline.ctf" "$archive" 2> "$work/ctf.err"
check "CTF: merge writes the trace" test $? -eq 0
"$hvtrace" merge --time=host-tsc "$archive" 2> /dev/null |
	awk '{ c = $4; sub(/^v?cpu/, "", c); t = $5; sub(/^.*[^-]-/, "", t); print $1, $6, c, t }' \
	> "$work/ours.keys"
babeltrace2 --clock-cycles "$work/timeline.ctf" 2> "$work/btctf.err" | sed -E \
	's/^\[0*([0-9]+)\] \([^)]*\) (.*): \{ cpu_id = [0-9]+ \}, \{ cpu_id = ([0-9]+), tid = (-?[0-9]+),.*/\1 \2 \3 \4/;
	 s/ 4294967295 (-?[0-9]+)$/ - \1/' > "$work/bt.keys"
check "CTF: babeltrace2 reads it without error" test ! -s "$work/btctf.err"
hz=$(sed -n 's/^[[:space:]]*freq = \([0-9]*\);/\1/p' "$work/timeline.ctf/metadata")
order=$(awk -v ticks=$((hz / 1000000000 + 2)) -f "$(dirname "$0")/same_order.awk" \
	"$work/ours.keys" "$work/bt.keys")
check "CTF: babeltrace2's order is hvtrace's ($order)" test $? -eq 0

check "the demo ends with the analysis of its guest" grep -q "^  VM demo: 2 vCPUs" "$work/demo.out"
"$hvtrace" analyze --format tsv "$archive" > "$work/analysis.tsv" 2> "$work/analyze.err"
check "analyze: vCPU 0 and the demo's threads have rows" \
	awk -F'\t' '$2 == "vcpu" && $3 == 0 { v = 1 } $2 == "thread" && $4 == "hvdemo" { t = 1 }
		END { exit !(v && t) }' "$work/analysis.tsv"
"$hvtrace" check "$archive" > "$work/check.out" 2>&1
check "hvtrace check passes (sync exchanges causal, streams decode)" test $? -eq 0
check "check: every guest event inside its vCPU thread's host runs" \
	grep -q "^PASS vcpu-threads\[demo\]" "$work/check.out"
# The runs may have fed the clock fit: the line says whether, and then the
# held-out test of their bounds, the evidence independent of the fit.
check "check: ... saying whether the runs fed the fit, and their held-out test" \
	grep -Eq "^PASS vcpu-threads\[demo\]: .*(fed the clock fit .* held out of a fit of the \
others|took no bound from the vCPU threads' runs)" "$work/check.out"
# What the vCPU threads' runs did for the bound: reported, not judged; -v
# says on stderr how they placed the guest, which is not said by default.
"$hvtrace" merge --format=null --stats -v "$archive" 2>&1 | grep "clock from\|guest kernel events"
"$hvtrace" check "$archive" 2>&1 >/dev/null | grep -q "guest kernel events, which give"
check "check: the alignment's details only with -v ($?)" test $? -eq 1
# A selection that selects nothing says what the archive holds; -q leaves
# out the summary but not that.
"$hvtrace" merge -q --event nosuch "$archive" > "$work/none.out" 2> "$work/none.err"
check "merge --event nosuch: exit 0, no event ($?)" test $? -eq 0 -a ! -s "$work/none.out"
check "... the archive's events, CPUs and span said" grep -q "warning: no event was selected \
by --event nosuch; the archive holds $(wc -l < "$timeline") events .*CPUs: host .*, vm demo 0-1; " \
	"$work/none.err"
check "... and nothing else (-q)" test "$(wc -l < "$work/none.err")" -eq 1
"$hvtrace" analyze --from 100 "$archive" > /dev/null 2> "$work/late.err"
check "analyze --from past the end: said, with the span" grep -q \
	"warning: --from 100 lies after the end of the events read, which span 0\.[0-9]* to " \
	"$work/late.err"
"$hvtrace" tsc --vm nosuch "$archive" > /dev/null 2> "$work/tsc.err"
check "tsc --vm nosuch: a usage error ($?) listing the VMs" test $? -eq 2 -a \
	"$(grep -c "has no VM of that name (its VMs: demo)" "$work/tsc.err")" -eq 1
grep "^INFO error-bound" "$work/check.out"
grep -q " 0 failed" "$work/check.out" || cat "$work/check.out"
sql_cookbook "$hvtrace" "$archive" "$work"
wake_chains "$hvtrace" "$archive" "$work"
host_tasks "$hvtrace" "$archive" "$work"
io_events "$hvtrace" "$archive" "$work" 20
io_flows "$hvtrace" "$archive" "$work" 20
io_known_delay "$work" 20000000
follow_live "$hvtrace" "$archive" "$work/follow.txt" "$work"
live_viewer "$hvtrace" "$archive" "$work/live.txt" "$work"
# A damaged copy: the host layer unreadable. check fails on it, merge
# exits 1, and sql says on every run, not only the first, that its
# database is incomplete.
cp -a "$archive" "$work/damaged" && rm -rf "$work/damaged/.hvtrace-cache" &&
	rm "$work/damaged/host/ftrace/header_page"
"$hvtrace" check "$work/damaged" > "$work/damaged.check" 2>&1
check "check: a host layer that cannot be decoded FAILs ($?)" \
	grep -q "^FAIL stream-decodes\[host/ftrace\]: " "$work/damaged.check"
"$hvtrace" merge -q "$work/damaged" > /dev/null 2>&1
check "merge: exit 1 without the host layer ($?)" test $? -eq 1
"$hvtrace" sql "$work/damaged" "SELECT 1" > /dev/null 2>&1
"$hvtrace" sql "$work/damaged" "SELECT 1" > /dev/null 2> "$work/damaged.sql2"
check "sql: the cached database still said incomplete" \
	grep -q "warning: the database of $work/damaged is incomplete: " "$work/damaged.sql2"

bt_user=0
for dir in "$archive"/vm/demo/kernel "$archive"/vm/demo/user-*; do
	name=$(basename "$dir")
	bt=$(babeltrace2 "$dir" 2> "$work/bt.err" | wc -l)
	check "babeltrace2 reads $name without error" test ! -s "$work/bt.err"
	if [ "$name" = kernel ]; then
		ours=$(awk '$2 == "kernel"' "$timeline" | wc -l)
		check "babeltrace2 and hvtrace agree on kernel ($bt vs $ours events)" test "$bt" -eq "$ours"
	else
		bt_user=$((bt_user + bt))
	fi
done
ours=$(awk '$2 == "user"' "$timeline" | wc -l)
check "babeltrace2 and hvtrace agree on user events ($bt_user vs $ours)" test "$bt_user" -eq "$ours"
# The collector removes its tracefs instance on exit. tracefs is where
# libtracefs finds it: a tracefs mount, or tracing/ in a debugfs mount.
instance=$(sed -n 's/^ *"instance": "\(hvtrace-[0-9]*\)".*/\1/p' "$archive/hvtrace.json")
check "the manifest names the host tracefs instance ($instance)" test -n "$instance"
tracefs=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
[ -n "$tracefs" ] || tracefs=$(awk '$3 == "debugfs" { print $2 "/tracing"; exit }' /proc/mounts)
check "tracefs found ($tracefs)" test -d "$tracefs/instances"
check "the collector removed its tracefs instance" test ! -e "$tracefs/instances/$instance"
# QEMU and the collector ran with paths under $work on their command lines.
check "no process of the demo is left running" test -z "$(pgrep -f -- "$work")"

summary "demo"
