// SPDX-License-Identifier: GPL-2.0-only
/*
 * vm_analysis.c - a VM's vCPU states and its guest threads' time
 * (vm_analysis.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "tools/model/vm_analysis.h"

#define MAX_PENDING	(1u << 20)	/* guest task changes waiting per vCPU */

/* Guest task @tid current on a vCPU from @t, within @bound. */
struct task_change {
	uint64_t t, bound;
	int32_t tid;
};

/* In the hypervisor from @start to @end (0: not yet entered again). */
struct hv_span {
	uint64_t start, end;
	uint32_t reason;
};

struct hvt_analysis_vcpu {
	struct hvt_account acc;
	struct hvt_wait_account waits;	/* its thread's sleeps on the host */
	struct task_change cur;		/* tid -1: not known yet */
	struct task_change *q;		/* later changes, q[head..n) */
	size_t head, n, cap;
	struct hv_span *hv;
	size_t nr_hv, cap_hv;
	bool no_guest_stream;		/* its guest kernel stream is missing */
};

/* --- guest threads, by tid ------------------------------------------------ */

static size_t slot_of(int32_t tid, size_t cap)
{
	return ((uint32_t)tid * 2654435761u) & (cap - 1);
}

static int grow_threads(struct hvt_vm_analysis *a)
{
	size_t cap = a->cap_threads ? a->cap_threads * 2 : 64, i;
	struct hvt_guest_thread *t = calloc(cap, sizeof(*t));

	if (!t)
		return -1;
	for (i = 0; i < a->cap_threads; i++) {
		size_t k;

		if (!a->threads[i].tid)
			continue;
		for (k = slot_of(a->threads[i].tid, cap); t[k].tid; k = (k + 1) & (cap - 1))
			;
		t[k] = a->threads[i];
	}
	free(a->threads);
	a->threads = t;
	a->cap_threads = cap;
	return 0;
}

/* Guest thread @tid, added if new (with @comm); NULL for tid <= 0 or no memory. */
static struct hvt_guest_thread *thread(struct hvt_vm_analysis *a, int32_t tid, const char *comm)
{
	struct hvt_guest_thread *t;
	size_t k;

	if (tid <= 0)
		return NULL;
	if ((a->nr_threads + 1) * 2 > a->cap_threads && grow_threads(a)) {
		a->failed = true;
		return NULL;
	}
	for (k = slot_of(tid, a->cap_threads); a->threads[k].tid; k = (k + 1) & (a->cap_threads - 1))
		if (a->threads[k].tid == tid)
			break;
	t = &a->threads[k];
	if (!t->tid) {
		t->tid = tid;
		a->nr_threads++;
	}
	if (comm && *comm)
		snprintf(t->comm, sizeof(t->comm), "%s", comm);
	return t;
}

/* --- attributing host segments -------------------------------------------- */

/* Counts [@p0, @p1) for the vCPU and its current guest thread @tid. */
static void count(struct hvt_vm_analysis *a, struct hvt_analysis_vcpu *v,
		  enum hvt_vcpu_state state, uint64_t p0, uint64_t p1, uint64_t slack,
		  const struct hvt_cause *cause, bool guessed, int32_t tid)
{
	struct hvt_guest_thread *t;

	if (state == HVT_VCPU_GUEST && tid == 0)
		state = HVT_VCPU_IDLE;
	if (state == HVT_VCPU_GUEST && v->no_guest_stream) {
		state = HVT_VCPU_UNKNOWN;	/* running: in a task, or idle, not known */
		v->acc.unknown_why[HVT_UNKNOWN_NO_GUEST_STREAM] += p1 - p0;
		guessed = false;
	}
	if (a->on_piece && p1 > p0)
		a->on_piece(a->piece_ctx, &(struct hvt_vcpu_piece){
			.vcpu = (int32_t)(v - a->vcpus), .state = state, .start = p0, .end = p1,
			.slack = slack, .cause = cause, .tid = tid, .host_cpu = a->seg_cpu,
			.guessed = guessed, .too_short = p1 - p0 < slack });
	hvt_account_add(&v->acc, state, p1 - p0, slack, cause, guessed);
	t = thread(a, tid, NULL);
	if (t)
		hvt_account_add(&t->acc, state, p1 - p0, slack, cause, guessed);
}

