/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * open_timeline.h - for the unit tests: a session on an archive and the
 * time line of all its aligned sources, opened and closed together.
 */
#ifndef HVT_TESTS_UNIT_OPEN_TIMELINE_H
#define HVT_TESTS_UNIT_OPEN_TIMELINE_H

#include <stdbool.h>

#include "tools/merge/timeline.h"
#include "tools/session/session.h"

struct fx_opened {
	struct hvt_session ses;
	struct hvt_timeline tl;
};

/* hvt_session_open() with @o (NULL: defaults) and the time line of every source. */
static inline int fx_open_with(struct fx_opened *m, const char *root,
			       const struct hvt_session_opts *o)
{
	if (hvt_session_open(&m->ses, root, o))
		return -1;
	if (hvt_timeline_init(&m->tl, &m->ses, NULL, NULL)) {
		hvt_session_close(&m->ses);
		return -1;
	}
	return 0;
}

/* The same for the archive alone; @all: its unaligned streams too. */
static inline int fx_open(struct fx_opened *m, const char *root, bool all)
{
	const struct hvt_session_opts o = { .all_streams = all };

	return fx_open_with(m, root, &o);
}

static inline void fx_close(struct fx_opened *m)
{
	hvt_timeline_close(&m->tl);
	hvt_session_close(&m->ses);
}

#endif
