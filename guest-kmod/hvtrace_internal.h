/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hvtrace_internal.h - declarations shared by the guest module's files.
 *
 *   main.c      module init/exit, /dev/hvtrace
 *   clock.c     the trace clock and its user-visible clock page
 *   session.c   sessions: event sets, start/stop, registry export
 *   buffer.c    per-CPU ring buffers, the write path, stream fds
 *   probes.c    attaching probes to kernel tracepoints by name
 *   events.c    the events this module defines (events/ headers)
 *   sync.c      sync points: periodic KVM hypercalls the host records
 */
#ifndef HVTRACE_INTERNAL_H
#define HVTRACE_INTERNAL_H

#include <linux/fs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/tracepoint.h>
#include <linux/types.h>
#include <asm/msr.h>
#include <hvtrace/abi.h>
#include <hvtrace/ringbuf.h>

#define HVTRACE_MAX_EVENTS	64

/* An event type: its registry description and the tracepoint it hooks. */
struct hvtrace_event {
	const char *name;		/* registry name; the tracepoint's, unless own */
	void *probe;
	const struct hvt_reg_field *fields;
	unsigned int nr_fields;
	const char *print_fmt;
	unsigned int id;		/* index in hvtrace_events[] */
	struct tracepoint *tp;		/* resolved at load; NULL if own */
	bool own;			/* emitted by the module (hvtrace_emit_NAME()) */
	unsigned int users;		/* sessions with the event enabled */
};

/* One CPU's buffer in one session; the CPU is rb.cpu_id. */
struct hvtrace_buffer {
	struct hvt_rb rb;
	struct hvt_rb_prod prod;
	struct hvt_rb_cons cons;
	struct mutex lock;		/* read() and flushes, one at a time */
};

struct hvtrace_session {
	struct list_head node;		/* in hvtrace_sessions, RCU */
	bool active;			/* the buffers' enable: all events at once */
	DECLARE_BITMAP(enabled, HVTRACE_MAX_EVENTS);
	struct hvtrace_buffer **buffers;	/* [nr_cpu_ids] */
	struct mutex lock;		/* start and stop, one at a time */
};

/* The write path, used by the probes generated in hvtrace_event.h. */
struct hvtrace_write {
	struct hvtrace_event *event;
	struct hvtrace_session *session;
	struct hvtrace_buffer *buffer;
	unsigned long irq_flags;	/* saved when stamped, restored when done */
	bool stamped;			/* ts, cpu, tid read; interrupts off */
	unsigned int cpu;
	pid_t tid;
	u64 ts;
	u64 end;
	unsigned int size;
	void *payload;			/* where the record goes; NULL: done */
};

void hvtrace_write_begin(struct hvtrace_write *w, struct hvtrace_event *event,
			 unsigned int size);
void hvtrace_write_next(struct hvtrace_write *w);

/* events.c */
extern struct hvtrace_event *hvtrace_events[];
extern const unsigned int hvtrace_nr_events;
struct hvtrace_event *hvtrace_event_find(const char *name);
bool hvtrace_sync_recording(void);
/* the module's own events (events/hvtrace.h) */
void hvtrace_emit_hvtrace_sync_begin(u64 seq);
void hvtrace_emit_hvtrace_sync_end(u64 seq, u64 tsc_before, u64 tsc_after, s64 ret);
void hvtrace_emit_hvtrace_sync_unavailable(const char *reason);
void hvtrace_emit_hvtrace_clock_change(u64 generation, u32 flags, const char *cause);

/* sync.c */
void hvtrace_sync_detect(void);
void hvtrace_sync_update(void);
void hvtrace_sync_session_started(void);
void hvtrace_sync_exit(void);
const char *hvtrace_sync_status(void);

/* probes.c */
void hvtrace_probes_resolve(void);
int hvtrace_probe_get(struct hvtrace_event *event);
void hvtrace_probe_put(struct hvtrace_event *event);

/* session.c */
extern struct list_head hvtrace_sessions;
extern struct mutex hvtrace_lock;
long hvtrace_session_create(struct hvtrace_session_config __user *uconfig);
bool hvtrace_session_records(const struct hvtrace_event *event);

/* buffer.c */
static inline size_t hvtrace_buffer_bytes(const struct hvtrace_session_config *config)
{
	return (size_t)config->nr_subbufs * config->subbuf_size;
}

struct hvtrace_buffer *hvtrace_buffer_create(const struct hvtrace_session_config *config,
					     unsigned int cpu);
void hvtrace_buffer_destroy(struct hvtrace_buffer *buf);
void hvtrace_buffer_flush(struct hvtrace_buffer *buf);
int hvtrace_stream_fd(struct hvtrace_session *s, struct file *session_file,
		      unsigned int cpu);

/*
 * The trace clock, the one definition: the raw guest TSC, read in order with
 * the code around it. Every hvtrace kernel event is stamped with it; other
 * modules get it through hvtrace_clock_read().
 */
static inline u64 __hvtrace_clock_read(void)
{
	return rdtsc_ordered();
}

/* clock.c; the first two are exported to other guest modules */
u64 hvtrace_clock_read(void);
s64 hvtrace_clock_host_ns(u64 tsc, u64 *error_ns);
int hvtrace_clock_init(void);
void hvtrace_clock_exit(void);
int hvtrace_clock_mmap(struct vm_area_struct *vma);
long hvtrace_clock_set(struct hvtrace_set_clock __user *uarg);
long hvtrace_clock_reading(struct hvtrace_clock_reading __user *uarg);
u64 hvtrace_clock_khz(void);

#endif /* HVTRACE_INTERNAL_H */
