// SPDX-License-Identifier: GPL-2.0-only
/*
 * vm_align.c - how each VM's guest clock is placed on the host's: the
 * alignment policy (vm_align.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "tools/align/vm_align.h"

/*
 * The VM's sync points. The host layer is scanned once, for the first VM
 * whose guest recorded any. -1 if out of memory.
 */
static int vm_sync_points(struct hvt_host_layer *h, const struct hvt_vm_info *vm,
			  const struct hvt_ctf_types *types, struct hvt_sync_point **points,
			  size_t *n)
{
	size_t guest;

	*points = NULL;
	*n = 0;
	if (!h->ftrace || vm->tcg)	/* TCG: the module never makes sync points */
		return 0;
	if (hvt_vm_sync_ends(vm, types, points, &guest))
		return -1;
	if (!guest)
		return 0;
	if (!h->calls_read) {
		h->calls_read = true;
		if (hvt_host_calls_read(h->archive, h->ftrace, &h->calls)) {
			free(*points);
			*points = NULL;
			return -1;
		}
	}
	*n = hvt_sync_points_join(*points, guest, &h->calls);
	if (*n < guest)
		hvt_info("vm %s: %zu of %zu sync points are not in the host layer (kvm:kvm_hypercall "
			 "not recorded, or lost); not used", vm->name, guest - *n, guest);
	return 0;
}

/* Fits the VM's clock; false if it has neither exchanges nor sync points. */
static bool fit_clock(struct hvt_host_layer *h, struct hvt_vm_align *st,
		      const struct hvt_vm_info *vm, const struct hvt_sync_point *points,
		      size_t nr_points)
{
	if (hvt_vm_clock_build(&st->clock, vm->sync, vm->nr_sync, points, nr_points)) {
		/* a VM known by name only, or recorded without a link, has none to miss */
		if (!vm->dir || hvt_vm_info_host_only(vm))
			return false;
		hvt_warn("vm %s: no clock exchanges in sync.tsv and no sync points; its guest "
			 "events cannot be aligned and are skipped", vm->name);
		h->warnings++;
		return false;
	}
	if (st->clock.glitch) {
		hvt_warn("vm %s: clock exchange seq %" PRIu64 " contradicts the exchanges around it; "
			 "guest events near it may be misplaced", vm->name, st->clock.glitch_seq);
		h->warnings++;
	} else if (hvt_vm_clock_segments(&st->clock) > 1) {
		size_t changes = hvt_vm_clock_segments(&st->clock) - 1;

		hvt_info("vm %s: the guest clock changed %zu time%s during the recording; "
			 "aligned piecewise", vm->name, changes, changes == 1 ? "" : "s");
	}
	return true;
}

/* Guest CPUs with a per-CPU stream on the guest TSC. */
static size_t guest_cpus(const struct hvt_vm_info *vm)
{
	bool seen[HVT_W_MAX_CPUS] = { false };
	size_t i, n = 0;

	for (i = 0; i < vm->nr_streams; i++) {
		int32_t cpu = vm->streams[i].cpu;

		if (cpu >= 0 && cpu < HVT_W_MAX_CPUS && !seen[cpu] &&
		    vm->traces[vm->streams[i].trace].domain == HVT_DOMAIN_GUEST_TSC) {
			seen[cpu] = true;
			n++;
		}
	}
	return n;
}

/* Why the model cannot place every stream of the VM, or NULL. */
static const char *kvm_uncovered(const struct hvt_vm_align *st, const struct hvt_vm_info *vm,
				 char *buf, size_t len)
{	size_t i, cpus = guest_cpus(vm);

	/* All vCPUs in step says nothing of vCPUs the recording lacks. */
	if (st->kvm.nr_vcpus < cpus) {
		snprintf(buf, len, "the recording has %zu vCPUs, the guest's streams %zu CPUs",
			 st->kvm.nr_vcpus, cpus);
		return buf;
	}
	for (i = 0; i < vm->nr_streams; i++) {
		const struct hvt_stream_info *si = &vm->streams[i];

		if (vm->traces[si->trace].domain != HVT_DOMAIN_GUEST_TSC ||
		    hvt_kvm_model_stream(&st->kvm, si->cpu))
			continue;
		if (si->cpu < 0)
			return "its vCPUs' transforms differ, and per-thread streams do not say "
			       "which vCPU each event ran on";
		snprintf(buf, len, "its vCPUs' transforms differ, and guest CPU %d has no vCPU "
			 "%d in the recording", si->cpu, si->cpu);
		return buf;
	}
	return NULL;
}

