# same_order.awk - whether babeltrace2 put a merged CTF trace's events in
# hvtrace's order. Input: two files of "TSC NAME CPU TID" lines, hvtrace's
# then babeltrace2's; -v ticks=N: host TSC ticks per nanosecond, rounded up.
#
# babeltrace2 orders by time in whole nanoseconds, and events of equal time
# by stream, as hvtrace does on equal TSC. Two events of different streams
# less than a nanosecond apart but at different TSC values may therefore
# come swapped: such adjacent pairs are allowed, and counted. Anything else
# that differs is reported, and the exit status is 1.
NR == FNR { a[++n] = $0; next }
{ b[++m] = $0 }
END {
	if (n != m) {
		printf "hvtrace has %d events, babeltrace2 %d\n", n, m
		exit 1
	}
	for (i = 1; i <= n; i++) {
		if (a[i] == b[i])
			continue
		split(a[i], x, " ")
		split(a[i + 1], y, " ")
		if (i < n && a[i] == b[i + 1] && a[i + 1] == b[i] && y[1] - x[1] < ticks) {
			swapped++
			i++
			continue
		}
		printf "event %d: hvtrace has %s, babeltrace2 %s\n", i, a[i], b[i]
		exit 1
	}
	printf "%d events in the same order, %d pairs less than 1 ns apart swapped\n", n, swapped
}
