/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * timeline.h - one time line from the sources of a session.
 *
 * Each source (session/source.h) is already in time order, so the time
 * line is a k-way merge: a heap (heap.h, which documents the tie-break)
 * holds each source's next event keyed by its host TSC; the smallest is
 * returned, then that source reads its next event and is re-keyed in place.
 * Memory: one packet or page per source. What the events are of (the
 * archive, the VMs, their alignment) is the session's (session/session.h);
 * the time line only orders them, and knows no format and no alignment
 * policy.
 */
#ifndef HVT_TOOLS_MERGE_TIMELINE_H
#define HVT_TOOLS_MERGE_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "tools/merge/heap.h"
#include "tools/session/session.h"

/* Which sources a time line takes: called once per aligned source. */
typedef bool (*hvt_source_want_fn)(const struct hvt_source *s, void *ctx);

struct hvt_timeline {
	struct hvt_session *ses;
	struct hvt_heap heap;
	struct hvt_source *current;	/* returned last, to be advanced */
	uint64_t events[HVT_NR_LAYERS];	/* returned so far */
	hvt_source_want_fn want;
	void *ctx;
	size_t nr_known;		/* sources asked about: the session's first ones */
	bool *queued;			/* per source: in the heap */
};

/*
 * A time line of the aligned sources of @ses that @want accepts (NULL:
 * every one), each read up to its first event; the others are not read
 * (and marked unwanted). -1 after an error message if out of memory.
 */
int hvt_timeline_init(struct hvt_timeline *tl, struct hvt_session *ses, hvt_source_want_fn want,
		      void *ctx);
/* The source holding the next event of the time line, or NULL at the end. */
struct hvt_source *hvt_timeline_next(struct hvt_timeline *tl);
/*
 * The source holding the event hvt_timeline_next() will return, or NULL:
 * a look, which takes nothing (a follower waits for events to be final).
 */
struct hvt_source *hvt_timeline_peek(struct hvt_timeline *tl);
/*
 * After hvt_session_refresh(): takes the events the sources gained, and
 * the sources the session gained (those @want accepts). The time line goes
 * on in time order among what it has; what a refresh brings may lie before
 * events returned already (a stream's packets come as the collector gets
 * them): a reader that needs one order across refreshes holds events back
 * (a live view's lag behind the newest packet). -1 after an error message if out of memory.
 */
int hvt_timeline_refresh(struct hvt_timeline *tl);
void hvt_timeline_close(struct hvt_timeline *tl);

#endif
