/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * align.h - putting every layer on the host's time line.
 *
 * Host TSC -> host CLOCK_MONOTONIC through the pairs of host/clock.tsv
 * (clocksync/host_clock.h); "time since trace start" is measured from the
 * first pair. Guest TSC -> host TSC through the VM's clock: the estimator
 * fed with every exchange of sync.tsv (clocksync/estimator.h), turned into a
 * timeline of one line per segment (docs/clock-model.md). Each guest stream
 * converts through it with a cursor of its own, so that values repeated
 * after a backwards jump land in the right segment.
 */
#ifndef HVT_TOOLS_ALIGN_ALIGN_H
#define HVT_TOOLS_ALIGN_ALIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clocksync/clocksync.h"
#include "clocksync/estimator.h"
#include "clocksync/host_clock.h"
#include "clocksync/run_bounds.h"
#include "clocksync/tsc_timeline.h"
#include "tools/archive/archive.h"
#include "tools/align/sync_points.h"

#define HVT_GLITCH_EXCHANGES 3	/* fewer in a segment between two: not a real change */

struct hvt_vm_clock {
	struct hvt_estimator *est;
	struct hvt_tsc_timeline tl;
	uint64_t glitch_seq;		/* first sample of a too-short middle segment */
	int glitch;
	size_t glitch_recs[HVT_GLITCH_EXCHANGES];	/* ... its exchanges, as indices of recs */
	size_t nr_glitch_recs;
	size_t nr_points;		/* sync points used */
	struct hvt_run_clock by_segment;	/* built by hvt_vm_clock_event_bound() */
	bool have_by_segment;
};

/*
 * Fits the VM's clock from its exchanges and sync points (each in host time
 * order); -1 if there are none (or no memory). A segment of fewer than
 * HVT_GLITCH_EXCHANGES samples between two others is reported in
 * glitch/glitch_seq (an exchange's or sync point's seq): a stamp error, not
 * a clock change.
 */
int hvt_vm_clock_build(struct hvt_vm_clock *c, const struct hvt_sync_rec *recs, size_t n,
		       const struct hvt_sync_point *points, size_t nr_points);

/*
 * A one-way bound on the guest clock: at host TSC @host it read at most
 * @guest (@upper), or at least @guest. Unlike an exchange's, its "delay"
 * does not widen the margin around clock changes (the caller keeps it
 * within the exchanges' round trips).
 */
struct hvt_one_way {
	uint64_t host, guest;
	bool upper;
	uint64_t seq;			/* for glitch_seq */
	uint64_t delay;			/* the stamp was read within this of host */
};

/*
 * Leaves out of @recs (@n of them, in host order) the exchanges that make
 * a glitch: each a stamp error (a damaged sync.tsv row), not a clock
 * change, which would otherwise split the clock around it and misplace
 * the guest events near it. Says each glitch; returns how many it said.
 */
size_t hvt_vm_clock_drop_glitches(const char *vm_name, struct hvt_sync_rec *recs, size_t *n);

/* hvt_vm_clock_build() with one-way bounds too (@ow in host order). */
int hvt_vm_clock_build_more(struct hvt_vm_clock *c, const struct hvt_sync_rec *recs, size_t n,
			    const struct hvt_sync_point *points, size_t nr_points,
			    const struct hvt_one_way *ow, size_t nr_ow);
void hvt_vm_clock_free(struct hvt_vm_clock *c);
/* Segments of the fitted clock: more than one where the guest clock changed. */
static inline size_t hvt_vm_clock_segments(const struct hvt_vm_clock *c)
{
	return c->est ? hvt_est_nr_segments(c->est) : 0;
}
/* Host TSC of a guest value of the stream behind @cur. */
static inline uint64_t hvt_vm_clock_to_host(const struct hvt_vm_clock *c,
					    struct hvt_tsc_cursor *cur, uint64_t guest)
{
	return hvt_tsc_timeline_to_host(&c->tl, cur, guest);
}
/*
 * The first exchange that is not causal once aligned (host_send <= guest_recv
 * and guest_send <= host_recv on the host's time line, within the one tick
 * of fixed-point rounding); exchanges inside a change window may straddle
 * the change, and a guest stamp two segments may have shown (after a
 * backwards jump) is placed by no line for certain: those are only counted
 * in *exempt. NULL if every other exchange is causal.
 */
const struct hvt_sync_rec *hvt_vm_clock_first_violation(struct hvt_vm_clock *c,
							const struct hvt_sync_rec *recs,
							size_t n, size_t *exempt);

/*
 * The guaranteed interval's half-width at host TSC @host, in host ticks
 * through the segment's line (in a change window: the union of both
 * sides'); -1 where the interval is open on a side.
 */
int hvt_vm_clock_half_width(struct hvt_vm_clock *c, uint64_t host, uint64_t *ticks);
/*
 * How far from @placed, where the central timeline puts guest value
 * @guest, its true host instant may lie, in host ticks: the half-width
 * there, or, for a value two segments may have shown or placed in a change
 * window, the farthest instant at which any segment that may have shown it
 * may have read it. -1 where it is unbounded.
 */
int hvt_vm_clock_event_bound(struct hvt_vm_clock *c, uint64_t guest, uint64_t placed,
			     uint64_t *ticks);

/*
 * How tightly the exchanges pin the VM's clock: the guaranteed interval's
 * half-width at HVT_QUALITY_POINTS instants spread evenly from the first
 * exchange to the last, taken to host ticks through the segment's line (so
 * that a scaled guest TSC does not skew it). Instants in a change window or
 * where the interval is open on a side are counted, not measured.
 */
#define HVT_QUALITY_POINTS 257

struct hvt_vm_clock_quality {
	size_t measured, in_window, unbounded;
	uint64_t half_p50, half_max;	/* host ticks, over the measured instants */
	uint64_t host_mid;		/* host TSC of the middle instant */
};

void hvt_vm_clock_quality(struct hvt_vm_clock *c, const struct hvt_sync_rec *recs, size_t n,
			  struct hvt_vm_clock_quality *q);

/*
 * Held-out exchanges: every @k-th exchange (k-1, 2k-1, ...) is kept out of
 * a fit of the others, then judged against that fit. Each bounds the true
 * guest clock (at host_send no later than guest_recv, at host_recv no
 * earlier than guest_send); if the fit's guaranteed interval lies wholly
 * past that, the clock model failed there, whatever the fitted exchanges
 * say. Exchanges in a change window, or with a stamp two segments may have
 * shown, are exempt.
 */
#define HVT_HELD_OUT_EVERY	8
#define HVT_HELD_OUT_MIN	(2 * HVT_HELD_OUT_EVERY)	/* exchanges to try it */

struct hvt_held_out {
	size_t judged, exempt;
	size_t contradict;		/* outside the guaranteed interval */
	size_t off_line;		/* not causal against the fit's central line only */
	uint64_t first_seq;		/* the first contradicting one's seq */
	uint64_t worst_ticks;		/* how far past the central line, at most (host ticks) */
};

/*
 * Whether @ex contradicts @c's guaranteed interval: the clock is known to
 * read more than guest_recv at host_send, or less than guest_send at
 * host_recv.
 */
bool hvt_vm_clock_contradicts(struct hvt_vm_clock *c, const struct hvt_exchange *ex);
/* 0, or -1 with fewer than HVT_HELD_OUT_MIN exchanges (or no memory). */
int hvt_vm_clock_held_out(const struct hvt_sync_rec *recs, size_t n, unsigned int k,
			  struct hvt_held_out *r);

#endif
