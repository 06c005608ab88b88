// SPDX-License-Identifier: GPL-2.0-only
/*
 * estimator.c - segments of feasible lines, and their boundaries
 * (estimator.h).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "clocksync/estimator.h"

#define COORD_LIMIT	((int64_t)1 << 61)	/* fit.c's exact arithmetic range */
#define RECENT		512	/* raw samples a segment keeps of its end */

struct sample {
	int64_t x, y;
	int64_t d;		/* its stamp was read within d of x (-1: the longest delay) */
	uint8_t is_p;
	uint8_t drop;		/* not certain to belong here (hvt_est_finish) */
};

struct segment {
	struct sample *s;	/* the samples that narrowed it, by x */
	size_t n, cap;
	struct hvt_fit fit;	/* all of them */
	struct hvt_fit certain;	/* the certain ones, after hvt_est_finish() */
	int64_t first_x, last_x;
	struct sample starter;	/* the sample that started it, contradicting the one before */
	uint64_t received;
	int64_t max_x[2];	/* per kind: out-of-order detection */
	int64_t valid_from, valid_to;	/* where `certain` alone applies */
	uint64_t shows_from, shows_to;	/* guest values it may have shown (hvt_est_finish) */
	/*
	 * Its last raw samples, redundant or not: the evidence that places the
	 * cut when the segment turns out to end with a change.
	 */
	struct sample recent[RECENT];
	size_t recent_n, recent_next;
};

struct hvt_estimator {
	int have_origin;
	uint64_t h0, g0;
	struct segment *seg;
	size_t nseg, cap;
	uint64_t max_rtt, max_delay;
	struct hvt_fit scratch, scratch2;
	int finished;
	size_t hint;
};

struct hvt_estimator *hvt_est_new(void)
{
	return calloc(1, sizeof(struct hvt_estimator));
}

void hvt_est_free(struct hvt_estimator *e)
{
	size_t i;

	if (!e)
		return;
	for (i = 0; i < e->nseg; i++) {
		free(e->seg[i].s);
		hvt_fit_free(&e->seg[i].fit);
		hvt_fit_free(&e->seg[i].certain);
	}
	free(e->seg);
	hvt_fit_free(&e->scratch);
	hvt_fit_free(&e->scratch2);
	free(e);
}

void hvt_est_set_max_delay(struct hvt_estimator *e, uint64_t ticks)
{
	e->max_delay = ticks;
}

static struct segment *new_segment(struct hvt_estimator *e)
{
	struct segment *s;

	if (e->nseg == e->cap) {
		size_t cap = e->cap ? 2 * e->cap : 4;
		struct segment *seg = realloc(e->seg, cap * sizeof(*seg));

		if (!seg)
			return NULL;
		e->seg = seg;
		e->cap = cap;
	}
	s = &e->seg[e->nseg++];
	memset(s, 0, sizeof(*s));
	hvt_fit_init(&s->fit);
	hvt_fit_init(&s->certain);
	s->max_x[0] = s->max_x[1] = INT64_MIN;
	s->valid_from = INT64_MIN;
	s->valid_to = INT64_MAX;
	return s;
}

/* Inserts in x order; returns the index. */
static long insert_sample(struct segment *s, struct hvt_pt pt, int is_p, int64_t d)
{
	size_t i;

	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 32;
		struct sample *v = realloc(s->s, cap * sizeof(*v));

		if (!v)
			return -1;
		s->s = v;
		s->cap = cap;
	}
	for (i = s->n; i > 0 && s->s[i - 1].x > pt.x; i--)
		s->s[i] = s->s[i - 1];
	s->s[i] = (struct sample){ pt.x, pt.y, d, (uint8_t)is_p, 0 };
	s->n++;
	return (long)i;
}

static void remove_sample(struct segment *s, size_t i)
{
	memmove(s->s + i, s->s + i + 1, (s->n - i - 1) * sizeof(*s->s));
	s->n--;
}

/* @f := the fit of @s's samples (all, or those not dropped); -1 if empty set. */
static int build_fit(struct hvt_fit *f, const struct segment *s, int only_kept)
{
	size_t i;

	hvt_fit_clear(f);
	for (i = 0; i < s->n; i++) {
		const struct sample *sm = &s->s[i];

		if (only_kept && sm->drop)
			continue;
		if (hvt_fit_add(f, (struct hvt_pt){ sm->x, sm->y }, sm->is_p))
			return -1;
	}
	return 0;
}

