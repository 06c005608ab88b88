// SPDX-License-Identifier: GPL-2.0-only
/*
 * host_runs.c - each vCPU thread's host states from sched_switch (host_runs.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/align/host_runs.h"

struct hvt_host_cpu_last {
	bool valid;			/* a sched_switch seen since the start or a loss */
	bool gone;			/* lost, and no event of it since */
	uint64_t ts;
	int32_t next;
};

struct hvt_tracked_thread {
	enum hvt_run_state state;
	uint64_t since;
	int32_t cpu;
	bool guessed;
	bool seen;			/* any sched_switch of it */
	struct hvt_run_cause by;
	enum hvt_run_unknown unknown;	/* state UNKNOWN: why */
};

/* Sorted (tid, index) pairs, for the lookup per sched_switch. */
struct tid_index {
	int32_t tid;
	uint32_t index;
};

static struct tid_index *index_of(const struct hvt_host_runs *r)
{
	return (struct tid_index *)(r->threads + r->nr);
}

static int by_tid(const void *a, const void *b)
{
	const struct tid_index *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

int hvt_host_runs_init(struct hvt_host_runs *r, const int32_t *tids, size_t nr, uint64_t start,
		       hvt_run_fn fn, void *ctx)
{
	struct tid_index *ix;
	size_t i, n = 0;

	memset(r, 0, sizeof(*r));
	r->tids = tids;
	r->nr = nr;
	r->fn = fn;
	r->ctx = ctx;
	r->first_missing_in_cpu = -1;
	/* One allocation: the threads, then their index. */
	r->threads = calloc(1, nr * (sizeof(*r->threads) + sizeof(*ix)) + 1);
	if (!r->threads)
		return -1;
	ix = index_of(r);
	for (i = 0; i < nr; i++) {
		r->threads[i] = (struct hvt_tracked_thread){ .state = HVT_RUN_UNKNOWN,
			.since = start, .cpu = -1, .by = { .tid = -1 } };
		if (tids[i] > 0)
			ix[n++] = (struct tid_index){ tids[i], (uint32_t)i };
	}
	qsort(ix, n, sizeof(*ix), by_tid);
	r->nr_index = n;
	return 0;
}

void hvt_host_runs_free(struct hvt_host_runs *r)
{
	free(r->threads);
	free(r->cpus);
	memset(r, 0, sizeof(*r));
}

/* The tracked thread of @tid, or NULL. */
static struct hvt_tracked_thread *tracked(const struct hvt_host_runs *r, int32_t tid)
{
	struct tid_index key = { tid, 0 }, *hit;

	if (tid <= 0)
		return NULL;
	hit = bsearch(&key, index_of(r), r->nr_index, sizeof(key), by_tid);
	return hit ? &r->threads[hit->index] : NULL;
}

static struct hvt_host_cpu_last *cpu_last(struct hvt_host_runs *r, uint32_t cpu)
{
	struct hvt_host_cpu_last *grown;
	size_t n;

	if (cpu < r->nr_cpus)
		return &r->cpus[cpu];
	if (cpu >= 65536)
		return NULL;
	n = (size_t)cpu + 1;
	grown = realloc(r->cpus, n * sizeof(*grown));
	if (!grown) {
		r->failed = true;
		return NULL;
	}
	memset(grown + r->nr_cpus, 0, (n - r->nr_cpus) * sizeof(*grown));
	r->cpus = grown;
	r->nr_cpus = n;
	return &grown[cpu];
}

/* Closes @t's segment at @end (nothing if empty) and starts @state there. */
static void change(struct hvt_host_runs *r, struct hvt_tracked_thread *t, uint64_t end,
		   enum hvt_run_state state)
{
	struct hvt_run_segment seg = { .thread = (uint32_t)(t - r->threads), .state = t->state,
		.start = t->since, .end = end, .cpu = t->cpu, .guessed = t->guessed, .by = t->by,
		.unknown = t->unknown };

	if (end > t->since) {
		r->fn(r->ctx, &seg, false);
		t->since = end;
	}
	t->state = state;
	t->guessed = false;
	t->by = (struct hvt_run_cause){ .tid = -1 };
}

/* @t leaves @cpu at @ts; @last is that CPU's previous sched_switch. */
static void switch_out(struct hvt_host_runs *r, struct hvt_tracked_thread *t, uint32_t cpu,
		       uint64_t ts, const struct hvt_host_cpu_last *last, bool runnable,
		       int32_t next, const char *next_comm)
{
	if (t->state != HVT_RUN_RUNNING) {
		/*
		 * Its switch-in was not recorded: it ran since the CPU's last
		 * switch, or since it left, if later. Unknown without either.
		 */
		bool history = last && last->valid;
		uint64_t from = history && last->ts > t->since ? last->ts : t->since;

		if (t->state == HVT_RUN_UNKNOWN && !history)
			from = ts;
		if (t->seen && t->state != HVT_RUN_UNKNOWN && !r->missing_in++) {
			r->first_missing_in = ts;
			r->first_missing_in_cpu = (int32_t)cpu;
		}
		change(r, t, from, HVT_RUN_RUNNING);
		t->guessed = true;
	}
	t->cpu = (int32_t)cpu;
	if (r->nr_gone) {	/* it may run on a CPU the host lost, unseen */
		change(r, t, ts, HVT_RUN_UNKNOWN);
		t->unknown = HVT_UNKNOWN_CPU_GONE;
		return;
	}
	change(r, t, ts, runnable ? HVT_RUN_PREEMPTED : HVT_RUN_BLOCKED);
	t->by.tid = next;
	snprintf(t->by.comm, sizeof(t->by.comm), "%s", next_comm ? next_comm : "");
}

static void switch_in(struct hvt_host_runs *r, struct hvt_tracked_thread *t, uint32_t cpu,
		      uint64_t ts)
{
	struct hvt_run_segment seg;

	if (t->state == HVT_RUN_RUNNING) {
		r->missing_out++;	/* in again, never out: keep the earlier start */
		t->cpu = (int32_t)cpu;
		return;
	}
	change(r, t, ts, HVT_RUN_RUNNING);
	t->cpu = (int32_t)cpu;
	seg = (struct hvt_run_segment){ .thread = (uint32_t)(t - r->threads),
		.state = HVT_RUN_RUNNING, .start = t->since, .cpu = (int32_t)cpu,
		.by = { .tid = -1 } };
	r->fn(r->ctx, &seg, true);
}

void hvt_host_runs_switch(struct hvt_host_runs *r, uint32_t cpu, uint64_t ts, int32_t prev,
			  bool runnable, int32_t next, const char *next_comm)
{
	struct hvt_tracked_thread *out = tracked(r, prev), *in = tracked(r, next);
	struct hvt_host_cpu_last *last = cpu_last(r, cpu);

	if (out || in)
		r->switches++;
	if (last && last->gone) {	/* it came back after all */
		last->gone = false;
		r->nr_gone--;
	}
	/* A tracked thread switched in here was switched out unrecorded. */
	if (last && last->valid && last->next != prev && tracked(r, last->next))
		r->missing_out++;
	if (out) {
		switch_out(r, out, cpu, ts, last, runnable, next, next_comm);
		out->seen = true;
	}
	if (in && in != out) {
		switch_in(r, in, cpu, ts);
		in->seen = true;
	}
	if (last)
		*last = (struct hvt_host_cpu_last){ .valid = true, .ts = ts, .next = next };
}

void hvt_host_runs_lost(struct hvt_host_runs *r, uint32_t cpu, uint64_t ts, uint64_t until)
{
	struct hvt_host_cpu_last *last = cpu_last(r, cpu);
	size_t i;

	if (until == UINT64_MAX && last && !last->gone) {
		last->gone = true;
		r->nr_gone++;
	}
	for (i = 0; i < r->nr; i++) {
		struct hvt_tracked_thread *t = &r->threads[i];

		if (t->state == HVT_RUN_RUNNING && t->cpu != (int32_t)cpu)
			continue;	/* elsewhere, where nothing was lost */
		if (t->state == HVT_RUN_UNKNOWN)
			continue;
		change(r, t, ts > t->since ? ts : t->since, HVT_RUN_UNKNOWN);
		t->unknown = until == UINT64_MAX ? HVT_UNKNOWN_CPU_GONE : HVT_UNKNOWN_HOST_LOST;
	}
	if (last)
		last->valid = false;
}

void hvt_host_runs_finish(struct hvt_host_runs *r, uint64_t end)
{
	size_t i;

	for (i = 0; i < r->nr; i++)
		if (r->tids[i] > 0)
			change(r, &r->threads[i], end, HVT_RUN_UNKNOWN);
}

const char *hvt_run_unknown_text(enum hvt_run_unknown why)
{
	static const char *const texts[] = {
		[HVT_UNKNOWN_UNSEEN] = "before its thread's first host sched_switch",
		[HVT_UNKNOWN_HOST_LOST] = "where the host lost events",
		[HVT_UNKNOWN_CPU_GONE] = "while a host CPU could not be read",
		[HVT_UNKNOWN_NO_GUEST_STREAM] = ("running, but its guest kernel stream is missing "
						 "or cut short (guest or guest-idle not known)"),
	};

	return why < HVT_NR_RUN_UNKNOWN ? texts[why] : "?";
}

const char *hvt_run_unknown_id(enum hvt_run_unknown why)
{
	static const char *const ids[] = {
		[HVT_UNKNOWN_UNSEEN] = "unseen",
		[HVT_UNKNOWN_HOST_LOST] = "host-lost",
		[HVT_UNKNOWN_CPU_GONE] = "cpu-unreadable",
		[HVT_UNKNOWN_NO_GUEST_STREAM] = "no-guest-stream",
	};

	return why < HVT_NR_RUN_UNKNOWN ? ids[why] : "?";
}

const char *hvt_run_state_name(enum hvt_run_state s)
{
	static const char *const names[] = { "unknown", "running", "preempted", "blocked" };

	return s < HVT_NR_RUN_STATES ? names[s] : "?";
}
