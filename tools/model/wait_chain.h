/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wait_chain.h - why a thread slept as long as it did: who woke it and,
 * link by link, what that waker was itself waiting on meanwhile (a wake
 * chain), from one machine's sched_switch and sched_wakeup in time order.
 *
 * A wait of thread T runs from T's switch-out asleep (any end_state that
 * is not runnable) to its next switch-in. A sched_wakeup of T within it
 * ends the sleep; the waker is the task current where the wakeup was
 * recorded: tid 0 (the idle task) when an interrupt woke T on an idle CPU,
 * and, for a wakeup from an interrupt, whatever task it interrupted. From
 * the wakeup to the switch-in, T waited for a CPU (its wake latency).
 *
 * The chain of T's wait: link 0 is T's own wait (asleep, woken, ran, and
 * its waker W). If W's own last wait before it woke T ended after T fell
 * asleep, W was waiting too during part of T's sleep: W's chain follows,
 * link by link, as long as each link's wait ended after T fell asleep.
 * The chain ends (enum hvt_chain_end):
 *   RAN        the last waker ran, or was runnable, since before T fell
 *              asleep: it is what T waited on;
 *   PREEMPTED  ... and it was runnable, another task on its CPU, during
 *              part of T's sleep: its latest preemption (of its last four)
 *              before it woke the previous link is the chain's last link
 *              (preempted, its "waker" the task its CPU ran);
 *   IDLE       the last waker is the idle task: an interrupt on an idle CPU;
 *   UNKNOWN    the last waker was not seen before T fell asleep;
 *   NO_WAKEUP  the last link ran again with no sched_wakeup recorded (not
 *              recorded, lost, or a wakeup the kernel does not trace);
 *   CYCLE      the next waker is already a link of the chain: it woke a
 *              link, then slept itself (ping-pong), so what it waited on
 *              is that link's own wait, already in the chain;
 *   DEPTH      HVT_WAIT_CHAIN_MAX links, and more to follow.
 * Its "root" is the last link's waker (NO_WAKEUP: none).
 *
 * A loss of events (host_lost) ends every wait that began before the gap's
 * end unseen, and so does a switch-out of a thread, asleep with no wakeup,
 * whose switch-in was not recorded: such a wait is told as unended, never
 * with a guessed end. A thread woken whose switch-in was not recorded (the
 * kernel leaves out some switches from the idle task) has its sleep told
 * exactly, and its wake latency as not known (ran_unseen).
 * Times are the events' host TSC, each within the event's error bound (0
 * on the host). Memory: per thread alive (a thread switched out dead, X
 * or Z, is forgotten), the chain of its last wait and of the one in
 * progress.
 */
#ifndef HVT_TOOLS_MODEL_WAIT_CHAIN_H
#define HVT_TOOLS_MODEL_WAIT_CHAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/read/event_decoder.h"

#define HVT_WAIT_CHAIN_MAX	8

enum hvt_chain_end {
	HVT_CHAIN_RAN,
	HVT_CHAIN_PREEMPTED,
	HVT_CHAIN_IDLE,
	HVT_CHAIN_UNKNOWN,
	HVT_CHAIN_NO_WAKEUP,
	HVT_CHAIN_CYCLE,
	HVT_CHAIN_DEPTH,
	HVT_NR_CHAIN_ENDS
};

/*
 * One thread's wait: asleep from @asleep, woken at @woken by @waker, ran at
 * @ran. A preemption (@preempted): runnable from @asleep to @ran (= @woken),
 * its CPU running @waker.
 */
struct hvt_wait_link {
	int32_t tid;
	bool preempted;
	bool ran_unseen;		/* its switch-in was not recorded: ran is woken */
	int32_t waker;			/* -1: no wakeup recorded (then woken == ran) */
	char comm[HVT_COMM_LEN], waker_comm[HVT_COMM_LEN];
	uint64_t asleep, woken, ran;	/* host TSC */
	uint64_t asleep_bound, woken_bound, ran_bound;
};

struct hvt_wait_chain {
	struct hvt_wait_link link[HVT_WAIT_CHAIN_MAX];
	unsigned int depth;		/* links; 0: no chain */
	enum hvt_chain_end end;
	bool unended;			/* its end was not seen (a loss, a switch-in not
					 * recorded, no wakeup): link 0 only, not a chain */
	bool ran_unseen;		/* woken, but its switch-in was not recorded:
					 * link 0's ran is its woken */
};

/* A wait that ended: its chain (link[0] is the thread's own wait). */
typedef void (*hvt_wait_fn)(void *ctx, const struct hvt_wait_chain *c);

struct hvt_wait_thread;

struct hvt_wait_chains {
	hvt_wait_fn on_wait;
	void *ctx;
	struct hvt_wait_thread *threads;	/* open addressing by tid */
	size_t nr_threads, cap_threads;
	uint64_t waits, unended;	/* waits told; of them unended */
	bool failed;			/* out of memory: waits are missing */
};

void hvt_wait_chains_init(struct hvt_wait_chains *w, hvt_wait_fn on_wait, void *ctx);
void hvt_wait_chains_free(struct hvt_wait_chains *w);
/* A sched_switch at @ts (within @bound) from @sw->prev to @sw->next. */
void hvt_wait_chains_switch(struct hvt_wait_chains *w, uint64_t ts, uint64_t bound,
			    const struct hvt_sched_switch *sw);
/* ... from @prev (@runnable or asleep) to @next, named @prev_comm, @next_comm (or NULL). */
void hvt_wait_chains_switch_to(struct hvt_wait_chains *w, uint64_t ts, uint64_t bound,
			       int32_t prev, bool runnable, const char *prev_comm, int32_t next,
			       const char *next_comm);
/* A sched_wakeup of @tid (named @comm) at @ts (within @bound), recorded while @waker ran. */
void hvt_wait_chains_wakeup(struct hvt_wait_chains *w, uint64_t ts, uint64_t bound, int32_t tid,
			    const char *comm, int32_t waker);
/* Events were lost until @until: the waits begun before then end unseen. */
void hvt_wait_chains_lost(struct hvt_wait_chains *w, uint64_t until);
/* The chain's waited-on task (-1: none) and its name. */
int32_t hvt_wait_chain_root(const struct hvt_wait_chain *c, const char **comm);
/* How chain end @e reads ("the waker ran throughout", ...), and its TSV id. */
const char *hvt_chain_end_text(enum hvt_chain_end e);
const char *hvt_chain_end_id(enum hvt_chain_end e);

#endif
