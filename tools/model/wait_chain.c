// SPDX-License-Identifier: GPL-2.0-only
/*
 * wait_chain.c - each thread's waits and their wake chains, from a
 * machine's scheduling events (wait_chain.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/model/wait_chain.h"

#define PREEMPTIONS	4		/* kept per thread, the latest */

enum thread_state {
	T_UNSEEN,			/* not known: never seen, or since a loss */
	T_RUNNING,
	T_RUNNABLE,			/* switched out runnable */
	T_ASLEEP,			/* switched out asleep, no wakeup yet */
	T_WOKEN,			/* ... woken, not switched in yet */
};

struct hvt_wait_thread {
	int32_t tid;			/* 0: an empty slot */
	char comm[HVT_COMM_LEN];
	enum thread_state st;
	uint64_t seen_at;		/* its state is known since (not T_UNSEEN) */
	uint64_t since, since_bound;	/* T_ASLEEP, T_WOKEN: fell asleep */
	struct hvt_wait_chain pending;	/* T_WOKEN: the wait ending */
	struct hvt_wait_chain last;	/* its last wait that ended (depth 0: none) */
	int32_t preempted_by;		/* T_RUNNABLE: the task its CPU went to */
	char preempted_by_comm[HVT_COMM_LEN];
	struct hvt_wait_link preemption[PREEMPTIONS];	/* its last ones that ended, a ring
							 * (tid 0: none) */
	unsigned int next_preemption;
};

void hvt_wait_chains_init(struct hvt_wait_chains *w, hvt_wait_fn on_wait, void *ctx)
{
	memset(w, 0, sizeof(*w));
	w->on_wait = on_wait;
	w->ctx = ctx;
}

void hvt_wait_chains_free(struct hvt_wait_chains *w)
{
	free(w->threads);
	memset(w, 0, sizeof(*w));
}

/* --- threads by tid ------------------------------------------------------- */

/* The hash's high bits: tids that differ only above the low bits spread too. */
static size_t slot_of(int32_t tid, size_t cap)
{
	uint64_t h = (uint64_t)(uint32_t)tid * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 32) & (cap - 1);
}

/* Room for two more threads, so that two looked up in turn both stay put. */
static bool reserve(struct hvt_wait_chains *w)
{
	size_t cap, i, k;
	struct hvt_wait_thread *t;

	if ((w->nr_threads + 2) * 2 <= w->cap_threads)
		return true;
	cap = w->cap_threads ? w->cap_threads * 2 : 256;
	t = calloc(cap, sizeof(*t));
	if (!t) {
		w->failed = true;
		return false;
	}
	for (i = 0; i < w->cap_threads; i++) {
		if (!w->threads[i].tid)
			continue;
		for (k = slot_of(w->threads[i].tid, cap); t[k].tid; k = (k + 1) & (cap - 1))
			;
		t[k] = w->threads[i];
	}
	free(w->threads);
	w->threads = t;
	w->cap_threads = cap;
	return true;
}

/* Comm @from into @to (HVT_COMM_LEN): on every switch, so no printf. */
static void comm_copy(char *to, const char *from)
{
	size_t n = strnlen(from, HVT_COMM_LEN - 1);

	memcpy(to, from, n);
	to[n] = '\0';
}

/* Thread @tid (> 0; after reserve()), added if new, its comm from @comm if given. */
static struct hvt_wait_thread *thread_of(struct hvt_wait_chains *w, int32_t tid, const char *comm)
{
	struct hvt_wait_thread *t;
	size_t k;

	if (tid <= 0)
		return NULL;
	for (k = slot_of(tid, w->cap_threads); w->threads[k].tid && w->threads[k].tid != tid;
	     k = (k + 1) & (w->cap_threads - 1))
		;
	t = &w->threads[k];
	if (!t->tid) {
		t->tid = tid;
		w->nr_threads++;
	}
	if (comm && *comm)
		comm_copy(t->comm, comm);
	return t;
}

/* Thread @tid if seen, never added. */
static struct hvt_wait_thread *thread_seen(struct hvt_wait_chains *w, int32_t tid)
{
	size_t k;

	if (tid <= 0 || !w->cap_threads)
		return NULL;
	for (k = slot_of(tid, w->cap_threads); w->threads[k].tid; k = (k + 1) & (w->cap_threads - 1))
		if (w->threads[k].tid == tid)
			return &w->threads[k];
	return NULL;
}

/* --- chains --------------------------------------------------------------- */

