/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vm.h - one guest, as the collector sees it.
 *
 *   vm_link.c   the wire protocol with the guest agent, clock exchanges
 *   vm_store.c  the VM's part of the archive: traces, streams, info.json
 *
 * Everything the guest sends is untrusted; the first violation ends the
 * link with a reason, and what was stored before stays stored.
 */
#ifndef HVT_HOST_VM_H
#define HVT_HOST_VM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include <hvtrace/wire.h>

#include "host/replace_async.h"
#include "clocksync/clocksync.h"
#include "host/archive_writer.h"
#include "lib/names.h"
#include "lib/event_registry.h"
#include "lib/fileio.h"
#include "lib/tsdl.h"
#include "lib/wire_io.h"

#define HVT_VM_MAX_TRACES	HVT_W_MAX_TRACES
#define HVT_VM_MAX_STREAMS	HVT_W_MAX_STREAMS
#define HVT_VM_MAX_UNTRACED_THREADS (1ull << 32)	/* one process's, at most (pid_t) */
#define HVT_SYNC_BURST		16
/*
 * A guest that leaves a SYNC_REQ unanswered this long is said to be stalled
 * (a TCG guest on a busy host, a paused VM); it is cut off only after
 * limits.stall_timeout_s.
 */
#define HVT_SYNC_SLOW_S		10
#define HVT_SYNC_STALL_S	120	/* limits.stall_timeout_s when 0 */
/* The guest's transform is refreshed this often while it traces. */
#define HVT_PARAMS_REFRESH_S	10
/*
 * Bursts in a row that end without a constant offset before the collector
 * stops trying until the next HVT_PARAMS_REFRESH_S: a guest whose clock
 * keeps changing (a TSC at another rate than it says) must not turn the
 * link into a stream of exchanges.
 */
#define HVT_RESYNC_MAX_BURSTS	3
/*
 * A guest's LOG lines shown on the collector's stderr: HVT_LOG_PER_S a
 * second, HVT_LOG_BURST at once; the others are counted, said about once
 * a second, and kept in info.json (logs_dropped).
 */
#define HVT_LOG_PER_S		20
#define HVT_LOG_BURST		100
/*
 * Processes a guest said went untraced (UNTRACED) that info.json lists; the
 * others are only counted, so a flood of refused connections cannot grow it.
 */
#define HVT_VM_UNTRACED_LISTED	256
/* Bytes of packets a guest may have waiting for their event ids. */
#define HVT_VM_PENDING_MAX	(4u << 20)

/* What one guest may use of the collector (hvtrace record's per-VM quotas). */
struct hvt_vm_limits {
	uint32_t sync_interval_ms;	/* period of clock exchanges */
	uint64_t byte_quota;		/* packets and registry records stored */
	uint32_t max_streams;		/* streams opened over the recording */
	uint64_t rate;			/* bytes per second read from the link; 0: any */
	uint32_t stall_timeout_s;	/* a SYNC_REQ unanswered this long ends the link */
};

enum hvt_vm_state {
	HVT_VM_WAITING,		/* no link yet */
	HVT_VM_HELLO,		/* linked, waiting for HELLO */
	HVT_VM_SYNCING,		/* initial burst of exchanges */
	HVT_VM_RUNNING,		/* tracing */
	HVT_VM_FINAL_SYNC,	/* guest finished; final burst */
	HVT_VM_ENDED,
};

struct hvt_vm_trace {
	bool open;
	uint32_t layer, domain, pid;
	uint64_t freq_hz;
	uint8_t uuid[HVT_UUID_LEN];
	char comm[17];
	char dir[64];			/* relative to the VM directory */
	struct hvt_registry registry;	/* exactly the records in the file */
	int registry_fd;
	uint64_t registry_bytes;	/* of the file */
	bool metadata_dirty;		/* metadata lags the registry */
	uint64_t metadata_bytes;	/* of the file, which only grows */
	unsigned char declared[HVT_TSDL_DECLARED_BYTES];	/* events in it, by id */
	uint64_t threads_untraced;	/* the guest's count (THREADS_UNTRACED) */
};

/*
 * A packet holding an event id its trace has not registered yet: the guest
 * may send registry and packets in any order (docs/format.md, section 5).
 */
struct hvt_vm_pending {
	struct hvt_vm_pending *next;
	uint32_t len;
	uint32_t id;			/* the first unregistered id */
	unsigned char data[];
};

