// SPDX-License-Identifier: GPL-2.0-only
/*
 * check_events.c - the checks of `hvtrace check` made event by event while
 * the merge runs (check_events.h): every guest event's error bound, and
 * where it falls against its vCPU's kvm_entry -> kvm_exit windows.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/check/check_events.h"

/* The host layer's kvm_entry/kvm_exit events belong to one VM only if the
 * archive has one KVM VM: they do not say which VM they are of. */
static struct hvt_session_vm *windows_vm(struct hvt_session *ses, const char **why)
{
	struct hvt_session_vm *found = NULL;
	size_t i, kvm = 0;

	for (i = 0; i < ses->archive.nr_vms; i++)
		if (ses->vms[i].loaded && ses->vms[i].vm.kvm) {
			found = &ses->vms[i];
			kvm++;
		}
	*why = NULL;
	if (kvm > 1) {
		*why = "the archive has several KVM VMs, and the host's kvm_entry/kvm_exit "
		       "do not say which VM they are of";
		return NULL;
	}
	if (found && !ses->ftrace)
		*why = hvt_session_host_missing(ses);
	return found;
}

/* Host CPU @cpu lost events after host TSC @was, until @until. */
static void host_lost(void *ctx, uint32_t cpu, uint64_t was, uint64_t until)
{
	struct hvt_check_events *ce = ctx;
	size_t i;

	hvt_vcpu_windows_host_lost(&ce->windows, until);
	for (i = 0; i < ce->ses->archive.nr_vms; i++)
		if (!ce->vms[i].threads_why)
			hvt_vcpu_threads_lost(&ce->vms[i].threads, cpu, was, until);
}

/* A host sched_switch: every VM's vCPU threads. */
static void host_switch(void *ctx, const struct hvt_fed_event *e)
{
	struct hvt_check_events *ce = ctx;
	const struct hvt_sched_switch *sw = &e->ev.sw;
	size_t i;

	ce->sched_switch = true;
	for (i = 0; i < ce->ses->archive.nr_vms; i++)
		if (!ce->vms[i].threads_why)
			hvt_vcpu_threads_switch(&ce->vms[i].threads, e->cpu, e->ts, sw->prev,
						sw->runnable, sw->next);
}

static void kvm_entry(void *ctx, const struct hvt_fed_event *e)
{
	hvt_vcpu_windows_open(&((struct hvt_check_events *)ctx)->windows, e->ev.kvm.vcpu, e->ts);
}

static void kvm_exit(void *ctx, const struct hvt_fed_event *e)
{
	hvt_vcpu_windows_close(&((struct hvt_check_events *)ctx)->windows, e->ev.kvm.vcpu, e->ts);
}

static void io_event(void *ctx, const struct hvt_fed_event *e)
{
	hvt_io_flows_event(&((struct hvt_check_events *)ctx)->io, e);
}

/* Guest scheduling events matter to io-causal only while a request is in flight. */
static bool skip(void *ctx, const struct hvt_source *s)
{
	return hvt_io_flows_skip(&((struct hvt_check_events *)ctx)->io, s);
}

static const struct hvt_event_listener listener = {
	.host = { [HVT_EV_SCHED_SWITCH] = host_switch, [HVT_EV_KVM_ENTRY] = kvm_entry,
		  [HVT_EV_KVM_EXIT] = kvm_exit, [HVT_EV_KVM_MSI] = io_event,
		  [HVT_EV_KVM_SET_IRQ] = io_event, [HVT_EV_KVM_APIC_ACCEPT] = io_event,
		  [HVT_EV_KVM_INJ_VIRQ] = io_event },
	.guest = { [HVT_EV_SCHED_SWITCH] = io_event, [HVT_EV_SCHED_WAKEUP] = io_event,
		   [HVT_EV_BLOCK_RQ_ISSUE] = io_event, [HVT_EV_BLOCK_RQ_COMPLETE] = io_event },
	.vmm = { [HVT_EV_VIRTIO_BLK_HANDLE] = io_event, [HVT_EV_VIRTIO_BLK_REQ_COMPLETE] = io_event,
		 [HVT_EV_VIRTIO_NOTIFY] = io_event, [HVT_EV_POOL_SUBMIT] = io_event,
		 [HVT_EV_POOL_COMPLETE] = io_event },
	.host_lost = host_lost,
	.skip = skip,
};

