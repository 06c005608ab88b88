/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vm_align.h - the alignment policy: how each VM's guest clock is placed
 * on the host's (docs/clock-model.md).
 *
 * Under KVM, by KVM's own TSC parameters per vCPU (kvm_model.h) where the
 * host layer recorded them, they cover every guest stream, and no clock
 * exchange contradicts them: exact. Otherwise by the estimate (align.h)
 * fitted to the VM's clock exchanges and its sync points (sync_points.h),
 * with a guaranteed bound, then tightened by the runs of its vCPU threads
 * where the manifest names them (run_constraints.h). A VM with neither is not aligned; a trace on
 * CLOCK_MONOTONIC_RAW never is. Every decision is said once, as info or as
 * a warning counted in the host layer's warnings.
 */
#ifndef HVT_TOOLS_ALIGN_VM_ALIGN_H
#define HVT_TOOLS_ALIGN_VM_ALIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/align/align.h"
#include "tools/align/kvm_model.h"
#include "tools/align/run_constraints.h"
#include "tools/align/sync_points.h"
#include "tools/archive/archive.h"

/* What alignment reads from the host layer: each pre-pass once, for every VM. */
struct hvt_host_layer {
	const struct hvt_archive *archive;
	struct hvt_ftrace *ftrace;	/* NULL: the host layer was not recorded */
	struct hvt_host_calls calls;	/* sync hypercalls, read when a VM has sync points */
	bool calls_read;
	struct hvt_kvm_changes kvm_changes;	/* kvm_write_tsc_offset, read for a KVM VM */
	bool kvm_changes_read;
	struct hvt_host_switches switches;	/* sched_switch, read for an estimated VM */
	bool switches_read;
	size_t kvm_vms;			/* VMs of the archive under KVM: set before any is aligned */
	unsigned long warnings;
};

/* One VM's alignment. */
struct hvt_vm_align {
	bool aligned;			/* the estimate could be fitted */
	struct hvt_vm_clock clock;	/* ... this one */
	bool exact;			/* aligned by KVM's own TSC parameters instead */
	struct hvt_kvm_model kvm;	/* ... these */
	char kvm_why[192];		/* a KVM VM not aligned by them: why */
	struct hvt_run_fit runs;	/* what its vCPU threads' runs added to the estimate */
	struct hvt_vm_clock_quality before;	/* the estimate from the exchanges alone */
};

/*
 * Decides how @vm is aligned; @types are its traces' event types (for its
 * sync points). -1 if out of memory, else 0 whatever was decided.
 */
int hvt_vm_align(struct hvt_vm_align *st, struct hvt_host_layer *h,
		 const struct hvt_vm_info *vm, const struct hvt_ctf_types *types);
/* Whether trace @t of the VM can be aligned; a warning if it never can. */
bool hvt_vm_align_trace(struct hvt_host_layer *h, const struct hvt_vm_align *st,
			const struct hvt_trace_info *t);
/* Guest TSC -> host TSC for a stream of guest CPU @cpu (-1: per thread) of an aligned trace. */
const struct hvt_tsc_timeline *hvt_vm_align_stream(const struct hvt_vm_align *st, int32_t cpu);
void hvt_vm_align_free(struct hvt_vm_align *st);
void hvt_host_layer_free(struct hvt_host_layer *h);
/* Forgets what was read of a host layer that has grown since: read again when needed. */
void hvt_host_layer_forget(struct hvt_host_layer *h);

#endif
