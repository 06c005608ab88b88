// SPDX-License-Identifier: GPL-2.0-only
/*
 * span_hist.c - signed durations in log-linear buckets (span_hist.h).
 */
#include <stdlib.h>

#include "tools/model/span_hist.h"

/* The bucket of @m (>= 0): exact below 128, then 64 per power of two. */
static unsigned int bucket(uint64_t m)
{
	unsigned int e;

	if (m < 128)
		return (unsigned int)m;
	e = 63u - (unsigned int)__builtin_clzll(m);	/* 7 .. 62 */
	return 128 + (e - 7) * 64 + (unsigned int)((m >> (e - 6)) & 63);
}

/* The least and greatest magnitude of bucket @b. */
static void edges(unsigned int b, uint64_t *lo, uint64_t *hi)
{
	unsigned int e, sub;

	if (b < 128) {
		*lo = *hi = b;
		return;
	}
	e = (b - 128) / 64 + 7;
	sub = (b - 128) % 64;
	*lo = (uint64_t)(64 + sub) << (e - 6);
	*hi = *lo + ((uint64_t)1 << (e - 6)) - 1;
}

int hvt_span_hist_add(struct hvt_span_hist *h, int64_t x)
{
	uint32_t **side = x < 0 ? &h->neg : &h->pos;
	uint64_t m = x < 0 ? (x == INT64_MIN ? (uint64_t)INT64_MAX : (uint64_t)-x) : (uint64_t)x;

	if (!*side && !(*side = calloc(HVT_SPAN_HIST_BUCKETS, sizeof(**side))))
		return -1;
	(*side)[bucket(m)]++;
	if (!h->n || x < h->min)
		h->min = x;
	if (!h->n || x > h->max)
		h->max = x;
	h->n++;
	return 0;
}

void hvt_span_hist_rank(const struct hvt_span_hist *h, uint64_t k, int64_t *lo, int64_t *hi)
{
	uint64_t seen = 0, a, b;
	unsigned int i;

	*lo = h->min;
	*hi = h->max;
	if (k == 0 || k + 1 >= h->n) {		/* the extremes are exact */
		*lo = *hi = k == 0 ? h->min : h->max;
		return;
	}
	for (i = HVT_SPAN_HIST_BUCKETS; h->neg && i-- > 0;)	/* the most negative first */
		if ((seen += h->neg[i]) > k) {
			edges(i, &a, &b);
			*lo = -(int64_t)b;
			*hi = -(int64_t)a;
			goto clamp;
		}
	for (i = 0; h->pos && i < HVT_SPAN_HIST_BUCKETS; i++)
		if ((seen += h->pos[i]) > k) {
			edges(i, &a, &b);
			*lo = (int64_t)a;
			*hi = (int64_t)b;
			goto clamp;
		}
clamp:
	if (*lo < h->min)
		*lo = h->min;
	if (*hi > h->max)
		*hi = h->max;
}

int64_t hvt_span_hist_quantile(const struct hvt_span_hist *h, double q)
{
	int64_t lo, hi;

	if (!h->n)
		return 0;
	hvt_span_hist_rank(h, (uint64_t)(q * (double)(h->n - 1)), &lo, &hi);
	return hi;
}

void hvt_span_hist_free(struct hvt_span_hist *h)
{
	free(h->neg);
	free(h->pos);
	h->neg = h->pos = NULL;
	h->n = 0;
}
