/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * host_runs.h - when the host ran each vCPU's thread, from the host layer's
 * sched_switch events.
 *
 * A tracked thread (a VM's vCPU thread, by the manifest's vcpu_threads) is
 * in one state at a time:
 *
 *   RUNNING    on a host CPU;
 *   PREEMPTED  switched out runnable (prev_state R, or R+; read/event_decoder.h
 *              tells it per kernel): it wanted the CPU
 *              and the task it was switched to (@by) had it;
 *   BLOCKED    switched out sleeping (S, D, ...): for a vCPU thread, a
 *              halted vCPU or QEMU waiting (I/O, a lock);
 *   UNKNOWN    before the host saw it, after the host lost events, or
 *              switched out while a host CPU is lost for good (it may run
 *              there unseen).
 *
 * Each change closes a segment, handed to the caller's function in host
 * time order per thread. A switch-in is the sched_switch whose next is the
 * thread, a switch-out the one whose prev is; both are recorded under the
 * collector's pid filter. The host may still miss a switch-in (this
 * machine's 6.18 kernel emits no sched_switch for idle -> task on one of
 * its CPUs, see shared/background.md), so the rule for when a thread ran is
 * lenient: between two consecutive sched_switch events of a host CPU, the
 * task that ran is the later one's prev. A switch-out with no switch-in
 * before it therefore closes a RUNNING segment that starts at that CPU's
 * previous sched_switch (or at the thread's last change, if later), marked
 * @guessed: wider than the truth, never narrower. Where neither is known
 * (the CPU's first sched_switch, or its first after a loss, of a thread
 * in state UNKNOWN) the time before the switch-out stays UNKNOWN. Such switch-outs are
 * counted in @missing_in; a CPU's switch-out of a tracked thread that was
 * never recorded (the next sched_switch of that CPU has another prev) in
 * @missing_out.
 *
 * Memory: one record per host CPU and per tracked thread.
 */
#ifndef HVT_TOOLS_ALIGN_HOST_RUNS_H
#define HVT_TOOLS_ALIGN_HOST_RUNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/read/event_decoder.h"

enum hvt_run_state {
	HVT_RUN_UNKNOWN,
	HVT_RUN_RUNNING,
	HVT_RUN_PREEMPTED,
	HVT_RUN_BLOCKED,
	HVT_NR_RUN_STATES
};

/* Why a thread's state is UNKNOWN. */
enum hvt_run_unknown {
	HVT_UNKNOWN_UNSEEN,		/* before its first sched_switch */
	HVT_UNKNOWN_HOST_LOST,		/* the host lost events of its CPU */
	HVT_UNKNOWN_CPU_GONE,		/* a host CPU could not be read on: it may run there */
	HVT_UNKNOWN_NO_GUEST_STREAM,	/* (the analysis') it ran, but its vCPU's guest kernel
					 * stream is missing: guest or guest-idle not known */
	HVT_NR_RUN_UNKNOWN
};

/* The task a thread was switched to: it had the CPU next. */
struct hvt_run_cause {
	int32_t tid;			/* -1: not known */
	char comm[HVT_COMM_LEN];
};

struct hvt_run_segment {
	uint32_t thread;		/* index in the tracked list: the vCPU id */
	enum hvt_run_state state;
	uint64_t start, end;		/* host TSC, end > start */
	int32_t cpu;			/* RUNNING: the host CPU; else where it left; -1 */
	bool guessed;			/* RUNNING whose switch-in was not recorded */
	struct hvt_run_cause by;	/* PREEMPTED, BLOCKED: the task switched to */
	enum hvt_run_unknown unknown;	/* UNKNOWN: why */
};

/*
 * A segment. @open: the thread was switched in at @seg->start and still
 * runs (@seg->end is 0); the same segment comes again, closed, at its end.
 */
typedef void (*hvt_run_fn)(void *ctx, const struct hvt_run_segment *seg, bool open);

struct hvt_host_cpu_last;
struct hvt_tracked_thread;

struct hvt_host_runs {
	const int32_t *tids;		/* the tracked threads; 0: none for that index */
	size_t nr;
	struct hvt_tracked_thread *threads;	/* then their index by tid */
	size_t nr_index;
	struct hvt_host_cpu_last *cpus;
	size_t nr_cpus;
	hvt_run_fn fn;
	void *ctx;
	uint64_t switches;		/* sched_switch events involving a tracked thread */
	uint64_t missing_in;		/* switch-outs with no recorded switch-in before */
	uint64_t missing_out;		/* switch-outs that were not recorded */
	uint64_t first_missing_in;	/* the host TSC of the first, if any */
	int32_t first_missing_in_cpu;
	size_t nr_gone;			/* host CPUs lost with nothing after */
	bool failed;			/* out of memory: segments may be missing */
};

/*
 * Tracks threads @tids[0..@nr) (kept by the caller) from host TSC @start,
 * each UNKNOWN until its first sched_switch; -1 if out of memory.
 */
int hvt_host_runs_init(struct hvt_host_runs *r, const int32_t *tids, size_t nr, uint64_t start,
		       hvt_run_fn fn, void *ctx);
void hvt_host_runs_free(struct hvt_host_runs *r);
/*
 * A sched_switch of host CPU @cpu at @ts, from @prev (leaving @runnable,
 * i.e. preempted, or asleep) to @next, whose comm is @next_comm. Fed in
 * host time order.
 */
void hvt_host_runs_switch(struct hvt_host_runs *r, uint32_t cpu, uint64_t ts, int32_t prev,
			  bool runnable, int32_t next, const char *next_comm);
/*
 * Host CPU @cpu lost events after its event at @ts, until its event at
 * @until: a tracked thread that may have been switched there is UNKNOWN
 * from @ts to its next sched_switch. @until UINT64_MAX: no event of the
 * CPU came after (its file ends there, or could not be read at all): from
 * then on a thread switched out anywhere may have run there unseen, so its
 * time out is UNKNOWN too, not preempted or blocked.
 */
void hvt_host_runs_lost(struct hvt_host_runs *r, uint32_t cpu, uint64_t ts, uint64_t until);
/* The trace ends at @end: every thread's last segment closes there. */
void hvt_host_runs_finish(struct hvt_host_runs *r, uint64_t end);
/* "running", "preempted", ... */
/* "before its first host sched_switch", ... */
const char *hvt_run_unknown_text(enum hvt_run_unknown why);
const char *hvt_run_unknown_id(enum hvt_run_unknown why);	/* "unseen", ... for TSV */
const char *hvt_run_state_name(enum hvt_run_state s);

#endif
