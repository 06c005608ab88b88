// SPDX-License-Identifier: GPL-2.0-only
/*
 * align.c - host clock mapping and guest offset fitting (align.h).
 */
#include "tools/align.h"

#define MAX_DELTA_NS_LOG2	60

/* The largest tick distance from the base whose conversion stays below 2^60 ns. */
static uint64_t max_delta(const struct hvt_linear_map *m)
{
	unsigned __int128 ticks;

	if (!m->mult)
		return UINT64_MAX;
	ticks = ((unsigned __int128)1 << (MAX_DELTA_NS_LOG2 + m->shift)) / m->mult;
	return ticks > UINT64_MAX ? UINT64_MAX : (uint64_t)ticks;
}

/*
 * The archive reader keeps clock.tsv values below 2^62 ns, so with deltas
 * below 2^60 ns every sum below stays far from 2^63.
 */
int hvt_host_clock_init(struct hvt_host_clock *c, const struct hvt_clock_pair *pairs,
			size_t n, uint64_t nominal_hz)
{
	int ret;

	if (n == 0)
		return -1;
	c->start_tsc = pairs[0].tsc;
	c->start_ns = pairs[0].mono_ns;
	c->realtime_offset = pairs[0].real_ns - pairs[0].mono_ns;
	if (n >= 2) {
		ret = hvt_linear_map_fit(pairs, n, &c->mono);
	} else {
		c->mono.base = pairs[0].tsc;
		c->mono.base_ns = pairs[0].mono_ns;
		ret = hvt_mult_shift(1000000000u, nominal_hz, &c->mono.mult, &c->mono.shift);
	}
	c->max_delta = max_delta(&c->mono);
	return ret;
}

static int64_t to_mono(const struct hvt_host_clock *c, uint64_t tsc)
{
	uint64_t base = c->mono.base;

	if (tsc >= base && tsc - base > c->max_delta)
		tsc = base + c->max_delta;
	else if (tsc < base && base - tsc > c->max_delta)
		tsc = base - c->max_delta;
	return hvt_linear_map_apply(&c->mono, tsc);
}

int64_t hvt_host_clock_since_start(const struct hvt_host_clock *c, uint64_t tsc)
{
	return to_mono(c, tsc) - c->start_ns;
}

int64_t hvt_host_clock_realtime(const struct hvt_host_clock *c, uint64_t tsc)
{
	return to_mono(c, tsc) + c->realtime_offset;
}

int hvt_sync_fit(const struct hvt_sync_rec *recs, size_t n, struct hvt_offset_estimate *est)
{
	struct hvt_offset_fit fit;
	size_t i;

	hvt_offset_fit_init(&fit);
	for (i = 0; i < n; i++)
		hvt_offset_fit_exchange(&fit, &recs[i].ex);
	return hvt_offset_fit_result(&fit, est);
}

uint64_t hvt_guest_to_host(uint64_t guest_tsc, int64_t offset)
{
	return guest_tsc - (uint64_t)offset;
}

const struct hvt_sync_rec *hvt_sync_first_violation(const struct hvt_sync_rec *recs,
						    size_t n, int64_t offset)
{
	size_t i;

	/* 128-bit: TSC values and offsets each use up to 64 bits. */
	for (i = 0; i < n; i++) {
		const struct hvt_exchange *ex = &recs[i].ex;
		__int128 recv = (__int128)ex->guest_recv - offset;
		__int128 send = (__int128)ex->guest_send - offset;

		if ((__int128)ex->host_send > recv || send > (__int128)ex->host_recv)
			return &recs[i];
	}
	return NULL;
}
