// SPDX-License-Identifier: GPL-2.0-only
/*
 * run_bounds.c - guest events in host runs as clock bounds (run_bounds.h).
 */
#include <stdlib.h>

#include "clocksync/run_bounds.h"
#include "lib/grow.h"

/* The widest window of segment @i between its first and last sample (run_bounds.h). */
static void set_reach(struct hvt_estimator *est, size_t i, const struct hvt_est_segment_info *info,
		      struct hvt_run_seg *sg)
{
	struct hvt_est_value a, b;
	long double width;

	sg->reach = 0;
	if (!(sg->amin > 0) || info->host_last <= info->host_first ||
	    hvt_est_segment_eval(est, i, info->host_first, &a) || !a.bounded ||
	    hvt_est_segment_eval(est, i, info->host_last, &b) || !b.bounded)
		return;
	width = (long double)(a.hi - a.lo > b.hi - b.lo ? a.hi - a.lo : b.hi - b.lo);
	/* the bounds' outward rounding (2 ticks each side), the division's, the line's */
	width = (width + 4) / (long double)sg->amin * (1 + 1e-9L) + 4;
	if (width >= (long double)(UINT64_MAX / 4))
		return;
	sg->reach_from = info->host_first;
	sg->reach_to = info->host_last;
	sg->reach = (uint64_t)width;
}

int hvt_run_clock_init(struct hvt_run_clock *rc, struct hvt_estimator *est,
		       const struct hvt_tsc_timeline *tl)
{
	size_t n = hvt_est_nr_segments(est), i;
	struct hvt_est_segment_info *info;

	*rc = (struct hvt_run_clock){ est, NULL, 0 };
	if (!n || tl->n != n)
		return 0;
	info = calloc(n, sizeof(*info));
	rc->seg = calloc(n, sizeof(*rc->seg));
	if (!info || !rc->seg) {
		free(info);
		hvt_run_clock_free(rc);
		return -1;
	}
	hvt_est_finish(est);
	for (i = 0; i < n; i++)
		hvt_est_segment_info(est, i, &info[i]);
	for (i = 0; i < n; i++) {
		struct hvt_run_seg *sg = &rc->seg[i];

		sg->from = info[i].valid_from;
		sg->to = info[i].valid_to;
		/* a boundary left unsettled: nowhere is it certain that this segment applied */
		if ((i && !sg->from) || (i + 1 < n && sg->to == UINT64_MAX)) {
			sg->from = UINT64_MAX;
			sg->to = 0;
		}
		sg->amin = info[i].certain_amin;
		sg->x = tl->seg[i].x;
		set_reach(est, i, &info[i], sg);
	}
	free(info);
	rc->n = n;
	return 0;
}

void hvt_run_clock_free(struct hvt_run_clock *rc)
{
	free(rc->seg);
	rc->seg = NULL;
	rc->n = 0;
}

int hvt_run_window_in(const struct hvt_run_clock *rc, size_t i, uint64_t g, uint64_t *lo,
		      uint64_t *hi)
{
	const struct hvt_run_seg *sg = &rc->seg[i];
	uint64_t host = hvt_tsc_to_host(&sg->x, g);
	struct hvt_est_value v;
	long double below, above;

	if (hvt_est_segment_eval(rc->est, i, host, &v) || !v.bounded || !(sg->amin > 0))
		return -1;
	/*
	 * Every feasible line has a slope of at least amin, so U(h') < g for
	 * h' < host - (U(host) - g) / amin, and L(h') > g beyond host +
	 * (g - L(host)) / amin: g's true host instant lies between.
	 */
	below = (long double)(v.hi > g ? v.hi - g : 0) / (long double)sg->amin;
	above = (long double)(g > v.lo ? g - v.lo : 0) / (long double)sg->amin;
	below = below * (1 + 1e-9L) + 2;	/* the division's rounding, the line's */
	above = above * (1 + 1e-9L) + 2;
	if (below >= (long double)host || above >= (long double)(UINT64_MAX - host))
		return -1;
	*lo = host - (uint64_t)below;
	*hi = host + (uint64_t)above;
	return 0;
}