static void remember(struct segment *s, struct hvt_pt pt, int is_p, int64_t d)
{
	s->recent[s->recent_next] = (struct sample){ pt.x, pt.y, d, (uint8_t)is_p, 0 };
	s->recent_next = (s->recent_next + 1) % RECENT;
	if (s->recent_n < RECENT)
		s->recent_n++;
}

static void note_range(struct segment *s, int64_t x)
{
	if (!s->received || x < s->first_x)
		s->first_x = x;
	if (!s->received || x > s->last_x)
		s->last_x = x;
	s->received++;
}

static enum hvt_est_result start_segment(struct hvt_estimator *e, struct hvt_pt pt, int is_p,
					 int64_t d)
{
	struct segment *s = new_segment(e);

	if (!s || insert_sample(s, pt, is_p, d) < 0 || hvt_fit_add(&s->fit, pt, is_p))
		return HVT_EST_REJECTED;
	s->starter = (struct sample){ pt.x, pt.y, d, (uint8_t)is_p, 0 };
	remember(s, pt, is_p, d);
	note_range(s, pt.x);
	s->max_x[is_p] = pt.x;
	return e->nseg > 1 ? HVT_EST_SPLIT : HVT_EST_USED;
}

/* A sample older than its kind's newest: insert it and rebuild the fit. */
static enum hvt_est_result add_out_of_order(struct segment *s, struct hvt_pt pt, int is_p,
					    int64_t d)
{
	long i = insert_sample(s, pt, is_p, d);

	if (i < 0)
		return HVT_EST_REJECTED;
	if (build_fit(&s->fit, s, 0)) {
		remove_sample(s, (size_t)i);
		build_fit(&s->fit, s, 0);	/* what it was */
		return HVT_EST_REJECTED;
	}
	return HVT_EST_USED;
}

static enum hvt_est_result add(struct hvt_estimator *e, struct hvt_pt pt, int is_p, int64_t d)
{
	struct segment *s;
	enum hvt_fit_verdict v;
	struct hvt_fit tmp;

	if (pt.x <= -COORD_LIMIT || pt.x >= COORD_LIMIT || pt.y <= -COORD_LIMIT ||
	    pt.y >= COORD_LIMIT)
		return HVT_EST_REJECTED;
	e->finished = 0;
	if (!e->nseg)
		return start_segment(e, pt, is_p, d);
	s = &e->seg[e->nseg - 1];
	v = hvt_fit_check(&s->fit, pt, is_p);
	if (v != HVT_FIT_INFEASIBLE)
		remember(s, pt, is_p, d);
	if (v == HVT_FIT_REDUNDANT) {
		note_range(s, pt.x);
		return HVT_EST_REDUNDANT;
	}
	if (pt.x < s->max_x[is_p]) {
		if (v == HVT_FIT_INFEASIBLE)
			return HVT_EST_REJECTED;
		note_range(s, pt.x);
		return add_out_of_order(s, pt, is_p, d);
	}
	if (v == HVT_FIT_INFEASIBLE)
		return start_segment(e, pt, is_p, d);
	/* Try it on a copy: an addition that empties the set is a split. */
	if (hvt_fit_copy(&e->scratch, &s->fit))
		return HVT_EST_REJECTED;
	if (hvt_fit_add(&e->scratch, pt, is_p))
		return errno == ENOMEM ? HVT_EST_REJECTED : start_segment(e, pt, is_p, d);
	if (insert_sample(s, pt, is_p, d) < 0)
		return HVT_EST_REJECTED;
	tmp = s->fit;
	s->fit = e->scratch;
	e->scratch = tmp;
	note_range(s, pt.x);
	s->max_x[is_p] = pt.x;
	return HVT_EST_USED;
}

/* The first sample fixes the origin of the relative coordinates. */
static void set_origin(struct hvt_estimator *e, uint64_t host, uint64_t guest)
{
	if (!e->have_origin) {
		e->h0 = host;
		e->g0 = guest;
		e->have_origin = 1;
	}
}

static struct hvt_pt rel(const struct hvt_estimator *e, uint64_t host, uint64_t guest)
{
	return (struct hvt_pt){ (int64_t)(host - e->h0), (int64_t)(guest - e->g0) };
}

enum hvt_est_result hvt_est_h2g(struct hvt_estimator *e, uint64_t host, uint64_t guest)
{
	set_origin(e, host, guest);
	return add(e, rel(e, host, guest), 1, -1);
}

