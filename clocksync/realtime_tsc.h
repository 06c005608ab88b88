/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * realtime_tsc.h - host CLOCK_REALTIME -> host TSC, through the archive's
 * clock pairs (host/clock.tsv): for timestamps other programs took with
 * gettimeofday() or clock_gettime(CLOCK_REALTIME), such as QEMU's log trace
 * backend, placed on the host TSC time line.
 *
 * Between two pairs the map is the straight line through them, the inverse
 * of host_clock.h's; before the first and after the last the nearest line
 * is extended. An interval where CLOCK_REALTIME stepped back is never
 * used; a time that two intervals cover (after such a step) is placed in
 * the first, whatever was converted before. The error of a place,
 * besides the stamp's own resolution, is bounded by the pairs'
 * uncertainty and by how far CLOCK_REALTIME bends away from the line
 * between two pairs, measured at the pairs: the bound_ns it reports.
 */
#ifndef HVT_CLOCKSYNC_REALTIME_TSC_H
#define HVT_CLOCKSYNC_REALTIME_TSC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clocksync/clocksync.h"

struct hvt_realtime_tsc {
	const struct hvt_clock_pair *pairs;	/* the caller's, in TSC order */
	size_t n;
	uint64_t hz;			/* the slope of a single pair's line */
	size_t hint;			/* interval of the last conversion */
	int steps_back;			/* CLOCK_REALTIME went back between two pairs */
	uint64_t bound_ns;		/* uncertainty + bend, in ns */
};

/*
 * From @n pairs (kept by the caller while @m is used); with one pair, the
 * line through it at @nominal_hz. -1 if the pairs cannot define it (none,
 * TSC not increasing, no frequency).
 */
int hvt_realtime_tsc_init(struct hvt_realtime_tsc *m, const struct hvt_clock_pair *pairs,
			  size_t n, uint64_t nominal_hz);
/* The host TSC at which CLOCK_REALTIME read @real_ns; saturates at 0 and UINT64_MAX. */
uint64_t hvt_realtime_tsc(struct hvt_realtime_tsc *m, int64_t real_ns);
/*
 * Whether @real_ns lies where the pairs bound its place: between the first
 * and the last pair, or within HVT_REALTIME_MARGIN_NS of them. Beyond, the
 * line is extended with no bound (another run's log, a clock set wrong).
 */
#define HVT_REALTIME_MARGIN_NS	1000000000ll
bool hvt_realtime_tsc_covers(const struct hvt_realtime_tsc *m, int64_t real_ns);

#endif
