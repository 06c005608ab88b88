/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * progress.h - how far a merge is, on a terminal: once a merge has run for
 * a second, a line on standard error, rewritten in place at most four times
 * a second, says how much of the streams' bytes has been read and how many
 * events came out; it is erased at the end. Off when standard error is not
 * a terminal, so that logs and pipes never see it.
 *
 * The cost on the merge loop is a countdown per event: the clock is only
 * read every HVT_PROGRESS_EVERY events.
 */
#ifndef HVT_TOOLS_OUT_PROGRESS_H
#define HVT_TOOLS_OUT_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/merge/timeline.h"

#define HVT_PROGRESS_EVERY	65536u

struct hvt_progress {
	FILE *out;			/* NULL: off */
	struct hvt_timeline *tl;
	uint64_t total_bytes;		/* of the merged streams' files */
	int64_t start_ns, last_ns;	/* CLOCK_MONOTONIC */
	int64_t delay_ns;		/* nothing shown before this */
	int64_t redraw_ns;		/* nor more often than this */
	uint32_t every, countdown;
	bool shown;			/* a line is on the terminal */
};

/*
 * For the merge of @tl, to @out, which is a terminal (or a test's file);
 * @out NULL turns it off. First shown after @delay_ns, then checked every
 * @every events.
 */
void hvt_progress_init(struct hvt_progress *p, struct hvt_timeline *tl, FILE *out,
		       int64_t delay_ns, uint32_t every);
void hvt_progress_update(struct hvt_progress *p);

/* One more event out of the time line (which counts them). */
static inline void hvt_progress_tick(struct hvt_progress *p)
{
	if (p->out && !--p->countdown)
		hvt_progress_update(p);
}

/* Erases the line, if one was shown. */
void hvt_progress_end(struct hvt_progress *p);

#endif
