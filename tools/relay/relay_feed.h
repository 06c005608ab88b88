/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * relay_feed.h - the follower's events into the relay's live trace: each
 * event final now (merge/follow.h) is written as `merge --format=ctf`
 * writes it (out/ctf_out.h), its packet published (relay_trace.h) when it
 * fills or when the follower has caught up, after the metadata its event
 * classes need.
 *
 * The trace's beacon, the host TSC before which no stream brings an event
 * any more, follows the follower's horizon (no later than the latest
 * event). A viewer's time only goes forward, and babeltrace2 2.0 takes a
 * message earlier than one it has shown, in any stream (also one it learns
 * of later), for an error: so an event earlier than the latest event
 * already written (the follower's late events: a stalled stream's, past
 * the lag; a guest event that a refit placed earlier; a stream's first
 * events, come after others moved on) is placed at that latest time
 * instead, its bound widened by as much, so that its interval (time +/-
 * bound) still holds its true time, and counted (the relay says how many,
 * and how far the farthest moved). An event without a guaranteed bound
 * keeps none. `merge` places it where it belongs.
 *
 * Packets say no discarded events (events_discarded 0), neither these nor
 * those the producers lost: babeltrace2 2.0 places a discarded-events
 * message at the end of the stream's previous packet, and a stream that
 * was quiet meanwhile puts it before what the viewer has shown already,
 * which it takes for an error and stops. The relay says the counts;
 * `merge`, `check` and `merge --format=ctf` give them.
 */
#ifndef HVT_TOOLS_RELAY_RELAY_FEED_H
#define HVT_TOOLS_RELAY_RELAY_FEED_H

#include <stdint.h>

#include "tools/merge/follow.h"
#include "tools/model/span_hist.h"
#include "tools/out/ctf_out.h"
#include "tools/relay/relay_trace.h"

struct hvt_relay_feed {
	struct hvt_relay_trace *t;
	struct hvt_ctf_out ctf;
	const struct hvt_follow *f;	/* for the horizon */
	uint32_t classes_put;		/* event classes in the metadata */
	uint64_t max_ts;		/* the latest event written: no event goes before */
	uint64_t events, late;		/* written; of them placed later than their time */
	uint64_t late_max_ns;		/* ... the farthest, by so much */
	struct hvt_span_hist delay;	/* from each event's time to its handing on, ns */
	int error;			/* errno of a failed write: the feed stops */
};

/* Writes the metadata's head; -1 after an error message. */
int hvt_relay_feed_open(struct hvt_relay_feed *fd, struct hvt_relay_trace *t,
			struct hvt_session *ses, const struct hvt_follow *f);
/* The follower's sink callbacks, ctx the feed. */
int hvt_relay_feed_event(struct hvt_source *s, void *ctx);
void hvt_relay_feed_caught_up(void *ctx);
/* Publishes the rest and marks the trace done; -1 after an error message. */
int hvt_relay_feed_close(struct hvt_relay_feed *fd);
/* Frees what the feed kept for its summary (after hvt_relay_feed_close()). */
void hvt_relay_feed_free(struct hvt_relay_feed *fd);

#endif
