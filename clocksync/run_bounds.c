// SPDX-License-Identifier: GPL-2.0-only
/*
 * run_bounds.c - guest events in host runs as clock bounds (run_bounds.h).
 */
#include <stdlib.h>

#include "clocksync/run_bounds.h"
#include "lib/grow.h"

/* A segment's least feasible slope, kept: computing it walks the segment's hulls. */
struct slope_cache {
	size_t segment;
	double amin;
	bool have;
};

static int window(struct hvt_estimator *est, const struct hvt_tsc_timeline *tl,
		  struct hvt_tsc_cursor *cur, uint64_t g, struct slope_cache *sc,
		  uint64_t *lo, uint64_t *hi)
{
	uint64_t host = hvt_tsc_timeline_to_host(tl, cur, g);
	struct hvt_est_value v;
	long double below, above;

	if (hvt_est_eval(est, host, &v) || !v.bounded)
		return -1;
	if (!sc->have || sc->segment != v.segment) {
		struct hvt_est_segment_info info;

		hvt_est_segment_info(est, v.segment, &info);
		*sc = (struct slope_cache){ v.segment, info.amin, true };
	}
	if (!(sc->amin > 0))
		return -1;
	/*
	 * Every feasible line has a slope of at least amin, so U(h') < g for
	 * h' < host - (U(host) - g) / amin, and L(h') > g beyond host +
	 * (g - L(host)) / amin: g's true host instant lies between.
	 */
	below = (long double)(v.hi > g ? v.hi - g : 0) / (long double)sc->amin;
	above = (long double)(g > v.lo ? g - v.lo : 0) / (long double)sc->amin;
	below = below * (1 + 1e-9L) + 2;	/* the division's rounding, the line's */
	above = above * (1 + 1e-9L) + 2;
	if (below >= (long double)host || above >= (long double)(UINT64_MAX - host))
		return -1;
	*lo = host - (uint64_t)below;
	*hi = host + (uint64_t)above;
	return 0;
}

int hvt_run_window(struct hvt_estimator *est, const struct hvt_tsc_timeline *tl,
		   struct hvt_tsc_cursor *cur, uint64_t g, uint64_t *lo, uint64_t *hi)
{
	struct slope_cache sc = { 0, 0, false };

	return window(est, tl, cur, g, &sc, lo, hi);
}

size_t hvt_run_first_after(const struct hvt_run_vcpu *v, uint64_t host)
{
	size_t lo = 0, hi = v->nr_spans;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v->spans[mid].end <= host)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * hvt_run_first_after() from the answer for an earlier host time, @*hint:
 * events come in order, so it is usually there or a few spans on.
 */
static size_t first_after_from(const struct hvt_run_vcpu *v, uint64_t host, size_t *hint)
{
	size_t k = *hint, steps;

	if (k > v->nr_spans || (k > 0 && v->spans[k - 1].end > host))
		return *hint = hvt_run_first_after(v, host);
	for (steps = 0; k < v->nr_spans && v->spans[k].end <= host; k++)
		if (++steps == 8)
			return *hint = hvt_run_first_after(v, host);
	return *hint = k;
}

/* Ties event @g, in host [@lo, @hi], to its one run; counts a contradiction. */
static void assign_one(struct hvt_run_vcpu *v, uint64_t g, uint64_t lo, uint64_t hi,
		       size_t *hint)
{
	size_t k, runs = 0, run = 0;

	if (v->unknown && v->unknown(v->unknown_ctx, lo, hi))
		return;
	for (k = first_after_from(v, lo, hint); k < v->nr_spans && v->spans[k].start <= hi; k++) {
		if (!v->spans[k].running)
			return;
		if (!runs++)
			run = k;
	}
	if (runs > 1)
		return;
	if (!runs) {
		v->contradictions++;
		return;
	}
	if (g < v->gmin[run])
		v->gmin[run] = g;
	if (g > v->gmax[run])
		v->gmax[run] = g;
	v->assigned++;
}

void hvt_run_assign(struct hvt_estimator *est, const struct hvt_tsc_timeline *tl,
		    struct hvt_run_vcpu *v)
{
	struct hvt_tsc_cursor cur = { 0, 0, 0 };
	struct slope_cache sc = { 0, 0, false };
	size_t i, hint = 0;

	for (i = 0; i < v->nr_spans; i++) {
		v->gmin[i] = UINT64_MAX;
		v->gmax[i] = 0;
	}
	v->assigned = v->contradictions = 0;
	for (i = 0; i < v->nr_events; i++) {
		uint64_t lo, hi;

		if (!window(est, tl, &cur, v->events[i], &sc, &lo, &hi))
			assign_one(v, v->events[i], lo, hi, &hint);
	}
}

/* Where guest value @g lies at the latest (@late) or the earliest, in host time. */
static uint64_t host_edge(struct hvt_estimator *est, const struct hvt_tsc_timeline *tl,
			  uint64_t g, bool late)
{
	struct hvt_tsc_cursor cur = { 0, 0, 0 };
	uint64_t lo, hi;

	if (hvt_run_window(est, tl, &cur, g, &lo, &hi))
		return late ? UINT64_MAX : 0;
	return late ? hi : lo;
}

size_t hvt_run_bounds(struct hvt_estimator *est, const struct hvt_tsc_timeline *tl,
		      const struct hvt_run_vcpu *v, uint64_t max,
		      void (*emit)(void *ctx, uint64_t host, uint64_t guest, bool upper),
		      void *ctx)
{
	size_t k, n = 0;

	for (k = 0; k < v->nr_spans; k++) {
		const struct hvt_run_span *s = &v->spans[k];
		uint64_t late, early;

		if (v->gmin[k] > v->gmax[k])
			continue;
		late = host_edge(est, tl, v->gmin[k], true);
		early = host_edge(est, tl, v->gmax[k], false);
		if (late >= s->start && late - s->start <= max) {
			emit(ctx, s->start, v->gmin[k], true);
			n++;
		}
		if (s->end >= early && s->end - early <= max) {
			emit(ctx, s->end, v->gmax[k], false);
			n++;
		}
	}
	return n;
}

void hvt_run_bound_add(void *list, uint64_t host, uint64_t guest, bool upper)
{
	struct hvt_run_bound_list *l = list;
	struct hvt_run_bound *grown = hvt_grow(l->v, l->n, &l->cap, sizeof(*grown));

	if (!grown) {
		l->failed = true;
		return;
	}
	l->v = grown;
	l->v[l->n++] = (struct hvt_run_bound){ host, guest, upper };
}

/* Host order; ties by guest stamp, then lower first: the same order on every run. */
static int by_host(const void *a, const void *b)
{
	const struct hvt_run_bound *x = a, *y = b;

	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	if (x->guest != y->guest)
		return x->guest < y->guest ? -1 : 1;
	return (int)x->upper - (int)y->upper;
}

void hvt_run_bound_sort(struct hvt_run_bound_list *l)
{
	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), by_host);
}