enum hvt_est_result hvt_est_g2h(struct hvt_estimator *e, uint64_t guest, uint64_t host)
{
	set_origin(e, host, guest);
	return add(e, rel(e, host, guest), 0, -1);
}

/* @delay as a sample's d: -1 (the longest round trip) past what coordinates hold. */
static int64_t own_delay(uint64_t delay)
{
	return delay < (uint64_t)COORD_LIMIT / 4 ? (int64_t)delay : -1;
}

enum hvt_est_result hvt_est_h2g_within(struct hvt_estimator *e, uint64_t host, uint64_t guest,
				       uint64_t delay)
{
	set_origin(e, host, guest);
	return add(e, rel(e, host, guest), 1, own_delay(delay));
}

enum hvt_est_result hvt_est_g2h_within(struct hvt_estimator *e, uint64_t guest, uint64_t host,
				       uint64_t delay)
{
	set_origin(e, host, guest);
	return add(e, rel(e, host, guest), 0, own_delay(delay));
}

enum hvt_est_result hvt_est_exchange(struct hvt_estimator *e, const struct hvt_exchange *ex)
{
	enum hvt_est_result a, b;
	int64_t d = -1;		/* both stamps were read between host_send and host_recv */

	if (ex->host_recv >= ex->host_send) {
		uint64_t rtt = ex->host_recv - ex->host_send;

		if (rtt > e->max_rtt)
			e->max_rtt = rtt;
		if (rtt < (uint64_t)COORD_LIMIT / 4)
			d = (int64_t)rtt;
	}
	set_origin(e, ex->host_send, ex->guest_recv);
	a = add(e, rel(e, ex->host_send, ex->guest_recv), 1, d);
	b = add(e, rel(e, ex->host_recv, ex->guest_send), 0, d);
	if (a == HVT_EST_SPLIT || b == HVT_EST_SPLIT)
		return HVT_EST_SPLIT;
	return a == HVT_EST_USED || b == HVT_EST_USED ? HVT_EST_USED : a;
}

/*
 * The earliest and the latest host instant at which @s's stamp may have
 * been read: a host->guest message's after it was sent (its x), a
 * guest->host message's before it arrived, within its delay: its
 * exchange's round trip, or for a one-way message the longest round trip
 * or the delay bound set, whichever is larger.
 */
static int64_t delay_of(const struct hvt_estimator *e, const struct sample *s)
{
	uint64_t d = e->max_rtt > e->max_delay ? e->max_rtt : e->max_delay;

	if (s->d >= 0)
		return s->d;
	return d > (uint64_t)COORD_LIMIT / 4 ? COORD_LIMIT / 4 : (int64_t)d;
}

static int64_t read_from(const struct hvt_estimator *e, const struct sample *s)
{
	return s->is_p ? s->x : s->x - delay_of(e, s);
}

static int64_t read_until(const struct hvt_estimator *e, const struct sample *s)
{
	return s->is_p ? s->x + delay_of(e, s) : s->x;
}

/* @f := the fit of @b's samples read no earlier than @from (all: INT64_MIN); -1 if empty set. */
static int build_core_fit(struct hvt_fit *f, const struct hvt_estimator *e,
			  const struct segment *b, int64_t from)
{
	size_t i;

	hvt_fit_clear(f);
	for (i = 0; i < b->n; i++) {
		const struct sample *sm = &b->s[i];

		if (from != INT64_MIN && read_from(e, sm) < from)
			continue;
		if (hvt_fit_add(f, (struct hvt_pt){ sm->x, sm->y }, sm->is_p))
			return -1;
	}
	return 0;
}

/*
 * A sample is a valid bound on the line in force when its stamp was read
 * (lines rise, so the bound holds back to its x): a sample read before the
 * change is a's, one read after it b's, whatever its x.
 *
 * b's starter contradicted a's fit, so it, or one of the samples in that
 * fit, was read after the change: the change came before the latest
 * instant any of them may have been read (@until). Samples of b read no
 * earlier than that are certainly b's: its core. The samples of a that
 * contradict the core were read before the change, so the change came
 * after the earliest instant each may have been read; from the latest of
 * those (cut) back, a certainly applied, and a's samples read by then are
 * certainly a's. What is in between is dropped unless it contradicts the
 * other side's certain set (then it was read on the other side).
 */
