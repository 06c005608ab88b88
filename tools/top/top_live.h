/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * top_live.h - `hvtrace top`'s pass over a recording in progress: the
 * follower (merge/follow.h) hands each final event to the analyses of
 * `hvtrace analyze` (model/vm_analyses.h) through the event feed, and
 * each analysed VM's pieces to its interval (top_interval.h); every
 * stream's events and losses are counted. The analyses start once every
 * VM that has streams is placed on the host's clock (its first exchanges
 * came): the vCPU threads' host states are taken up from there, leniently,
 * as analyze takes a recording that starts with threads already running;
 * the guest task current on each vCPU then is the one its last guest
 * sched_switch before named (a second feed notes them from the start).
 *
 * The caller shows an interval and resets it (hvt_top_live_reset()) at its
 * pace, from the follower's caught_up and wait. A recording complete when
 * opened is analysed whole instead (hvt_top_live_whole()): from its first
 * event, every VM being placed, to its last, shown once.
 */
#ifndef HVT_TOOLS_TOP_TOP_LIVE_H
#define HVT_TOOLS_TOP_TOP_LIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "tools/merge/event_feed.h"
#include "tools/merge/follow.h"
#include "tools/model/vm_analyses.h"
#include "tools/top/top_interval.h"

#define HVT_TOP_MAX_VCPUS	288	/* vCPUs per VM whose current task is noted */

/* A stream's counters at the last reset, to show its rate. */
struct hvt_top_stream {
	uint64_t events, lost;
};

struct hvt_top_live {
	struct hvt_session *ses;
	struct hvt_timeline *tl;
	struct hvt_follow f;
	bool analysing;			/* the analyses below run */
	unsigned int started;		/* times they were (re)started */
	size_t placed;			/* VMs placed when they last were */
	int64_t waiting_since;		/* CLOCK_MONOTONIC: not ready since (0: not asked) */
	struct hvt_vm_analyses va;
	struct hvt_event_feed feed;
	struct hvt_event_feed pre;	/* every guest sched_switch, from the start ... */
	struct hvt_fed_event *last_switch;	/* ... the last per VM and vCPU:
						 * [vm * HVT_TOP_MAX_VCPUS + vcpu] */
	struct hvt_top_vm *vms;		/* per VM of the archive; a = NULL: not analysed */
	struct hvt_top_stream *was;	/* per source, at the last reset */
	size_t nr_was;
	int64_t since_ns;		/* CLOCK_REALTIME of the last reset */
	uint64_t handed;		/* events handed on since */
	uint64_t first_tsc;		/* the earliest event handed on (0: none yet) */
	uint64_t newest_tsc;		/* the latest event handed on */
	bool whole;			/* a complete recording, analysed from its start */
	bool oom;
};

/* On @tl of a session opened to follow; -1 if out of memory. */
int hvt_top_live_init(struct hvt_top_live *t, struct hvt_timeline *tl,
		      const struct hvt_follow_opts *fo);
void hvt_top_live_free(struct hvt_top_live *t);
/* The follower's sink: each final event (@ctx: the struct hvt_top_live). */
int hvt_top_live_event(struct hvt_source *s, void *ctx);
/*
 * Starts the analyses if every VM with streams is placed now, or starts
 * them again from now if a VM was placed since (a guest that connected
 * later); whether they run (t->started counts the starts).
 */
bool hvt_top_live_ready(struct hvt_top_live *t);
/*
 * Before following: if the recording is complete, starts the analyses
 * from its first event, to show it whole (t->whole); whether it did.
 */
bool hvt_top_live_whole(struct hvt_top_live *t);
/*
 * The recording was read to its end: what the analyses still hold open
 * (a vCPU thread's run, a thread waiting) ends at its last event.
 */
void hvt_top_live_finish(struct hvt_top_live *t);
/* The host ticks from the first event handed on to the latest. */
uint64_t hvt_top_live_span(const struct hvt_top_live *t);
/* A new interval from now (@now_ns, CLOCK_REALTIME). */
void hvt_top_live_reset(struct hvt_top_live *t, int64_t now_ns);
/* Source @i's events and losses since the last reset. */
void hvt_top_live_stream(const struct hvt_top_live *t, size_t i, uint64_t *events,
			 uint64_t *lost);

#endif