/*
 * Aligns a KVM VM with KVM's own TSC parameters, if the host layer recorded
 * them, they cover every stream, and no clock exchange contradicts them.
 * Otherwise the estimate stays, with the reason said. -1 if out of memory.
 */
static int kvm_exact(struct hvt_host_layer *h, struct hvt_vm_align *st,
		     const struct hvt_vm_info *vm)
{
	const char *name = vm->name, *why;
	const struct hvt_sync_rec *bad;
	unsigned long changes = 0, disagreements = 0;
	char buf[128];
	size_t i, exempt;

	if (!h->ftrace) {
		snprintf(st->kvm_why, sizeof(st->kvm_why), "the host layer was not recorded");
		return 0;
	}
	if (!h->kvm_changes_read) {
		h->kvm_changes_read = true;
		if (hvt_kvm_changes_read(h->archive, h->ftrace, &h->kvm_changes))
			return -1;
	}
	if (hvt_kvm_model_build(&st->kvm, vm, &h->kvm_changes))
		return -1;
	h->warnings += st->kvm.warnings;
	why = st->kvm.unusable ? st->kvm.unusable : kvm_uncovered(st, vm, buf, sizeof(buf));
	if (why) {
		snprintf(st->kvm_why, sizeof(st->kvm_why), "%s", why);
		hvt_info("vm %s: not aligned with KVM's TSC parameters: %s", name, why);
		return 0;
	}
	bad = hvt_kvm_model_first_violation(&st->kvm, vm->sync, vm->nr_sync, &exempt);
	if (bad) {
		snprintf(st->kvm_why, sizeof(st->kvm_why), "they contradict clock exchange seq %"
			 PRIu64 " (guest CPUs %u/%u)", bad->seq, bad->cpu_recv, bad->cpu_send);
		hvt_warn("vm %s: KVM's recorded TSC parameters: %s; aligning with the estimate "
			 "instead (hvtrace tsc shows the parameters)", name, st->kvm_why);
		h->warnings++;
		return 0;
	}
	for (i = 0; i < st->kvm.nr_vcpus; i++) {
		changes += st->kvm.vcpus[i].changes;
		disagreements += st->kvm.vcpus[i].disagreements;
	}
	st->exact = true;
	hvt_info("vm %s: aligned exactly with KVM's TSC parameters (%zu vCPUs, %lu offset "
		 "changes; %zu of %zu exchanges agree, %zu during a change)", name,
		 st->kvm.nr_vcpus, changes, vm->nr_sync - exempt, vm->nr_sync, exempt);
	if (disagreements)
		hvt_info("vm %s: %lu debugfs snapshot(s) or previous offsets disagree with the "
			 "traced changes; the changes are used (hvtrace tsc shows them)", name,
			 disagreements);
	return 0;
}

/* The manifest's vCPU threads of VM @name; 0 if it names none. */
static size_t vcpu_tids(const struct hvt_archive *a, const char *name, const int32_t **tids)
{
	size_t i;

	for (i = 0; i < a->nr_vms; i++)
		if (!strcmp(a->vms[i].name, name)) {
			*tids = a->vms[i].vcpu_tids;
			return a->vms[i].nr_vcpu_tids;
		}
	return 0;
}

/*
 * Tightens an estimated VM's clock with its vCPU threads' runs, where the
 * manifest names them and the host layer has their sched_switch. -1 if out
 * of memory.
 */
