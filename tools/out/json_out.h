/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * json_out.h - merged events as Chrome trace-event JSON (`hvtrace merge
 * --format=json`), which Perfetto UI and chrome://tracing load.
 *
 * One process per machine: the host is pid 1, the archive's VMs pid 2, 3, ...
 * in manifest order. Host and guest kernel events sit on one thread per CPU
 * (tid 1073741824 + CPU, named "cpu N" or "vcpu N"), guest user events on
 * their own thread (the task's tid). Every event is an instant ("ph":"i",
 * thread scope) whose "ts" is in microseconds since the trace start with
 * three decimals, written exactly, so no nanosecond is lost; its "args" hold
 * the CPU, the thread and the event's fields (ctf_reader.h, ftrace_reader.h).
 * Each VM's process also has a track per vCPU with its host thread's
 * states (json_vcpus.h). Each guest block request linked through QEMU's
 * log and back (model/io_flows.h) is drawn as a chain of flow arrows: at
 * each of its points, on the track of the event there, a 1 ns slice
 * ("ph":"X", "cat":"io", named "io R 16+8") bound to the chain
 * ("bind_id", "flow_out" at the first, "flow_in" and "flow_out" between,
 * "flow_in" at the last; Perfetto's flow v2), in time order.
 */
#ifndef HVT_TOOLS_OUT_JSON_OUT_H
#define HVT_TOOLS_OUT_JSON_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/merge/event_feed.h"
#include "tools/model/io_flows.h"
#include "tools/session/session.h"
#include "tools/out/json_runs.h"
#include "tools/out/json_vcpus.h"
#include "tools/out/sched_state.h"
#include "tools/util/text_buffer.h"

#define HVT_JSON_CPU_TRACK	(1u << 30)	/* tid of CPU 0's thread; above any real tid */
#define HVT_JSON_MAX_CPU	(1u << 20)	/* beyond: a damaged stream's, on "no cpu" */

struct hvt_json_printer {
	struct hvt_text text;
	struct hvt_session *ses;
	uint32_t *pid;			/* per source index */
	uint64_t *tracks;		/* threads named so far: pid << 32 | tid; 0 free */
	size_t nr_tracks, cap_tracks;
	struct hvt_json_vcpus vcpus;
	struct hvt_json_runs runs;
	struct hvt_sched_state states;	/* prev_state in letters */
	struct hvt_io_flows io;		/* the requests drawn as flows */
	struct hvt_event_feed io_feed;
	bool io_ready;
	uint64_t flows;			/* drawn so far: each chain's bind_id */
};

/* The opening of the document, for @ses's sources, to @out; -1 if out of memory. */
int hvt_json_init(struct hvt_json_printer *p, struct hvt_session *ses, FILE *out);
void hvt_json_event(struct hvt_json_printer *p, struct hvt_source *s);
/* @ns as [-]microseconds.nnn, exact to the ns: every "ts" and "dur" of the document. */
void hvt_json_write_us(struct hvt_text *t, int64_t ns);
/* Closes the document and writes out what the buffer holds. */
void hvt_json_finish(struct hvt_json_printer *p);
void hvt_json_free(struct hvt_json_printer *p);

#endif
