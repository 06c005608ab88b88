// SPDX-License-Identifier: GPL-2.0-only
/*
 * top_live.c - `hvtrace top`'s pass over a recording in progress (top_live.h).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tools/top/top_live.h"

#define READY_WAIT_NS	5000000000ll	/* a vCPU's kernel stream may never come */

/* The analyses' listener, with each guest event's bound noted for its VM's interval. */
static struct hvt_event_listener listener;

static struct hvt_top_vm *vm_of(struct hvt_top_live *t, const struct hvt_fed_event *e)
{
	size_t i = e->src->vm_number;

	return i && i <= t->ses->archive.nr_vms && t->vms[i - 1].a ? &t->vms[i - 1] : NULL;
}

static void note_bound(struct hvt_top_live *t, const struct hvt_fed_event *e)
{
	struct hvt_top_vm *vm = vm_of(t, e);

	if (vm) {
		vm->bound = hvt_vm_analyses_bound(&t->va, e);
		vm->guest_events++;
	}
}

static void guest_switch(void *ctx, const struct hvt_fed_event *e)
{
	struct hvt_top_live *t = ctx;

	note_bound(t, e);
	hvt_vm_analyses_guest_switch(&t->va, e);
}

static void guest_wakeup(void *ctx, const struct hvt_fed_event *e)
{
	struct hvt_top_live *t = ctx;

	note_bound(t, e);
	hvt_vm_analyses_guest_wakeup(&t->va, e);
}

/* The analyses' other functions take the analyses themselves: these pass them on. */
#define PASS_ON(name, fn)							\
	static void name(void *ctx, const struct hvt_fed_event *e)		\
	{									\
		fn(&((struct hvt_top_live *)ctx)->va, e);			\
	}
PASS_ON(host_switch, hvt_vm_analyses_host_switch)
PASS_ON(host_wakeup, hvt_vm_analyses_host_wakeup)
PASS_ON(kvm_entry, hvt_vm_analyses_kvm_entry)
PASS_ON(kvm_exit, hvt_vm_analyses_kvm_exit)

static void host_lost(void *ctx, uint32_t cpu, uint64_t from, uint64_t until)
{
	hvt_vm_analyses_host_lost(&((struct hvt_top_live *)ctx)->va, cpu, from, until);
}

static void make_listener(void)
{
	const struct hvt_event_listener *l = &hvt_vm_analyses_listener;

	memset(&listener, 0, sizeof(listener));
	listener.comms = l->comms;
	listener.host[HVT_EV_SCHED_SWITCH] = host_switch;
	listener.host[HVT_EV_SCHED_WAKEUP] = host_wakeup;
	listener.host[HVT_EV_KVM_ENTRY] = kvm_entry;
	listener.host[HVT_EV_KVM_EXIT] = kvm_exit;
	listener.guest[HVT_EV_SCHED_SWITCH] = guest_switch;
	listener.guest[HVT_EV_SCHED_WAKEUP] = guest_wakeup;
	listener.host_lost = host_lost;
}

/* A guest sched_switch before the analyses start: the last per vCPU, noted. */
static void note_switch(void *ctx, const struct hvt_fed_event *e)
{
	struct hvt_top_live *t = ctx;
	size_t vm = e->src->vm_number;

	if (vm && vm <= t->ses->archive.nr_vms && e->cpu < HVT_TOP_MAX_VCPUS)
		t->last_switch[(vm - 1) * HVT_TOP_MAX_VCPUS + e->cpu] = *e;
}

static const struct hvt_event_listener pre_listener = {
	.guest = { [HVT_EV_SCHED_SWITCH] = note_switch },
	.comms = true,
};

int hvt_top_live_init(struct hvt_top_live *t, struct hvt_timeline *tl,
		      const struct hvt_follow_opts *fo)
{
	size_t n = tl->ses->archive.nr_vms;

	memset(t, 0, sizeof(*t));
	t->ses = tl->ses;
	t->tl = tl;
	hvt_follow_init(&t->f, tl, fo);
	t->vms = calloc(n + 1, sizeof(*t->vms));
	t->last_switch = calloc(n * HVT_TOP_MAX_VCPUS + 1, sizeof(*t->last_switch));
	if (!t->vms || !t->last_switch || hvt_event_feed_init(&t->pre, t->ses, &pre_listener, t)) {
		free(t->vms);
		free(t->last_switch);
		return -1;
	}
	hvt_top_live_reset(t, 0);
	return 0;
}

/* The analyses just started: each vCPU's current guest task, from its last switch. */
static void replay_switches(struct hvt_top_live *t)
{
	size_t i, n = t->ses->archive.nr_vms * HVT_TOP_MAX_VCPUS;

	for (i = 0; i < n; i++)
		if (t->last_switch[i].src)
			hvt_vm_analyses_guest_switch(&t->va, &t->last_switch[i]);
}

/* The analyses and the VMs' intervals gone. */
static void stop_analyses(struct hvt_top_live *t)
{
	size_t i;

	for (i = 0; t->vms && i < t->ses->archive.nr_vms; i++)
		if (t->vms[i].a)
			hvt_top_vm_free(&t->vms[i]);
	if (t->analysing) {
		hvt_event_feed_free(&t->feed);
		hvt_vm_analyses_free(&t->va);
	}
	t->analysing = false;
}

void hvt_top_live_free(struct hvt_top_live *t)
{
	stop_analyses(t);
	if (t->last_switch)
		hvt_event_feed_free(&t->pre);
	free(t->vms);
	free(t->was);
	free(t->last_switch);
	memset(t, 0, sizeof(*t));
}

