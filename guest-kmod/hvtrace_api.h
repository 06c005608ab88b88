/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hvtrace_api.h - what other guest modules use of hvtrace.ko (all exported
 * GPL): define events (hvtrace_event.h) and register them, emit them, read
 * the trace clock, and add filters run before every write.
 *
 *   #include "hvtrace_event.h"
 *   HVTRACE_OWN_EVENT(mymod_request, HVT_PROTO(u32 id, const char *path), ...);
 *   init:  hvtrace_event_register(&hvtrace_event_mymod_request);
 *   use:   hvtrace_emit_mymod_request(id, path);   (any context, NMI included)
 *   exit:  hvtrace_event_unregister(&hvtrace_event_mymod_request);
 *
 * A registered event gets the next free id (ids are never reused while
 * hvtrace.ko is loaded, so packets already written never change meaning),
 * appears in the registry and the listings, and is enabled at once in every
 * session that asked for its name.
 */
#ifndef HVTRACE_API_H
#define HVTRACE_API_H

#include <linux/list.h>
#include <linux/tracepoint.h>
#include <linux/types.h>
#include <hvtrace/registry.h>

struct hvtrace_session;
struct hvtrace_buffer;

/* An event type: its registry description and the tracepoint it hooks. */
struct hvtrace_event {
	const char *name;		/* registry name; the tracepoint's, unless own */
	void *probe;
	const struct hvt_reg_field *fields;
	unsigned int nr_fields;
	const char *print_fmt;
	unsigned int id;		/* in the registry and in packets */
	struct tracepoint *tp;		/* resolved at registration; NULL if own */
	bool own;			/* emitted by hvtrace_emit_NAME(), no tracepoint */
	bool registered;
	unsigned int users;		/* sessions with the event enabled */
};

/*
 * The write path the generated probes use: for each session that takes the
 * event, a reservation (payload != NULL) to fill, then hvtrace_write_next().
 * Runs with preemption off (a tracepoint probe, or hvtrace_emit_NAME()).
 */
struct hvtrace_write {
	struct hvtrace_event *event;
	struct hvtrace_session *session;
	struct hvtrace_buffer *buffer;
	unsigned long ctx[4];		/* struct hvt_lrb_ctx, opaque here */
	bool admitted;			/* the filters passed; cpu and tid read */
	unsigned int cpu;
	pid_t tid;
	unsigned int size;
	void *payload;			/* where the record goes; NULL: done */
};

void hvtrace_write_begin(struct hvtrace_write *w, struct hvtrace_event *event,
			 unsigned int size);
void hvtrace_write_next(struct hvtrace_write *w);

int hvtrace_event_register(struct hvtrace_event *event);
void hvtrace_event_unregister(struct hvtrace_event *event);

/*
 * A filter: called before every write of every event, with preemption off,
 * in the writer's context (current, smp_processor_id()); may run in NMI.
 * Returns true to drop the event. Filters form a chain: any one drops it.
 */
struct hvtrace_filter {
	bool (*drop)(const struct hvtrace_filter *filter, const struct hvtrace_event *event);
	struct list_head node;		/* hvtrace's */
};

int hvtrace_filter_register(struct hvtrace_filter *filter);
void hvtrace_filter_unregister(struct hvtrace_filter *filter);

/* The trace clock (raw guest TSC), and a value of it in host nanoseconds. */
u64 hvtrace_clock_read(void);
s64 hvtrace_clock_host_ns(u64 tsc, u64 *error_ns);

#endif /* HVTRACE_API_H */
