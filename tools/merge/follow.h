/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * follow.h - a time line followed while its recording is written: which of
 * its events are final, and when (the lag rule), refreshing the session
 * as the collector writes more.
 *
 * An event is final, and handed on, once no stream can still bring an
 * earlier one and it has its bound: every followed stream has been read
 * past it (a stream read to its end for now promises nothing before its
 * last event; a closed one, or one with no event yet, holds nothing), and
 * every VM's alignment reaches it (its last exchange used is later: a VM
 * not placed yet holds everything) - or it is older than the lag, by the host's CLOCK_REALTIME now against the event's
 * (the recording's clock pairs). A stream that stalls (a guest that stops
 * sending, an idle CPU) holds the others back by the lag at most; what it
 * brings later than that is handed on when it comes, out of order, and
 * counted as late. Once the recording is complete every event is final.
 * Memory is the time line's: one packet or page per source, whatever the
 * lag; the events held back are those the sources have not been asked for.
 */
#ifndef HVT_TOOLS_MERGE_FOLLOW_H
#define HVT_TOOLS_MERGE_FOLLOW_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "tools/merge/timeline.h"

/* Where a follower's events go. */
struct hvt_follow_sink {
	/* an event final now: 0 to go on, -1 to stop */
	int (*event)(struct hvt_source *s, void *ctx);
	/* every event final now was handed on (an output flushes): may be NULL */
	void (*caught_up)(void *ctx);
	/*
	 * Waits @ns before the next refresh (a live view reads its keys
	 * meanwhile); false to stop. NULL: a sleep.
	 */
	bool (*wait)(void *ctx, int64_t ns);
};

struct hvt_follow_opts {
	int64_t lag_ns;			/* the lag rule's: > 0 */
	int64_t period_ns;		/* between two refreshes of the session */
	volatile sig_atomic_t *stop;	/* set (a signal): stop at the next event */
	int64_t (*realtime)(void);	/* CLOCK_REALTIME now, ns; NULL: the system's */
};

struct hvt_follow {
	struct hvt_timeline *tl;
	struct hvt_follow_opts opts;
	int64_t now_ns;			/* CLOCK_REALTIME when the events handed on now
					 * became final: for a delay, with the event's */
	uint64_t last_tsc;		/* host TSC of the last event handed on */
	uint64_t events;		/* handed on */
	uint64_t late;			/* ... after a later one: out of order */
	uint64_t refreshes;
	int64_t refresh_max_ns;		/* the longest refresh */
	bool complete;			/* the recording finished: all of it was read */
	bool ended;			/* ... or ended without finishing: its collector
					 * is gone, or its setup failed (all read too) */
	bool stopped;			/* by opts.stop or the callback */
};

void hvt_follow_init(struct hvt_follow *f, struct hvt_timeline *tl,
		     const struct hvt_follow_opts *opts);
/*
 * Hands each event to @sink as it becomes final, refreshing the session
 * every period, until the recording is complete and read (0), or ended
 * without completing and read (0, f->ended: its collector, on this host,
 * is gone; or its manifest says it failed), the sink or
 * opts.stop stopped it (0, f->stopped), or a refresh failed (-1 after an
 * error message: out of memory).
 */
int hvt_follow_run(struct hvt_follow *f, const struct hvt_follow_sink *sink, void *ctx);
/*
 * The host TSC before which the time line's events are final now, the
 * realtime of now being @now_ns: UINT64_MAX once the recording is complete.
 */
uint64_t hvt_follow_horizon(struct hvt_follow *f, int64_t now_ns);
/* The host TSC whose CLOCK_REALTIME is @realtime_ns, by the recording's clock pairs. */
uint64_t hvt_follow_tsc_at(struct hvt_session *ses, int64_t realtime_ns);

#endif