/* The VMs placed on the host's clock now. */
static size_t placed(const struct hvt_session *ses)
{
	size_t i, n = 0;

	for (i = 0; i < ses->archive.nr_vms; i++)
		n += ses->vms[i].loaded && (ses->vms[i].al.aligned || ses->vms[i].al.exact);
	return n;
}

/* Whether VM @i is placed and each of its vCPUs' kernel stream is there. */
static bool vm_ready(const struct hvt_session *ses, size_t i)
{
	const struct hvt_session_vm *st = &ses->vms[i];
	const struct hvt_vm_ref *ref = &ses->archive.vms[i];
	size_t c, k;

	if (!st->loaded || st->vm.finished || !st->vm.nr_streams)
		return true;	/* nothing to wait for */
	if (!st->al.aligned && !st->al.exact)
		return false;
	for (c = 0; c < ref->nr_vcpu_tids; c++) {
		bool found = false;

		for (k = 0; k < ses->nr_sources && !found; k++)
			found = ses->sources[k]->layer == HVT_LAYER_KERNEL &&
				ses->sources[k]->vm_number == i + 1 &&
				ses->sources[k]->guest_cpu == (int32_t)c;
		if (!found)
			return false;
	}
	return true;
}

bool hvt_top_live_ready(struct hvt_top_live *t)
{
	struct hvt_vm_analyses_opts o = { .from = t->newest_tsc, .to = UINT64_MAX };
	struct timespec now;
	size_t i;
	bool all = true;

	if (t->analysing && placed(t->ses) == t->placed)
		return true;
	if (t->analysing) {	/* a VM placed since: from now, with it */
		stop_analyses(t);
		t->waiting_since = 0;
	}
	for (i = 0; i < t->ses->archive.nr_vms && !t->f.complete; i++)
		all &= vm_ready(t->ses, i);	/* complete: nothing more will come */
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!all) {
		int64_t ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;

		if (!t->waiting_since)
			t->waiting_since = ns;
		if (ns - t->waiting_since < READY_WAIT_NS)
			return false;	/* then analyse what is there */
	}
	make_listener();
	if (hvt_vm_analyses_init(&t->va, t->ses, &o)) {
		t->oom = true;
		return false;
	}
	if (hvt_event_feed_init(&t->feed, t->ses, &listener, t)) {
		hvt_vm_analyses_free(&t->va);
		t->oom = true;
		return false;
	}
	for (i = 0; i < t->ses->archive.nr_vms; i++)
		if (!t->va.why[i] && hvt_top_vm_init(&t->vms[i], &t->va.vms[i]))
			t->oom = true;
	replay_switches(t);
	t->analysing = true;
	t->placed = placed(t->ses);
	t->started++;
	return true;
}

/* Room for every source's counters; false if out of memory. */
static bool cover_sources(struct hvt_top_live *t)
{
	size_t n = t->ses->nr_sources;
	struct hvt_top_stream *grown;

	if (n <= t->nr_was)
		return true;
	grown = realloc(t->was, n * sizeof(*grown));
	if (!grown)
		return false;
	memset(grown + t->nr_was, 0, (n - t->nr_was) * sizeof(*grown));
	t->was = grown;
	t->nr_was = n;
	return true;
}

bool hvt_top_live_whole(struct hvt_top_live *t)
{
	if (!t->f.complete || t->analysing || t->newest_tsc)
		return false;
	t->whole = hvt_top_live_ready(t);	/* from TSC 0: every event counts */
	return t->whole;
}

void hvt_top_live_finish(struct hvt_top_live *t)
{
	if (t->analysing)
		hvt_vm_analyses_finish(&t->va, t->newest_tsc);
}

uint64_t hvt_top_live_span(const struct hvt_top_live *t)
{
	return t->newest_tsc > t->first_tsc ? t->newest_tsc - t->first_tsc : 0;
}

int hvt_top_live_event(struct hvt_source *s, void *ctx)
{
	struct hvt_top_live *t = ctx;

	if (!t->first_tsc || s->host_tsc < t->first_tsc)
		t->first_tsc = s->host_tsc;
	t->handed++;
	if (s->host_tsc > t->newest_tsc)
		t->newest_tsc = s->host_tsc;
	hvt_event_feed(&t->pre, s);
	if (t->analysing)
		hvt_event_feed(&t->feed, s);
	return 0;
}

void hvt_top_live_reset(struct hvt_top_live *t, int64_t now_ns)
{
	size_t i;

	for (i = 0; i < t->ses->archive.nr_vms; i++)
		if (t->vms[i].a)
			hvt_top_vm_reset(&t->vms[i]);
	if (!cover_sources(t))
		t->oom = true;
	for (i = 0; i < t->nr_was; i++) {
		t->was[i].events = t->ses->sources[i]->events;
		t->was[i].lost = hvt_source_lost(t->ses->sources[i]);
	}
	t->since_ns = now_ns;
	t->handed = 0;
}

void hvt_top_live_stream(const struct hvt_top_live *t, size_t i, uint64_t *events,
			 uint64_t *lost)
{
	const struct hvt_source *s = t->ses->sources[i];
	uint64_t e0 = i < t->nr_was ? t->was[i].events : 0, l0 = i < t->nr_was ? t->was[i].lost : 0;
	uint64_t l = hvt_source_lost(s);

	*events = s->events - e0;
	*lost = l > l0 ? l - l0 : 0;
}
