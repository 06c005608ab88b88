/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * top_screen.h - one screen of `hvtrace top`, as lines of at most the
 * terminal's width and, on a terminal, at most its height (what does not
 * fit is said, with what a taller one would show): a head line (the
 * recording, how far behind the newest event it is, the interval; for a
 * recording shown whole, that it is and its length), then
 * per VM shown its vCPUs' shares of the interval by state, the host tasks
 * that took the most from its vCPUs, its KVM exits by reason, the guest
 * threads that lost the most and to what, and its clock's current bound;
 * then the streams' events per second and losses.
 */
#ifndef HVT_TOOLS_TOP_TOP_SCREEN_H
#define HVT_TOOLS_TOP_TOP_SCREEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tools/top/top_live.h"

#define HVT_TOP_ALL_VMS	((size_t)-1)

/* How the guest threads are sorted ('s' cycles). */
enum hvt_top_sort {
	HVT_TOP_SORT_LOST,		/* lost in all: to the host, KVM and the guest */
	HVT_TOP_SORT_HOST,		/* lost to host tasks */
	HVT_TOP_SORT_GUEST,		/* waiting runnable in the guest */
	HVT_TOP_NR_SORTS,
};

struct hvt_top_view {
	int width, height;		/* height 0: no limit (--batch) */
	size_t vm;			/* the VM shown (index), or HVT_TOP_ALL_VMS */
	enum hvt_top_sort sort;
	bool paused;
	bool keys;			/* say the keys (a terminal) */
	int rows;			/* host tasks and guest threads shown per VM */
	int64_t now_ns;			/* CLOCK_REALTIME of the screen */
};

/* The sort's name, for the keys line and --help. */
const char *hvt_top_sort_name(enum hvt_top_sort s);
/* The screen for the interval @t counted, to @out, each line ending in "\n". */
void hvt_top_screen(FILE *out, struct hvt_top_live *t, const struct hvt_top_view *v);

#endif