static bool in_chain(const struct hvt_wait_chain *c, int32_t tid)
{
	unsigned int i;

	for (i = 0; i < c->depth; i++)
		if (c->link[i].tid == tid)
			return true;
	return false;
}

/*
 * Chain @c ends on its last waker, which did not sleep during link 0's
 * sleep: if it was preempted during it, before it woke the last link, that
 * preemption is the last link.
 */
static void ran_or_preempted(struct hvt_wait_chains *w, struct hvt_wait_chain *c)
{
	const struct hvt_wait_link *last = &c->link[c->depth - 1], *p = NULL;
	const struct hvt_wait_thread *r = thread_seen(w, last->waker);
	unsigned int i;

	c->end = HVT_CHAIN_RAN;
	if (in_chain(c, last->waker)) {	/* it woke the last link, then slept: ping-pong */
		c->end = HVT_CHAIN_CYCLE;
		return;
	}
	/* its latest preemption before it woke the last link, if within link 0's sleep */
	for (i = 0; r && i < PREEMPTIONS; i++) {
		const struct hvt_wait_link *q = &r->preemption[i];

		if (q->tid && q->asleep < last->woken && q->ran > c->link[0].asleep &&
		    (!p || q->asleep > p->asleep))
			p = q;
	}
	if (!p)
		return;
	if (c->depth == HVT_WAIT_CHAIN_MAX) {
		c->end = HVT_CHAIN_DEPTH;
		return;
	}
	c->link[c->depth++] = *p;
	c->end = HVT_CHAIN_PREEMPTED;
}

/*
 * Chain @c (its link 0 woken by @waker, thread @wk if one) goes on with the
 * waker's last wait and that wait's chain, while they overlap link 0's sleep.
 */
static void follow(struct hvt_wait_chains *w, struct hvt_wait_chain *c, int32_t waker,
		   const struct hvt_wait_thread *wk)
{
	uint64_t asleep = c->link[0].asleep;
	const struct hvt_wait_chain *from;
	unsigned int j;

	if (waker == 0) {
		c->end = HVT_CHAIN_IDLE;
		return;
	}
	if (!wk || wk->st == T_UNSEEN || wk->seen_at > asleep) {
		c->end = HVT_CHAIN_UNKNOWN;
		return;
	}
	from = &wk->last;
	for (j = 0; j < from->depth; j++) {
		const struct hvt_wait_link *l = &from->link[j];

		if (l->ran <= asleep) {		/* the previous link's waker ran since */
			ran_or_preempted(w, c);
			return;
		}
		if (in_chain(c, l->tid)) {
			c->end = HVT_CHAIN_CYCLE;
			return;
		}
		if (c->depth == HVT_WAIT_CHAIN_MAX) {
			c->end = HVT_CHAIN_DEPTH;
			return;
		}
		c->link[c->depth++] = *l;
	}
	if (from->depth && from->end != HVT_CHAIN_RAN)
		c->end = from->end;
	else
		ran_or_preempted(w, c);
}

/* @t's wait in progress ended unseen: told, and nothing is known of its last. */
static void wait_unended(struct hvt_wait_chains *w, struct hvt_wait_thread *t)
{
	struct hvt_wait_chain *c = &t->pending;

	if (t->st == T_ASLEEP) {
		c->link[0] = (struct hvt_wait_link){ .tid = t->tid, .waker = -1,
						     .asleep = t->since,
						     .asleep_bound = t->since_bound };
		memcpy(c->link[0].comm, t->comm, sizeof(c->link[0].comm));
	}
	c->depth = 1;
	c->unended = true;
	c->ran_unseen = false;
	c->end = HVT_CHAIN_UNKNOWN;
	w->waits++;
	w->unended++;
	if (w->on_wait)
		w->on_wait(w->ctx, c);
	t->last.depth = 0;
}

/* @c into @to: its links only (a chain is mostly one link; a copy per wait). */
static void chain_copy(struct hvt_wait_chain *to, const struct hvt_wait_chain *c)
{
	memcpy(to->link, c->link, c->depth * sizeof(c->link[0]));
	to->depth = c->depth;
	to->end = c->end;
	to->unended = c->unended;
	to->ran_unseen = c->ran_unseen;
}

/* @t's wait, chain @c, ends: said, and kept as its last. */
static void wait_ended(struct hvt_wait_chains *w, struct hvt_wait_thread *t,
		       const struct hvt_wait_chain *c)
{
	w->waits++;
	if (w->on_wait)
		w->on_wait(w->ctx, c);
	if (c != &t->last)
		chain_copy(&t->last, c);
}

