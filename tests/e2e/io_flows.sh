# shellcheck shell=bash
# Sourced by demo.sh: the demo guest's disk requests followed through QEMU
# and back (analyze --io, check's io-causal), on the demo's recording,
# whose guest reads and writes its virtio disk with QEMU's events kept:
#   - at least 95% of the guest's requests on the virtio disk are linked
#     end to end, and there are at least the demo's N reads and N writes;
#   - no stage is below zero by more than its bound;
#   - each request's stages in a row (issue -> QEMU pickup -> QEMU done ->
#     interrupt -> guest completion) add up to its latency, within the
#     stages' bounds;
#   - merge --format=json draws each linked request as one chain of flow
#     arrows (Perfetto's flow v2): from the guest's issue through QEMU's
#     steps to the guest's completion, in time order, each point on the
#     track of its layer (the VM's process for the guest's, the host's for
#     QEMU's);
#   - check's io-causal passes, and fails once the VM's clock exchanges
#     (sync.tsv) are shifted by 500 us either way: a third check of the
#     alignment, from cause and effect alone.
# usage: io_flows HVTRACE ARCHIVE WORK N (check() from lib.sh)
# io_known_delay (after io_flows) checks a known delay lands in the right
# stage.
io_flows() {
	local hv=$1 archive=$2 work=$3 n=$4 linked total bad sums khz shift d chains good drawn
	"$hv" analyze --io --format tsv "$archive" > "$work/io.tsv" 2> "$work/io-tsv.err"
	check "analyze --io --format tsv: rows of the demo's disk requests" \
		test "$(wc -l < "$work/io.tsv")" -gt $((2 * n))
	# $2 disk $3 qemu_dev $4 request $8 outcome $9 stage $11 ns $12 bound_ns
	read -r linked total < <(awk -F'\t' 'NR > 1 && $3 != "0x0" && !(($2, $4) in seen) {
		seen[$2, $4] = 1; t++; if ($8 == "linked") l++ } END { print l + 0, t + 0 }' \
		"$work/io.tsv")
	check "analyze --io: $linked of the $total requests on the virtio disk linked end to end (>= 95%)" \
		test "$total" -ge $((2 * n)) -a $((linked * 100)) -ge $((total * 95))
	bad=$(awk -F'\t' 'NR > 1 && $9 != "-" && $11 + $12 < 0' "$work/io.tsv" | wc -l)
	check "analyze --io: no stage below zero by more than its bound ($bad are)" test "$bad" -eq 0
	sums=$(awk -F'\t' 'NR > 1 && $8 == "linked" {
		k = $2 " " $4
		if ($9 ~ /^(to_host|host_service|to_notify|to_guest)$/) { s[k] += $11; b[k] += $12 }
		if ($9 == "latency") lat[k] = $11 }
		END { for (k in lat) { d = s[k] - lat[k]; if (d < 0) d = -d
			if (d > b[k] + 4) bad++ }	# 4: the rows print whole ns
			print bad + 0 }' "$work/io.tsv")
	check "analyze --io: each request's stages add up to its latency within their bounds ($sums do not)" \
		test "$sums" -eq 0
	"$hv" analyze --io "$archive" > "$work/io.txt" 2>&1
	check "analyze --io: the text report has the stages and the slowest requests" \
		grep -q "linked end to end" "$work/io.txt"
	check "analyze --io: ... the backend's share of host service" \
		grep -q "of which the backend's I/O" "$work/io.txt"
	drawn=$(awk -F'\t' 'NR > 1 && ($8 == "linked" || $8 == "ambiguous") && !(($2, $4) in seen) {
		seen[$2, $4] = 1; n++ } END { print n + 0 }' "$work/io.tsv")
	"$hv" merge --format=json --output "$work/io.json" --force "$archive" 2> /dev/null
	chains=$(jq '[.traceEvents[] | select(.cat == "io")] | group_by(.bind_id) | length' \
		"$work/io.json")
	good=$(jq '[.traceEvents[] | select(.cat == "io")] | group_by(.bind_id)
		| map(select(
			(.[0].flow_out == true and .[0].flow_in == null
			 and .[0].args.step == "block_rq_issue") and
			(.[-1].flow_in == true and .[-1].flow_out == null) and
			([.[1:-1][] | select(.flow_in != true or .flow_out != true)] | length == 0) and
			([.[] | .args.step] | index("virtio_blk_handle") != null
			 and index("block_rq_complete") != null) and
			([.[] | select(.args.step | test("^(block_rq|sched)")) | .pid] | all(. == 2)) and
			([.[] | select(.args.step | test("^(virtio|thread_pool)")) | .pid] | all(. == 1)) and
			([.[] | .ts] as $t | $t == ($t | sort))))
		| length' "$work/io.json")
	check "JSON: each of the $drawn linked requests is one chain of flows ($chains chains, $good whole and in order)" \
		test "$chains" -eq "$drawn" -a "$good" -eq "$drawn" -a "$drawn" -gt 0
	"$hv" check "$archive" > "$work/io-check.out" 2>&1
	check "check: io-causal passes on the demo's recording" \
		grep -q "^PASS io-causal\[demo\]" "$work/io-check.out"
	khz=$(sed -n 's/.*"tsc_khz": *\([0-9]*\).*/\1/p' "$archive/vm/demo/info.json")
	shift=$((khz * 500 / 1000))		# 500 us in guest TSC ticks
	for d in "$shift" "-$shift"; do
		rm -rf "$work/io-shifted"
		cp -a "$archive" "$work/io-shifted"
		awk -F'\t' -v OFS='\t' -v d="$d" 'NR > 1 { $3 = sprintf("%.0f", $3 + d)
			$4 = sprintf("%.0f", $4 + d) } { print }' "$archive/vm/demo/sync.tsv" \
			> "$work/io-shifted/vm/demo/sync.tsv"
		"$hv" check "$work/io-shifted" > "$work/io-shifted.out" 2>&1
		check "check: io-causal fails once sync.tsv is shifted by $((d * 1000 / khz)) us" \
			grep -q "^FAIL io-causal\[demo\]" "$work/io-shifted.out"
	done
	rm -rf "$work/io-shifted"
}

