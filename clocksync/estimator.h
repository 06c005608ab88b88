/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * estimator.h - guest time from message exchanges, with a guaranteed
 * interval, split into segments where no single line fits
 * (docs/clock-model.md, "Estimation").
 *
 * Model: within a segment the guest TSC is a line in host TSC,
 * guest = a * host + b (any offset, any drift, any scaling). Every message
 * bounds that line from one side (fit.h). Samples that cannot narrow the
 * set are dropped at once; the others are kept, so the cost per sample is
 * O(1) amortised and memory grows only with the samples that mattered.
 *
 * When a sample contradicts every line of the current segment, the model
 * changed (an offset jump, a drift change): a new segment starts. Samples
 * that arrived after the change but before it was noticed may still sit in
 * the old segment; hvt_est_finish() therefore re-examines each boundary
 * and keeps in each side only the samples that certainly belong to it,
 * judging each by where its stamp may have been read (within its own
 * exchange's round trip). Between the last certainly-old and the first
 * certainly-new instant lies the change window: there the interval is the
 * union of both sides'.
 *
 * Guarantee: if the guest clock is linear within each segment and every
 * stamp is honest (read no earlier than sent, no later than received), the
 * true guest time at host instant h lies within hvt_est_eval()'s [lo, hi].
 */
#ifndef HVT_CLOCKSYNC_ESTIMATOR_H
#define HVT_CLOCKSYNC_ESTIMATOR_H

#include <stddef.h>
#include <stdint.h>

#include "clocksync/clocksync.h"
#include "clocksync/fit.h"
#include "clocksync/tsc_timeline.h"

enum hvt_est_result {
	HVT_EST_USED = 0,	/* the sample narrowed the current segment */
	HVT_EST_REDUNDANT = 1,	/* it could not narrow anything */
	HVT_EST_SPLIT = 2,	/* it started a new segment */
	HVT_EST_REJECTED = 3,	/* out of order and contradictory, or out of range */
};

struct hvt_est_value {
	uint64_t guest;		/* the estimate: middle of [lo, hi] */
	uint64_t lo, hi;	/* guaranteed interval (guest TSC) */
	int bounded;		/* 0: lo/hi are open-ended on some side */
	size_t segment;
	int in_window;		/* between two segments: the union of both */
};

struct hvt_est_segment_info {
	uint64_t host_first, host_last;	/* host TSC of its first and last sample */
	uint64_t samples;		/* all samples it received */
	uint64_t kept;			/* those that narrowed it */
	double amin, amax;		/* extreme feasible slopes (0 if unbounded) */
	/*
	 * After hvt_est_finish(): the host span where it certainly applies
	 * (0 / UINT64_MAX: open), between the change windows around it, and
	 * the extreme slopes of the lines its certain samples allow.
	 */
	uint64_t valid_from, valid_to;
	double certain_amin, certain_amax;
	/*
	 * The guest values it may have shown, wherever it may have applied:
	 * from the last instant certainly of the segment before to the first
	 * certainly of the one after (0 / UINT64_MAX: open).
	 */
	uint64_t shows_from, shows_to;
};

struct hvt_estimator;

struct hvt_estimator *hvt_est_new(void);
void hvt_est_free(struct hvt_estimator *e);

/* A host->guest message: sent at host TSC @host, received at guest TSC @guest. */
enum hvt_est_result hvt_est_h2g(struct hvt_estimator *e, uint64_t host, uint64_t guest);
/* A guest->host message: sent at guest TSC @guest, received at host TSC @host. */
enum hvt_est_result hvt_est_g2h(struct hvt_estimator *e, uint64_t guest, uint64_t host);
/*
 * The same with the message's own delay: its stamp was read within @delay
 * host ticks after @host (h2g) or before it (g2h). Without it a one-way
 * message may have taken as long as the longest round trip (or the delay
 * bound set), which one slow exchange (a guest that stalled for seconds)
 * makes long for every message.
 */
enum hvt_est_result hvt_est_h2g_within(struct hvt_estimator *e, uint64_t host, uint64_t guest,
				       uint64_t delay);
enum hvt_est_result hvt_est_g2h_within(struct hvt_estimator *e, uint64_t guest, uint64_t host,
				       uint64_t delay);
/* Both messages of an exchange; returns HVT_EST_SPLIT if either split. */
enum hvt_est_result hvt_est_exchange(struct hvt_estimator *e, const struct hvt_exchange *ex);
/*
 * The largest delay of a single message, in host ticks, if known better
 * than the round trips of exchanges tell (one-way-only inputs need it).
 */
void hvt_est_set_max_delay(struct hvt_estimator *e, uint64_t ticks);

/* Online: the current segment's interval at @host (as it stands now). */
int hvt_est_now(const struct hvt_estimator *e, uint64_t host, struct hvt_est_value *v);
/* Offline: settle segment boundaries; afterwards hvt_est_eval() anywhere. */
int hvt_est_finish(struct hvt_estimator *e);
/* -1 before any sample. Fastest when successive calls go forward in time. */
int hvt_est_eval(struct hvt_estimator *e, uint64_t host, struct hvt_est_value *v);

/*
 * Segment @i alone (after hvt_est_finish()): the interval its certain
 * samples give at @host, wherever that is (its lines extended past where
 * it applies). What the clock read at @host lies there if segment @i was
 * in force then. -1 if there is no such segment.
 */
int hvt_est_segment_eval(struct hvt_estimator *e, size_t i, uint64_t host,
			 struct hvt_est_value *v);
/*
 * The one segment that may have shown guest value @guest; -1 if none or
 * several (a backwards jump shows values twice, and where a change came
 * within its window is not known).
 */
long hvt_est_segment_of_value(struct hvt_estimator *e, uint64_t guest);
/* Whether @host falls in a change window (after hvt_est_finish()). */
int hvt_est_in_window(struct hvt_estimator *e, uint64_t host);
/*
 * The estimate as a timeline of exact-form transforms (tsc_timeline.h): per
 * segment its central line, guest = ((host * ratio) >> 48) + offset, from
 * the middle of the change window before it, or from its start after a
 * backwards jump (estimator.c, switch_point()). Every central line lies
 * within its segment's interval. 0, or -1 without samples or memory.
 */
int hvt_est_timeline(struct hvt_estimator *e, struct hvt_tsc_timeline *tl);
size_t hvt_est_nr_segments(const struct hvt_estimator *e);
void hvt_est_segment_info(const struct hvt_estimator *e, size_t i,
			  struct hvt_est_segment_info *info);

#endif