/* A running piece, cut at the vCPU's exits and entries. */
static void count_running(struct hvt_vm_analysis *a, struct hvt_analysis_vcpu *v,
			  uint64_t p0, uint64_t p1, uint64_t b0, uint64_t b1, bool guessed,
			  int32_t tid)
{
	uint64_t pos = p0, pos_bound = b0;
	size_t i;

	for (i = 0; i < v->nr_hv && pos < p1; i++) {
		const struct hv_span *h = &v->hv[i];
		uint64_t s = h->start > pos ? h->start : pos;
		uint64_t e = h->end && h->end < p1 ? h->end : p1;
		struct hvt_cause c = { .tid = (int32_t)h->reason };

		if (e <= pos || s >= p1)
			continue;
		if (s > pos)
			count(a, v, HVT_VCPU_GUEST, pos, s, pos_bound, NULL, guessed, tid);
		count(a, v, HVT_VCPU_HYPERVISOR, s, e, (s == p0 ? b0 : 0) + (e == p1 ? b1 : 0),
		      &c, false, tid);
		pos = e;
		pos_bound = 0;
	}
	if (pos < p1)
		count(a, v, HVT_VCPU_GUEST, pos, p1, pos_bound + b1, NULL, guessed, tid);
}

/* The piece [@p0, @p1) of host segment @seg, guest task @tid, ends within @b0, @b1. */
static void piece(struct hvt_vm_analysis *a, struct hvt_analysis_vcpu *v,
		  const struct hvt_run_segment *seg, uint64_t p0, uint64_t p1, uint64_t b0,
		  uint64_t b1, int32_t tid)
{
	static const enum hvt_vcpu_state of_host[] = {
		[HVT_RUN_UNKNOWN] = HVT_VCPU_UNKNOWN, [HVT_RUN_RUNNING] = HVT_VCPU_GUEST,
		[HVT_RUN_PREEMPTED] = HVT_VCPU_PREEMPTED, [HVT_RUN_BLOCKED] = HVT_VCPU_BLOCKED,
	};
	struct hvt_cause by = { .tid = seg->by.tid };

	a->seg_cpu = seg->cpu;
	if (p0 < a->from) {		/* cut by the selection: an exact end */
		p0 = a->from;
		b0 = 0;
	}
	if (p1 > a->to) {
		p1 = a->to;
		b1 = 0;
	}
	if (p0 >= p1)
		return;
	if (seg->state == HVT_RUN_RUNNING) {
		count_running(a, v, p0, p1, b0, b1, seg->guessed, tid);
		return;
	}
	memcpy(by.comm, seg->by.comm, sizeof(by.comm));
	count(a, v, of_host[seg->state], p0, p1, b0 + b1, seg->state == HVT_RUN_UNKNOWN ? NULL : &by,
	      false, tid);
	if (seg->state == HVT_RUN_UNKNOWN && seg->unknown < HVT_NR_RUN_UNKNOWN)
		v->acc.unknown_why[seg->unknown] += p1 - p0;
}

static void drop_spans(struct hvt_analysis_vcpu *v, uint64_t until)
{
	size_t i, k = 0;

	for (i = 0; i < v->nr_hv; i++)
		if (!v->hv[i].end || v->hv[i].end > until)
			v->hv[k++] = v->hv[i];
	v->nr_hv = k;
}

/* Host segment @seg of vCPU @v's thread, cut at the guest's task changes. */
static void attribute(struct hvt_vm_analysis *a, struct hvt_analysis_vcpu *v,
		      const struct hvt_run_segment *seg)
{
	uint64_t pos = seg->start, pos_bound = 0;

	while (pos < seg->end) {
		uint64_t next = seg->end, next_bound = 0;

		while (v->head < v->n && v->q[v->head].t <= pos) {
			v->cur = v->q[v->head++];
			pos_bound = v->cur.t == pos && pos != seg->start ? v->cur.bound : 0;
		}
		if (v->head < v->n && v->q[v->head].t < seg->end) {
			next = v->q[v->head].t;
			next_bound = v->q[v->head].bound;
		}
		piece(a, v, seg, pos, next, pos_bound, next_bound, v->cur.tid);
		pos = next;
		pos_bound = next_bound;
	}
	if (v->head == v->n)
		v->head = v->n = 0;
	drop_spans(v, seg->end);
}