# The demo's guest has two virtio disks, the second QEMU's null device
# with DELAY_NS added to each request (null-co's latency-ns), and reads and
# writes both alike. The delay must show in the second disk's host service
# (QEMU pickup -> done), to 10% of itself, median against median, and in
# none of the guest's stages (each median within 10% of the delay of the
# first disk's).
# usage: io_known_delay WORK DELAY_NS (after io_flows: WORK/io.tsv)
io_known_delay() {
	local work=$1 delay=$2 disks stage fast slow d
	# per disk (qemu_dev) and stage: the median ns of the linked requests
	awk -F'\t' 'NR > 1 && $8 == "linked" && $3 != "0x0" { print $3 "\t" $9 "\t" $11 }' \
		"$work/io.tsv" | sort -t "$(printf '\t')" -k1,1 -k2,2 -k3,3n |
		awk -F'\t' '{ k = $1 " " $2; v[k, ++n[k]] = $3 }
			END { for (k in n) print k, v[k, int((n[k] + 1) / 2)] }' > "$work/io-medians"
	disks=$(awk '{ print $1 }' "$work/io-medians" | sort -u | wc -l)
	check "known delay: two virtio disks followed ($disks)" test "$disks" -eq 2
	[ "$disks" -eq 2 ] || return 0
	# the slow disk: the larger median host service
	read -r slow fast < <(awk '$2 == "host_service" { print $3, $1 }' "$work/io-medians" |
		sort -n | awk '{ d[NR] = $2 } END { print d[2], d[1] }')
	d=$(awk -v s="$slow" -v f="$fast" '$2 == "host_service" { m[$1] = $3 }
		END { print m[s] - m[f] }' "$work/io-medians")
	check "known delay: the slow disk's host service is $((d / 1000)) us longer, the $((delay / 1000)) us added to 10%" \
		test "$d" -ge $((delay * 9 / 10)) -a "$d" -le $((delay * 11 / 10))
	for stage in to_host to_guest to_wakeup to_run; do
		d=$(awk -v s="$slow" -v f="$fast" -v st="$stage" '$2 == st { m[$1] = $3 }
			END { x = m[s] - m[f]; print (x < 0 ? -x : x) + 0 }' "$work/io-medians")
		check "known delay: not in the guest's stage $stage (the medians $((d / 1000)) us apart)" \
			test "$d" -le $((delay / 10))
	done
}
