// SPDX-License-Identifier: GPL-2.0-only
/*
 * account.c - time by state, with its bounds and causes (account.h).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "tools/analyze/account.h"

void hvt_account_free(struct hvt_account *a)
{
	free(a->preempted_by.v);
	free(a->blocked_then.v);
	free(a->exits.v);
	memset(a, 0, sizeof(*a));
}

static void add_cause(struct hvt_account *a, struct hvt_causes *c, const struct hvt_cause *x,
		      uint64_t len, uint64_t slack)
{
	struct hvt_cause *grown;
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->v[i].tid == x->tid && !strcmp(c->v[i].comm, x->comm)) {
			c->v[i].ticks += len;
			c->v[i].slack += slack;
			return;
		}
	if (c->n == HVT_MAX_CAUSES) {
		c->others += len;
		return;
	}
	grown = hvt_grow(c->v, c->n, &c->cap, sizeof(*c->v));
	if (!grown) {
		a->failed = true;
		return;
	}
	c->v = grown;
	c->v[c->n] = *x;
	c->v[c->n].ticks = len;
	c->v[c->n++].slack = slack;
}

void hvt_account_add(struct hvt_account *a, enum hvt_vcpu_state state, uint64_t len,
		     uint64_t slack, const struct hvt_cause *cause, bool guessed)
{
	if (!len)
		return;
	if (len < slack) {
		a->short_ticks += len;
		a->short_pieces++;
		return;
	}
	a->ticks[state] += len;
	a->slack[state] += slack;
	a->pieces[state]++;
	if (guessed)
		a->guessed += len;
	if (cause && state == HVT_VCPU_PREEMPTED)
		add_cause(a, &a->preempted_by, cause, len, slack);
	else if (cause && state == HVT_VCPU_BLOCKED)
		add_cause(a, &a->blocked_then, cause, len, slack);
	else if (cause && state == HVT_VCPU_HYPERVISOR)
		add_cause(a, &a->exits, cause, len, slack);
}

void hvt_account_runnable(struct hvt_account *a, uint64_t len, uint64_t slack)
{
	if (len < slack) {
		a->short_ticks += len;
		a->short_pieces++;
		return;
	}
	a->runnable += len;
	a->runnable_slack += slack;
	a->runnable_pieces++;
}

uint64_t hvt_account_total(const struct hvt_account *a)
{
	uint64_t sum = a->short_ticks;
	int s;

	for (s = 0; s < HVT_NR_VCPU_STATES; s++)
		sum += a->ticks[s];
	return sum;
}

static int by_ticks(const void *x, const void *y)
{
	const struct hvt_cause *a = x, *b = y;

	if (a->ticks != b->ticks)
		return a->ticks < b->ticks ? 1 : -1;
	return (a->tid > b->tid) - (a->tid < b->tid);
}

void hvt_causes_sort(struct hvt_causes *c)
{
	if (c->n)
		qsort(c->v, c->n, sizeof(*c->v), by_ticks);
}

const char *hvt_vcpu_state_name(enum hvt_vcpu_state s)
{
	static const char *const names[] = { "guest", "guest-idle", "hypervisor", "preempted",
					     "blocked", "unknown" };

	return s < HVT_NR_VCPU_STATES ? names[s] : "?";
}
