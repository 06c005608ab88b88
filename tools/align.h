/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * align.h - putting every layer on the host's time line.
 *
 * Host TSC -> host CLOCK_MONOTONIC with the line through the first and last
 * pairs of host/clock.tsv (hvt_linear_map_fit); "time since trace start" is
 * measured from the first pair. Guest TSC -> host TSC with the constant
 * offset fitted over every exchange of sync.tsv: guest = host + offset.
 */
#ifndef HVT_TOOLS_ALIGN_H
#define HVT_TOOLS_ALIGN_H

#include <stddef.h>
#include <stdint.h>

#include "clocksync/clocksync.h"
#include "tools/archive.h"

struct hvt_host_clock {
	struct hvt_linear_map mono;	/* host TSC -> CLOCK_MONOTONIC ns */
	uint64_t start_tsc;		/* the first pair's TSC */
	int64_t start_ns;		/* ... and CLOCK_MONOTONIC */
	int64_t realtime_offset;	/* CLOCK_REALTIME - CLOCK_MONOTONIC at the first pair */
	uint64_t max_delta;		/* ticks from the base that stay convertible */
};

/*
 * From the pairs; with a single pair, from @nominal_hz around it (the
 * archive reader already warned). -1 if the pairs cannot define a clock.
 */
int hvt_host_clock_init(struct hvt_host_clock *c, const struct hvt_clock_pair *pairs,
			size_t n, uint64_t nominal_hz);
/*
 * Nanoseconds since the first clock pair (negative before it). A damaged
 * timestamp can be anything: TSC values further than 2^60 ns (36 years)
 * from the first pair are converted as if they were at that distance, which
 * keeps the 64-bit results of clock_math.h in range.
 */
int64_t hvt_host_clock_since_start(const struct hvt_host_clock *c, uint64_t tsc);
/* CLOCK_REALTIME nanoseconds. */
int64_t hvt_host_clock_realtime(const struct hvt_host_clock *c, uint64_t tsc);

/* Fits guest - host over every exchange; -1 if there are none. */
int hvt_sync_fit(const struct hvt_sync_rec *recs, size_t n, struct hvt_offset_estimate *est);
/* Host TSC of a guest TSC value: guest - offset (modulo 2^64 like the TSC). */
uint64_t hvt_guest_to_host(uint64_t guest_tsc, int64_t offset);
/*
 * The first exchange that is not causal once aligned with @offset:
 * host_send <= guest_recv - offset and guest_send - offset <= host_recv must
 * both hold. NULL if every exchange is causal.
 */
const struct hvt_sync_rec *hvt_sync_first_violation(const struct hvt_sync_rec *recs,
						    size_t n, int64_t offset);

#endif
