// SPDX-License-Identifier: GPL-2.0-only
/*
 * analysis_run.c - `hvtrace analyze`'s pass over the time line
 * (analysis_run.h).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "tools/analyze/analysis_run.h"
#include "tools/merge/event_feed.h"

struct analyze_run {
	struct hvt_session *ses;
	struct hvt_vm_analysis *vms;	/* one per VM of the archive */
	const char **why;		/* per VM: not analysed, why (NULL: analysed) */
	struct hvt_vm_analysis *kvm;	/* the one KVM VM the host's exits are of */
};

/* The first host TSC at or after @ns since the trace start. */
static uint64_t tsc_at(struct hvt_host_clock *clock, int64_t ns)
{
	uint64_t lo = 0, hi = UINT64_MAX >> 2;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (hvt_host_clock_since_start(clock, mid) < ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool vm_selected(const struct hvt_select *sel, const char *name)
{
	size_t i;

	for (i = 0; i < sel->nr_vms; i++)
		if (!strcmp(sel->vms[i], name))
			return true;
	return !sel->nr_vms;
}

/* Sets up VM @i's analysis, or says why it cannot be made. */
static const char *vm_init(struct analyze_run *r, const struct hvt_select *sel, size_t i)
{
	struct hvt_session *ses = r->ses;
	const struct hvt_vm_ref *ref = &ses->archive.vms[i];
	uint64_t from = 0, to = UINT64_MAX;

	if (!vm_selected(sel, ref->name))
		return "not selected";
	if (!ses->vms[i].loaded || !ses->vms[i].al.aligned)
		return "its guest events cannot be aligned (see the warnings)";
	if (!ref->nr_vcpu_tids)
		return "the manifest does not name its vCPU threads (vcpu_threads)";
	if (!hvt_session_host_recorded(ses))
		return "the host layer was not recorded";
	if (sel->from_text)
		from = tsc_at(&ses->clock, sel->from_ns);
	if (sel->to_text)
		to = tsc_at(&ses->clock, sel->to_ns) + 1;
	if (hvt_vm_analysis_init(&r->vms[i], ref->name, ref->vcpu_tids, ref->nr_vcpu_tids,
				 ses->archive.pairs[0].tsc, from, to))
		return "out of memory";
	return NULL;
}

/* The host's kvm_exit/kvm_entry are of the archive's one KVM VM, if one. */
static struct hvt_vm_analysis *kvm_vm(struct analyze_run *r)
{
	struct hvt_vm_analysis *found = NULL;
	size_t i, n = 0;

	for (i = 0; i < r->ses->archive.nr_vms; i++)
		if (r->ses->vms[i].loaded && r->ses->vms[i].vm.kvm) {
			n++;
			found = r->why[i] ? NULL : &r->vms[i];
		}
	return n == 1 ? found : NULL;
}

static void host_switch(void *ctx, const struct hvt_fed_event *e)
{
	struct analyze_run *r = ctx;
	const struct hvt_sched_switch *sw = &e->ev.sw;
	size_t i;

	for (i = 0; i < r->ses->archive.nr_vms; i++)
		if (!r->why[i])
			hvt_vm_analysis_host_switch(&r->vms[i], e->cpu, e->ts, sw->prev,
						    sw->runnable, sw->next, sw->next_comm);
}

static void kvm_entry(void *ctx, const struct hvt_fed_event *e)
{
	struct analyze_run *r = ctx;

	if (r->kvm)
		hvt_vm_analysis_kvm(r->kvm, e->ev.kvm.vcpu, true, e->ts, 0);
}

static void kvm_exit(void *ctx, const struct hvt_fed_event *e)
{
	struct analyze_run *r = ctx;

	if (r->kvm)
		hvt_vm_analysis_kvm(r->kvm, e->ev.kvm.vcpu, false, e->ts, e->ev.kvm.exit_reason);
}

static void host_lost(void *ctx, uint32_t cpu, uint64_t from, uint64_t until)
{
	struct analyze_run *r = ctx;
	size_t v;

	(void)until;	/* unknown from @from to the CPU's next sched_switch */
	for (v = 0; v < r->ses->archive.nr_vms; v++)
		if (!r->why[v])
			hvt_vm_analysis_host_lost(&r->vms[v], cpu, from);
}

/* A guest event's analysis, and its error bound, unless its VM is not analysed. */
static struct hvt_vm_analysis *guest_vm(struct analyze_run *r, const struct hvt_fed_event *e,
					uint64_t *bound)
{
	size_t vm = e->src->vm_number;

	if (r->why[vm - 1])
		return NULL;
	if (hvt_source_error_bound(&r->ses->vms[vm - 1], e->src, bound))
		*bound = UINT64_MAX / 4;	/* no guaranteed bound: every piece too short */
	return &r->vms[vm - 1];
}

static void guest_switch(void *ctx, const struct hvt_fed_event *e)
{
	const struct hvt_sched_switch *sw = &e->ev.sw;
	struct hvt_vm_analysis *a;
	uint64_t bound;

	if (e->cpu == HVT_NO_CPU || !(a = guest_vm(ctx, e, &bound)))
		return;
	hvt_vm_analysis_guest_switch(a, e->cpu, e->ts, bound, sw->prev, sw->runnable,
				     sw->prev_comm, sw->next, sw->next_comm);
}

static void guest_wakeup(void *ctx, const struct hvt_fed_event *e)
{
	struct hvt_vm_analysis *a;
	uint64_t bound;

	if ((a = guest_vm(ctx, e, &bound)))
		hvt_vm_analysis_guest_wakeup(a, e->ts, bound, e->ev.wakeup.tid,
					     e->ev.wakeup.comm);
}

static const struct hvt_event_listener listener = {
	.host = { [HVT_EV_SCHED_SWITCH] = host_switch, [HVT_EV_KVM_ENTRY] = kvm_entry,
		  [HVT_EV_KVM_EXIT] = kvm_exit },
	.guest = { [HVT_EV_SCHED_SWITCH] = guest_switch, [HVT_EV_SCHED_WAKEUP] = guest_wakeup },
	.host_lost = host_lost,
	.comms = true,
};

static int merge(struct analyze_run *r, struct hvt_timeline *tl)
{
	struct hvt_event_feed feed;
	struct hvt_source *s;
	uint64_t last = 0;
	size_t i;

	if (hvt_event_feed_init(&feed, r->ses, &listener, r))
		return -1;
	while ((s = hvt_timeline_next(tl))) {
		hvt_event_feed(&feed, s);
		last = s->host_tsc;
	}
	hvt_event_feed_free(&feed);
	for (i = 0; i < r->ses->archive.nr_vms; i++)
		if (!r->why[i])
			hvt_vm_analysis_finish(&r->vms[i], last);
	return 0;
}

static int report(struct analyze_run *r, const struct hvt_analyze_opts *o, FILE *out)
{
	struct hvt_session *ses = r->ses;
	const struct hvt_clock_pair *p = &ses->archive.pairs[0];
	struct hvt_analysis_view v = o->view;
	size_t i, done = 0;

	v.ns_per_tick = hvt_host_clock_ticks_us(&ses->clock, p->tsc, 1000000) / 1e6 * 1e3;
	if (o->tsv)
		hvt_analysis_tsv_header(out);
	for (i = 0; i < ses->archive.nr_vms; i++) {
		if (r->why[i]) {
			if (vm_selected(o->sel, ses->archive.vms[i].name))
				hvt_warn("VM %s is not analysed: %s", ses->archive.vms[i].name,
					 r->why[i]);
			continue;
		}
		v.tcg = ses->vms[i].vm.tcg;
		if (o->tsv)
			hvt_analysis_tsv(out, &r->vms[i], &v);
		else
			hvt_analysis_text(out, &r->vms[i], &v);
		done++;
	}
	if (!done)
		hvt_err("%s: no VM could be analysed", ses->archive.root);
	return done ? 0 : 1;
}

int hvt_analyze_run(struct hvt_session *ses, struct hvt_timeline *tl,
		    const struct hvt_analyze_opts *o, FILE *out)
{
	struct analyze_run r = { .ses = ses };
	size_t i, n = ses->archive.nr_vms;
	int ret = 1;

	r.vms = calloc(n + 1, sizeof(*r.vms));
	r.why = calloc(n + 1, sizeof(*r.why));
	if (!r.vms || !r.why) {
		hvt_err("out of memory");
		goto out;
	}
	for (i = 0; i < n; i++)
		r.why[i] = vm_init(&r, o->sel, i);
	r.kvm = kvm_vm(&r);
	if (merge(&r, tl))
		hvt_err("out of memory");
	else
		ret = report(&r, o, out);
out:
	for (i = 0; r.vms && r.why && i < n; i++)
		if (!r.why[i])
			hvt_vm_analysis_free(&r.vms[i]);
	free(r.vms);
	free(r.why);
	return ret;
}