static void on_segment(void *ctx, const struct hvt_run_segment *seg, bool open)
{
	struct hvt_vm_analysis *a = ctx;

	if (!open && seg->thread < a->runs.nr)
		attribute(a, &a->vcpus[seg->thread], seg);
}

/* --- inputs --------------------------------------------------------------- */

static void on_guest_wait(void *ctx, const struct hvt_wait_chain *c)
{
	struct hvt_vm_analysis *a = ctx;
	struct hvt_guest_thread *t = thread(a, c->link[0].tid, NULL);

	if (t)
		hvt_wait_account_add(&t->waits, c, a->from, a->to);
}

int hvt_vm_analysis_init(struct hvt_vm_analysis *a, const char *name, const int32_t *tids,
			 size_t nr, uint64_t start, uint64_t from, uint64_t to)
{
	size_t i;

	memset(a, 0, sizeof(*a));
	a->name = name;
	a->from = from;
	a->to = to;
	a->vcpus = calloc(nr + 1, sizeof(*a->vcpus));
	if (!a->vcpus || hvt_host_runs_init(&a->runs, tids, nr, start, on_segment, a)) {
		free(a->vcpus);
		a->vcpus = NULL;
		return -1;
	}
	for (i = 0; i < nr; i++)
		a->vcpus[i].cur.tid = -1;
	hvt_wait_chains_init(&a->guest_waits, on_guest_wait, a);
	return 0;
}

void hvt_vm_analysis_no_guest_stream(struct hvt_vm_analysis *a, size_t vcpu)
{
	if (vcpu < a->runs.nr)
		a->vcpus[vcpu].no_guest_stream = true;
}

void hvt_vm_analysis_free(struct hvt_vm_analysis *a)
{
	size_t i;

	for (i = 0; a->vcpus && i < a->runs.nr; i++) {
		hvt_account_free(&a->vcpus[i].acc);
		hvt_wait_account_free(&a->vcpus[i].waits);
		free(a->vcpus[i].q);
		free(a->vcpus[i].hv);
	}
	for (i = 0; i < a->cap_threads; i++) {
		hvt_account_free(&a->threads[i].acc);
		hvt_wait_account_free(&a->threads[i].waits);
	}
	hvt_wait_chains_free(&a->guest_waits);
	free(a->threads);
	free(a->vcpus);
	hvt_host_runs_free(&a->runs);
	memset(a, 0, sizeof(*a));
}

void hvt_vm_analysis_host_switch(struct hvt_vm_analysis *a, uint32_t cpu, uint64_t ts,
				 int32_t prev, bool runnable, int32_t next,
				 const char *next_comm)
{
	hvt_host_runs_switch(&a->runs, cpu, ts, prev, runnable, next, next_comm);
}

void hvt_vm_analysis_host_lost(struct hvt_vm_analysis *a, uint32_t cpu, uint64_t ts,
			       uint64_t until)
{
	hvt_host_runs_lost(&a->runs, cpu, ts, until);
}

/* vCPU @id, if its host thread is known (its changes are consumed). */
static struct hvt_analysis_vcpu *known_vcpu(struct hvt_vm_analysis *a, uint32_t id)
{
	return id < a->runs.nr && a->runs.tids[id] > 0 ? &a->vcpus[id] : NULL;
}

void hvt_vm_analysis_kvm(struct hvt_vm_analysis *a, uint32_t id, bool entry, uint64_t ts,
			 uint32_t reason)
{
	struct hvt_analysis_vcpu *v = known_vcpu(a, id);
	struct hv_span *grown;

	if (!v)
		return;
	a->hypervisor_seen = true;
	if (entry) {
		if (v->nr_hv && !v->hv[v->nr_hv - 1].end)
			v->hv[v->nr_hv - 1].end = ts > v->hv[v->nr_hv - 1].start ? ts :
						  v->hv[v->nr_hv - 1].start + 1;
		return;
	}
	if (v->nr_hv && !v->hv[v->nr_hv - 1].end)	/* two exits: the entry was lost */
		v->hv[v->nr_hv - 1].end = ts;
	grown = hvt_grow(v->hv, v->nr_hv, &v->cap_hv, sizeof(*v->hv));
	if (!grown) {
		a->failed = true;
		return;
	}
	v->hv = grown;
	v->hv[v->nr_hv++] = (struct hv_span){ ts, 0, reason };
}