static void settle_boundary(struct hvt_estimator *e, struct segment *a, struct segment *b)
{
	int64_t until = read_until(e, &b->starter), core, cut = INT64_MIN;
	int64_t first_new = INT64_MAX;
	struct hvt_fit *news = &e->scratch, *olds = &e->scratch2;
	int have_core = 0;
	size_t i;

	for (i = 0; i < a->n; i++)
		if (read_until(e, &a->s[i]) > until)
			until = read_until(e, &a->s[i]);
	core = until;
	for (i = 0; i < b->n; i++)
		have_core |= read_from(e, &b->s[i]) >= core;
	if (build_core_fit(news, e, b, have_core ? core : INT64_MIN))
		return;		/* b's core alone is contradictory: leave both as they are */
	for (i = 0; i < a->n; i++) {
		const struct sample *s = &a->s[i];

		if (read_from(e, s) > cut &&
		    hvt_fit_check(news, (struct hvt_pt){ s->x, s->y }, s->is_p) == HVT_FIT_INFEASIBLE)
			cut = read_from(e, s);
	}
	for (i = 0; i < a->recent_n; i++) {	/* the end's redundant samples testify too */
		const struct sample *s = &a->recent[i];

		if (read_from(e, s) > cut &&
		    hvt_fit_check(news, (struct hvt_pt){ s->x, s->y }, s->is_p) == HVT_FIT_INFEASIBLE)
			cut = read_from(e, s);
	}
	if (cut == INT64_MIN)
		cut = a->first_x - 1;	/* nothing of a is certainly old */
	for (i = 0; i < a->n; i++) {
		struct sample *s = &a->s[i];

		if (read_until(e, s) > cut &&
		    hvt_fit_check(news, (struct hvt_pt){ s->x, s->y }, s->is_p) != HVT_FIT_INFEASIBLE)
			s->drop = 1;
	}
	if (build_fit(olds, a, 1))
		hvt_fit_clear(olds);
	for (i = 0; i < b->n; i++) {
		struct sample *s = &b->s[i];
		bool in_core = have_core && read_from(e, s) >= core;
		bool not_old = olds->complete && hvt_fit_check(olds, (struct hvt_pt){ s->x, s->y },
							       s->is_p) == HVT_FIT_INFEASIBLE;

		if (have_core && !in_core && !not_old)
			s->drop = 1;
		/* certainly read on b's line: the change came before */
		if ((in_core || not_old) && read_until(e, s) < first_new)
			first_new = read_until(e, s);
	}
	a->valid_to = cut;
	b->valid_from = first_new < until ? first_new : until;
	if (b->valid_from < cut)
		b->valid_from = cut;
}

static uint64_t absolute(const struct hvt_estimator *e, int64_t y)
{
	return e->g0 + (uint64_t)y;
}

/*
 * The guest values segment @i may have shown: it may have applied from the
 * last instant certainly of the one before to the first certainly of the
 * one after, and its lines rise. Open ends where nothing bounds them.
 */
static void set_shown_values(struct hvt_estimator *e, size_t i)
{
	struct segment *s = &e->seg[i];
	int64_t lo, hi, unused;

	s->shows_from = 0;
	s->shows_to = UINT64_MAX;
	/* a boundary left unsettled (its new side contradictory) bounds nothing */
	if (i && e->seg[i - 1].valid_to != INT64_MAX) {
		hvt_fit_bounds(&s->certain, e->seg[i - 1].valid_to, &lo, &unused);
		if (lo != HVT_FIT_NO_LOWER)
			s->shows_from = absolute(e, lo);
	}
	if (i + 1 < e->nseg && e->seg[i + 1].valid_from != INT64_MAX &&
	    e->seg[i + 1].valid_from != INT64_MIN) {
		hvt_fit_bounds(&s->certain, e->seg[i + 1].valid_from, &unused, &hi);
		if (hi != HVT_FIT_NO_UPPER)
			s->shows_to = absolute(e, hi);
	}
}

int hvt_est_finish(struct hvt_estimator *e)
{
	size_t i;

	if (e->finished)	/* nothing added since */
		return 0;
	for (i = 0; i < e->nseg; i++) {
		struct sample *s = e->seg[i].s;
		size_t k;

		for (k = 0; k < e->seg[i].n; k++)
			s[k].drop = 0;
		e->seg[i].valid_from = INT64_MIN;
		e->seg[i].valid_to = INT64_MAX;
	}
	for (i = 0; i + 1 < e->nseg; i++)
		settle_boundary(e, &e->seg[i], &e->seg[i + 1]);
	for (i = 0; i < e->nseg; i++)
		if (build_fit(&e->seg[i].certain, &e->seg[i], 1))
			hvt_fit_clear(&e->seg[i].certain);	/* cannot happen: a subset */
	for (i = 0; i < e->nseg; i++)
		set_shown_values(e, i);
	e->finished = 1;
	e->hint = 0;
	return 0;
}

