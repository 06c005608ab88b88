// SPDX-License-Identifier: GPL-2.0-only
/*
 * wait_account.c - a thread's waits summed (wait_account.h).
 */
#include <stdio.h>
#include <string.h>

#include "tools/model/wait_account.h"

/* [@p0, @p1) cut to [@from, @to): its length, and its ends' bounds where not cut. */
static uint64_t cut(uint64_t p0, uint64_t b0, uint64_t p1, uint64_t b1, uint64_t from,
		    uint64_t to, uint64_t *slack)
{
	uint64_t s = p0 > from ? p0 : from, e = p1 < to ? p1 : to;

	*slack = 0;
	if (e <= s)
		return 0;
	*slack = (s == p0 ? b0 : 0) + (e == p1 ? b1 : 0);
	return e - s;
}

static void add_cause(struct hvt_wait_account *a, struct hvt_causes *c, int32_t tid,
		      const char *comm, uint64_t len, uint64_t slack)
{
	struct hvt_cause x = { .tid = tid };

	snprintf(x.comm, sizeof(x.comm), "%s", comm);
	if (hvt_causes_add(c, &x, len, slack))
		a->failed = true;
}

/* Where the critical path is cut: link 0's sleep within the span, and its ends' bounds. */
struct path_window {
	uint64_t lo, lo_bound, hi, hi_bound;
};

/* [@p0, @p1) of the critical path (ends within @b0, @b1) to task @tid, within @win. */
static void on_path(struct hvt_wait_account *a, const struct path_window *win, int32_t tid,
		    const char *comm, uint64_t p0, uint64_t b0, uint64_t p1, uint64_t b1)
{
	if (p0 <= win->lo) {
		p0 = win->lo;
		b0 = win->lo_bound;
	}
	if (p1 >= win->hi) {
		p1 = win->hi;
		b1 = win->hi_bound;
	}
	if (p1 > p0)
		add_cause(a, &a->waited_on, tid, comm, p1 - p0, b0 + b1);
}

/* An instant of the path and its error bound. */
struct instant {
	uint64_t t, bound;
};

static struct instant later(struct instant a, struct instant b)
{
	return a.t >= b.t ? a : b;
}

static struct instant earlier(struct instant a, struct instant b)
{
	return a.t <= b.t ? a : b;
}

static void seg(struct hvt_wait_account *a, const struct path_window *win, int32_t tid,
		const char *comm, struct instant p0, struct instant p1)
{
	on_path(a, win, tid, comm, p0.t, p0.bound, p1.t, p1.bound);
}

/*
 * Link 0's sleep along its chain, each instant to one task (a critical
 * path). Back from the wakeup, within [lo, end) (at first the sleep): the
 * waker W ran from its own wait's end (its switch-in, and its wake latency
 * before it) to @end, and was awake before that wait began, from @lo: both
 * W's; W's own sleep is the next link's to explain, within it. The last
 * waker has what is left; where it was preempted, the preemptor that part.
 */
static void critical_path(struct hvt_wait_account *a, const struct hvt_wait_chain *c,
			  uint64_t from, uint64_t to)
{
	const struct hvt_wait_link *l0 = &c->link[0];
	struct path_window win = { l0->asleep, l0->asleep_bound, l0->woken, l0->woken_bound };
	struct instant lo = { l0->asleep, l0->asleep_bound }, end = { l0->woken, l0->woken_bound };
	int32_t w = l0->waker;
	const char *comm = l0->waker_comm;
	unsigned int k;

	if (from > win.lo)
		win = (struct path_window){ from, 0, win.hi, win.hi_bound };
	if (to < win.hi)
		win = (struct path_window){ win.lo, win.lo_bound, to, 0 };
	for (k = 1; k < c->depth; k++) {
		const struct hvt_wait_link *l = &c->link[k];
		struct instant asleep = { l->asleep, l->asleep_bound };
		struct instant woken = later((struct instant){ l->woken, l->woken_bound }, asleep);
		struct instant in0 = later(lo, asleep), in1 = earlier(end, woken);

		if (l->preempted) {	/* w ran throughout, but for this */
			if (in1.t > in0.t) {
				seg(a, &win, l->waker, l->waker_comm, in0, in1);
				seg(a, &win, w, comm, lo, in0);
				seg(a, &win, w, comm, in1, end);
			} else {
				seg(a, &win, w, comm, lo, end);
			}
			return;
		}
		seg(a, &win, w, comm, later(woken, lo), end);	/* ran, and its latency */
		seg(a, &win, w, comm, lo, earlier(asleep, end));	/* awake before */
		if (in1.t <= in0.t)
			return;
		lo = in0;
		end = in1;
		w = l->waker;
		comm = l->waker < 0 ? "no-wakeup" : l->waker_comm;
	}
	seg(a, &win, w, comm, lo, end);
}

void hvt_wait_account_add(struct hvt_wait_account *a, const struct hvt_wait_chain *c,
			  uint64_t from, uint64_t to)
{
	const struct hvt_wait_link *l = &c->link[0];
	uint64_t sleep, slack, late, late_slack;

	if (!c->depth)
		return;
	if (c->unended) {
		if (l->asleep < to)
			a->unended++;
		return;
	}
	if (l->asleep >= to || l->ran < from)	/* not in the span */
		return;
	sleep = cut(l->asleep, l->asleep_bound, l->woken, l->woken_bound, from, to, &slack);
	late = cut(l->woken, l->woken_bound, l->ran, l->ran_bound, from, to, &late_slack);
	if (sleep < slack) {		/* shorter than its ends' bounds: not placed */
		a->too_short++;
		return;
	}
	if (l->waker < 0) {		/* no wakeup: the sleep lasted until it ran */
		a->no_wakeup += sleep;
		a->no_wakeup_slack += slack;
		a->no_wakeup_waits++;
		return;
	}
	if (c->ran_unseen) {
		a->latency_unseen++;
	} else if (late >= late_slack) {
		a->latency += late;
		a->latency_slack += late_slack;
		a->latency_waits++;
	}
	if (l->woken < from)		/* woken before the span: only its latency is in it */
		return;
	a->asleep += sleep;
	a->asleep_slack += slack;
	a->woken++;
	a->ends[c->end]++;
	if (c->depth > 1 && !c->link[1].preempted)
		a->followed++;
	add_cause(a, &a->woken_by, l->waker, l->waker_comm, sleep, slack);
	critical_path(a, c, from, to);
	if (sleep > a->longest_ticks) {
		memcpy(a->longest.link, c->link, c->depth * sizeof(c->link[0]));
		a->longest.depth = c->depth;
		a->longest.end = c->end;
		a->longest_ticks = sleep;
		a->longest_slack = slack;
		a->longest_cut = l->asleep < from || l->woken > to;
	}
}

void hvt_wait_account_free(struct hvt_wait_account *a)
{
	hvt_causes_free(&a->woken_by);
	hvt_causes_free(&a->waited_on);
	memset(a, 0, sizeof(*a));
}
