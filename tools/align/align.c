// SPDX-License-Identifier: GPL-2.0-only
/*
 * align.c - a VM's clock from its exchanges and sync points (align.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "tools/align/align.h"

/* A sync point: the guest read @before, then the host's instant, then @after. */
static enum hvt_est_result sync_point(struct hvt_estimator *est, const struct hvt_sync_point *p)
{
	enum hvt_est_result r1 = hvt_est_g2h(est, p->before, p->host);
	enum hvt_est_result r2 = hvt_est_h2g(est, p->host, p->after);

	return r1 == HVT_EST_SPLIT || r2 == HVT_EST_SPLIT ? HVT_EST_SPLIT : r2;
}

/* after - before of the widest sync point: guest ticks, close to host ticks. */
static uint64_t widest_point(const struct hvt_sync_point *points, size_t n)
{
	uint64_t w = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (points[i].after - points[i].before > w)
			w = points[i].after - points[i].before;
	return w;
}

/* Which input comes next in host order: 0 an exchange, 1 a sync point, 2 a one-way bound. */
static int next_input(const struct hvt_sync_rec *recs, size_t i, size_t n,
		      const struct hvt_sync_point *points, size_t j, size_t nr_points,
		      const struct hvt_one_way *ow, size_t k, size_t nr_ow)
{
	uint64_t best = UINT64_MAX;
	int which = -1;

	if (i < n) {
		best = recs[i].ex.host_send;
		which = 0;
	}
	if (j < nr_points && (which < 0 || points[j].host < best)) {
		best = points[j].host;
		which = 1;
	}
	if (k < nr_ow && (which < 0 || ow[k].host < best))
		which = 2;
	return which;
}

static enum hvt_est_result one_way(struct hvt_estimator *est, const struct hvt_one_way *w)
{
	return w->upper ? hvt_est_h2g_within(est, w->host, w->guest, w->delay) :
			  hvt_est_g2h_within(est, w->guest, w->host, w->delay);
}

int hvt_vm_clock_build(struct hvt_vm_clock *c, const struct hvt_sync_rec *recs, size_t n,
		       const struct hvt_sync_point *points, size_t nr_points)
{
	return hvt_vm_clock_build_more(c, recs, n, points, nr_points, NULL, 0);
}

int hvt_vm_clock_build_more(struct hvt_vm_clock *c, const struct hvt_sync_rec *recs, size_t n,
			    const struct hvt_sync_point *points, size_t nr_points,
			    const struct hvt_one_way *ow, size_t nr_ow)
{
	size_t i = 0, j = 0, k = 0, in_segment = 0, seg_recs[HVT_GLITCH_EXCHANGES], nr_seg_recs = 0;
	uint64_t seg_first = 0;
	int which;

	memset(c, 0, sizeof(*c));
	hvt_tsc_timeline_init(&c->tl);
	if ((!n && !nr_points) || !(c->est = hvt_est_new()))
		return -1;
	if (!n)		/* no round trips: the widest sync point bounds a delay */
		hvt_est_set_max_delay(c->est, widest_point(points, nr_points));
	/* all in host time order, fed merged so that the estimator goes forward */
	while ((which = next_input(recs, i, n, points, j, nr_points, ow, k, nr_ow)) >= 0) {
		uint64_t seq = which == 0 ? recs[i].seq : which == 1 ? points[j].seq : ow[k].seq;
		size_t rec = i;
		enum hvt_est_result r = which == 0 ? hvt_est_exchange(c->est, &recs[i++].ex) :
					which == 1 ? sync_point(c->est, &points[j++]) :
					one_way(c->est, &ow[k++]);

		if (r == HVT_EST_SPLIT) {
			/* the segment that just ended was short and not the first: a glitch */
			if (hvt_est_nr_segments(c->est) > 2 && in_segment < HVT_GLITCH_EXCHANGES &&
			    !c->glitch) {
				c->glitch = 1;
				c->glitch_seq = seg_first;
				memcpy(c->glitch_recs, seg_recs, nr_seg_recs * sizeof(*seg_recs));
				c->nr_glitch_recs = nr_seg_recs;
			}
			in_segment = 0;
			nr_seg_recs = 0;
			seg_first = seq;
		}
		if (which == 0 && nr_seg_recs < HVT_GLITCH_EXCHANGES)
			seg_recs[nr_seg_recs++] = rec;
		in_segment++;
	}
	c->nr_points = nr_points;
	if (hvt_est_timeline(c->est, &c->tl)) {
		hvt_vm_clock_free(c);
		return -1;
	}
	return 0;
}