/* Fills @v from relative bounds; a midpoint even when open-ended. */
static void fill(const struct hvt_estimator *e, int64_t lo, int64_t hi, const struct hvt_fit *f,
		 int64_t x, struct hvt_est_value *v)
{
	int64_t mid;

	v->bounded = lo != HVT_FIT_NO_LOWER && hi != HVT_FIT_NO_UPPER;
	if (v->bounded) {
		mid = (int64_t)(((__int128)lo + hi) / 2);
	} else if (f && f->complete) {	/* best effort, no guarantee */
		int64_t flo, fhi;

		hvt_fit_bounds(f, x, &flo, &fhi);
		mid = (int64_t)(((__int128)flo + fhi) / 2);
	} else {
		mid = x;	/* nothing known: same rate, no offset */
	}
	v->lo = lo == HVT_FIT_NO_LOWER ? 0 : absolute(e, lo);
	v->hi = hi == HVT_FIT_NO_UPPER ? UINT64_MAX : absolute(e, hi);
	v->guest = absolute(e, mid);
}

int hvt_est_now(const struct hvt_estimator *e, uint64_t host, struct hvt_est_value *v)
{
	const struct segment *s;
	int64_t x, lo, hi;

	if (!e->nseg)
		return -1;
	s = &e->seg[e->nseg - 1];
	x = (int64_t)(host - e->h0);
	hvt_fit_bounds(&s->fit, x, &lo, &hi);
	fill(e, lo, hi, &s->fit, x, v);
	v->segment = e->nseg - 1;
	v->in_window = 0;
	return 0;
}

/* The last segment whose validity starts at or before @x. */
static size_t segment_at(struct hvt_estimator *e, int64_t x)
{
	size_t lo = 0, hi = e->nseg;

	if (e->hint < e->nseg && e->seg[e->hint].valid_from <= x &&
	    (e->hint + 1 == e->nseg || e->seg[e->hint + 1].valid_from > x))
		return e->hint;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->seg[mid].valid_from <= x)
			lo = mid;
		else
			hi = mid;
	}
	return e->hint = lo;
}

/* Is @x, in segment @i, past what is certainly @i's, before the next segment? */
static int in_window(const struct hvt_estimator *e, size_t i, int64_t x)
{
	return x > e->seg[i].valid_to && i + 1 < e->nseg;
}

int hvt_est_eval(struct hvt_estimator *e, uint64_t host, struct hvt_est_value *v)
{
	const struct segment *s;
	int64_t x = (int64_t)(host - e->h0), lo, hi;
	size_t i;

	if (!e->nseg)
		return -1;
	if (!e->finished)
		hvt_est_finish(e);
	i = segment_at(e, x);
	s = &e->seg[i];
	hvt_fit_bounds(&s->certain, x, &lo, &hi);
	v->segment = i;
	v->in_window = in_window(e, i, x);
	if (v->in_window) {
		int64_t lo2, hi2;

		hvt_fit_bounds(&e->seg[i + 1].certain, x, &lo2, &hi2);
		lo = lo < lo2 ? lo : lo2;
		hi = hi > hi2 ? hi : hi2;
	}
	fill(e, lo, hi, &s->fit, x, v);
	return 0;
}

int hvt_est_segment_eval(struct hvt_estimator *e, size_t i, uint64_t host,
			 struct hvt_est_value *v)
{
	int64_t x = (int64_t)(host - e->h0), lo, hi;

	if (i >= e->nseg)
		return -1;
	if (!e->finished)
		hvt_est_finish(e);
	hvt_fit_bounds(&e->seg[i].certain, x, &lo, &hi);
	v->segment = i;
	v->in_window = 0;
	fill(e, lo, hi, &e->seg[i].fit, x, v);
	return 0;
}

int hvt_est_in_window(struct hvt_estimator *e, uint64_t host)
{
	int64_t x = (int64_t)(host - e->h0);

	if (!e->nseg)
		return 0;
	if (!e->finished)
		hvt_est_finish(e);
	return in_window(e, segment_at(e, x), x);
}

/* Segment @s's central line; the live fit, or slope 1, when not bounded. */
static void central(const struct segment *s, int64_t x, long double *v, long double *a)
{
	if (hvt_fit_central(&s->certain, x, v, a) || hvt_fit_central(&s->fit, x, v, a))
		return;
	*a = 1;
	*v = (long double)x + (s->n ? (long double)(s->s[0].y - s->s[0].x) : 0);
}

