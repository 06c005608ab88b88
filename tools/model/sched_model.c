// SPDX-License-Identifier: GPL-2.0-only
/*
 * sched_model.c - a machine's CPU slices and thread states from its
 * scheduling events (sched_model.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/model/sched_model.h"

#define STATE_LEN	8

/* A CPU: its last sched_switch, if its time since is known. */
struct hvt_sched_cpu {
	bool valid;
	uint64_t ts, bound;
	int32_t next;			/* that switch's next */
	char next_comm[HVT_COMM_LEN];
};

/* A thread: its state since when, if known. */
struct hvt_sched_thread {
	int32_t tid;			/* 0: an empty slot */
	char comm[HVT_COMM_LEN];
	bool known;
	char state[STATE_LEN];		/* "" Running */
	uint64_t since, bound;
	int32_t cpu, waker, waker_cpu;
};

void hvt_sched_model_init(struct hvt_sched_model *m, const struct hvt_sched_model_ops *ops,
			  void *ctx)
{
	memset(m, 0, sizeof(*m));
	m->ops = ops;
	m->ctx = ctx;
}

void hvt_sched_model_free(struct hvt_sched_model *m)
{
	free(m->cpus);
	free(m->threads);
	memset(m, 0, sizeof(*m));
}

static struct hvt_sched_cpu *cpu_of(struct hvt_sched_model *m, uint32_t cpu)
{
	struct hvt_sched_cpu *grown;
	size_t n;

	if (cpu < m->nr_cpus)
		return &m->cpus[cpu];
	if (cpu >= (1u << 20)) {	/* a damaged CPU number: not a table of that size */
		m->failed = true;
		return NULL;
	}
	n = (size_t)cpu + 1;
	grown = realloc(m->cpus, n * sizeof(*grown));
	if (!grown) {
		m->failed = true;
		return NULL;
	}
	memset(grown + m->nr_cpus, 0, (n - m->nr_cpus) * sizeof(*grown));
	m->cpus = grown;
	m->nr_cpus = n;
	return &grown[cpu];
}

static size_t slot_of(int32_t tid, size_t cap)
{
	return ((uint32_t)tid * 2654435761u) & (cap - 1);
}

static int grow_threads(struct hvt_sched_model *m)
{
	size_t cap = m->cap_threads ? m->cap_threads * 2 : 256, i, k;
	struct hvt_sched_thread *t = calloc(cap, sizeof(*t));

	if (!t)
		return -1;
	for (i = 0; i < m->cap_threads; i++) {
		if (!m->threads[i].tid)
			continue;
		for (k = slot_of(m->threads[i].tid, cap); t[k].tid; k = (k + 1) & (cap - 1))
			;
		t[k] = m->threads[i];
	}
	free(m->threads);
	m->threads = t;
	m->cap_threads = cap;
	return 0;
}

/* Thread @tid (> 0), added if new, its comm updated from @comm; NULL if none. */
static struct hvt_sched_thread *thread_of(struct hvt_sched_model *m, int32_t tid,
					  const char *comm)
{
	struct hvt_sched_thread *t;
	size_t k;

	if (tid <= 0)
		return NULL;
	if ((m->nr_threads + 1) * 2 > m->cap_threads && grow_threads(m)) {
		m->failed = true;
		return NULL;
	}
	for (k = slot_of(tid, m->cap_threads); m->threads[k].tid && m->threads[k].tid != tid;
	     k = (k + 1) & (m->cap_threads - 1))
		;
	t = &m->threads[k];
	if (!t->tid) {
		t->tid = tid;
		t->cpu = t->waker = t->waker_cpu = -1;
		m->nr_threads++;
	}
	if (comm && *comm)
		snprintf(t->comm, sizeof(t->comm), "%s", comm);
	return t;
}

/* @t's state closes at @ts; it is @state from there ("": Running). */
static void change(struct hvt_sched_model *m, struct hvt_sched_thread *t, uint64_t ts,
		   uint64_t bound, const char *state, int32_t cpu, int32_t waker, int32_t waker_cpu)
{
	if (t->known && ts > t->since)
		m->ops->state(m->ctx, &(struct hvt_thread_state){
			.tid = t->tid, .start = t->since, .end = ts, .start_bound = t->bound,
			.end_bound = bound, .state = t->state[0] ? t->state : "Running",
			.cpu = t->cpu, .waker = t->waker, .waker_cpu = t->waker_cpu });
	if (!t->known || ts > t->since) {
		t->since = ts;
		t->bound = bound;
	}
	t->known = true;
	snprintf(t->state, sizeof(t->state), "%s", state);
	if (cpu >= 0)
		t->cpu = cpu;
	t->waker = waker;
	t->waker_cpu = waker_cpu;
}

