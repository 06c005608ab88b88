/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hvtrace_internal.h - declarations shared by the guest module's files.
 *
 *   main.c      module init/exit, /dev/hvtrace
 *   clock.c     the trace clock and its user-visible clock page
 *   session.c   sessions: event sets, start/stop, registry export
 *   buffer.c    per-CPU ring buffers and their stream fds (mmap, get/put, poll)
 *   write.c     the write path and its gates
 *   registry.c  registered events by id, the filter chain, text listings
 *   probes.c    attaching probes to kernel tracepoints by name
 *   events.c    the events this module defines (events/ headers)
 *   sync.c      sync points: periodic KVM hypercalls the host records
 */
#ifndef HVTRACE_INTERNAL_H
#define HVTRACE_INTERNAL_H

#include <linux/fs.h>
#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/tracepoint.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/mm.h>
#include <asm/msr.h>

#include "kernel_compat.h"
#include <hvtrace/abi.h>

#include "hvtrace_api.h"

/*
 * The trace clock, the one definition: the raw guest TSC, read in order with
 * the code around it. Every hvtrace kernel event is stamped with it; other
 * modules get it through hvtrace_clock_read().
 */
static inline u64 __hvtrace_clock_read(void)
{
	return rdtsc_ordered();
}

#define hvt_lrb_clock()	__hvtrace_clock_read()

/*
 * For mmap handlers: refuses writable or executable mappings and keeps them
 * from becoming so (mprotect); 0 or -EPERM.
 */
static inline int hvtrace_vma_readonly(struct vm_area_struct *vma)
{
	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EPERM;
	hvtrace_vm_flags_clear(vma, VM_MAYWRITE | VM_MAYEXEC);
	return 0;
}
#include <hvtrace/lockless_rb.h>

#define HVTRACE_MAX_EVENTS	HVTRACE_MAX_EVENT_IDS	/* ids, never reused while loaded */

/* One CPU's buffer in one session; the CPU is rb.cpu_id. */
struct hvtrace_buffer {
	struct hvt_lrb rb;
	struct hvt_lrb_slot *slots;
	unsigned char *reader;		/* after the sub-buffers: overwrite-mode copies */
	size_t map_size;		/* nr_subbufs + 1 sub-buffers, what mmap shows */
	struct page **pages;		/* map_size of them, vmap()ed at rb.data */
	unsigned long nr_pages;
	struct mutex lock;		/* consumer side: read, get/put, flush */
	bool held;			/* a GET_SUBBUF not yet put */
	struct file *holder;		/* the stream fd that got it */
	unsigned long held_packet;
	wait_queue_head_t wait;		/* poll: a packet was delivered */
	struct irq_work wakeup;		/* queued by writers, once per packet */
};

#define HVTRACE_MAX_ENABLERS	32

struct hvtrace_session {
	struct list_head node;		/* in hvtrace_sessions, RCU */
	unsigned int serial;		/* for the listing */
	bool active;			/* the buffers' enable: all events at once */
	DECLARE_BITMAP(enabled, HVTRACE_MAX_EVENTS);
	/* names asked for: events registered later are enabled by them */
	char (*enablers)[HVT_NAME_MAX];
	unsigned int nr_enablers;
	struct hvtrace_buffer **buffers;	/* [nr_cpu_ids] */
	struct mutex lock;		/* start and stop, one at a time */
};

/* write.c (the write path itself is in hvtrace_api.h) */
extern bool hvtrace_enabled;	/* the global enable (module parameter) */
bool hvtrace_session_records(const struct hvtrace_event *event);

/* events.c: the module's own events, registered at load */
int hvtrace_builtin_events_register(void);
void hvtrace_builtin_events_unregister(void);
extern struct hvtrace_event *const hvtrace_sync_end_event;
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

/* registry.c: the table of registered events, by id; hvtrace_lock */
extern struct hvtrace_event *hvtrace_events[HVTRACE_MAX_EVENTS];
extern unsigned int hvtrace_nr_ids;		/* ids handed out so far */
extern unsigned long hvtrace_registry_gen;	/* bumped by each (un)registration */
struct hvtrace_event *hvtrace_event_find(const char *name);
void hvtrace_event_remove(struct hvtrace_event *event);
bool hvtrace_filters_drop(const struct hvtrace_event *event);
extern const struct attribute_group *hvtrace_attr_groups[];

/* probes.c */
struct tracepoint *hvtrace_tracepoint_find(const char *name);
int hvtrace_probe_get(struct hvtrace_event *event);
void hvtrace_probe_put(struct hvtrace_event *event);

/* session.c */
extern struct list_head hvtrace_sessions;
extern struct mutex hvtrace_lock;
long hvtrace_session_create(struct hvtrace_session_config __user *uconfig);
void hvtrace_sessions_event_added(struct hvtrace_event *event);
void hvtrace_sessions_event_removed(struct hvtrace_event *event);
ssize_t hvtrace_sessions_show_enabled(char *buf);

/* buffer.c */
/* The sub-buffers and the reader's copy slot after them. */
static inline size_t hvtrace_buffer_bytes(const struct hvtrace_session_config *config)
{
	return ((size_t)config->nr_subbufs + 1) * config->subbuf_size;
}

struct hvtrace_buffer *hvtrace_buffer_create(const struct hvtrace_session_config *config,
					     unsigned int cpu);
void hvtrace_buffer_destroy(struct hvtrace_buffer *buf);
void hvtrace_buffer_flush(struct hvtrace_buffer *buf);
int hvtrace_stream_fd(struct hvtrace_session *s, struct file *session_file,
		      unsigned int cpu);

/* clock.c (hvtrace_clock_read() and _host_ns() are in hvtrace_api.h) */
int hvtrace_clock_init(void);
void hvtrace_clock_exit(void);
int hvtrace_clock_mmap(struct vm_area_struct *vma);
long hvtrace_clock_set(struct hvtrace_set_clock __user *uarg);
long hvtrace_clock_reading(struct hvtrace_clock_reading __user *uarg);
u64 hvtrace_clock_khz(void);

#endif /* HVTRACE_INTERNAL_H */