#define DROP_GLITCH_ROUNDS	8

size_t hvt_vm_clock_drop_glitches(const char *vm_name, struct hvt_sync_rec *recs, size_t *n)
{
	struct hvt_vm_clock c;
	size_t round, said = 0, i, k, kept;

	for (round = 0; round < DROP_GLITCH_ROUNDS; round++) {
		if (hvt_vm_clock_build(&c, recs, *n, NULL, 0))
			break;
		if (!c.glitch || !c.nr_glitch_recs) {
			hvt_vm_clock_free(&c);
			break;
		}
		hvt_warn("vm %s: clock exchange seq %" PRIu64 "%s contradict%s the exchanges "
			 "around %s: a damaged sync.tsv row, not a clock change; left out", vm_name,
			 recs[c.glitch_recs[0]].seq, c.nr_glitch_recs > 1 ? " and the next" : "",
			 c.nr_glitch_recs > 1 ? "" : "s", c.nr_glitch_recs > 1 ? "them" : "it");
		for (i = 0, k = 0, kept = 0; i < *n; i++) {
			if (k < c.nr_glitch_recs && c.glitch_recs[k] == i) {
				k++;
				continue;
			}
			recs[kept++] = recs[i];
		}
		said++;
		*n = kept;
		hvt_vm_clock_free(&c);
	}
	return said;
}

void hvt_vm_clock_free(struct hvt_vm_clock *c)
{
	hvt_run_clock_free(&c->by_segment);
	hvt_est_free(c->est);
	hvt_tsc_timeline_free(&c->tl);
	memset(c, 0, sizeof(*c));
}

/*
 * Whether @ex cannot be judged against the central line: sent or received
 * in a change window, or with a guest stamp that two segments may have
 * shown (after a backwards jump), which no line places for certain.
 */
static bool unjudged(struct hvt_vm_clock *c, const struct hvt_exchange *ex)
{
	return hvt_est_in_window(c->est, ex->host_send) ||
	       hvt_est_in_window(c->est, ex->host_recv) ||
	       hvt_est_segment_of_value(c->est, ex->guest_recv) < 0 ||
	       hvt_est_segment_of_value(c->est, ex->guest_send) < 0;
}

const struct hvt_sync_rec *hvt_vm_clock_first_violation(struct hvt_vm_clock *c,
							const struct hvt_sync_rec *recs,
							size_t n, size_t *exempt)
{
	struct hvt_tsc_cursor cur = { 0, 0, 0 };
	size_t i;

	*exempt = 0;
	for (i = 0; i < n; i++) {
		const struct hvt_exchange *ex = &recs[i].ex;
		/* one stream in order: recv, then send, of each exchange */
		uint64_t recv = hvt_vm_clock_to_host(c, &cur, ex->guest_recv);
		uint64_t send = hvt_vm_clock_to_host(c, &cur, ex->guest_send);

		if (unjudged(c, ex)) {
			(*exempt)++;
			continue;
		}
		if (recv + 1 < ex->host_send || send > ex->host_recv + 1)
			return &recs[i];
	}
	return NULL;
}

/* How far @ex lies past the clock's central line, in host ticks (0: causal). */
static uint64_t past_line(struct hvt_vm_clock *c, const struct hvt_exchange *ex)
{
	struct hvt_tsc_cursor cur = { 0, 0, 0 };
	uint64_t recv = hvt_vm_clock_to_host(c, &cur, ex->guest_recv);
	uint64_t send = hvt_vm_clock_to_host(c, &cur, ex->guest_send);
	uint64_t a = recv + 1 < ex->host_send ? ex->host_send - recv : 0;
	uint64_t b = send > ex->host_recv + 1 ? send - ex->host_recv : 0;

	return a > b ? a : b;
}

bool hvt_vm_clock_contradicts(struct hvt_vm_clock *c, const struct hvt_exchange *ex)
{
	struct hvt_est_value at_send, at_recv;

	if (hvt_est_eval(c->est, ex->host_send, &at_send) ||
	    hvt_est_eval(c->est, ex->host_recv, &at_recv))
		return false;
	return (at_send.bounded && at_send.lo > ex->guest_recv) ||
	       (at_recv.bounded && at_recv.hi < ex->guest_send);
}

int hvt_vm_clock_held_out(const struct hvt_sync_rec *recs, size_t n, unsigned int k,
			  struct hvt_held_out *r)
{
	struct hvt_sync_rec *fit;
	struct hvt_vm_clock c;
	size_t i, nfit = 0;