/* @prev leaves @c at @ts: its run since the CPU's last switch, and its state after. */
static void switch_out(struct hvt_sched_model *m, struct hvt_sched_cpu *c, uint32_t cpu,
		       uint64_t ts, uint64_t bound, const struct hvt_sched_switch *sw)
{
	struct hvt_sched_thread *t = thread_of(m, sw->prev, sw->prev_comm);

	if (c->valid && ts >= c->ts)
		m->ops->slice(m->ctx, &(struct hvt_sched_slice){
			.cpu = cpu, .start = c->ts, .end = ts, .start_bound = c->bound,
			.end_bound = bound, .tid = sw->prev, .comm = sw->prev_comm,
			.end_state = sw->end_state });
	if (!t)
		return;
	/* not seen coming in: it ran since the CPU's last switch, if that is known */
	if (t->state[0] || !t->known || (int32_t)cpu != t->cpu) {
		if (c->valid && c->ts <= ts)
			change(m, t, t->known && t->since > c->ts ? t->since : c->ts, c->bound, "",
			       (int32_t)cpu, -1, -1);
		else
			t->known = false;	/* nothing known of it until now */
	}
	change(m, t, ts, bound, sw->end_state, (int32_t)cpu, -1, -1);
}

void hvt_sched_model_switch(struct hvt_sched_model *m, uint32_t cpu, uint64_t ts, uint64_t bound,
			    const struct hvt_sched_switch *sw)
{
	struct hvt_sched_cpu *c = cpu_of(m, cpu);
	struct hvt_sched_thread *in;

	if (!c)
		return;
	switch_out(m, c, cpu, ts, bound, sw);
	in = thread_of(m, sw->next, sw->next_comm);
	if (in && in != thread_of(m, sw->prev, NULL))
		change(m, in, ts, bound, "", (int32_t)cpu, -1, -1);
	*c = (struct hvt_sched_cpu){ .valid = true, .ts = ts, .bound = bound, .next = sw->next };
	snprintf(c->next_comm, sizeof(c->next_comm), "%s", sw->next_comm);
}

void hvt_sched_model_wakeup(struct hvt_sched_model *m, uint64_t ts, uint64_t bound, int32_t tid,
			    int32_t waker, int32_t waker_cpu)
{
	struct hvt_sched_thread *t = thread_of(m, tid, NULL);

	/* asleep: runnable from now; running or runnable already: nothing changes */
	if (t && t->known && t->state[0] && t->state[0] != 'R')
		change(m, t, ts, bound, "R", -1, waker, waker_cpu);
}

void hvt_sched_model_lost(struct hvt_sched_model *m, uint32_t cpu, uint64_t ts)
{
	struct hvt_sched_cpu *c = cpu_of(m, cpu);
	size_t i;

	if (!c)
		return;
	c->valid = false;
	for (i = 0; i < m->cap_threads; i++) {
		struct hvt_sched_thread *t = &m->threads[i];

		if (t->tid && t->known && !t->state[0] && t->cpu == (int32_t)cpu) {
			change(m, t, ts > t->since ? ts : t->since, 0, "", -1, -1, -1);
			t->known = false;
		}
	}
}

void hvt_sched_model_finish(struct hvt_sched_model *m, uint64_t end)
{
	size_t i;

	for (i = 0; i < m->nr_cpus; i++) {
		struct hvt_sched_cpu *c = &m->cpus[i];

		if (c->valid && end > c->ts)
			m->ops->slice(m->ctx, &(struct hvt_sched_slice){
				.cpu = (uint32_t)i, .start = c->ts, .end = end,
				.start_bound = c->bound, .tid = c->next, .comm = c->next_comm });
		c->valid = false;
	}
	for (i = 0; i < m->cap_threads; i++)
		if (m->threads[i].tid && m->threads[i].known)
			change(m, &m->threads[i], end, 0, m->threads[i].state, -1,
			       m->threads[i].waker, m->threads[i].waker_cpu);
}

void hvt_sched_model_threads(const struct hvt_sched_model *m,
			     void (*fn)(void *ctx, int32_t tid, const char *comm), void *ctx)
{
	size_t i;

	for (i = 0; i < m->cap_threads; i++)
		if (m->threads[i].tid)
			fn(ctx, m->threads[i].tid, m->threads[i].comm);
}