/* vcpu-threads[VM]: why VM @i cannot be judged, or NULL after setting it up. */
static const char *threads_init(struct hvt_check_events *ce, size_t i)
{
	struct hvt_session *ses = ce->ses;
	const struct hvt_vm_ref *ref = &ses->archive.vms[i];

	if (ses->vms[i].loaded && hvt_vm_info_host_only(&ses->vms[i].vm))
		return "recorded with the host layer only: no guest event";
	if (!ses->vms[i].loaded || (!ses->vms[i].al.aligned && !ses->vms[i].al.exact))
		return "the VM's guest events are not on the time line";	/* the report says why */
	if (!ref->nr_vcpu_tids)
		return "the manifest does not name the VM's vCPU threads (vcpu_threads)";
	if (!hvt_session_host_recorded(ses))
		return hvt_session_host_missing(ses);
	if (hvt_vcpu_threads_init(&ce->vms[i].threads, ref->vcpu_tids, ref->nr_vcpu_tids,
				  ses->archive.pairs[0].tsc))
		return "out of memory";
	return NULL;
}

int hvt_check_events_init(struct hvt_check_events *ce, struct hvt_session *ses)
{
	size_t i;

	memset(ce, 0, sizeof(*ce));
	ce->ses = ses;
	ce->vms = calloc(ses->archive.nr_vms ? ses->archive.nr_vms : 1, sizeof(*ce->vms));
	if (!ce->vms) {
		hvt_check_events_free(ce);
		return -1;
	}
	ce->windows_vm = windows_vm(ses, &ce->windows_why);
	hvt_vcpu_windows_init(&ce->windows);
	for (i = 0; i < ses->archive.nr_vms; i++)
		ce->vms[i].threads_why = threads_init(ce, i);
	if (hvt_io_flows_init(&ce->io, ses)) {
		hvt_check_events_free(ce);
		return -1;
	}
	if (hvt_event_feed_init(&ce->feed, ses, &listener, ce)) {
		hvt_check_events_free(ce);
		return -1;
	}
	return 0;
}

void hvt_check_events_free(struct hvt_check_events *ce)
{
	size_t i;

	for (i = 0; ce->vms && i < ce->ses->archive.nr_vms; i++)
		hvt_vcpu_threads_free(&ce->vms[i].threads);
	hvt_vcpu_windows_free(&ce->windows);
	hvt_event_feed_free(&ce->feed);
	if (ce->io.vms)
		hvt_io_flows_free(&ce->io);
	free(ce->vms);
	memset(ce, 0, sizeof(*ce));
}

static void guest_event(struct hvt_check_events *ce, struct hvt_source *s)
{
	size_t vm = s->vm_number;
	struct hvt_session_vm *st;
	struct hvt_event_bounds *b;
	uint32_t cpu;
	uint64_t bound;

	if (!vm)
		return;
	st = &ce->ses->vms[vm - 1];
	b = &ce->vms[vm - 1];
	if (hvt_source_error_bound(st, s, &bound)) {
		b->unbounded++;
		return;
	}
	/* in ns at the event, rounded up: what merge --bounds, the JSON and SQL say */
	hvt_hist_add(&b->hist, (uint64_t)hvt_session_event_bound_ns(ce->ses, s));
	cpu = hvt_source_cpu(s);
	if (!b->threads_why) {
		if (cpu == HVT_CTF_NO_CPU)
			b->threads.windows.unjudged++;
		else
			hvt_vcpu_threads_guest(&b->threads, cpu, s->host_tsc, bound, s, s->events);
	}
	if (st != ce->windows_vm || ce->windows_why)
		return;
	if (cpu == HVT_CTF_NO_CPU)
		ce->windows.unjudged++;
	else
		hvt_vcpu_windows_guest(&ce->windows, cpu, s->host_tsc, bound, s, s->events);
}

void hvt_check_events_next(struct hvt_check_events *ce, struct hvt_source *s)
{
	hvt_event_feed(&ce->feed, s);
	ce->last_tsc = s->host_tsc;
	if (s->layer != HVT_LAYER_HOST)
		guest_event(ce, s);
}

void hvt_check_events_finish(struct hvt_check_events *ce)
{
	size_t i;

	hvt_vcpu_windows_finish(&ce->windows);
	hvt_io_flows_finish(&ce->io);
	for (i = 0; i < ce->ses->archive.nr_vms; i++)
		if (!ce->vms[i].threads_why)
			hvt_vcpu_threads_finish(&ce->vms[i].threads, ce->last_tsc);
}
