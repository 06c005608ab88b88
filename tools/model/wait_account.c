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

/*
 * Link 0's sleep along its chain, each instant to one task: the waker ran
 * from its own wait's end (switch-in) to the wakeup, and waited for a CPU
 * before that (its wake latency, its own); before its wakeup, its waker,
 * and so on; the last waker (or, where it was preempted, the task that
 * had its CPU) the rest, back to link 0's fall asleep.
 */
static void critical_path(struct hvt_wait_account *a, const struct hvt_wait_chain *c,
			  uint64_t from, uint64_t to)
{
	const struct hvt_wait_link *l0 = &c->link[0];
	struct path_window win = { l0->asleep, l0->asleep_bound, l0->woken, l0->woken_bound };
	uint64_t end = l0->woken, end_bound = l0->woken_bound;
	unsigned int k;

	if (from > win.lo)
		win = (struct path_window){ from, 0, win.hi, win.hi_bound };
	if (to < win.hi)
		win = (struct path_window){ win.lo, win.lo_bound, to, 0 };
	for (k = 0; k < c->depth; k++) {
		const struct hvt_wait_link *l = &c->link[k], *next = &c->link[k + 1];
		const char *comm = l->waker < 0 ? "no-wakeup" : l->waker_comm;

		if (k + 1 == c->depth) {
			on_path(a, &win, l->waker, comm, l0->asleep, l0->asleep_bound, end, end_bound);
		} else if (next->preempted) {	/* the last: the preemptor had its CPU */
			on_path(a, &win, l->waker, comm, next->woken, next->woken_bound, end,
				end_bound);
			on_path(a, &win, next->waker, next->waker_comm, next->asleep,
				next->asleep_bound, next->woken, next->woken_bound);
			on_path(a, &win, l->waker, comm, l0->asleep, l0->asleep_bound,
				next->asleep, next->asleep_bound);
			return;
		} else {			/* the waker ran, and before, waited */
			on_path(a, &win, l->waker, comm, next->woken, next->woken_bound, end,
				end_bound);
			end = next->woken;
			end_bound = next->woken_bound;
			continue;
		}
		return;
	}
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
	sleep = cut(l->asleep, l->asleep_bound, l->woken, l->woken_bound, from, to, &slack);
	late = cut(l->woken, l->woken_bound, l->ran, l->ran_bound, from, to, &late_slack);
	if (l->waker < 0) {		/* no wakeup: the sleep lasted until it ran */
		if (sleep) {
			a->no_wakeup += sleep;
			a->no_wakeup_slack += slack;
			a->no_wakeup_waits++;
		}
		return;
	}
	if (!sleep && !late)
		return;
	if (c->ran_unseen) {
		a->latency_unseen++;
	} else {
		a->latency += late;
		a->latency_slack += late_slack;
	}
	if (!sleep)
		return;
	a->asleep += sleep;
	a->asleep_slack += slack;
	a->woken++;
	a->ends[c->end]++;
	a->depth_sum += c->depth;
	if (c->depth > a->depth_max)
		a->depth_max = c->depth;
	add_cause(a, &a->woken_by, l->waker, l->waker_comm, sleep, slack);
	critical_path(a, c, from, to);
	if (sleep > a->longest_ticks) {
		memcpy(a->longest.link, c->link, c->depth * sizeof(c->link[0]));
		a->longest.depth = c->depth;
		a->longest.end = c->end;
		a->longest_ticks = sleep;
	}
}

void hvt_wait_account_free(struct hvt_wait_account *a)
{
	hvt_causes_free(&a->woken_by);
	hvt_causes_free(&a->waited_on);
	memset(a, 0, sizeof(*a));
}