static void switch_out(struct hvt_wait_chains *w, struct hvt_wait_thread *t, uint64_t ts,
		       uint64_t bound, bool runnable)
{
	if (t->st == T_WOKEN) {		/* its switch-in was not recorded */
		t->pending.link[0].ran = t->pending.link[0].woken;
		t->pending.link[0].ran_bound = t->pending.link[0].woken_bound;
		t->pending.link[0].ran_unseen = true;
		t->pending.ran_unseen = true;
		wait_ended(w, t, &t->pending);
	} else if (t->st == T_ASLEEP) {
		wait_unended(w, t);
	}
	if (t->st == T_UNSEEN)
		t->seen_at = ts;
	t->st = runnable ? T_RUNNABLE : T_ASLEEP;
	t->since = ts;
	t->since_bound = bound;
}

/* @t, switched out runnable, runs again at @ts: its preemption ended. */
static void preemption_ended(struct hvt_wait_thread *t, uint64_t ts, uint64_t bound)
{
	struct hvt_wait_link *l = &t->preemption[t->next_preemption++ % PREEMPTIONS];

	*l = (struct hvt_wait_link){ .tid = t->tid, .preempted = true, .waker = t->preempted_by,
				     .asleep = t->since, .asleep_bound = t->since_bound,
				     .woken = ts, .woken_bound = bound, .ran = ts,
				     .ran_bound = bound };
	memcpy(l->comm, t->comm, sizeof(l->comm));
	memcpy(l->waker_comm, t->preempted_by_comm, sizeof(l->waker_comm));
}

static void switch_in(struct hvt_wait_chains *w, struct hvt_wait_thread *t, uint64_t ts,
		      uint64_t bound)
{
	struct hvt_wait_link *l;

	if (t->st == T_WOKEN) {
		l = &t->pending.link[0];
		l->ran = ts;
		l->ran_bound = bound;
		wait_ended(w, t, &t->pending);
	} else if (t->st == T_ASLEEP) {
		t->pending.depth = 1;
		t->pending.unended = t->pending.ran_unseen = false;
		t->pending.end = HVT_CHAIN_NO_WAKEUP;
		l = &t->pending.link[0];
		*l = (struct hvt_wait_link){ .tid = t->tid, .waker = -1, .asleep = t->since,
					     .asleep_bound = t->since_bound, .woken = ts,
					     .woken_bound = bound, .ran = ts, .ran_bound = bound };
		memcpy(l->comm, t->comm, sizeof(l->comm));
		wait_ended(w, t, &t->pending);
	} else if (t->st == T_RUNNABLE) {
		preemption_ended(t, ts, bound);
	} else if (t->st == T_UNSEEN) {
		t->seen_at = ts;
	}
	t->st = T_RUNNING;
}

/*
 * Thread @t's slot emptied (linear probing: the entries after it that
 * would no longer be found are moved back), so that a machine's memory
 * follows the threads alive, not all it ever ran.
 */
static void forget(struct hvt_wait_chains *w, struct hvt_wait_thread *t)
{
	size_t mask = w->cap_threads - 1, i = (size_t)(t - w->threads), j = i, k;

	for (;;) {
		j = (j + 1) & mask;
		if (!w->threads[j].tid)
			break;
		k = slot_of(w->threads[j].tid, w->cap_threads);
		/* it stays if its home lies cyclically in (i, j] */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		w->threads[i] = w->threads[j];
		i = j;
	}
	memset(&w->threads[i], 0, sizeof(w->threads[i]));
	w->nr_threads--;
}

/* The switch; @dead: prev exited (its last switch-out), so it is forgotten. */
static void switch_threads(struct hvt_wait_chains *w, uint64_t ts, uint64_t bound,
			   int32_t prev, bool runnable, bool dead, const char *prev_comm,
			   int32_t next, const char *next_comm)
{
	struct hvt_wait_thread *out, *in;

	if (!reserve(w))
		return;
	out = thread_of(w, prev, prev_comm);
	in = thread_of(w, next, next_comm);
	if (out && out != in) {
		switch_out(w, out, ts, bound, runnable);
		out->preempted_by = next;
		comm_copy(out->preempted_by_comm, next_comm ? next_comm : "");
	}
	if (in && in != out)
		switch_in(w, in, ts, bound);
	if (out && out != in && dead)	/* last: forgetting it may move @in */
		forget(w, out);
}

void hvt_wait_chains_switch_to(struct hvt_wait_chains *w, uint64_t ts, uint64_t bound,
			       int32_t prev, bool runnable, const char *prev_comm, int32_t next,
			       const char *next_comm)
{
	switch_threads(w, ts, bound, prev, runnable, false, prev_comm, next, next_comm);
}

