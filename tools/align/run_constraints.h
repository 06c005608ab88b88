/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * run_constraints.h - the host's scheduling of a VM's vCPU threads as
 * constraints on its clock (docs/clock-model.md, "Run intervals").
 *
 * A guest event on vCPU n happened while vCPU n's host thread ran on a host
 * CPU; for the guest kernel's per-CPU streams, whose module reads the TSC
 * with preemption off, n is the stream's CPU for certain (a user event's
 * CPU is read apart from its TSC, so user events are not used). The host
 * layer's sched_switch events give those runs (host_runs.h), as supersets:
 * a missing switch-in widens a run, never narrows it. Any host time where
 * a host CPU lost events is unknown for every vCPU (a run may hide there),
 * and so is a thread's before the host first saw it and after the host
 * layer's last event. Under KVM the vCPUs' kvm_entry -> kvm_exit windows
 * serve the same way, far shorter. So an event whose guaranteed host
 * interval meets exactly one run of its vCPU's thread, and no unknown
 * span, lies in that run: host_start <= host(g) <= host_end. Per
 * run, its first such event g_min and last g_max give two one-way bounds:
 * at the run's start the guest clock read at most g_min, at its end at
 * least g_max. A bound is kept only if its event lies within the
 * exchanges' longest round trip of its edge, so that no bound reaches
 * further than the margin the estimator keeps around clock changes. They
 * are fitted with the clock exchanges; the tighter clock makes more events
 * unambiguous, so the fit repeats until the bounds stop changing (at most
 * HVT_RUN_ROUNDS rounds).
 *
 * The guarantee stays a guarantee: an event whose interval meets no run and
 * no unknown span contradicts the host data (lost events, a thread mapped to
 * the wrong vCPU): that vCPU's runs are then not used at all, and said so.
 * A refit that makes any clock exchange non-causal, or splits the clock into
 * more segments than the exchanges alone, is rejected as a whole. Last, the
 * bounds are held out against each other: a fit with the exchanges and
 * every other bound must not contradict any of the rest (its guaranteed
 * interval); if one does, the runs are not used at all. A clock that
 * changed during the recording is used segment by segment
 * (clocksync/run_bounds.h).
 *
 * The host's events are read once per recording (host_switches.h) and
 * turned into each vCPU's spans (vcpu_spans.h); this is the fit.
 */
#ifndef HVT_TOOLS_ALIGN_RUN_CONSTRAINTS_H
#define HVT_TOOLS_ALIGN_RUN_CONSTRAINTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/align/align.h"
#include "tools/archive/archive.h"
#include "tools/read/ctf_reader.h"
#include "tools/align/host_switches.h"
#include "tools/read/ftrace_reader.h"

#define HVT_RUN_ROUNDS		4
#define HVT_RUN_MAX_EVENTS	(1u << 22)	/* candidate guest events kept per VM */

/* What the run intervals did for a VM's clock. */
struct hvt_run_fit {
	size_t samples;			/* one-way bounds fitted, in the last accepted round */
	uint64_t digest;		/* ... of those bounds, to tell one set from another */
	size_t events;			/* unambiguous guest events behind them */
	size_t rounds;			/* accepted refits */
	size_t contradictions;		/* events outside every run: their vCPU unused */
	size_t vcpus_unused;
	size_t candidates;		/* guest events near a run's edge, considered */
	size_t held_out;		/* bounds judged against a fit of the others */
	bool windows;			/* from kvm_entry -> kvm_exit, not thread runs */
	const char *rejected;		/* a refit contradicted the exchanges: why */
};

/*
 * Refits @clock, fitted to @vm's exchanges and @points, with the runs of
 * its vCPU threads @tids[0..@nr) (vCPU n's at n, 0: unknown) from @hs, or,
 * with @kvm_windows (the archive's one KVM VM, whose host layer has
 * kvm_entry/kvm_exit), with its vCPUs' kvm_entry -> kvm_exit windows,
 * which a guest event lies in just the same and which are far shorter.
 * @clock is replaced only by a fit that keeps every exchange causal. -1 if
 * out of memory (@clock then unchanged), else 0, with @r filled.
 */
int hvt_run_constraints_fit(struct hvt_vm_clock *clock, const struct hvt_vm_info *vm,
			    const struct hvt_ctf_types *types, const struct hvt_host_switches *hs,
			    const int32_t *tids, size_t nr, bool kvm_windows,
			    const struct hvt_sync_point *points, size_t nr_points,
			    struct hvt_run_fit *r);

#endif