struct hvt_vm_stream {
	uint32_t trace;
	uint32_t cpu;
	int32_t tid;
	int fd;				/* -1 once closed */
	bool listed;			/* in the info.json on disk */
	bool closed_by_guest;
	uint64_t packets, bytes, lost;
	uint64_t events;		/* in the packets stored (their walk counts them) */
	uint32_t walked_events;		/* ... in the packet walked last, to store next */
	/* packets waiting for their ids, in stream order; later ones wait behind */
	struct hvt_vm_pending *pending, **pending_tail;
	uint64_t dropped;		/* packets whose ids never came, at the end */
};

struct hvt_vm {
	char name[HVT_VM_NAME_MAX + 1];
	char rel[HVT_VM_NAME_MAX + 8];	/* vm/NAME, or host/apps */
	char dir[HVT_PATH_LEN];			/* ARCHIVE/rel */
	bool host_apps;			/* the host's own applications (--host-apps):
					 * traces on HVT_DOMAIN_TSC, the host TSC */
	struct hvt_archive_writer *archive;
	int qemu_pid;
	const char *accel;
	enum hvt_vm_state state;
	int fd;				/* the link, -1 if none */
	struct hvt_frame_reader reader;
	uint64_t frames[HVT_W_TYPE_MAX];	/* received, per type (shown with -v) */
	struct hvt_w_hello hello;
	/* clock exchanges */
	FILE *sync_tsv;
	struct hvt_offset_fit fit;
	uint64_t sync_seq;		/* of the next exchange: exchanges completed */
	uint64_t sync_sent;		/* host_send of the outstanding request */
	bool sync_outstanding;
	int64_t sync_sent_ns;		/* CLOCK_MONOTONIC of the outstanding request */
	bool sync_stall_said;		/* it was said to be unanswered for HVT_SYNC_SLOW_S */
	char label[HVT_VM_NAME_MAX + 4];	/* "vm NAME", for messages */
	int burst_left;
	bool resync;			/* the offset changed: a burst, then new PARAMS */
	unsigned int resyncs;		/* times the guest clock was seen to change */
	unsigned int resync_bursts;	/* bursts of the current resync, so far */
	unsigned int resyncs_abandoned;	/* resyncs given up after HVT_RESYNC_MAX_BURSTS */
	unsigned int params_sent;
	int64_t next_params_ns;		/* CLOCK_MONOTONIC of the next refresh */
	int64_t next_resync_ns;		/* no clock change acted on before */
	/* KVM's own offset for every vCPU, from the latest debugfs snapshot */
	bool kvm_known;
	int64_t kvm_offset;		/* guest TSC - host TSC, unscaled */
	bool kvm_contradicted;		/* said once: the exchanges rule it out */
	bool params_exact;		/* the last PARAMS sent carried it */
	int64_t next_sync_ns;		/* CLOCK_MONOTONIC */
	struct hvt_vm_limits limits;
	int64_t rate_credit;		/* bytes the link may still read now (limits.rate) */
	int64_t rate_refilled_ns;	/* CLOCK_MONOTONIC of the last refill */
	uint64_t throttled_ticks;	/* ticks the link was not read: over its rate */
	int64_t log_credit;		/* LOG lines that may still be shown now */
	int64_t log_refilled_ns;	/* CLOCK_MONOTONIC of the last refill */
	uint64_t logs_dropped;		/* LOG lines not shown: over HVT_LOG_PER_S */
	uint64_t logs_dropped_said;	/* of those, how many a warning counted */
	/* data */
	struct hvt_vm_trace traces[HVT_VM_MAX_TRACES];
	struct hvt_vm_stream *streams[HVT_VM_MAX_STREAMS];
	uint64_t bytes;			/* packets and registry records stored */
	uint64_t pending_bytes;		/* of packets waiting for their ids */
	uint32_t nr_streams;		/* opened */
	/* processes that went untraced (UNTRACED): the first ones, and how many */
	struct hvt_w_untraced *untraced;	/* HVT_VM_UNTRACED_LISTED, once one came */
	uint32_t nr_untraced_listed;
	uint64_t nr_untraced;
	bool info_dirty;		/* info.json lags */
	struct hvt_replace_slot info_slot;	/* its rewrites on the tick (replace_async.h) */
	bool stop_requested;
	bool no_link;			/* host layer only: ending is not a failure */
	bool finished;			/* FINISH, the final exchanges and GOODBYE done */
	char end_reason[256];		/* empty until hvt_vm_end() */
	char why[256];			/* scratch for error text */
};

