/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sched_model.h - one machine's scheduling (the host's, or a guest's) as
 * slices, from its sched_switch and sched_wakeup events in time order: per
 * CPU who ran when (Perfetto's sched), per thread which state it was in
 * when (Perfetto's thread_state).
 *
 * A slice of a CPU runs from one sched_switch to the next and is the later
 * one's prev's, as ftrace says it: also where the earlier switch's next was
 * another thread (a switch the kernel did not emit, align/host_runs.h).
 * Its end_state is how prev left ("R", "R+", "S", "D", ...). A CPU's time
 * before its first switch, or after a loss until its next one, has no
 * slice; its last slice ends at the trace's end, with no end_state.
 *
 * A thread is "Running" while a slice of it lasts; from a switch-out it is
 * in its end_state until it runs again, or, asleep, until a sched_wakeup
 * makes it "R" (runnable, with the waker). Before its first switch nothing
 * is known of it, nor after a loss on the CPU it ran on until its next
 * switch. A thread's states never overlap: a run whose switch-in was not
 * recorded starts no earlier than the thread's previous state. The idle
 * tasks (tid 0, one per CPU) have slices, not states.
 *
 * Guest events carry error bounds: each slice and state carries those of
 * the events at its two ends (0 on the host, where times are exact).
 * Memory: a record per CPU and per thread seen.
 */
#ifndef HVT_TOOLS_MODEL_SCHED_MODEL_H
#define HVT_TOOLS_MODEL_SCHED_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/read/event_decoder.h"

struct hvt_sched_slice {
	uint32_t cpu;
	uint64_t start, end;		/* host TSC */
	uint64_t start_bound, end_bound;	/* host ticks */
	int32_t tid;
	const char *comm;
	const char *end_state;		/* NULL: still running at the end */
};

struct hvt_thread_state {
	int32_t tid;
	uint64_t start, end;		/* host TSC */
	uint64_t start_bound, end_bound;
	const char *state;		/* "Running", or an end_state, or "R" after a wakeup */
	int32_t cpu;			/* Running: its CPU; else the last it ran on; -1 */
	int32_t waker;			/* "R" after a wakeup: the thread that woke it; -1 */
	int32_t waker_cpu;		/* ... the CPU it woke it from; -1 */
};

struct hvt_sched_model_ops {
	void (*slice)(void *ctx, const struct hvt_sched_slice *s);
	void (*state)(void *ctx, const struct hvt_thread_state *s);
};

struct hvt_sched_cpu;
struct hvt_sched_thread;

struct hvt_sched_model {
	const struct hvt_sched_model_ops *ops;
	void *ctx;
	struct hvt_sched_cpu *cpus;
	size_t nr_cpus;
	struct hvt_sched_thread *threads;	/* open addressing by tid */
	size_t nr_threads, cap_threads;
	bool failed;			/* out of memory: slices or states are missing */
};

void hvt_sched_model_init(struct hvt_sched_model *m, const struct hvt_sched_model_ops *ops,
			  void *ctx);
void hvt_sched_model_free(struct hvt_sched_model *m);
/* A sched_switch on @cpu at @ts (within @bound of its true time). */
void hvt_sched_model_switch(struct hvt_sched_model *m, uint32_t cpu, uint64_t ts, uint64_t bound,
			    const struct hvt_sched_switch *sw);
/* A sched_wakeup of @tid by @waker (-1: not known) on @waker_cpu at @ts, within @bound. */
void hvt_sched_model_wakeup(struct hvt_sched_model *m, uint64_t ts, uint64_t bound, int32_t tid,
			    int32_t waker, int32_t waker_cpu);
/* @cpu lost events after @ts: what ran there is unknown until its next switch. */
void hvt_sched_model_lost(struct hvt_sched_model *m, uint32_t cpu, uint64_t ts);
/* The trace ends at @end: open slices and states close there. */
void hvt_sched_model_finish(struct hvt_sched_model *m, uint64_t end);
/* Each thread seen, with the last name it had: calls @fn(ctx, tid, comm). */
void hvt_sched_model_threads(const struct hvt_sched_model *m,
			     void (*fn)(void *ctx, int32_t tid, const char *comm), void *ctx);

#endif
