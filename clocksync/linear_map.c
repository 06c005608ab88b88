// SPDX-License-Identifier: GPL-2.0-only
/*
 * linear_map.c - fixed-point linear maps between clock domains.
 */
#include <hvtrace/clock_math.h>

#include "clocksync/clocksync.h"

int hvt_mult_shift(uint64_t num, uint64_t den, uint64_t *mult, uint32_t *shift)
{
	uint32_t s;

	if (!den)
		return -1;
	/*
	 * The largest shift whose mult keeps a bit of headroom below 2^64;
	 * mult rounded to nearest, so conversions are not biased low.
	 */
	for (s = 63;; s--) {
		unsigned __int128 m = (((unsigned __int128)num << s) + den / 2) / den;

		if (m < ((unsigned __int128)1 << 63) || s == 0) {
			*mult = (uint64_t)m;
			*shift = s;
			return 0;
		}
	}
}

int hvt_linear_map_through(uint64_t t0, int64_t ns0, uint64_t t1, int64_t ns1,
			   struct hvt_linear_map *m)
{
	if (t1 <= t0 || ns1 < ns0)
		return -1;
	m->base = t0;
	m->base_ns = ns0;
	return hvt_mult_shift((uint64_t)(ns1 - ns0), t1 - t0, &m->mult, &m->shift);
}

int hvt_linear_map_fit(const struct hvt_clock_pair *pairs, size_t n,
		       struct hvt_linear_map *mono)
{
	const struct hvt_clock_pair *a, *b;

	if (n < 2)
		return -1;
	a = &pairs[0];
	b = &pairs[n - 1];
	if (b->mono_ns == a->mono_ns)	/* a monotonic clock that stood still */
		return -1;
	return hvt_linear_map_through(a->tsc, a->mono_ns, b->tsc, b->mono_ns, mono);
}

uint64_t hvt_linear_map_freq_hz(const struct hvt_linear_map *m)
{
	unsigned __int128 num = (unsigned __int128)1000000000u << m->shift;

	if (!m->mult)
		return 0;
	return (uint64_t)((num + m->mult / 2) / m->mult);
}