/* vm_link.c */
int hvt_vm_init(struct hvt_vm *vm, struct hvt_archive_writer *ar, const char *name, int qemu_pid,
		const char *accel, const struct hvt_vm_limits *limits, char *err, size_t errlen);
/*
 * The host's own applications, served by a host agent (host_apps.h): a link
 * like a VM's, stored in host/apps, whose traces are on the host TSC.
 */
int hvt_vm_init_host_apps(struct hvt_vm *vm, struct hvt_archive_writer *ar,
			  const struct hvt_vm_limits *limits, char *err, size_t errlen);
/* Whether the link may be read now: false while the guest is over its rate. */
bool hvt_vm_wants_input(const struct hvt_vm *vm);
void hvt_vm_attach(struct hvt_vm *vm, int fd);
void hvt_vm_readable(struct hvt_vm *vm);
/* Reads what the link still holds, without waiting: its peer is gone. */
void hvt_vm_drain(struct hvt_vm *vm);
/* Warns of the guest's LOG lines not shown since the last warning, if any. */
void hvt_vm_say_logs_dropped(struct hvt_vm *vm);
void hvt_vm_tick(struct hvt_vm *vm);
/*
 * KVM's TSC offset, the same on every vCPU and unscaled (@known), from the
 * collector's latest snapshot. A new value is sent to a tracing guest at
 * once. PARAMS carry it, flagged exact, whenever the exchanges allow it;
 * else the estimate.
 */
void hvt_vm_kvm_offset(struct hvt_vm *vm, bool known, int64_t offset);
void hvt_vm_request_stop(struct hvt_vm *vm);
void hvt_vm_end(struct hvt_vm *vm, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* vm_store.c */
int hvt_vm_store_init(struct hvt_vm *vm, char *err, size_t errlen);
int hvt_vm_trace_open(struct hvt_vm *vm, uint32_t id, const struct hvt_w_trace_open *to);
int hvt_vm_registry(struct hvt_vm *vm, uint32_t id, const void *p, uint32_t len);
int hvt_vm_stream_open(struct hvt_vm *vm, uint32_t id, const struct hvt_w_stream_open *so);
int hvt_vm_packet(struct hvt_vm *vm, uint32_t id, const void *p, uint32_t len);
int hvt_vm_stream_close(struct hvt_vm *vm, uint32_t id, const struct hvt_w_stream_close *sc);

/* vm_untraced.c: what went untraced in the guest, for info.json */
int hvt_vm_untraced(struct hvt_vm *vm, const struct hvt_w_untraced *u);
int hvt_vm_threads_untraced(struct hvt_vm *vm, uint32_t trace,
			    const struct hvt_w_threads_untraced *t);
/* Adds untraced_processes, untraced_processes_total to @info; -1 if out of memory. */
int hvt_vm_untraced_json(const struct hvt_vm *vm, json_t *info);
/* Threads the guest said went untraced, over every trace. */
uint64_t hvt_vm_threads_untraced_total(const struct hvt_vm *vm);
void hvt_vm_untraced_free(struct hvt_vm *vm);
/*
 * Brings metadata and info.json up to date if they lag; called every tick.
 * info.json's rewrite is queued for a thread of its own (replace_async.h):
 * on disk soon after, not at return. -1 with vm->why set if a file cannot
 * be written (a queued rewrite that failed: at the next call).
 */
int hvt_vm_flush(struct hvt_vm *vm);
/* Waits until info.json's queued rewrite is on disk; -1 with errno if it failed. */
int hvt_vm_settle(struct hvt_vm *vm);
void hvt_vm_store_close(struct hvt_vm *vm);
void hvt_vm_free(struct hvt_vm *vm);	/* after hvt_vm_end() and the summary */
/* Copies up to @n bytes of guest text to @dst (n + 1 bytes), up to a NUL, as
 * printable ASCII: anything else becomes '?'. */
void hvt_vm_sanitize(char *dst, const void *src, size_t n);
json_t *hvt_vm_manifest_entry(const struct hvt_vm *vm);
void hvt_vm_summary(const struct hvt_vm *vm, FILE *out);

#endif