/*
 * Where segment i's transform takes over, in the window before it: its
 * middle, or its start after a backwards jump (the new line below the
 * old). Then the values the old line would have shown in the window show
 * again after the change, and a guest stream maps its values by what each
 * segment showed (tsc_timeline.h): from the window's start on, a value past
 * what the old segment certainly showed, or a step back, is the new one's.
 * That places right the events after the change, also a VM pause's, whose
 * guest clock stops and goes on with no step back; only those between the
 * window's start and the change, the length of a round trip, go wrong, as
 * events in the window may.
 */
static int64_t switch_point(const struct hvt_estimator *e, size_t i)
{
	int64_t from = e->seg[i].valid_from, to = e->seg[i - 1].valid_to, mid;
	long double v_old, v_new, a;

	if (from == INT64_MAX)		/* nothing certain in it: its first sample */
		from = e->seg[i].first_x;
	if (to >= from)
		return from;
	mid = to + (from - to) / 2;
	central(&e->seg[i - 1], mid, &v_old, &a);
	central(&e->seg[i], mid, &v_new, &a);
	return v_new < v_old ? to : mid;
}

int hvt_est_timeline(struct hvt_estimator *e, struct hvt_tsc_timeline *tl)
{
	size_t i;

	if (!e->nseg)
		return -1;
	if (!e->finished)
		hvt_est_finish(e);
	for (i = 0; i < e->nseg; i++) {
		const struct segment *s = &e->seg[i];
		int64_t start = i ? switch_point(e, i) : INT64_MIN;
		int64_t ref = s->first_x + (s->last_x - s->first_x) / 2;
		struct hvt_tsc_segment seg = { 0, { 0, 0, 48, 0 }, HVT_TSC_SRC_ESTIMATE };
		long double v, a;
		uint64_t href;

		central(s, ref, &v, &a);
		if (a <= 0)
			a = 1;
		seg.x.ratio = (uint64_t)llroundl(a * (long double)(1ull << 48));
		href = e->h0 + (uint64_t)ref;
		/* offset: the central line's value at ref, minus the scaled host TSC there */
		seg.x.offset = e->g0 + (uint64_t)(int64_t)llroundl(v) - hvt_tsc_to_guest(
				&(struct hvt_tsc_xform){ 0, seg.x.ratio, 48, 0 }, href);
		seg.host_start = start == INT64_MIN ? 0 : e->h0 + (uint64_t)start;
		if (hvt_tsc_timeline_add(tl, &seg))
			return -1;
	}
	return 0;
}

size_t hvt_est_nr_segments(const struct hvt_estimator *e)
{
	return e->nseg;
}

/* Host TSC of relative @x, 0 for instants before it starts (hand-made traces). */
static uint64_t host_of(const struct hvt_estimator *e, int64_t x)
{
	if (x < 0 && (uint64_t)-(x + 1) >= e->h0)
		return 0;
	return e->h0 + (uint64_t)x;
}

void hvt_est_segment_info(const struct hvt_estimator *e, size_t i,
			  struct hvt_est_segment_info *info)
{
	const struct segment *s = &e->seg[i];

	memset(info, 0, sizeof(*info));
	info->host_first = e->h0 + (uint64_t)s->first_x;
	info->host_last = e->h0 + (uint64_t)s->last_x;
	info->samples = s->received;
	info->kept = s->n;
	hvt_fit_slopes(&s->fit, &info->amin, &info->amax);
	hvt_fit_slopes(&s->certain, &info->certain_amin, &info->certain_amax);
	info->valid_from = s->valid_from == INT64_MIN ? 0 : s->valid_from == INT64_MAX ?
			   UINT64_MAX : host_of(e, s->valid_from);
	info->valid_to = s->valid_to == INT64_MAX ? UINT64_MAX : host_of(e, s->valid_to);
	info->shows_from = s->shows_from;
	info->shows_to = s->shows_to;
}

long hvt_est_segment_of_value(struct hvt_estimator *e, uint64_t guest)
{
	long found = -1;
	size_t i;

	if (!e->finished)
		hvt_est_finish(e);
	if (e->nseg == 1)
		return 0;
	for (i = 0; i < e->nseg; i++) {
		if (guest < e->seg[i].shows_from || guest > e->seg[i].shows_to)
			continue;
		if (found >= 0)
			return -1;
		found = (long)i;
	}
	return found;
}
