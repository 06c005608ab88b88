/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bound_hist.h - the distribution of error bounds, in fixed memory.
 *
 * Log-linear buckets, as HdrHistogram has them: values below 256 each have
 * a bucket; above, every power of two is cut in 256, so a bucket's upper
 * end is at most 1/256 above any value in it (bounds in ns: within 1 ns
 * below 256 ns, 0.4 % above). Quantiles are given as that upper end: a
 * bound is never reported smaller than it was.
 */
#ifndef HVT_TOOLS_CHECK_BOUND_HIST_H
#define HVT_TOOLS_CHECK_BOUND_HIST_H

#include <stdint.h>

#define HVT_HIST_SUB_BITS	8
#define HVT_HIST_SUB	(1u << HVT_HIST_SUB_BITS)
#define HVT_HIST_BUCKETS (HVT_HIST_SUB + (64 - HVT_HIST_SUB_BITS) * HVT_HIST_SUB)

struct hvt_bound_hist {
	uint64_t n;
	uint64_t max;			/* exact */
	uint64_t count[HVT_HIST_BUCKETS];
};

void hvt_hist_add(struct hvt_bound_hist *h, uint64_t v);
/* The smallest bucket end at or above a share @q (0..1] of the values; 0 if none. */
uint64_t hvt_hist_quantile(const struct hvt_bound_hist *h, double q);

#endif