	memset(r, 0, sizeof(*r));
	if (n < HVT_HELD_OUT_MIN || k < 2 || !(fit = malloc(n * sizeof(*fit))))
		return -1;
	for (i = 0; i < n; i++)
		if (i % k != k - 1)
			fit[nfit++] = recs[i];
	if (hvt_vm_clock_build(&c, fit, nfit, NULL, 0)) {
		free(fit);
		return -1;
	}
	for (i = k - 1; i < n; i += k) {
		const struct hvt_exchange *ex = &recs[i].ex;
		uint64_t past;

		if (unjudged(&c, ex)) {
			r->exempt++;
			continue;
		}
		r->judged++;
		if (hvt_vm_clock_contradicts(&c, ex) && !r->contradict++)
			r->first_seq = recs[i].seq;
		past = past_line(&c, ex);
		if (past) {
			r->off_line++;
			if (past > r->worst_ticks)
				r->worst_ticks = past;
		}
	}
	hvt_vm_clock_free(&c);
	free(fit);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Half of [lo, hi] at host instant @host, in host ticks. */
static uint64_t host_half_width(const struct hvt_vm_clock *c, uint64_t host,
				const struct hvt_est_value *v)
{
	const struct hvt_tsc_xform *x = &hvt_tsc_timeline_at(&c->tl, host)->x;

	return (hvt_tsc_to_host(x, v->hi) - hvt_tsc_to_host(x, v->lo) + 1) / 2;
}

int hvt_vm_clock_half_width(struct hvt_vm_clock *c, uint64_t host, uint64_t *ticks)
{
	struct hvt_est_value v;

	if (!c->est || hvt_est_eval(c->est, host, &v) || !v.bounded)
		return -1;
	*ticks = host_half_width(c, host, &v);
	return 0;
}

int hvt_vm_clock_event_bound(struct hvt_vm_clock *c, uint64_t guest, uint64_t placed,
			     uint64_t *ticks)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t i;

	if (!c->est)
		return -1;
	if (hvt_est_nr_segments(c->est) <= 1 ||
	    (hvt_est_segment_of_value(c->est, guest) >= 0 && !hvt_est_in_window(c->est, placed)))
		return hvt_vm_clock_half_width(c, placed, ticks);
	if (!c->have_by_segment) {
		if (hvt_run_clock_init(&c->by_segment, c->est, &c->tl))
			return -1;
		c->have_by_segment = true;
	}
	for (i = 0; i < c->by_segment.n; i++) {
		struct hvt_est_segment_info info;
		uint64_t a, b;

		hvt_est_segment_info(c->est, i, &info);
		if (guest < info.shows_from || guest > info.shows_to ||
		    hvt_run_window_in(&c->by_segment, i, guest, &a, &b))
			continue;
		lo = a < lo ? a : lo;
		hi = b > hi ? b : hi;
	}
	if (lo > hi)
		return -1;
	if (placed <= lo)		/* the line put it where no segment could */
		*ticks = hi - placed;
	else if (placed >= hi)
		*ticks = placed - lo;
	else
		*ticks = placed - lo > hi - placed ? placed - lo : hi - placed;
	return 0;
}

void hvt_vm_clock_quality(struct hvt_vm_clock *c, const struct hvt_sync_rec *recs, size_t n,
			  struct hvt_vm_clock_quality *q)
{
	uint64_t half[HVT_QUALITY_POINTS], from, span;
	size_t i;

	memset(q, 0, sizeof(*q));
	if (!n || !c->est)
		return;
	from = recs[0].ex.host_send;
	span = recs[n - 1].ex.host_recv > from ? recs[n - 1].ex.host_recv - from : 0;
	q->host_mid = from + span / 2;
	for (i = 0; i < HVT_QUALITY_POINTS; i++) {
		uint64_t host = from + (uint64_t)((unsigned __int128)span * i / (HVT_QUALITY_POINTS - 1));
		struct hvt_est_value v;

		if (hvt_est_eval(c->est, host, &v))
			return;
		if (v.in_window)
			q->in_window++;
		else if (!v.bounded)
			q->unbounded++;
		else
			half[q->measured++] = host_half_width(c, host, &v);
	}
	if (!q->measured)
		return;
	qsort(half, q->measured, sizeof(half[0]), cmp_u64);
	q->half_p50 = half[q->measured / 2];
	q->half_max = half[q->measured - 1];
}
