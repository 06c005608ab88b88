/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * merge.h - the text form of merged events (merge.c).
 */
#ifndef HVT_TOOLS_MERGE_H
#define HVT_TOOLS_MERGE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/align.h"
#include "tools/textout.h"
#include "tools/timeline.h"

enum hvt_time_mode {
	HVT_TIME_NS,		/* seconds.nanoseconds since the first clock pair */
	HVT_TIME_HOST_TSC,	/* the host TSC */
	HVT_TIME_REALTIME,	/* host CLOCK_REALTIME, seconds.nanoseconds */
};

#define HVT_TIME_TEXT_MAX	32

/* @host_tsc as text, NUL-terminated; returns its length. */
unsigned int hvt_format_time(char buf[HVT_TIME_TEXT_MAX], enum hvt_time_mode mode,
			     struct hvt_host_clock *clock, uint64_t host_tsc);
/* One line: time, layer, VM, CPU, tid, event name, fields. */
void hvt_print_event(struct hvt_text *t, enum hvt_time_mode mode, struct hvt_host_clock *clock,
		     struct hvt_source *s);

#endif
