// SPDX-License-Identifier: GPL-2.0-only
/*
 * realtime_tsc.c - host CLOCK_REALTIME -> host TSC (realtime_tsc.h).
 */
#include <string.h>

#include "clocksync/realtime_tsc.h"

/* The TSC at @real_ns on the line through pairs @a and @b (b after a). */
static uint64_t on_line(const struct hvt_clock_pair *a, const struct hvt_clock_pair *b,
			int64_t real_ns)
{
	__int128 dt = (__int128)(b->tsc - a->tsc), dr = (__int128)b->real_ns - a->real_ns;
	__int128 t = (__int128)a->tsc + ((__int128)real_ns - a->real_ns) * dt / dr;

	if (t < 0)
		return 0;
	if (t > (__int128)UINT64_MAX)
		return UINT64_MAX;
	return (uint64_t)t;
}

/* Ticks of @hz in @ns (may be negative), added to @tsc, saturated. */
static uint64_t at_rate(uint64_t tsc, int64_t ns, uint64_t hz)
{
	__int128 t = (__int128)tsc + (__int128)ns * hz / 1000000000;

	if (t < 0)
		return 0;
	if (t > (__int128)UINT64_MAX)
		return UINT64_MAX;
	return (uint64_t)t;
}

/* @ticks of @hz in ns, at most 2^62. */
static uint64_t ns_of(uint64_t ticks, uint64_t hz)
{
	unsigned __int128 ns = (unsigned __int128)ticks * 1000000000u / hz;

	return ns > ((unsigned __int128)1 << 62) ? 1ull << 62 : (uint64_t)ns;
}

/* Whether interval @i (pairs i, i + 1) moves forward in CLOCK_REALTIME. */
static int forward(const struct hvt_realtime_tsc *m, size_t i)
{
	return m->pairs[i + 1].real_ns > m->pairs[i].real_ns;
}

int hvt_realtime_tsc_init(struct hvt_realtime_tsc *m, const struct hvt_clock_pair *pairs,
			  size_t n, uint64_t nominal_hz)
{
	unsigned __int128 hz = nominal_hz;
	uint64_t worst = 0;
	size_t i;

	memset(m, 0, sizeof(*m));
	if (!n)
		return -1;
	for (i = 1; i < n; i++) {
		if (pairs[i].tsc <= pairs[i - 1].tsc)
			return -1;
		if (pairs[i].real_ns <= pairs[i - 1].real_ns)
			m->steps_back = 1;
	}
	m->pairs = pairs;
	m->n = n;
	if (n > 1 && pairs[n - 1].mono_ns > pairs[0].mono_ns)
		hz = (unsigned __int128)(pairs[n - 1].tsc - pairs[0].tsc) * 1000000000u /
		     (uint64_t)(pairs[n - 1].mono_ns - pairs[0].mono_ns);
	if (!hz || hz > 1000000000000000ull)	/* none, or over 1 PHz: not a TSC */
		return -1;
	m->hz = (uint64_t)hz;
	for (i = 0; i < n; i++)
		if (pairs[i].uncertainty > worst)
			worst = pairs[i].uncertainty;
	m->bound_ns = ns_of(worst, m->hz);
	/* the bend: where the line of one interval, extended, misses the next pair */
	worst = 0;
	for (i = 1; i + 1 < n; i++) {
		uint64_t want = pairs[i + 1].tsc, got;

		if (!forward(m, i - 1) || !forward(m, i))
			continue;
		got = on_line(&pairs[i - 1], &pairs[i], pairs[i + 1].real_ns);
		if ((got > want ? got - want : want - got) > worst)
			worst = got > want ? got - want : want - got;
	}
	m->bound_ns += ns_of(worst, m->hz);
	return 0;
}

uint64_t hvt_realtime_tsc(struct hvt_realtime_tsc *m, int64_t real_ns)
{
	const struct hvt_clock_pair *p = m->pairs;
	size_t i, n = m->n;

	if (n == 1 || real_ns < p[0].real_ns)
		return n > 1 && forward(m, 0) ? on_line(&p[0], &p[1], real_ns)
					      : at_rate(p[0].tsc, real_ns - p[0].real_ns, m->hz);
	if (real_ns >= p[n - 1].real_ns)
		return forward(m, n - 2) ? on_line(&p[n - 2], &p[n - 1], real_ns)
					 : at_rate(p[n - 1].tsc, real_ns - p[n - 1].real_ns, m->hz);
	/*
	 * Times come mostly in order: from the interval of the last one on.
	 * Where CLOCK_REALTIME stepped back, two intervals may hold the time:
	 * the first is searched from the start, so that the answer never
	 * depends on what was converted before.
	 */
	for (i = m->steps_back ? 0 : m->hint; i + 1 < n; i++)
		if (forward(m, i) && p[i].real_ns <= real_ns && real_ns < p[i + 1].real_ns)
			return m->hint = i, on_line(&p[i], &p[i + 1], real_ns);
	for (i = 0; i + 1 < n; i++)
		if (forward(m, i) && p[i].real_ns <= real_ns && real_ns < p[i + 1].real_ns)
			return m->hint = i, on_line(&p[i], &p[i + 1], real_ns);
	/* in a step back: the first pair at or after it */
	for (i = 0; i < n && p[i].real_ns < real_ns; i++)
		;
	return p[i < n ? i : n - 1].tsc;
}

bool hvt_realtime_tsc_covers(const struct hvt_realtime_tsc *m, int64_t real_ns)
{
	int64_t lo = m->pairs[0].real_ns, hi = lo;
	size_t i;

	for (i = 1; i < m->n; i++) {	/* CLOCK_REALTIME may step: the pairs' whole range */
		if (m->pairs[i].real_ns < lo)
			lo = m->pairs[i].real_ns;
		if (m->pairs[i].real_ns > hi)
			hi = m->pairs[i].real_ns;
	}
	return real_ns >= lo - HVT_REALTIME_MARGIN_NS && real_ns <= hi + HVT_REALTIME_MARGIN_NS;
}
