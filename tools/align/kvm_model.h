/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kvm_model.h - a KVM VM's exact guest TSC timeline per vCPU, from what the
 * collector recorded (docs/clock-model.md, "KVM: the exact path"):
 *
 *   kvm:kvm_write_tsc_offset in the host layer: every offset change, at the
 *       host instant it happened (source "tracepoint");
 *   vm/NAME/kvm_tsc.tsv: debugfs snapshots, taken at start, every second
 *       and at stop (host/kvm_tsc.h).
 *
 * Which is used: the tracepoint for every change; before a vCPU's first
 * traced change, the earliest snapshot, else that change's previous offset; the scaling ratio from debugfs (the tracepoint has none),
 * unscaled where debugfs has no ratio files. Every snapshot and every
 * change's previous offset is then checked against the timeline: a
 * disagreement is kept and reported, never silently resolved.
 */
#ifndef HVT_TOOLS_ALIGN_KVM_MODEL_H
#define HVT_TOOLS_ALIGN_KVM_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "clocksync/tsc_timeline.h"
#include "tools/archive/archive.h"
#include "tools/read/ftrace_reader.h"

/* One kvm:kvm_write_tsc_offset. */
struct hvt_kvm_change {
	uint64_t host;			/* host TSC */
	uint32_t vcpu;
	uint64_t prev, next;
	uint64_t order;			/* as read: ties at one instant keep it */
};

struct hvt_kvm_changes {
	struct hvt_kvm_change *v;	/* by host time */
	size_t n, cap;
};

/* A source that said otherwise than the timeline. */
struct hvt_kvm_disagreement {
	uint64_t host;			/* when it was read or happened */
	enum hvt_tsc_source source;	/* what said so */
	uint64_t said, used;		/* offsets (or ratios, if @ratio) */
	int ratio;
};

struct hvt_kvm_vcpu {
	uint32_t id;
	struct hvt_tsc_timeline tl;
	unsigned long changes, readings, disagreements;
	struct hvt_kvm_disagreement first;	/* the earliest, if disagreements */
};

struct hvt_kvm_model {
	struct hvt_kvm_vcpu *vcpus;	/* by id */
	size_t nr_vcpus;
	size_t nr_readings;
	unsigned long warnings;		/* kvm_tsc.tsv lines skipped */
	const char *unusable;		/* why there is no exact timeline, or NULL */
};

/*
 * Every kvm_write_tsc_offset in the host layer (@a's CPU files through @ft),
 * into @out (zeroed by the caller), sorted by host time. -1 if out of memory.
 */
int hvt_kvm_changes_read(const struct hvt_archive *a, struct hvt_ftrace *ft,
			 struct hvt_kvm_changes *out);
void hvt_kvm_changes_free(struct hvt_kvm_changes *c);

/*
 * Builds @vm's model from the @changes of its VMM (NULL if the host layer
 * was not recorded) and its kvm_tsc.tsv. 0 with m->unusable set when there
 * is nothing exact to build (no data, or several VMs in one process); -1 if
 * out of memory.
 */
int hvt_kvm_model_build(struct hvt_kvm_model *m, const struct hvt_vm_info *vm,
			const struct hvt_kvm_changes *changes);
const struct hvt_kvm_vcpu *hvt_kvm_model_vcpu(const struct hvt_kvm_model *m, uint32_t id);
/*
 * The timeline every vCPU follows, for streams whose events move between
 * vCPUs (a thread's): vCPU 0's if all vCPUs have the same transforms in the
 * same order (KVM keeps a VM's vCPUs in step), else NULL.
 */
const struct hvt_tsc_timeline *hvt_kvm_model_common(const struct hvt_kvm_model *m);
/*
 * The timeline of a guest stream: the common one when there is one (then
 * which vCPU ran an event does not matter), else vCPU @cpu's for a per-CPU
 * stream (guest CPU n taken as vCPU id n, as QEMU numbers them for the usual
 * topologies), else NULL.
 */
const struct hvt_tsc_timeline *hvt_kvm_model_stream(const struct hvt_kvm_model *m, int32_t cpu);
/*
 * The first of the @n exchanges that the model contradicts, judged in the
 * guest's domain where the transform is exact: the guest TSC at the host's
 * send (on the timeline of the CPU that received) above the guest's receive
 * stamp, or the guest's send stamp above the guest TSC at the host's
 * receive; or whose CPU the model cannot place. An exchange during which an
 * offset changed is only counted in *@exempt. NULL if none.
 */
const struct hvt_sync_rec *hvt_kvm_model_first_violation(const struct hvt_kvm_model *m,
							 const struct hvt_sync_rec *recs,
							 size_t n, size_t *exempt);
void hvt_kvm_model_free(struct hvt_kvm_model *m);
const char *hvt_tsc_source_name(enum hvt_tsc_source s);

#endif
