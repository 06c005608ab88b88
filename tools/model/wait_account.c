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

void hvt_wait_account_add(struct hvt_wait_account *a, const struct hvt_wait_chain *c,
			  uint64_t from, uint64_t to)
{
	const struct hvt_wait_link *l = &c->link[0];
	uint64_t sleep, slack, late, late_slack;
	const char *root_comm;
	int32_t root;

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
	root = hvt_wait_chain_root(c, &root_comm);
	add_cause(a, &a->waited_on, root, root < 0 ? "no-wakeup" : root_comm, sleep, slack);
	if (sleep > a->longest_ticks) {
		a->longest = *c;
		a->longest_ticks = sleep;
	}
}

void hvt_wait_account_free(struct hvt_wait_account *a)
{
	hvt_causes_free(&a->woken_by);
	hvt_causes_free(&a->waited_on);
	memset(a, 0, sizeof(*a));
}
