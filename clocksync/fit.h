/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fit.h - every line guest = a * host + b that one-way messages allow
 * (docs/clock-model.md, "Estimation").
 *
 * A host->guest message sent at host time x and received at guest time y
 * is a point P = (x, y): every feasible line passes on or below it. A
 * guest->host message sent at guest time y and received at host time x is
 * a point Q = (x, y): every feasible line passes on or above it. Only the
 * lower convex hull of the P points and the upper hull of the Q points
 * matter. The two extreme feasible lines (largest and smallest slope) each
 * touch both hulls; between them lie all feasible lines, and at any host
 * instant h the guest time lies in [L(h), U(h)], the smallest and largest
 * value a feasible line takes at h:
 *
 *   U(h) = Lmin(h) left of the P chain, the P chain itself, Lmax(h) right of it
 *   L(h) = Lmax(h) left of the Q chain, the Q chain itself, Lmin(h) right of it
 *
 * All arithmetic is exact: coordinates are int64 offsets from an origin,
 * orientation tests and line values use 128-bit products, L is rounded down
 * and U up, so the interval is guaranteed whenever the clocks really are
 * linear. Vertices outside the extreme lines' anchors can never matter
 * again and are trimmed, which keeps each insertion O(1) amortised.
 */
#ifndef HVT_CLOCKSYNC_FIT_H
#define HVT_CLOCKSYNC_FIT_H

#include <stddef.h>
#include <stdint.h>

struct hvt_pt {
	int64_t x;		/* host, relative to the origin */
	int64_t y;		/* guest, relative to the origin */
};

struct hvt_chain {
	struct hvt_pt *v;
	size_t start, n, cap;	/* vertices v[start .. start + n - 1] */
};

struct hvt_fit {
	struct hvt_chain p;	/* lower hull of host->guest points */
	struct hvt_chain q;	/* upper hull of guest->host points */
	int complete;		/* both extreme lines bounded */
	/* after trimming: Lmax = (q[0], p[last]), Lmin = (p[0], q[last]) */
};

enum hvt_fit_verdict {
	HVT_FIT_USEFUL = 0,	/* the point narrows the set */
	HVT_FIT_REDUNDANT = 1,	/* every feasible line already satisfies it */
	HVT_FIT_INFEASIBLE = 2,	/* no feasible line satisfies it */
	HVT_FIT_UNDECIDED = 3,	/* the set is not bounded yet: try adding it */
};

#define HVT_FIT_NO_LOWER	INT64_MIN
#define HVT_FIT_NO_UPPER	INT64_MAX

void hvt_fit_init(struct hvt_fit *f);
void hvt_fit_free(struct hvt_fit *f);
void hvt_fit_clear(struct hvt_fit *f);
/* Makes @dst the same set as @src, reusing @dst's memory. */
int hvt_fit_copy(struct hvt_fit *dst, const struct hvt_fit *src);
/* What adding this point would do (@is_p: a host->guest point). */
enum hvt_fit_verdict hvt_fit_check(const struct hvt_fit *f, struct hvt_pt pt, int is_p);
/*
 * Adds a point whose x is not left of its chain's last vertex; returns 0,
 * or -1 if the set became empty (the fit is then unusable: clear it or
 * rebuild it) or on allocation failure (errno ENOMEM).
 */
int hvt_fit_add(struct hvt_fit *f, struct hvt_pt pt, int is_p);
/* [lo, hi] at host @x; HVT_FIT_NO_LOWER/NO_UPPER where unbounded. */
void hvt_fit_bounds(const struct hvt_fit *f, int64_t x, int64_t *lo, int64_t *hi);
/*
 * The central line, the mean of the two extreme lines: feasible (the set is
 * convex), so it stays within [lo, hi] everywhere. Its value at @x and its
 * slope; 0 if the set is not bounded.
 */
int hvt_fit_central(const struct hvt_fit *f, int64_t x, long double *value, long double *slope);
/* The extreme slopes (for reporting); 0 if the set is not bounded. */
int hvt_fit_slopes(const struct hvt_fit *f, double *amin, double *amax);

#endif
