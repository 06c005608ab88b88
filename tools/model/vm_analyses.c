// SPDX-License-Identifier: GPL-2.0-only
/*
 * vm_analyses.c - every analysable VM's analysis, fed a time line's events
 * (vm_analyses.h).
 */
#include <stdlib.h>
#include <string.h>

#include "tools/model/vm_analyses.h"

bool hvt_vm_analyses_selects(const struct hvt_vm_analyses_opts *o, const char *name)
{
	size_t i;

	for (i = 0; i < o->nr_vms; i++)
		if (!strcmp(o->vms[i], name))
			return true;
	return !o->nr_vms;
}

/*
 * The vCPUs of VM @i whose guest kernel stream could not be opened, or is
 * shorter than recorded (emptied, cut: known as it is opened), where the
 * VM recorded a guest kernel: their running time is not split. A cut
 * stream's vCPU would keep its last guest task (or idle) for the rest of
 * the recording; all of its running time is unknown instead: wider than
 * the truth, never wrong.
 */
static void mark_missing_streams(struct hvt_vm_analyses *va, size_t i)
{
	const struct hvt_session *ses = va->ses;
	const struct hvt_vm_info *vm = &ses->vms[i].vm;
	size_t c, k;
	bool kernel = false;

	for (k = 0; k < vm->nr_traces; k++)
		kernel |= vm->traces[k].layer == HVT_LAYER_KERNEL;
	for (c = 0; kernel && c < ses->archive.vms[i].nr_vcpu_tids; c++) {
		bool found = false;

		for (k = 0; k < ses->nr_sources && !found; k++) {
			const struct hvt_source *s = ses->sources[k];

			found = s->layer == HVT_LAYER_KERNEL && s->vm_number == i + 1 &&
				s->guest_cpu == (int32_t)c && s->rd.ops && !s->incomplete;
		}
		if (!found)
			hvt_vm_analysis_no_guest_stream(&va->vms[i], c);
	}
}

/* Sets up VM @i's analysis, or says why it cannot be made. */
static const char *vm_init(struct hvt_vm_analyses *va, const struct hvt_vm_analyses_opts *o,
			   size_t i)
{
	struct hvt_session *ses = va->ses;
	const struct hvt_vm_ref *ref = &ses->archive.vms[i];

	if (!hvt_vm_analyses_selects(o, ref->name))
		return "not selected";
	if (!ses->vms[i].loaded || !ses->vms[i].al.aligned)
		return "its guest events cannot be aligned (see the warnings)";
	if (!ref->nr_vcpu_tids)
		return "the manifest does not name its vCPU threads (vcpu_threads)";
	if (!hvt_session_host_recorded(ses))
		return hvt_session_host_missing(ses);
	if (hvt_vm_analysis_init(&va->vms[i], ref->name, ref->vcpu_tids, ref->nr_vcpu_tids,
				 ses->archive.pairs[0].tsc, o->from, o->to))
		return "out of memory";
	mark_missing_streams(va, i);
	return NULL;
}

/* The host's kvm_exit/kvm_entry are of the archive's one KVM VM, if one. */
static struct hvt_vm_analysis *kvm_vm(struct hvt_vm_analyses *va)
{
	struct hvt_vm_analysis *found = NULL;
	size_t i, n = 0;

	for (i = 0; i < va->ses->archive.nr_vms; i++)
		if (va->ses->vms[i].loaded && va->ses->vms[i].vm.kvm) {
			n++;
			found = va->why[i] ? NULL : &va->vms[i];
		}
	return n == 1 ? found : NULL;
}

/* A host wait ended: to each analysed VM, which counts it if a vCPU thread's. */
static void on_host_wait(void *ctx, const struct hvt_wait_chain *c)
{
	struct hvt_vm_analyses *va = ctx;
	size_t i;

	for (i = 0; i < va->ses->archive.nr_vms; i++)
		if (!va->why[i])
			hvt_vm_analysis_host_wait(&va->vms[i], c);
}

int hvt_vm_analyses_init(struct hvt_vm_analyses *va, struct hvt_session *ses,
			 const struct hvt_vm_analyses_opts *o)
{
	size_t i, n = ses->archive.nr_vms;

	memset(va, 0, sizeof(*va));
	va->ses = ses;
	va->vms = calloc(n + 1, sizeof(*va->vms));
	va->why = calloc(n + 1, sizeof(*va->why));
	if (!va->vms || !va->why) {
		hvt_vm_analyses_free(va);
		return -1;
	}
	for (i = 0; i < n; i++)
		va->why[i] = vm_init(va, o, i);
	va->kvm = kvm_vm(va);
	hvt_wait_chains_init(&va->host_waits, on_host_wait, va);
	return 0;
}

void hvt_vm_analyses_free(struct hvt_vm_analyses *va)
{
	size_t i;

	for (i = 0; va->vms && va->why && i < va->ses->archive.nr_vms; i++)
		if (!va->why[i])
			hvt_vm_analysis_free(&va->vms[i]);
	free(va->vms);
	free(va->why);
	hvt_wait_chains_free(&va->host_waits);
	memset(va, 0, sizeof(*va));
}

