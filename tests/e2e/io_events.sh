# shellcheck shell=bash
# Sourced by demo.sh: the guest's block and network events (hvtrace.ko's
# block_rq_issue, block_rq_complete, net_dev_xmit, netif_receive_skb,
# recorded with -e when scripts/demo passes hvtrace.io=N): the demo's N
# direct reads and N direct writes of 4 KiB on /dev/nullb0 and its N pings
# on lo are there, each request's issue is followed by its completion (the
# same disk, sector and kind, no error, at a later or equal time), and
# each packet taken in on lo was handed to lo before. When the guest's disk
# is virtio, QEMU's own events are in the archive (record --qemu-log, which
# turned them on over QMP: the demo gives QEMU no -trace) and merge reads
# them unasked: QEMU takes up each request of the guest (the
# same sector and size), never before the guest issued it, by the two
# events' error bounds.
# usage: io_events HVTRACE ARCHIVE WORK N (check() from lib.sh)
io_events() {
	local io_hv=$1 io_archive=$2 io_work=$3 io_n=$4 r w unmatched xmit recv orphans
	"$io_hv" merge --vm demo --layer kernel -e 'block_rq_*,net_dev_xmit,netif_receive_skb' \
		"$io_archive" 2> /dev/null > "$io_work/io.txt"
	r=$(awk '$6 == "block_rq_issue" && / nr_sector=8 / && / rwbs=R/' "$io_work/io.txt" | wc -l)
	w=$(awk '$6 == "block_rq_issue" && / nr_sector=8 / && / rwbs=W/' "$io_work/io.txt" | wc -l)
	check "guest block events: the $io_n reads and $io_n writes of 4 KiB issued ($r, $w)" \
		test "$r" -ge "$io_n" -a "$w" -ge "$io_n"
	# each issue, then its completion: the same dev, sector and kind (rwbs)
	unmatched=$(awk '
		function f(name,   i) { for (i = 7; i <= NF; i++) if (index($i, name "=") == 1)
			return substr($i, length(name) + 2); return "" }
		$6 == "block_rq_issue" { k = f("dev") " " f("sector") " " substr(f("rwbs"), 1, 1)
			open[k]++; n++ }
		$6 == "block_rq_complete" { k = f("dev") " " f("sector") " " substr(f("rwbs"), 1, 1)
			if (open[k] > 0 && f("error") == 0) { open[k]--; done++ } }
		END { print n - done }' "$io_work/io.txt")
	check "guest block events: each issued request completes after it ($unmatched not)" \
		test "$unmatched" -eq 0
	xmit=$(awk '$6 == "net_dev_xmit" && / name=lo/' "$io_work/io.txt" | wc -l)
	recv=$(awk '$6 == "netif_receive_skb" && / name=lo/' "$io_work/io.txt" | wc -l)
	check "guest network events: $io_n pings and replies sent and taken in on lo ($xmit, $recv)" \
		test "$xmit" -ge $((2 * io_n)) -a "$recv" -ge $((2 * io_n))
	orphans=$(awk '
		function f(name,   i) { for (i = 7; i <= NF; i++) if (index($i, name "=") == 1)
			return substr($i, length(name) + 2); return "" }
		$6 == "net_dev_xmit" && / name=lo/ { sent[f("skbaddr")] = 1 }
		$6 == "netif_receive_skb" && / name=lo/ { if (!(f("skbaddr") in sent)) bad++ }
		END { print bad + 0 }' "$io_work/io.txt")
	check "guest network events: each packet taken in on lo was sent on it first ($orphans not)" \
		test "$orphans" -eq 0
	io_qemu_events "$io_hv" "$io_archive" "$io_work" "$io_n"
}

# QEMU's virtio_blk_handle_read/_write beside the guest's block_rq_issue on vda
io_qemu_events() {
	local io_hv=$1 io_archive=$2 io_work=$3 io_n=$4 handled paired late
	check "QEMU's trace log kept in the archive" test -s "$io_archive/vm/demo/qemu-trace.log"
	"$io_hv" merge --bounds -e 'block_rq_issue,virtio_blk_handle_*' "$io_archive" \
		2> /dev/null > "$io_work/qemu-io.txt"
	handled=$(awk '$7 ~ /^virtio_blk_handle_(read|write)$/ && / nsectors 8( |$)/' \
		"$io_work/qemu-io.txt" | wc -l)
	check "QEMU's events read unasked: the guest's $io_n reads and $io_n writes handled ($handled)" \
		test "$handled" -ge $((2 * io_n))
	# Each key (kind, sector) in time order: the guest's k-th issue with
	# QEMU's k-th handling (a sector read twice is two pairs); the pair is
	# late if QEMU's lies before the guest's by more than the two bounds.
	# $1 time (s), $2 "+/-B" (us).
	read -r paired late < <(awk '
		function f(name,   i) { for (i = 8; i <= NF; i++) if (index($i, name "=") == 1)
			return substr($i, length(name) + 2); return "" }
		function b(x) { sub(/^\+\/-/, "", x); return x == "?" ? 1e9 : x + 0 }
		$3 == "kernel" && $7 == "block_rq_issue" && / nr_sector=8 / {
			k = substr(f("rwbs"), 1, 1) " " f("sector")
			it[k, ni[k]++] = $1 * 1e6; ib[k, ni[k] - 1] = b($2); next }
		$7 ~ /^virtio_blk_handle_(read|write)$/ && / nsectors 8( |$)/ {
			for (i = 8; i < NF; i++) if ($i == "sector") s = $(i + 1)
			k = ($7 ~ /read/ ? "R" : "W") " " s
			ht[k, nh[k]++] = $1 * 1e6; hb[k, nh[k] - 1] = b($2) }
		END {
			for (k in ni)
				for (j = 0; j < ni[k] && j < nh[k]; j++) {
					n++
					if (ht[k, j] + hb[k, j] < it[k, j] - ib[k, j]) bad++
				}
			print n + 0, bad + 0 }' "$io_work/qemu-io.txt")
	check "QEMU took up $paired of the guest's requests (the same sector and size), each after it was issued ($late before)" \
		test "$paired" -ge $((2 * io_n)) -a "$late" -eq 0
}
