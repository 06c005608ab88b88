/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * run_bounds.h - guest events inside known host runs, as one-way bounds on
 * the guest clock (docs/clock-model.md, "Run intervals").
 *
 * A run is a host interval in which a vCPU could stamp an event: its host
 * thread on a CPU, or a kvm_entry -> kvm_exit window; an unknown span is
 * one where it may or may not have. For one vCPU, given its runs and
 * unknown spans in time order and its events' guest TSC values in
 * ascending order, on a fitted clock (estimator and its timeline):
 *   - hvt_run_assign() ties each event whose interval, turned into host
 *     time, meets exactly one run and no unknown span to that run, keeping
 *     per run its first and last such event; an event whose interval meets
 *     nothing at all is a contradiction (the data, not the clock, is wrong);
 *   - hvt_run_bounds() gives, per run with events, two one-way bounds: at
 *     its start the clock read at most its first event, at its end at least
 *     its last; each only where the event lies within @max host ticks of
 *     that edge, so that no bound reaches further than the estimator's
 *     margin around clock changes assumes.
 * The alignment (tools/align/run_constraints.c) and the drift suite's
 * scheduling scenarios use both.
 */
#ifndef HVT_RUN_BOUNDS_H
#define HVT_RUN_BOUNDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clocksync/estimator.h"
#include "clocksync/tsc_timeline.h"

struct hvt_run_span {
	uint64_t start, end;
	bool running;			/* false: unknown */
};

/* Extra unknown host time (a host CPU's losses): whether [lo, hi] meets some. */
typedef bool (*hvt_run_unknown_fn)(const void *ctx, uint64_t lo, uint64_t hi);

struct hvt_run_vcpu {
	const struct hvt_run_span *spans;	/* in time order, not overlapping */
	size_t nr_spans;
	const uint64_t *events;			/* guest TSC values, ascending */
	size_t nr_events;
	uint64_t *gmin, *gmax;			/* per span; filled by hvt_run_assign() */
	size_t assigned, contradictions;	/* ditto */
	hvt_run_unknown_fn unknown;		/* NULL: none */
	const void *unknown_ctx;
};

/*
 * The host instants at which the clock may have read guest value @g, as
 * far as the fitted clock knows: [@lo, @hi], from its interval at the
 * central line's instant and the least slope of its feasible lines (so it
 * holds whatever the interval does around there). -1 where it is
 * unbounded. @cur walks @tl as for a stream: values in order.
 */
int hvt_run_window(struct hvt_estimator *est, const struct hvt_tsc_timeline *tl,
		   struct hvt_tsc_cursor *cur, uint64_t g, uint64_t *lo, uint64_t *hi);
/* The first span of @v ending after @host (v->nr_spans if none). */
size_t hvt_run_first_after(const struct hvt_run_vcpu *v, uint64_t host);
void hvt_run_assign(struct hvt_estimator *est, const struct hvt_tsc_timeline *tl,
		    struct hvt_run_vcpu *v);
/* Calls @emit per bound; returns their number. */
size_t hvt_run_bounds(struct hvt_estimator *est, const struct hvt_tsc_timeline *tl,
		      const struct hvt_run_vcpu *v, uint64_t max,
		      void (*emit)(void *ctx, uint64_t host, uint64_t guest, bool upper),
		      void *ctx);

/* One bound of hvt_run_bounds(): an upper (h2g) or a lower (g2h) bound. */
struct hvt_run_bound {
	uint64_t host, guest;
	bool upper;
};

/* The bounds collected by hvt_run_bound_add(), as @emit with this as @ctx. */
struct hvt_run_bound_list {
	struct hvt_run_bound *v;
	size_t n, cap;
	bool failed;			/* out of memory: some are missing */
};

void hvt_run_bound_add(void *list, uint64_t host, uint64_t guest, bool upper);
/* Sorts the list in host order, as the estimators take bounds. */
void hvt_run_bound_sort(struct hvt_run_bound_list *l);

#endif