void hvt_vm_analyses_host_switch(void *ctx, const struct hvt_fed_event *e)
{
	struct hvt_vm_analyses *va = ctx;
	const struct hvt_sched_switch *sw = &e->ev.sw;
	size_t i;

	for (i = 0; i < va->ses->archive.nr_vms; i++)
		if (!va->why[i])
			hvt_vm_analysis_host_switch(&va->vms[i], e->cpu, e->ts, sw->prev,
						    sw->runnable, sw->next, sw->next_comm);
	hvt_wait_chains_switch(&va->host_waits, e->ts, 0, sw);
}

/* Whether @tid is a vCPU thread of analysed VM @i. */
static bool vcpu_thread(const struct hvt_vm_analyses *va, size_t i, int32_t tid)
{
	size_t v;

	for (v = 0; !va->why[i] && v < va->vms[i].runs.nr; v++)
		if (va->vms[i].runs.tids[v] == tid)
			return true;
	return false;
}

void hvt_vm_analyses_host_wakeup(void *ctx, const struct hvt_fed_event *e)
{
	struct hvt_vm_analyses *va = ctx;
	size_t i;

	for (i = 0; i < va->ses->archive.nr_vms; i++)
		if (e->ev.wakeup.tid > 0 && vcpu_thread(va, i, e->ev.wakeup.tid))
			va->vms[i].host_wakeups++;
	hvt_wait_chains_wakeup(&va->host_waits, e->ts, 0, e->ev.wakeup.tid, e->ev.wakeup.comm,
			       e->tid);
}

void hvt_vm_analyses_kvm_entry(void *ctx, const struct hvt_fed_event *e)
{
	struct hvt_vm_analyses *va = ctx;

	if (va->kvm)
		hvt_vm_analysis_kvm(va->kvm, e->ev.kvm.vcpu, true, e->ts, 0);
}

void hvt_vm_analyses_kvm_exit(void *ctx, const struct hvt_fed_event *e)
{
	struct hvt_vm_analyses *va = ctx;

	if (va->kvm)
		hvt_vm_analysis_kvm(va->kvm, e->ev.kvm.vcpu, false, e->ts, e->ev.kvm.exit_reason);
}

void hvt_vm_analyses_host_lost(void *ctx, uint32_t cpu, uint64_t from, uint64_t until)
{
	struct hvt_vm_analyses *va = ctx;
	size_t v;

	for (v = 0; v < va->ses->archive.nr_vms; v++)
		if (!va->why[v])
			hvt_vm_analysis_host_lost(&va->vms[v], cpu, from, until);
	hvt_wait_chains_lost(&va->host_waits, until);
}

uint64_t hvt_vm_analyses_bound(const struct hvt_vm_analyses *va, const struct hvt_fed_event *e)
{
	uint64_t bound;

	if (hvt_source_error_bound(&va->ses->vms[e->src->vm_number - 1], e->src, &bound))
		return UINT64_MAX / 4;	/* no guaranteed bound: every piece too short */
	return bound;
}

/* A guest event's analysis, unless its VM is not analysed. */
static struct hvt_vm_analysis *guest_vm(struct hvt_vm_analyses *va, const struct hvt_fed_event *e)
{
	size_t vm = e->src->vm_number;

	return va->why[vm - 1] ? NULL : &va->vms[vm - 1];
}

void hvt_vm_analyses_guest_switch(void *ctx, const struct hvt_fed_event *e)
{
	const struct hvt_sched_switch *sw = &e->ev.sw;
	struct hvt_vm_analysis *a;

	if (e->cpu == HVT_NO_CPU || !(a = guest_vm(ctx, e)))
		return;
	hvt_vm_analysis_guest_switch(a, e->cpu, e->ts, hvt_vm_analyses_bound(ctx, e), sw->prev,
				     sw->runnable, sw->prev_comm, sw->next, sw->next_comm);
}

void hvt_vm_analyses_guest_wakeup(void *ctx, const struct hvt_fed_event *e)
{
	struct hvt_vm_analysis *a = guest_vm(ctx, e);

	if (a)
		hvt_vm_analysis_guest_wakeup(a, e->ts, hvt_vm_analyses_bound(ctx, e),
					     e->ev.wakeup.tid, e->ev.wakeup.comm, e->tid);
}

const struct hvt_event_listener hvt_vm_analyses_listener = {
	.host = { [HVT_EV_SCHED_SWITCH] = hvt_vm_analyses_host_switch,
		  [HVT_EV_SCHED_WAKEUP] = hvt_vm_analyses_host_wakeup,
		  [HVT_EV_KVM_ENTRY] = hvt_vm_analyses_kvm_entry,
		  [HVT_EV_KVM_EXIT] = hvt_vm_analyses_kvm_exit },
	.guest = { [HVT_EV_SCHED_SWITCH] = hvt_vm_analyses_guest_switch,
		   [HVT_EV_SCHED_WAKEUP] = hvt_vm_analyses_guest_wakeup },
	.host_lost = hvt_vm_analyses_host_lost,
	.comms = true,
};

void hvt_vm_analyses_finish(struct hvt_vm_analyses *va, uint64_t end)
{
	size_t i;

	for (i = 0; i < va->ses->archive.nr_vms; i++)
		if (!va->why[i])
			hvt_vm_analysis_finish(&va->vms[i], end);
}
