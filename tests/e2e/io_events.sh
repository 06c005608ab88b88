# shellcheck shell=bash
# Sourced by demo.sh: the guest's block and network events (hvtrace.ko's
# block_rq_issue, block_rq_complete, net_dev_xmit, netif_receive_skb,
# recorded with -e when scripts/demo passes hvtrace.io=N): the demo's N
# direct reads and N direct writes of 4 KiB on /dev/nullb0 and its N pings
# on lo are there, each request's issue is followed by its completion (the
# same disk, sector and kind, no error, at a later or equal time), and
# each packet taken in on lo was handed to lo before.
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
}
