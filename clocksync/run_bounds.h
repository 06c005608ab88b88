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
#ifndef HVT_CLOCKSYNC_RUN_BOUNDS_H
#define HVT_CLOCKSYNC_RUN_BOUNDS_H

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
 * One segment of a fitted clock as the runs use it. A clock that changed
 * during the recording (estimator.h, "segments") is used segment by
 * segment: a guest value counts only if one segment alone may have shown
 * it (a backwards jump shows values twice), and a run's edge bounds the
 * clock only where that segment certainly applied, so that the clock ran
 * on one line from the edge to the event.
 */
struct hvt_run_seg {
	uint64_t from, to;		/* host span where it certainly applied */
	double amin;			/* least slope of the lines its certain samples allow */
	struct hvt_tsc_xform x;		/* its central line (the timeline's) */
	/*
	 * Where the central line puts a value within [reach_from, reach_to]
	 * (its first and last sample), its window lies within reach of it:
	 * the interval's width is convex in host time, so between two
	 * instants it is at most the wider of the two (0: unknown).
	 */
	uint64_t reach_from, reach_to, reach;
};

struct hvt_run_clock {
	struct hvt_estimator *est;
	struct hvt_run_seg *seg;
	size_t n;			/* 0: the clock cannot be used */
};

/*
 * @rc for @est, finished, and its timeline @tl. -1 if out of memory; a
 * clock that cannot be used (no samples, no timeline) gets n = 0, and no
 * event then has a window.
 */
int hvt_run_clock_init(struct hvt_run_clock *rc, struct hvt_estimator *est,
		       const struct hvt_tsc_timeline *tl);
void hvt_run_clock_free(struct hvt_run_clock *rc);

/*
 * The host instants at which the clock may have read guest value @g, as
 * far as the fitted clock knows: [@lo, @hi], from its segment's interval at
 * the central line's instant and the least slope of its feasible lines (so
 * it holds whatever the interval does around there), and that segment in
 * @seg. -1 where it is unbounded, or where @g may be of two segments.
 */
int hvt_run_window(const struct hvt_run_clock *rc, uint64_t g, size_t *seg, uint64_t *lo,
		   uint64_t *hi);
/* The same were @g read while segment @i applied (the caller knows it may have been). */
int hvt_run_window_in(const struct hvt_run_clock *rc, size_t i, uint64_t g, uint64_t *lo,
		      uint64_t *hi);
/*
 * A window that holds hvt_run_window()'s, found cheaply for most values
 * (the central line and the segment's reach, no interval): for skipping,
 * in one comparison, the many events that lie deep inside a run.
 */
int hvt_run_window_wide(const struct hvt_run_clock *rc, uint64_t g, uint64_t *lo,
			uint64_t *hi);
/* The first span of @v ending after @host (v->nr_spans if none). */
size_t hvt_run_first_after(const struct hvt_run_vcpu *v, uint64_t host);
/* The same from the answer for an earlier host time, @*hint (updated): for values in order. */
size_t hvt_run_first_after_from(const struct hvt_run_vcpu *v, uint64_t host, size_t *hint);
void hvt_run_assign(const struct hvt_run_clock *rc, struct hvt_run_vcpu *v);
/* Calls @emit per bound; returns their number. */
size_t hvt_run_bounds(const struct hvt_run_clock *rc, const struct hvt_run_vcpu *v, uint64_t max,
		      void (*emit)(void *ctx, uint64_t host, uint64_t guest, bool upper,
				   uint64_t delay),
		      void *ctx);

/*
 * One bound of hvt_run_bounds(): an upper (h2g) or a lower (g2h) bound, and
 * how far from its edge its event may have been read (at most max).
 */
struct hvt_run_bound {
	uint64_t host, guest;
	bool upper;
	uint64_t delay;
};

/* The bounds collected by hvt_run_bound_add(), as @emit with this as @ctx. */
struct hvt_run_bound_list {
	struct hvt_run_bound *v;
	size_t n, cap;
	bool failed;			/* out of memory: some are missing */
};

void hvt_run_bound_add(void *list, uint64_t host, uint64_t guest, bool upper, uint64_t delay);
/* Sorts the list in host order, as the estimators take bounds. */
void hvt_run_bound_sort(struct hvt_run_bound_list *l);

#endif
