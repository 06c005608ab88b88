/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * text_out.h - the text form of merged events, merge's default output.
 */
#ifndef HVT_TOOLS_OUT_TEXT_OUT_H
#define HVT_TOOLS_OUT_TEXT_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/out/sched_state.h"
#include "tools/util/text_buffer.h"
#include "tools/util/time_text.h"
#include "tools/session/session.h"

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
	bool bounds;			/* each event's error bound after its time */
	bool delta;			/* the time since the line before, not since the start */
	uint64_t prev_tsc;		/* ... the line before's (0: none yet) */
	struct hvt_session *ses;
	struct hvt_host_clock *clock;
	struct hvt_source_cols *cols;	/* one per source, by index, ... */
	size_t nr_cols;			/* ... for the first so many (a refresh adds) */
	int vm_width;			/* the VM column's */
	struct hvt_sched_state states;	/* prev_state in letters */
	const struct hvt_thread_names *names;	/* the thread column's names; NULL: none */
};

/* For @ses's sources, to @out; -1 if out of memory. */
int hvt_printer_init(struct hvt_printer *p, struct hvt_session *ses,
		     enum hvt_time_mode mode, FILE *out);
/* Frees the buffer; what it holds must have been flushed (hvt_text_flush()). */
void hvt_printer_free(struct hvt_printer *p);
/*
 * One line: time (and bound), layer, VM, CPU (vcpuN in a VM), thread
 * (COMM-TID), event name, fields.
 */
void hvt_printer_print(struct hvt_printer *p, struct hvt_source *s);

#endif
