/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * account.h - where a vCPU's or a guest thread's time went, with bounds.
 *
 * Time is attributed in pieces, each with a state (vcpu_analysis.h) and the
 * error bound of each end: 0 for a host instant (a host sched_switch, a
 * kvm_exit), the alignment bound of a guest event for a guest instant. A
 * piece counts in its state's total, and the sum of its ends' bounds in
 * that state's slack: the total is exact to within the slack. A piece
 * shorter than its ends' bounds together cannot be placed: it is counted
 * apart (short_ticks, short_pieces), never in a state.
 */
#ifndef HVT_TOOLS_MODEL_ACCOUNT_H
#define HVT_TOOLS_MODEL_ACCOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/align/host_runs.h"

enum hvt_vcpu_state {
	HVT_VCPU_GUEST,			/* its thread ran guest code (a guest task) */
	HVT_VCPU_IDLE,			/* ... the guest's idle task */
	HVT_VCPU_HYPERVISOR,		/* KVM: kvm_exit -> kvm_entry */
	HVT_VCPU_PREEMPTED,		/* its thread runnable, another task on its CPU */
	HVT_VCPU_BLOCKED,		/* its thread asleep on the host (halted, or QEMU waits) */
	HVT_VCPU_UNKNOWN,		/* no data: before the host saw it, losses */
	HVT_NR_VCPU_STATES,
	HVT_VCPU_RUNNABLE = HVT_NR_VCPU_STATES	/* a guest thread's wait in the guest (a
						 * piece's, not an account's state) */
};

/*
 * A host task that preempted (or that had the CPU next when the thread
 * blocked), or a KVM exit reason (@tid the reason, comm "").
 */
struct hvt_cause {
	int32_t tid;
	char comm[HVT_COMM_LEN];
	uint64_t ticks, slack;
	uint64_t count;			/* pieces (or waits) it caused */
};

/*
 * Causes by task id (a task that exec'd keeps its first name), with an
 * index for the lookup per piece: every one is kept, however many tasks
 * a host runs.
 */
struct hvt_causes {
	struct hvt_cause *v;
	size_t n, cap;
	uint32_t *slot;			/* index + 1 into v, by hash of tid; 0: free */
	size_t nr_slots;
};

struct hvt_account {
	uint64_t ticks[HVT_NR_VCPU_STATES];	/* host ticks */
	uint64_t slack[HVT_NR_VCPU_STATES];
	uint64_t pieces[HVT_NR_VCPU_STATES];
	uint64_t guessed;		/* GUEST/IDLE ticks in runs whose start the host missed */
	uint64_t short_ticks, short_pieces;
	struct hvt_causes preempted_by;
	struct hvt_causes blocked_then;	/* BLOCKED by the task its CPU went to */
	struct hvt_causes exits;	/* HYPERVISOR by exit reason */
	uint64_t runnable, runnable_slack, runnable_pieces;	/* threads: waiting in the guest */
	uint64_t unknown_why[HVT_NR_RUN_UNKNOWN];	/* vCPUs: UNKNOWN ticks by why */
	bool failed;			/* out of memory: a cause is missing */
};

void hvt_account_free(struct hvt_account *a);
/*
 * @len host ticks in @state, its ends within @slack ticks together; @cause
 * (NULL: none) is the preempting task, the task that had the CPU after
 * the thread blocked, or the exit reason; @guessed: a run whose start the
 * host did not record.
 */
void hvt_account_add(struct hvt_account *a, enum hvt_vcpu_state state, uint64_t len,
		     uint64_t slack, const struct hvt_cause *cause, bool guessed);
/* Time a guest thread waited, runnable, for a CPU of the guest. */
void hvt_account_runnable(struct hvt_account *a, uint64_t len, uint64_t slack);
/* The account's ticks in every state, short pieces included. */
uint64_t hvt_account_total(const struct hvt_account *a);
/*
 * @len ticks (within @slack) to @x's task in @c, added if new; -1 if out of
 * memory (then not counted).
 */
int hvt_causes_add(struct hvt_causes *c, const struct hvt_cause *x, uint64_t len, uint64_t slack);
void hvt_causes_free(struct hvt_causes *c);
/* The causes by ticks, largest first. */
void hvt_causes_sort(struct hvt_causes *c);
const char *hvt_vcpu_state_name(enum hvt_vcpu_state s);

#endif