int hvt_run_window(const struct hvt_run_clock *rc, uint64_t g, size_t *seg, uint64_t *lo,
		   uint64_t *hi)
{
	long i = rc->n ? hvt_est_segment_of_value(rc->est, g) : -1;

	if (i < 0 || hvt_run_window_in(rc, (size_t)i, g, lo, hi))
		return -1;
	*seg = (size_t)i;
	return 0;
}

int hvt_run_window_wide(const struct hvt_run_clock *rc, uint64_t g, uint64_t *lo,
			uint64_t *hi)
{
	long i = rc->n ? hvt_est_segment_of_value(rc->est, g) : -1;
	const struct hvt_run_seg *sg;
	uint64_t host;

	if (i < 0)
		return -1;
	sg = &rc->seg[i];
	host = hvt_tsc_to_host(&sg->x, g);
	if (!sg->reach || host < sg->reach_from || host > sg->reach_to || host < sg->reach ||
	    host > UINT64_MAX - sg->reach)
		return hvt_run_window_in(rc, (size_t)i, g, lo, hi);
	*lo = host - sg->reach;
	*hi = host + sg->reach;
	return 0;
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

/* Events come in order, so the answer is usually at @*hint or a few spans on. */
size_t hvt_run_first_after_from(const struct hvt_run_vcpu *v, uint64_t host, size_t *hint)
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
	for (k = hvt_run_first_after_from(v, lo, hint); k < v->nr_spans && v->spans[k].start <= hi; k++) {
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

void hvt_run_assign(const struct hvt_run_clock *rc, struct hvt_run_vcpu *v)
{
	size_t i, hint = 0, seg;

	for (i = 0; i < v->nr_spans; i++) {
		v->gmin[i] = UINT64_MAX;
		v->gmax[i] = 0;
	}
	v->assigned = v->contradictions = 0;
	for (i = 0; i < v->nr_events; i++) {
		uint64_t lo, hi;

		if (!hvt_run_window(rc, v->events[i], &seg, &lo, &hi))
			assign_one(v, v->events[i], lo, hi, &hint);
	}
}

/* Whether segment @seg of @rc certainly applied at @host. */
static bool certainly_in(const struct hvt_run_clock *rc, size_t seg, uint64_t host)
{
	return host >= rc->seg[seg].from && host <= rc->seg[seg].to;
}

size_t hvt_run_bounds(const struct hvt_run_clock *rc, const struct hvt_run_vcpu *v, uint64_t max,
		      void (*emit)(void *ctx, uint64_t host, uint64_t guest, bool upper,
				   uint64_t delay),
		      void *ctx)
{
	size_t k, n = 0, seg;

	for (k = 0; k < v->nr_spans; k++) {
		const struct hvt_run_span *s = &v->spans[k];
		uint64_t lo, hi;

		if (v->gmin[k] > v->gmax[k])
			continue;
		/* the first event at its latest within max of the start, on one line */
		if (!hvt_run_window(rc, v->gmin[k], &seg, &lo, &hi) && hi >= s->start &&
		    hi - s->start <= max && certainly_in(rc, seg, s->start)) {
			emit(ctx, s->start, v->gmin[k], true, hi - s->start);
			n++;
		}
		if (!hvt_run_window(rc, v->gmax[k], &seg, &lo, &hi) && s->end >= lo &&
		    s->end - lo <= max && certainly_in(rc, seg, s->end)) {
			emit(ctx, s->end, v->gmax[k], false, s->end - lo);
			n++;
		}
	}
	return n;
}

void hvt_run_bound_add(void *list, uint64_t host, uint64_t guest, bool upper, uint64_t delay)
{
	struct hvt_run_bound_list *l = list;
	struct hvt_run_bound *grown = hvt_grow(l->v, l->n, &l->cap, sizeof(*grown));

	if (!grown) {
		l->failed = true;
		return;
	}
	l->v = grown;
	l->v[l->n++] = (struct hvt_run_bound){ host, guest, upper, delay };
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
