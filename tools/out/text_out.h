/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * merge.h - the text form of merged events (merge.c).
 */
#ifndef HVT_TOOLS_OUT_TEXT_OUT_H
#define HVT_TOOLS_OUT_TEXT_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/align/align.h"
#include "tools/util/textout.h"
#include "tools/merge/timeline.h"

enum hvt_time_mode {
	HVT_TIME_NS,		/* seconds.nanoseconds since the first clock pair */
	HVT_TIME_HOST_TSC,	/* the host TSC */
	HVT_TIME_REALTIME,	/* host CLOCK_REALTIME, seconds.nanoseconds */
};

#define HVT_TIME_TEXT_MAX	32

/* @host_tsc as text, NUL-terminated; returns its length. */
unsigned int hvt_format_time(char buf[HVT_TIME_TEXT_MAX], enum hvt_time_mode mode,
			     struct hvt_host_clock *clock, uint64_t host_tsc);
/* The layer and VM columns, the same on every line of a source. */
struct hvt_source_cols {
	unsigned int len;
	char text[16 + HVT_VM_NAME_MAX];
};

/* Lines of one timeline's events, in a buffer of its own. */
struct hvt_printer {
	struct hvt_text text;
	enum hvt_time_mode mode;
	bool print_fmt;			/* host fields as ftrace prints them */
	struct hvt_host_clock *clock;
	struct hvt_source_cols *cols;	/* one per source, by index */
};

/* For @tl's sources, to @out; -1 if out of memory. */
int hvt_printer_init(struct hvt_printer *p, struct hvt_timeline *tl,
		     enum hvt_time_mode mode, FILE *out);
/* Frees the buffer; what it holds must have been flushed (hvt_text_flush()). */
void hvt_printer_free(struct hvt_printer *p);
/* One line: time, layer, VM, CPU, tid, event name, fields. */
void hvt_print_event(struct hvt_printer *p, struct hvt_source *s);

#endif
