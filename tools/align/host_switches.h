/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * host_switches.h - the host layer's scheduling and KVM events that the
 * run constraints need (run_constraints.h), read once per recording from
 * every host CPU file, with the spans where a CPU lost events.
 */
#ifndef HVT_TOOLS_ALIGN_HOST_SWITCHES_H
#define HVT_TOOLS_ALIGN_HOST_SWITCHES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/archive/archive.h"
#include "tools/read/ftrace_reader.h"

enum hvt_host_switch_kind { HVT_HS_SCHED, HVT_HS_KVM_ENTRY, HVT_HS_KVM_EXIT };

/*
 * One host CPU's kvm_entry and kvm_exit events, and its sched_switch events
 * that involve a vCPU thread of the archive's VMs, with the switch before
 * and after each on that CPU (all the runs need: each pair of consecutive
 * switches that involves the thread), in file order. The rest of a host's
 * scheduling is not kept: it can be most of the host layer.
 */
struct hvt_host_switch {
	uint64_t ts;
	enum hvt_host_switch_kind kind;
	int32_t prev, next;		/* HVT_HS_SCHED */
	bool runnable;			/* prev left runnable (read/event_decoder.h) */
	uint32_t vcpu;			/* HVT_HS_KVM_* */
	bool lost_before;		/* events were lost since the CPU's previous one ... */
	uint64_t lost_since;		/* ... of these kinds, kept or not, at this time (0: none) */
};

/* Host time where a CPU lost events: anything may have happened there. */
struct hvt_loss_window {
	uint64_t start, end;
};

struct hvt_cpu_switches {
	int cpu;
	struct hvt_host_switch *v;
	size_t n, cap;
	uint64_t last;			/* its last switch or KVM event, kept or not */
};

/* Every host CPU's events of those kinds: read once, for every VM. */
struct hvt_host_switches {
	struct hvt_cpu_switches *cpus;
	size_t nr_cpus;
	struct hvt_loss_window *losses;	/* of every CPU, sorted, merged */
	size_t nr_losses, cap_losses;
	bool kvm;			/* kvm_entry/kvm_exit events are there */
};

int hvt_host_switches_read(const struct hvt_archive *a, struct hvt_ftrace *ft,
			   struct hvt_host_switches *hs);
void hvt_host_switches_free(struct hvt_host_switches *hs);
/* Whether [@lo, @hi] meets a host CPU's loss window (@hs: the host switches). */
bool hvt_host_switches_lost_in(const void *hs, uint64_t lo, uint64_t hi);
/*
 * Calls @fn with every CPU's events in host time order (one cursor per CPU);
 * returns the last one's time, kept or not, or UINT64_MAX if out of memory.
 */
uint64_t hvt_host_switches_replay(const struct hvt_host_switches *hs,
				  void (*fn)(void *ctx, int cpu, const struct hvt_host_switch *e),
				  void *ctx);

#endif
