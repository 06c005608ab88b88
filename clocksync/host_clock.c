// SPDX-License-Identifier: GPL-2.0-only
/*
 * host_clock.c - piecewise-linear host clock chain (host_clock.h).
 */
#include <stdlib.h>
#include <string.h>
#include <hvtrace/clock_math.h>

#include "clocksync/host_clock.h"

static int alloc(struct hvt_host_clock *c, size_t n)
{
	c->n = n;
	c->mono = calloc(n, sizeof(*c->mono));
	c->real = calloc(n, sizeof(*c->real));
	return c->mono && c->real ? 0 : -1;
}

int hvt_host_clock_init(struct hvt_host_clock *c, const struct hvt_clock_pair *pairs,
			size_t n, uint64_t nominal_hz)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	if (n == 0 || (n == 1 && !nominal_hz) || alloc(c, n == 1 ? 1 : n - 1))
		goto fail;
	c->start_ns = pairs[0].mono_ns;
	if (n == 1) {
		c->mono[0] = (struct hvt_linear_map){ pairs[0].tsc, pairs[0].mono_ns, 0, 0 };
		c->real[0] = (struct hvt_linear_map){ pairs[0].tsc, pairs[0].real_ns, 0, 0 };
		if (hvt_mult_shift(1000000000u, nominal_hz, &c->mono[0].mult, &c->mono[0].shift))
			goto fail;
		c->real[0].mult = c->mono[0].mult;
		c->real[0].shift = c->mono[0].shift;
		return 0;
	}
	for (i = 0; i + 1 < n; i++) {
		const struct hvt_clock_pair *a = &pairs[i], *b = &pairs[i + 1];

		if (hvt_linear_map_through(a->tsc, a->mono_ns, b->tsc, b->mono_ns, &c->mono[i]) ||
		    hvt_linear_map_through(a->tsc, a->real_ns, b->tsc, b->real_ns, &c->real[i]))
			goto fail;
	}
	return 0;
fail:
	hvt_host_clock_free(c);
	return -1;
}

void hvt_host_clock_free(struct hvt_host_clock *c)
{
	free(c->mono);
	free(c->real);
	memset(c, 0, sizeof(*c));
}

/* Host TSC where interval @i starts. */
static uint64_t start(const struct hvt_host_clock *c, size_t i)
{
	return c->mono[i].base;
}

/* The interval of @tsc: the hint when still right, else a binary search. */
static size_t interval(struct hvt_host_clock *c, uint64_t tsc)
{
	size_t lo = 0, hi = c->n, h = c->hint;

	if (tsc >= start(c, h) && (h + 1 == c->n || tsc < start(c, h + 1)))
		return h;
	if (h + 1 < c->n && tsc >= start(c, h + 1) &&
	    (h + 2 == c->n || tsc < start(c, h + 2)))
		return c->hint = h + 1;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (start(c, mid) <= tsc)
			lo = mid;
		else
			hi = mid;
	}
	return c->hint = lo;
}

int64_t hvt_host_clock_mono(struct hvt_host_clock *c, uint64_t tsc)
{
	return hvt_linear_map_apply(&c->mono[interval(c, tsc)], tsc);
}

int64_t hvt_host_clock_realtime(struct hvt_host_clock *c, uint64_t tsc)
{
	return hvt_linear_map_apply(&c->real[interval(c, tsc)], tsc);
}

int64_t hvt_host_clock_since_start(struct hvt_host_clock *c, uint64_t tsc)
{
	int64_t ns = hvt_host_clock_mono(c, tsc);

	/* saturated values stay saturated instead of wrapping */
	if (ns == INT64_MAX || ns == INT64_MIN)
		return ns;
	return ns - c->start_ns;
}

double hvt_host_clock_ticks_us(struct hvt_host_clock *c, uint64_t at, uint64_t ticks)
{
	return (double)(hvt_host_clock_mono(c, at + ticks) - hvt_host_clock_mono(c, at)) / 1000.0;
}
