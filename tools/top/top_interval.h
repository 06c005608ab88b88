/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * top_interval.h - what `hvtrace top` counts between two screens: the
 * pieces each analysed VM's analysis counted since the last (vm_analysis.h,
 * on_piece), summed per vCPU and state, per vCPU and host task that took
 * it (preempted by it, or blocked with it next on the CPU), per KVM exit
 * reason, and per guest thread and what it lost to: a host task while it
 * was current on a vCPU the host did not run, the hypervisor, or its own
 * guest (runnable, waiting for a vCPU); and the latest guest event's
 * error bound. A piece counts when the analysis closes it: at the vCPU
 * thread's next host state change, so an interval holds the pieces that
 * closed in it, which is how their shares are shown.
 *
 * Memory: per VM a fixed number of entries (HVT_TOP_MAX_ENTRIES per
 * table); what does not fit is counted as dropped, and said.
 */
#ifndef HVT_TOOLS_TOP_TOP_INTERVAL_H
#define HVT_TOOLS_TOP_TOP_INTERVAL_H

#include <stddef.h>
#include <stdint.h>

#include "tools/model/vm_analysis.h"

#define HVT_TOP_MAX_ENTRIES	1024	/* per table and interval */

/* What a guest thread lost to, besides host tasks (their tids, >= 0). */
#define HVT_TOP_RAN		-1	/* not lost: it ran guest code */
#define HVT_TOP_RUNNABLE	-2	/* waiting in the guest for a vCPU */
#define HVT_TOP_HYPERVISOR	-3	/* its vCPU in KVM */
#define HVT_TOP_HOST_UNKNOWN	-4	/* its vCPU's thread off CPU, cause unknown */

/* Ticks summed under a pair of keys, with the names the pieces gave. */
struct hvt_top_entry {
	int32_t a, b;
	uint64_t ticks, count;
	char b_name[HVT_COMM_LEN];	/* b's task name, where b is a host task */
};

struct hvt_top_table {
	struct hvt_top_entry v[HVT_TOP_MAX_ENTRIES];
	size_t n;
	uint64_t dropped;		/* pieces with no room left */
};

/* One vCPU's interval. */
struct hvt_top_vcpu {
	uint64_t ticks[HVT_NR_VCPU_STATES];
	uint64_t exits;			/* KVM exits (HYPERVISOR pieces) */
};

/* One VM's interval. */
struct hvt_top_vm {
	struct hvt_vm_analysis *a;	/* its analysis: vCPUs (runs.nr), thread names */
	size_t nr_vcpus;
	struct hvt_top_vcpu *vcpus;
	struct hvt_top_table takers;	/* a vCPU, b the host task: PREEMPTED, BLOCKED */
	struct hvt_top_table exits;	/* a the exit reason: HYPERVISOR */
	struct hvt_top_table threads;	/* a the guest thread, b what it lost to (above) */
	uint64_t bound;			/* the latest guest event's error bound, ticks */
	uint64_t guest_events;		/* ... of so many (0: no bound to show) */
};

/* @vm's interval, for analysis @a (its on_piece is set to feed it); -1 if out of memory. */
int hvt_top_vm_init(struct hvt_top_vm *vm, struct hvt_vm_analysis *a);
void hvt_top_vm_free(struct hvt_top_vm *vm);
/* Empties it for the next interval. */
void hvt_top_vm_reset(struct hvt_top_vm *vm);
/* A piece the analysis counted (@ctx: the struct hvt_top_vm). */
void hvt_top_vm_piece(void *ctx, const struct hvt_vcpu_piece *p);
/* @ticks under (@a, @b) in @t, @name b's name (NULL: none). */
void hvt_top_table_add(struct hvt_top_table *t, int32_t a, int32_t b, const char *name,
		       uint64_t ticks);
/* The entries by ticks, largest first. */
void hvt_top_table_sort(struct hvt_top_table *t);

#endif
