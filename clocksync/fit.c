// SPDX-License-Identifier: GPL-2.0-only
/*
 * fit.c - the feasible lines of one-way message constraints (fit.h).
 *
 * The extreme lines are found with the two-pointer walk of Duda and Haddad,
 * as validated against brute force for this project: the maximum-slope line
 * joins a Q vertex on the left to a P vertex on the right, the minimum-slope
 * line a P vertex on the left to a Q vertex on the right. A walk that would
 * have to cross its anchors (x order flipping) means no line is feasible.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clocksync/fit.h"

typedef __int128 i128;

static struct hvt_pt at(const struct hvt_chain *c, size_t i)
{
	return c->v[c->start + i];
}

static i128 orient(struct hvt_pt o, struct hvt_pt a, struct hvt_pt b)
{
	return ((i128)a.x - o.x) * ((i128)b.y - o.y) - ((i128)a.y - o.y) * ((i128)b.x - o.x);
}

static int push(struct hvt_chain *c, struct hvt_pt p)
{
	if (c->start + c->n == c->cap) {
		if (c->start) {		/* reuse the room trimming left at the front */
			memmove(c->v, c->v + c->start, c->n * sizeof(*c->v));
			c->start = 0;
		} else {
			size_t cap = c->cap ? 2 * c->cap : 16;
			struct hvt_pt *v = realloc(c->v, cap * sizeof(*v));

			if (!v)
				return -1;
			c->v = v;
			c->cap = cap;
		}
	}
	c->v[c->start + c->n++] = p;
	return 0;
}

void hvt_fit_init(struct hvt_fit *f)
{
	memset(f, 0, sizeof(*f));
}

void hvt_fit_free(struct hvt_fit *f)
{
	free(f->p.v);
	free(f->q.v);
	hvt_fit_init(f);
}

static int chain_copy(struct hvt_chain *dst, const struct hvt_chain *src)
{
	if (dst->cap < src->n) {
		struct hvt_pt *v = realloc(dst->v, src->n * sizeof(*v));

		if (!v)
			return -1;
		dst->v = v;
		dst->cap = src->n;
	}
	if (src->n)
		memcpy(dst->v, src->v + src->start, src->n * sizeof(*dst->v));
	dst->start = 0;
	dst->n = src->n;
	return 0;
}

int hvt_fit_copy(struct hvt_fit *dst, const struct hvt_fit *src)
{
	if (chain_copy(&dst->p, &src->p) || chain_copy(&dst->q, &src->q)) {
		errno = ENOMEM;
		return -1;
	}
	dst->complete = src->complete;
	return 0;
}

void hvt_fit_clear(struct hvt_fit *f)
{
	f->p.start = f->p.n = 0;
	f->q.start = f->q.n = 0;
	f->complete = 0;
}

/* The value at @x of the line through @a and @b, rounded down or up, saturated. */
static int64_t line_at(struct hvt_pt a, struct hvt_pt b, int64_t x, int up)
{
	i128 dx = (i128)b.x - a.x, num = ((i128)b.y - a.y) * ((i128)x - a.x);
	i128 q = num / dx, r;

	if (num % dx) {
		if (up && (num > 0) == (dx > 0))
			q++;
		else if (!up && (num > 0) != (dx > 0))
			q--;
	}
	r = q + a.y;
	return r > INT64_MAX ? INT64_MAX : r < INT64_MIN ? INT64_MIN : (int64_t)r;
}

/* The chain's value at @x, inside its x range. */
static int64_t chain_at(const struct hvt_chain *c, int64_t x, int up)
{
	size_t lo = 0, hi = c->n - 1;	/* at(lo).x <= x < at(hi).x */

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (at(c, mid).x <= x)
			lo = mid;
		else
			hi = mid;
	}
	return line_at(at(c, lo), at(c, hi), x, up);
}

/*
 * The anchors of a complete fit, once the walk has trimmed the chains to
 * them: the steepest feasible line Lmax joins q0 to pn, the flattest Lmin
 * joins p0 to qn.
 */
struct anchors {
	struct hvt_pt p0, pn, q0, qn;
};

static struct anchors anchors(const struct hvt_fit *f)
{
	return (struct anchors){ at(&f->p, 0), at(&f->p, f->p.n - 1),
				 at(&f->q, 0), at(&f->q, f->q.n - 1) };
}

void hvt_fit_bounds(const struct hvt_fit *f, int64_t x, int64_t *lo, int64_t *hi)
{
	struct anchors a;

	if (!f->complete) {
		*lo = HVT_FIT_NO_LOWER;
		*hi = HVT_FIT_NO_UPPER;
		return;
	}
	a = anchors(f);
	if (x <= a.p0.x)
		*hi = line_at(a.p0, a.qn, x, 1);
	else if (x >= a.pn.x)
		*hi = line_at(a.q0, a.pn, x, 1);
	else
		*hi = chain_at(&f->p, x, 1);
	if (x <= a.q0.x)
		*lo = line_at(a.q0, a.pn, x, 0);
	else if (x >= a.qn.x)
		*lo = line_at(a.p0, a.qn, x, 0);
	else
		*lo = chain_at(&f->q, x, 0);
}