static int fit_runs(struct hvt_host_layer *h, struct hvt_vm_align *st,
		    const struct hvt_vm_info *vm, const struct hvt_ctf_types *types,
		    const struct hvt_sync_point *points, size_t nr_points)
{
	struct hvt_run_fit *r = &st->runs;
	const int32_t *tids = NULL;
	size_t nr = h->ftrace ? vcpu_tids(h->archive, vm->name, &tids) : 0;
	bool windows = h->ftrace && vm->kvm && h->kvm_vms == 1;

	hvt_vm_clock_quality(&st->clock, vm->sync, vm->nr_sync, &st->before);
	if (!nr && !windows)
		return 0;
	if (!h->switches_read) {
		h->switches_read = true;
		if (hvt_host_switches_read(h->archive, h->ftrace, &h->switches))
			return -1;
	}
	windows = windows && h->switches.kvm;	/* kvm_entry/kvm_exit were recorded */
	if ((nr || windows) &&
	    hvt_run_constraints_fit(&st->clock, vm, types, &h->switches, tids, nr, windows, points,
				    nr_points, r))
		return -1;
	if (r->samples)
		hvt_detail("vm %s: %s place %zu guest kernel event%s, which give %zu bound%s at "
			 "their edges (%zu refit%s; %zu held out of a fit of the others, none "
			 "contradicting it)", vm->name, r->windows ? "its vCPUs' kvm_entry -> "
			 "kvm_exit windows" : "the host runs of its vCPU threads", r->events,
			 r->events == 1 ? "" : "s", r->samples, r->samples == 1 ? "" : "s",
			 r->rounds, r->rounds == 1 ? "" : "s", r->held_out);
	if (r->vcpus_unused) {
		hvt_warn("vm %s: %zu guest event%s lie outside every run of their vCPU's host "
			 "thread: the host's sched_switch data, the manifest's vcpu_threads and the "
			 "clock exchanges do not fit together; the runs of %zu vCPU%s are not used "
			 "to align it (hvtrace check: vcpu-threads)",
			 vm->name, r->contradictions, r->contradictions == 1 ? "" : "s",
			 r->vcpus_unused, r->vcpus_unused == 1 ? "" : "s");
		h->warnings++;
	}
	if (r->rejected) {
		hvt_warn("vm %s: the vCPU threads' runs are not used to align it: %s", vm->name,
			 r->rejected);
		h->warnings++;
	}
	return 0;
}

/*
 * @in with the exchanges that make a glitch left out (align.h), in @out,
 * whose sync is then @own's (freed by the caller); -1 if out of memory.
 * The archive's own list keeps them: check judges them against the fit.
 */
static int without_glitches(struct hvt_host_layer *h, const struct hvt_vm_info *in,
			    struct hvt_vm_info *out, struct hvt_sync_rec **own)
{
	*out = *in;
	*own = NULL;
	if (!in->nr_sync)
		return 0;
	*own = malloc(in->nr_sync * sizeof(**own));
	if (!*own)
		return -1;
	memcpy(*own, in->sync, in->nr_sync * sizeof(**own));
	out->sync = *own;
	h->warnings += hvt_vm_clock_drop_glitches(in->name, *own, &out->nr_sync);
	return 0;
}

int hvt_vm_align(struct hvt_vm_align *st, struct hvt_host_layer *h,
		 const struct hvt_vm_info *given, const struct hvt_ctf_types *types)
{
	struct hvt_sync_point *points;
	struct hvt_sync_rec *sync;
	struct hvt_vm_info fit;
	const struct hvt_vm_info *vm = &fit;
	size_t nr_points;
	int ret = 0;

	memset(st, 0, sizeof(*st));
	if (without_glitches(h, given, &fit, &sync))
		return -1;
	if (vm_sync_points(h, vm, types, &points, &nr_points)) {
		free(sync);
		return -1;
	}
	st->aligned = fit_clock(h, st, vm, points, nr_points);
	if (vm->kvm && kvm_exact(h, st, vm) < 0)
		ret = -1;
	else if (st->aligned && !st->exact)
		ret = fit_runs(h, st, vm, types, points, nr_points);
	free(points);
	free(sync);
	return ret;
}

bool hvt_vm_align_trace(struct hvt_host_layer *h, const struct hvt_vm_align *st,
			const struct hvt_trace_info *t)
{
	if (t->domain == HVT_DOMAIN_GUEST_TSC)
		return st->aligned || st->exact;
	if (t->domain == HVT_DOMAIN_TSC)	/* the collector takes it from the host only */
		hvt_warn("%s (pid %u): a VM's trace that says it is on the host TSC; "
			 "skipping it", t->rel, t->pid);
	else
		hvt_warn("%s (pid %u): this trace is on CLOCK_MONOTONIC_RAW and cannot be "
			 "aligned with the host; skipping it", t->rel, t->pid);
	h->warnings++;
	return false;
}

const struct hvt_tsc_timeline *hvt_vm_align_stream(const struct hvt_vm_align *st, int32_t cpu)
{
	return st->exact ? hvt_kvm_model_stream(&st->kvm, cpu) : &st->clock.tl;
}

void hvt_vm_align_free(struct hvt_vm_align *st)
{
	hvt_vm_clock_free(&st->clock);
	hvt_kvm_model_free(&st->kvm);
}

void hvt_host_layer_free(struct hvt_host_layer *h)
{
	hvt_host_calls_free(&h->calls);
	hvt_kvm_changes_free(&h->kvm_changes);
	hvt_host_switches_free(&h->switches);
}

void hvt_host_layer_forget(struct hvt_host_layer *h)
{
	hvt_host_layer_free(h);
	h->calls_read = h->kvm_changes_read = h->switches_read = false;
}
