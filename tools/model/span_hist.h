/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * span_hist.h - a histogram of signed durations (ns) in fixed memory, for
 * percentiles of any number of them: each value goes to a bucket no wider
 * than 1/64 of it (exact below 128 ns), so the value of any rank is known
 * to lie between its bucket's edges; the least and greatest are kept
 * exactly. Memory: at most 2 x 3712 counters, whatever is added.
 */
#ifndef HVT_TOOLS_MODEL_SPAN_HIST_H
#define HVT_TOOLS_MODEL_SPAN_HIST_H

#include <stdint.h>

#define HVT_SPAN_HIST_BUCKETS	(128 + 56 * 64)	/* |x| < 2^63 */

struct hvt_span_hist {
	uint32_t *neg, *pos;		/* per bucket of |x|; NULL until a value needs it */
	uint64_t n;
	int64_t min, max;		/* exact, when n */
};

/* Adds @x: 0, or -1 if out of memory (not added). */
int hvt_span_hist_add(struct hvt_span_hist *h, int64_t x);
/* The value of rank @k (0: the least; k < h->n) lies in [*lo, *hi]. */
void hvt_span_hist_rank(const struct hvt_span_hist *h, uint64_t k, int64_t *lo, int64_t *hi);
/* The upper edge of the bucket of quantile @q (0 to 1) of @h's values; 0 if none. */
int64_t hvt_span_hist_quantile(const struct hvt_span_hist *h, double q);
void hvt_span_hist_free(struct hvt_span_hist *h);

#endif