enum hvt_fit_verdict hvt_fit_check(const struct hvt_fit *f, struct hvt_pt pt, int is_p)
{
	int64_t lo, hi;

	if (!f->complete)
		return HVT_FIT_UNDECIDED;
	hvt_fit_bounds(f, pt.x, &lo, &hi);
	if (is_p)	/* lines pass below: pt.y caps them */
		return pt.y < lo ? HVT_FIT_INFEASIBLE : pt.y >= hi ? HVT_FIT_REDUNDANT : HVT_FIT_USEFUL;
	return pt.y > hi ? HVT_FIT_INFEASIBLE : pt.y <= lo ? HVT_FIT_REDUNDANT : HVT_FIT_USEFUL;
}

#define WALK_UNBOUNDED	1
#define WALK_INFEASIBLE	(-1)

/*
 * c1 walked from its front, c2 from its back, to the extreme line through
 * c1[*i1] and c2[*i2]; inv = +1 for the maximum slope (c1 = Q, c2 = P),
 * -1 for the minimum slope (c1 = P, c2 = Q).
 */
static int walk(const struct hvt_chain *c1, const struct hvt_chain *c2, int inv,
		size_t *i1, size_t *i2)
{
	int moved;

	if (!c1->n || !c2->n || at(c1, 0).x >= at(c2, c2->n - 1).x)
		return WALK_UNBOUNDED;
	*i1 = 0;
	*i2 = c2->n - 1;
	do {
		moved = 0;
		while (*i2 >= 1 && orient(at(c1, *i1), at(c2, *i2), at(c2, *i2 - 1)) * inv < 0) {
			if (at(c1, *i1).x >= at(c2, *i2 - 1).x)
				return WALK_INFEASIBLE;
			(*i2)--;
			moved = 1;
		}
		while (*i1 + 1 < c1->n &&
		       orient(at(c1, *i1), at(c2, *i2), at(c1, *i1 + 1)) * inv > 0) {
			if (at(c1, *i1 + 1).x >= at(c2, *i2).x)
				return WALK_INFEASIBLE;
			(*i1)++;
			moved = 1;
		}
	} while (moved);
	return 0;
}

/* Appends to a lower (@is_p) or upper hull chain. */
static int hull_push(struct hvt_chain *c, struct hvt_pt pt, int is_p)
{
	const int sign = is_p ? 1 : -1;

	if (c->n && pt.x == at(c, c->n - 1).x) {
		if (is_p ? pt.y >= at(c, c->n - 1).y : pt.y <= at(c, c->n - 1).y)
			return 0;	/* the vertex already there is tighter */
		c->n--;
	}
	while (c->n >= 2 && orient(at(c, c->n - 2), at(c, c->n - 1), pt) * sign <= 0)
		c->n--;
	return push(c, pt);
}

int hvt_fit_add(struct hvt_fit *f, struct hvt_pt pt, int is_p)
{
	size_t qa, pb, pa, qb;
	int rmax, rmin;

	if (hull_push(is_p ? &f->p : &f->q, pt, is_p)) {
		errno = ENOMEM;
		return -1;
	}
	rmax = walk(&f->q, &f->p, 1, &qa, &pb);
	rmin = walk(&f->p, &f->q, -1, &pa, &qb);
	if (rmax == WALK_INFEASIBLE || rmin == WALK_INFEASIBLE) {
		f->complete = 0;
		errno = EDOM;
		return -1;
	}
	f->complete = rmax == 0 && rmin == 0;
	if (!f->complete)
		return 0;
	if (pa > pb || qa > qb) {	/* cannot happen for a non-empty set */
		f->complete = 0;
		errno = EDOM;
		return -1;
	}
	/* Vertices outside the anchors can never bind again. */
	f->p.start += pa;
	f->p.n = pb - pa + 1;
	f->q.start += qa;
	f->q.n = qb - qa + 1;
	return 0;
}

/* The slopes of Lmax and Lmin (see struct anchors). */
struct extreme_lines {
	struct hvt_pt q0, p0;
	long double amax, amin;
};

static int extreme_lines(const struct hvt_fit *f, struct extreme_lines *e)
{
	struct anchors a;

	if (!f->complete)
		return 0;
	a = anchors(f);
	e->p0 = a.p0;
	e->q0 = a.q0;
	e->amax = (long double)(a.pn.y - a.q0.y) / (long double)(a.pn.x - a.q0.x);
	e->amin = (long double)(a.qn.y - a.p0.y) / (long double)(a.qn.x - a.p0.x);
	return 1;
}

int hvt_fit_slopes(const struct hvt_fit *f, double *amin, double *amax)
{
	struct extreme_lines e;

	if (!extreme_lines(f, &e))
		return 0;
	*amax = (double)e.amax;
	*amin = (double)e.amin;
	return 1;
}

int hvt_fit_central(const struct hvt_fit *f, int64_t x, long double *value, long double *slope)
{
	struct extreme_lines e;
	long double vmax, vmin;

	if (!extreme_lines(f, &e))
		return 0;
	vmax = (long double)e.q0.y + e.amax * (long double)(x - e.q0.x);
	vmin = (long double)e.p0.y + e.amin * (long double)(x - e.p0.x);
	*value = (vmax + vmin) / 2;
	*slope = (e.amax + e.amin) / 2;
	return 1;
}
