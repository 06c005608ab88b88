// SPDX-License-Identifier: GPL-2.0-only
/*
 * account.c - time by state, with its bounds and causes (account.h).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "tools/model/account.h"

void hvt_causes_free(struct hvt_causes *c)
{
	free(c->v);
	free(c->slot);
}

void hvt_account_free(struct hvt_account *a)
{
	hvt_causes_free(&a->preempted_by);
	hvt_causes_free(&a->blocked_then);
	hvt_causes_free(&a->exits);
	memset(a, 0, sizeof(*a));
}

static size_t hash_of(int32_t tid, size_t nr_slots)
{
	return ((uint32_t)tid * 2654435761u) & (nr_slots - 1);
}

/* The slot of @tid: its entry's, or the free one it would take. */
static uint32_t *slot_of(const struct hvt_causes *c, int32_t tid)
{
	size_t k;

	for (k = hash_of(tid, c->nr_slots); c->slot[k]; k = (k + 1) & (c->nr_slots - 1))
		if (c->v[c->slot[k] - 1].tid == tid)
			break;
	return &c->slot[k];
}

/* Doubles the index (at least 16 slots, at most half full). */
static int grow_index(struct hvt_causes *c)
{
	size_t n = c->nr_slots ? 2 * c->nr_slots : 16, i;
	uint32_t *old = c->slot;

	c->slot = calloc(n, sizeof(*c->slot));
	if (!c->slot) {
		c->slot = old;
		return -1;
	}
	c->nr_slots = n;
	for (i = 0; i < c->n; i++)
		*slot_of(c, c->v[i].tid) = (uint32_t)i + 1;
	free(old);
	return 0;
}

int hvt_causes_add(struct hvt_causes *c, const struct hvt_cause *x, uint64_t len, uint64_t slack)
{
	struct hvt_cause *grown;
	uint32_t *slot;

	if ((c->n + 1) * 2 > c->nr_slots && grow_index(c))
		return -1;
	slot = slot_of(c, x->tid);
	if (*slot) {
		c->v[*slot - 1].ticks += len;
		c->v[*slot - 1].slack += slack;
		c->v[*slot - 1].count++;
		return 0;
	}
	grown = hvt_grow(c->v, c->n, &c->cap, sizeof(*c->v));
	if (!grown || c->n >= UINT32_MAX - 1)
		return -1;
	c->v = grown;
	c->v[c->n] = *x;
	c->v[c->n].ticks = len;
	c->v[c->n].slack = slack;
	c->v[c->n++].count = 1;
	*slot = (uint32_t)c->n;
	return 0;
}

static void add_cause(struct hvt_account *a, struct hvt_causes *c, const struct hvt_cause *x,
		      uint64_t len, uint64_t slack)
{
	if (hvt_causes_add(c, x, len, slack))
		a->failed = true;
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
	size_t i;

	if (!c->n)
		return;
	qsort(c->v, c->n, sizeof(*c->v), by_ticks);
	for (i = 0; i < c->nr_slots; i++)	/* the index follows the order */
		c->slot[i] = 0;
	for (i = 0; i < c->n; i++)
		*slot_of(c, c->v[i].tid) = (uint32_t)i + 1;
}

const char *hvt_vcpu_state_name(enum hvt_vcpu_state s)
{
	static const char *const names[] = { "guest", "guest-idle", "hypervisor", "preempted",
					     "blocked", "unknown", "runnable" };

	return s <= HVT_VCPU_RUNNABLE ? names[s] : "?";
}
