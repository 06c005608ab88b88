/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vm_analysis.h - one VM's vCPU states and where its guest threads' time
 * went, computed while the merge streams (`hvtrace analyze`).
 *
 * Inputs, each in host time order as the merge gives them:
 *   - the host's sched_switch events: each vCPU thread's host state
 *     (align/host_runs.h: running, preempted by a task, blocked, unknown),
 *     lenient where the host missed a switch-in;
 *   - under KVM, kvm_exit -> kvm_entry of each vCPU: in the hypervisor, by
 *     exit reason (the host's events do not name the VM: only for the
 *     archive's one KVM VM);
 *   - the guest's sched_switch per vCPU: which guest task was current on
 *     it, from which aligned instant, within which bound; and the guest's
 *     sched_wakeup, for the time a thread waited runnable in the guest;
 *   - the wake chains (wait_chain.h) of the vCPU threads' sleeps on the
 *     host (from the caller: the host's chains are every VM's) and of the
 *     guest threads' sleeps in the guest, summed per vCPU and per guest
 *     thread (wait_account.h).
 *
 * Each host segment of vCPU v is cut at the guest's task changes on v and
 * at v's exits and entries, and each piece counted (account.h) for v and
 * for the guest thread current then: a running piece is GUEST (HYPERVISOR
 * between an exit and its entry; IDLE when the guest's idle task, tid 0,
 * was current); the others keep the host's state. Pieces before the guest
 * said which task ran count for the vCPU only. Guest threads also count
 * the time from a sched_wakeup, or a switch-out while runnable, to their
 * next switch-in: runnable in the guest, not running.
 *
 * Memory: per vCPU, the guest's task changes and KVM exits since its
 * thread's last host state change (a run slice, typically milliseconds);
 * per guest thread one account.
 */
#ifndef HVT_TOOLS_MODEL_VM_ANALYSIS_H
#define HVT_TOOLS_MODEL_VM_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/model/account.h"
#include "tools/model/wait_account.h"
#include "tools/model/wait_chain.h"
#include "tools/align/host_runs.h"

struct hvt_guest_thread {
	int32_t tid;			/* 0: an empty slot of the table */
	char comm[HVT_COMM_LEN];
	bool running;			/* switched in, not out since */
	bool runnable;			/* waiting in the guest since runnable_at */
	uint64_t runnable_at, runnable_bound;
	struct hvt_account acc;
	struct hvt_wait_account waits;	/* its sleeps in the guest, by wake chain */
};

struct hvt_analysis_vcpu;

/*
 * One piece as it is counted: a vCPU's state from @start to @end (host
 * TSC), the sum of its ends' error bounds, its cause, and the guest
 * thread current then; or (@vcpu -1) the time a guest thread waited
 * runnable in the guest. @too_short: shorter than its bounds, counted
 * apart from its state.
 */
struct hvt_vcpu_piece {
	int32_t vcpu;			/* -1: a guest thread's wait, RUNNABLE */
	enum hvt_vcpu_state state;
	uint64_t start, end, slack;
	const struct hvt_cause *cause;	/* PREEMPTED, BLOCKED: the task; HYPERVISOR: the
					 * exit reason in tid; else NULL */
	int32_t tid;			/* the guest thread: current, or waiting; -1 unknown */
	int32_t host_cpu;		/* the host CPU it ran on, or left (where the cause ran); -1 */
	bool guessed;			/* a run whose start the host did not record */
	bool too_short;
};

typedef void (*hvt_vcpu_piece_fn)(void *ctx, const struct hvt_vcpu_piece *p);

struct hvt_vm_analysis {
	const char *name;
	bool hypervisor_seen;		/* kvm_exit/kvm_entry fed */
	struct hvt_host_runs runs;
	struct hvt_analysis_vcpu *vcpus;	/* runs.nr of them */
	struct hvt_guest_thread *threads;	/* open addressing by tid */
	size_t nr_threads, cap_threads;
	uint64_t from, to;		/* host TSC: only time within counts */
	uint64_t guest_switches;
	uint64_t guest_wakeups;		/* without any, "runnable" misses the waits after one */
	uint64_t host_wakeups;		/* of the vCPU threads (counted by the caller) */
	struct hvt_wait_chains guest_waits;	/* the guest threads' wake chains */
	hvt_vcpu_piece_fn on_piece;	/* each piece counted, if set (after init) */
	void *piece_ctx;
	int32_t seg_cpu;		/* the host CPU of the segment being cut */
	bool failed;			/* out of memory: pieces are missing */
};

/*
 * VM @name with vCPU n's host thread @tids[n] (0: unknown; kept by the
 * caller), from host TSC @start; only time within [@from, @to) counts.
 * -1 if out of memory.
 */
int hvt_vm_analysis_init(struct hvt_vm_analysis *a, const char *name, const int32_t *tids,
			 size_t nr, uint64_t start, uint64_t from, uint64_t to);
void hvt_vm_analysis_free(struct hvt_vm_analysis *a);
/*
 * vCPU @vcpu's guest kernel stream is missing: the time its thread ran is
 * unknown (HVT_UNKNOWN_NO_GUEST_STREAM), not guest, since nothing says
 * whether the guest was idle.
 */
void hvt_vm_analysis_no_guest_stream(struct hvt_vm_analysis *a, size_t vcpu);
/* A host sched_switch, as hvt_host_runs_switch() takes it. */
void hvt_vm_analysis_host_switch(struct hvt_vm_analysis *a, uint32_t cpu, uint64_t ts,
				 int32_t prev, bool runnable, int32_t next,
				 const char *next_comm);
void hvt_vm_analysis_host_lost(struct hvt_vm_analysis *a, uint32_t cpu, uint64_t ts,
			       uint64_t until);
/* A kvm_exit (@entry false, with @reason) or kvm_entry of vCPU @vcpu. */
void hvt_vm_analysis_kvm(struct hvt_vm_analysis *a, uint32_t vcpu, bool entry, uint64_t ts,
			 uint32_t reason);
/*
 * A guest sched_switch on vCPU @vcpu at aligned host TSC @ts, within @bound,
 * from @prev (leaving @runnable, i.e. preempted, or asleep) to @next.
 */
void hvt_vm_analysis_guest_switch(struct hvt_vm_analysis *a, uint32_t vcpu, uint64_t ts,
				  uint64_t bound, int32_t prev, bool runnable,
				  const char *prev_comm, int32_t next, const char *next_comm);
/* A guest sched_wakeup of @tid, recorded while guest thread @waker ran. */
void hvt_vm_analysis_guest_wakeup(struct hvt_vm_analysis *a, uint64_t ts, uint64_t bound,
				  int32_t tid, const char *comm, int32_t waker);
/* A host wait that ended, chain @c: counted if it is a vCPU thread's. */
void hvt_vm_analysis_host_wait(struct hvt_vm_analysis *a, const struct hvt_wait_chain *c);
/* The trace ends at host TSC @end. */
void hvt_vm_analysis_finish(struct hvt_vm_analysis *a, uint64_t end);
/* vCPU @v's account (v < runs.nr). */
struct hvt_account *hvt_vm_analysis_vcpu(struct hvt_vm_analysis *a, size_t v);
/* ... and its thread's sleeps on the host. */
struct hvt_wait_account *hvt_vm_analysis_vcpu_waits(struct hvt_vm_analysis *a, size_t v);

#endif
