/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * host_clock.h - host TSC -> host CLOCK_MONOTONIC and CLOCK_REALTIME.
 *
 * The collector pairs the host TSC with both clocks at start, every second
 * and at stop (host/clock.tsv). Between two pairs the map is the straight
 * line through them, so an NTP slew of CLOCK_MONOTONIC or a step of
 * CLOCK_REALTIME is followed, not averaged away; before the first and after
 * the last pair the nearest line is extended. Conversions are exact
 * fixed-point (clock_math.h) and saturate; each keeps a hint of the last
 * interval used, so converting timestamps in order costs O(1).
 */
#ifndef HVT_CLOCKSYNC_HOST_CLOCK_H
#define HVT_CLOCKSYNC_HOST_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "clocksync/clocksync.h"

struct hvt_host_clock {
	size_t n;			/* intervals (pairs - 1, or 1) */
	struct hvt_linear_map *mono;	/* per interval, which starts at its base */
	struct hvt_linear_map *real;
	int64_t start_ns;		/* CLOCK_MONOTONIC of the first pair */
	size_t hint;
};

/*
 * From @n pairs in TSC order. With a single pair, the line through it has
 * @nominal_hz's slope (a recording that crashed within its first second).
 * -1 if the pairs cannot define a clock (none, TSC not increasing, clocks
 * going backwards, no frequency).
 */
int hvt_host_clock_init(struct hvt_host_clock *c, const struct hvt_clock_pair *pairs,
			size_t n, uint64_t nominal_hz);
void hvt_host_clock_free(struct hvt_host_clock *c);
int64_t hvt_host_clock_mono(struct hvt_host_clock *c, uint64_t tsc);
int64_t hvt_host_clock_realtime(struct hvt_host_clock *c, uint64_t tsc);
/* CLOCK_MONOTONIC ns since the first pair (negative before it). */
int64_t hvt_host_clock_since_start(struct hvt_host_clock *c, uint64_t tsc);
/* A span of @ticks host ticks from host TSC @at, in µs of CLOCK_MONOTONIC. */
double hvt_host_clock_ticks_us(struct hvt_host_clock *c, uint64_t at, uint64_t ticks);

#endif
