/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vm_analyses.h - the analysis (vm_analysis.h) of each VM of a session
 * that can be analysed, fed a time line's scheduling and KVM events: the
 * host's sched_switch and losses to every VM's (and the host's wake chains,
 * from its sched_switch and sched_wakeup, to each VM's vCPU threads), the
 * host's kvm_exit and
 * kvm_entry to the archive's one KVM VM (they name no VM), each guest's
 * sched_switch and sched_wakeup, with their bounds, to its own.
 *
 * A VM is analysed if it is selected, its guest events can be aligned, the
 * manifest names its vCPU threads and the host layer is the recording's
 * own; for the others, why not.
 */
#ifndef HVT_TOOLS_MODEL_VM_ANALYSES_H
#define HVT_TOOLS_MODEL_VM_ANALYSES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/merge/event_feed.h"
#include "tools/model/vm_analysis.h"

struct hvt_vm_analyses {
	struct hvt_session *ses;
	struct hvt_vm_analysis *vms;	/* one per VM of the archive */
	const char **why;		/* per VM: not analysed, why (NULL: analysed) */
	struct hvt_vm_analysis *kvm;	/* the one KVM VM the host's exits are of */
	struct hvt_wait_chains host_waits;	/* the host's wake chains, for the vCPU threads' */
};

struct hvt_vm_analyses_opts {
	const char *const *vms;		/* only these VMs (none: every one) */
	size_t nr_vms;
	uint64_t from, to;		/* host TSC: only time within [from, to) counts */
};

/* The analyses of @ses's VMs; -1 if out of memory. */
int hvt_vm_analyses_init(struct hvt_vm_analyses *va, struct hvt_session *ses,
			 const struct hvt_vm_analyses_opts *o);
void hvt_vm_analyses_free(struct hvt_vm_analyses *va);
/* Whether VM @name is one @o selects. */
bool hvt_vm_analyses_selects(const struct hvt_vm_analyses_opts *o, const char *name);

/* The feed's events, each to the analyses it concerns (@ctx: the analyses). */
void hvt_vm_analyses_host_switch(void *ctx, const struct hvt_fed_event *e);
void hvt_vm_analyses_host_wakeup(void *ctx, const struct hvt_fed_event *e);
void hvt_vm_analyses_kvm_entry(void *ctx, const struct hvt_fed_event *e);
void hvt_vm_analyses_kvm_exit(void *ctx, const struct hvt_fed_event *e);
void hvt_vm_analyses_host_lost(void *ctx, uint32_t cpu, uint64_t from, uint64_t until);
void hvt_vm_analyses_guest_switch(void *ctx, const struct hvt_fed_event *e);
void hvt_vm_analyses_guest_wakeup(void *ctx, const struct hvt_fed_event *e);
/* ... as one listener. */
extern const struct hvt_event_listener hvt_vm_analyses_listener;
/* The trace ended at host TSC @end. */
void hvt_vm_analyses_finish(struct hvt_vm_analyses *va, uint64_t end);
/*
 * The error bound of guest event @e's, in host ticks; where it has no
 * guaranteed one, so large that every piece it ends is too short.
 */
uint64_t hvt_vm_analyses_bound(const struct hvt_vm_analyses *va, const struct hvt_fed_event *e);

#endif