/* Thread @t waited runnable from runnable_at to @ts (within @bound). */
static void stop_waiting(struct hvt_vm_analysis *a, struct hvt_guest_thread *t, uint64_t ts,
			 uint64_t bound)
{
	uint64_t p0 = t->runnable_at > a->from ? t->runnable_at : a->from;
	uint64_t p1 = ts < a->to ? ts : a->to;

	uint64_t slack = (p0 == t->runnable_at ? t->runnable_bound : 0) + (p1 == ts ? bound : 0);

	if (t->runnable && p1 > p0) {
		if (a->on_piece)
			a->on_piece(a->piece_ctx, &(struct hvt_vcpu_piece){
				.vcpu = -1, .state = HVT_VCPU_RUNNABLE, .start = p0, .end = p1,
				.slack = slack, .tid = t->tid, .host_cpu = -1,
				.too_short = p1 - p0 < slack });
		hvt_account_runnable(&t->acc, p1 - p0, slack);
	}
	t->runnable = false;
}

static void queue_change(struct hvt_vm_analysis *a, struct hvt_analysis_vcpu *v, uint64_t ts,
			 uint64_t bound, int32_t tid)
{
	struct task_change *grown;

	if (v->n - v->head >= MAX_PENDING) {
		a->failed = true;
		return;
	}
	if (v->head && v->n == v->cap) {	/* room at the front: move down */
		memmove(v->q, v->q + v->head, (v->n - v->head) * sizeof(*v->q));
		v->n -= v->head;
		v->head = 0;
	}
	grown = hvt_grow(v->q, v->n, &v->cap, sizeof(*v->q));
	if (!grown) {
		a->failed = true;
		return;
	}
	v->q = grown;
	v->q[v->n++] = (struct task_change){ ts, bound, tid };
}

void hvt_vm_analysis_guest_switch(struct hvt_vm_analysis *a, uint32_t id, uint64_t ts,
				  uint64_t bound, int32_t prev, bool runnable,
				  const char *prev_comm, int32_t next, const char *next_comm)
{
	struct hvt_analysis_vcpu *v = known_vcpu(a, id);
	struct hvt_guest_thread *out = thread(a, prev, prev_comm), *in;

	a->guest_switches++;
	if (v)
		queue_change(a, v, ts, bound, next);
	if (out)
		out->running = false;
	if (out && prev != next && runnable) {	/* preempted in the guest */
		out->runnable = true;
		out->runnable_at = ts;
		out->runnable_bound = bound;
	}
	in = thread(a, next, next_comm);	/* after: adding it may move @out */
	if (in) {
		in->running = true;
		stop_waiting(a, in, ts, bound);
	}
	/* last: a wait it ends is counted to a thread of the table */
	hvt_wait_chains_switch_to(&a->guest_waits, ts, bound, prev, runnable, prev_comm, next,
				  next_comm);
}

void hvt_vm_analysis_guest_wakeup(struct hvt_vm_analysis *a, uint64_t ts, uint64_t bound,
				  int32_t tid, const char *comm, int32_t waker)
{
	struct hvt_guest_thread *t = thread(a, tid, comm);

	a->guest_wakeups++;
	if (t && !t->runnable && !t->running) {
		t->runnable = true;
		t->runnable_at = ts;
		t->runnable_bound = bound;
	}
	hvt_wait_chains_wakeup(&a->guest_waits, ts, bound, tid, comm, waker);
}

void hvt_vm_analysis_host_wait(struct hvt_vm_analysis *a, const struct hvt_wait_chain *c)
{
	size_t i;

	for (i = 0; i < a->runs.nr; i++)
		if (a->runs.tids[i] > 0 && a->runs.tids[i] == c->link[0].tid)
			hvt_wait_account_add(&a->vcpus[i].waits, c, a->from, a->to);
}

void hvt_vm_analysis_finish(struct hvt_vm_analysis *a, uint64_t end)
{
	size_t i;

	hvt_host_runs_finish(&a->runs, end);
	for (i = 0; i < a->cap_threads; i++)
		if (a->threads[i].tid && a->threads[i].runnable)
			stop_waiting(a, &a->threads[i], end, 0);
}

struct hvt_account *hvt_vm_analysis_vcpu(struct hvt_vm_analysis *a, size_t v)
{
	return &a->vcpus[v].acc;
}

struct hvt_wait_account *hvt_vm_analysis_vcpu_waits(struct hvt_vm_analysis *a, size_t v)
{
	return &a->vcpus[v].waits;
}
