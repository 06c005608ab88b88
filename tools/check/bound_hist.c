// SPDX-License-Identifier: GPL-2.0-only
/*
 * bound_hist.c - log-linear histogram of error bounds (bound_hist.h).
 */
#include "tools/check/bound_hist.h"

static unsigned int bucket(uint64_t v)
{
	unsigned int e;

	if (v < HVT_HIST_SUB)
		return (unsigned int)v;
	e = 63u - (unsigned int)__builtin_clzll(v);	/* HVT_HIST_SUB_BITS..63 */
	return HVT_HIST_SUB + (e - HVT_HIST_SUB_BITS) * HVT_HIST_SUB +
	       (unsigned int)((v >> (e - HVT_HIST_SUB_BITS)) & (HVT_HIST_SUB - 1));
}

/* The largest value bucket @b holds. */
static uint64_t bucket_end(unsigned int b)
{
	unsigned int e, sub;

	if (b < HVT_HIST_SUB)
		return b;
	e = (b - HVT_HIST_SUB) / HVT_HIST_SUB + HVT_HIST_SUB_BITS;
	sub = (b - HVT_HIST_SUB) % HVT_HIST_SUB;
	return ((uint64_t)(HVT_HIST_SUB + sub) << (e - HVT_HIST_SUB_BITS)) +
	       (((uint64_t)1 << (e - HVT_HIST_SUB_BITS)) - 1);
}

void hvt_hist_add(struct hvt_bound_hist *h, uint64_t v)
{
	h->count[bucket(v)]++;
	h->n++;
	if (v > h->max)
		h->max = v;
}

uint64_t hvt_hist_quantile(const struct hvt_bound_hist *h, double q)
{
	uint64_t want, seen = 0;
	unsigned int b;

	if (!h->n)
		return 0;
	want = (uint64_t)(q * (double)h->n + 0.999999);
	if (want < 1)
		want = 1;
	for (b = 0; b < HVT_HIST_BUCKETS; b++) {
		seen += h->count[b];
		if (seen >= want)
			return bucket_end(b) < h->max ? bucket_end(b) : h->max;
	}
	return h->max;
}
