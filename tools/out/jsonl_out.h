/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * jsonl_out.h - merged events as JSON lines (`hvtrace merge --format=jsonl`,
 * docs/format.md section 9): one JSON object per line and event, written as
 * the events come, so that `merge --follow` streams it to jq or a program.
 *
 * {"time_ns":N,"realtime_ns":"N","host_tsc":"N","bound_ns":N,"layer":"host",
 *  "vm":null,"comm":"bash","event":"sched_switch","args":{"cpu":1,"tid":7,
 *  FIELD:VALUE...}}
 * time_ns: ns since the trace start on the host's clock; realtime_ns: its
 * CLOCK_REALTIME and host_tsc, as strings of digits (they exceed 2^53,
 * which a JSON number does not hold exactly); bound_ns: 0 on the host TSC, null where none is
 * guaranteed; vm, comm and args.cpu null where there is none; args as
 * --format=json's (its fields, prev_state in letters).
 */
#ifndef HVT_TOOLS_OUT_JSONL_OUT_H
#define HVT_TOOLS_OUT_JSONL_OUT_H

#include <stdio.h>

#include "tools/out/sched_state.h"
#include "tools/session/session.h"
#include "tools/session/thread_names.h"
#include "tools/util/text_buffer.h"

struct hvt_jsonl_printer {
	struct hvt_text text;
	struct hvt_session *ses;
	const struct hvt_thread_names *names;	/* comm; NULL: none */
	struct hvt_sched_state states;
};

/* For @ses's events, to @out; -1 if out of memory. */
int hvt_jsonl_init(struct hvt_jsonl_printer *p, struct hvt_session *ses,
		   const struct hvt_thread_names *names, FILE *out);
void hvt_jsonl_event(struct hvt_jsonl_printer *p, struct hvt_source *s);
/* Writes out what the buffer holds and frees it. */
void hvt_jsonl_finish(struct hvt_jsonl_printer *p);

#endif
