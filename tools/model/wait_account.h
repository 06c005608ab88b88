/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wait_account.h - where a thread's sleeps went: the waits of its wake
 * chains (wait_chain.h) summed, within the analysed span [from, to).
 *
 * Each wait counts, cut to the span: its sleep (asleep -> woken) by the
 * task that woke it (woken_by) and along its chain's critical path
 * (waited_on): each instant of the sleep to one task - the waker from its
 * own wait's end (switch-in, and its latency before) to the wakeup and
 * from the fall asleep to the start of its own wait (it was awake then);
 * its own sleep, in between, the next link's to explain, and so on; the
 * last waker what is left, except where it was preempted (the
 * preemptor's). So waited_on sums to the sleep. Then its wake latency
 * (woken -> ran, waiting for a CPU). A sleep of no length counts too. A wait with no wakeup recorded counts its whole
 * sleep (asleep -> ran) in no_wakeup, by no waker. Each figure's slack is
 * the sum of its ends' error bounds (0 on the host); an end cut by the
 * span is exact. The longest sleep within the span is kept with its whole
 * chain (its links' times uncut), and what the span cut of it. A wait
 * whose end was not seen counts only in unended (its length is not known);
 * one whose switch-in was not seen, its sleep, and in latency_unseen; one
 * shorter than its ends' bounds only in too_short (a guest event with no
 * guaranteed bound makes every wait it ends so).
 */
#ifndef HVT_TOOLS_MODEL_WAIT_ACCOUNT_H
#define HVT_TOOLS_MODEL_WAIT_ACCOUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "tools/model/account.h"
#include "tools/model/wait_chain.h"

struct hvt_wait_account {
	uint64_t asleep, asleep_slack, woken;	/* ticks asleep until a wakeup; such waits */
	uint64_t no_wakeup, no_wakeup_slack, no_wakeup_waits;
	uint64_t latency, latency_slack;	/* woken until switched in */
	uint64_t latency_waits;		/* waits whose latency is counted */
	uint64_t unended;		/* waits begun before the span's end whose end was
					 * not seen */
	uint64_t latency_unseen;	/* woken waits whose switch-in was not recorded */
	uint64_t too_short;		/* waits shorter than their ends' bounds: not placed */
	uint64_t followed;		/* woken waits whose chain goes on to the waker's wait */
	struct hvt_causes woken_by;	/* asleep ticks by waker */
	struct hvt_causes waited_on;	/* ... along each chain's critical path */
	uint64_t ends[HVT_NR_CHAIN_ENDS];	/* woken waits by how their chain ends */
	struct hvt_wait_chain longest;	/* the longest sleep's chain (depth 0: none) */
	uint64_t longest_ticks;		/* ... its sleep within the span */
	uint64_t longest_slack;		/* ... and its bound there (an end cut is exact) */
	bool longest_cut;		/* ... which the span cut: longer, the chain's own */
	bool failed;			/* out of memory: a cause is missing */
};

/* Wait @c (of the account's thread) within [@from, @to). */
void hvt_wait_account_add(struct hvt_wait_account *a, const struct hvt_wait_chain *c,
			  uint64_t from, uint64_t to);
void hvt_wait_account_free(struct hvt_wait_account *a);

#endif