void hvt_wait_chains_switch(struct hvt_wait_chains *w, uint64_t ts, uint64_t bound,
			    const struct hvt_sched_switch *sw)
{
	/* EXIT_DEAD, EXIT_ZOMBIE: the kernel's letters for a task's last switch-out */
	bool dead = strchr(sw->end_state, 'X') || strchr(sw->end_state, 'Z');

	switch_threads(w, ts, bound, sw->prev, sw->runnable, dead, sw->prev_comm, sw->next,
		       sw->next_comm);
}

void hvt_wait_chains_wakeup(struct hvt_wait_chains *w, uint64_t ts, uint64_t bound, int32_t tid,
			    const char *comm, int32_t waker)
{
	struct hvt_wait_thread *t, *wk;
	struct hvt_wait_link *l;

	if (!reserve(w))
		return;
	wk = thread_of(w, waker, NULL);
	t = thread_of(w, tid, comm);
	if (wk && wk->st == T_UNSEEN) {		/* it runs now: known from here */
		wk->st = T_RUNNING;
		wk->seen_at = ts;
	}
	if (!t || t->st != T_ASLEEP || t == wk)
		return;
	t->pending.depth = 1;
	t->pending.unended = t->pending.ran_unseen = false;
	l = &t->pending.link[0];
	*l = (struct hvt_wait_link){ .tid = tid, .waker = waker < 0 ? -1 : waker,
				     .asleep = t->since, .asleep_bound = t->since_bound,
				     .woken = ts, .woken_bound = bound };
	memcpy(l->comm, t->comm, sizeof(l->comm));
	if (wk)
		memcpy(l->waker_comm, wk->comm, sizeof(l->waker_comm));
	else if (!waker)
		snprintf(l->waker_comm, sizeof(l->waker_comm), "swapper");
	if (waker < 0)
		t->pending.end = HVT_CHAIN_UNKNOWN;
	else
		follow(w, &t->pending, waker, wk);
	t->st = T_WOKEN;
}

void hvt_wait_chains_lost(struct hvt_wait_chains *w, uint64_t until)
{
	size_t i;

	for (i = 0; i < w->cap_threads; i++) {
		struct hvt_wait_thread *t = &w->threads[i];

		if (t->tid && (t->st == T_ASLEEP || t->st == T_WOKEN) && t->since < until) {
			wait_unended(w, t);
			t->st = T_UNSEEN;
		} else if (t->tid && t->st == T_RUNNABLE && t->since < until) {
			t->st = T_UNSEEN;	/* it may have run, and slept, unseen */
		}
	}
}

int32_t hvt_wait_chain_root(const struct hvt_wait_chain *c, const char **comm)
{
	const struct hvt_wait_link *l = &c->link[c->depth ? c->depth - 1 : 0];

	if (!c->depth || c->end == HVT_CHAIN_NO_WAKEUP) {
		*comm = "";
		return -1;
	}
	*comm = l->waker_comm;
	return l->waker;
}

const char *hvt_chain_end_text(enum hvt_chain_end e)
{
	static const char *const text[] = {
		[HVT_CHAIN_RAN] = "the last waker ran throughout",
		[HVT_CHAIN_PREEMPTED] = "the last waker was preempted",
		[HVT_CHAIN_IDLE] = "woken from the idle task: an interrupt",
		[HVT_CHAIN_UNKNOWN] = "the last waker was not seen before",
		[HVT_CHAIN_NO_WAKEUP] = "no sched_wakeup recorded",
		[HVT_CHAIN_CYCLE] = "a cycle: the next waker is already in the chain",
		[HVT_CHAIN_DEPTH] = "more links than are followed",
	};

	return e < HVT_NR_CHAIN_ENDS ? text[e] : "?";
}

const char *hvt_chain_end_id(enum hvt_chain_end e)
{
	static const char *const id[] = {
		[HVT_CHAIN_RAN] = "ran", [HVT_CHAIN_PREEMPTED] = "preempted",
		[HVT_CHAIN_IDLE] = "idle",
		[HVT_CHAIN_UNKNOWN] = "unknown", [HVT_CHAIN_NO_WAKEUP] = "no-wakeup",
		[HVT_CHAIN_CYCLE] = "cycle", [HVT_CHAIN_DEPTH] = "depth",
	};

	return e < HVT_NR_CHAIN_ENDS ? id[e] : "?";
}
