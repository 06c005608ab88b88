/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * archive_fixture.h - synthetic hvtrace archives for the reader tests.
 *
 * Everything is made the way the real writers make it: guest packets with
 * the ring-buffer producer of hvtrace/ringbuf.h, registry records with
 * hvt_reg_event_write, metadata with hvt_tsdl_render, event records and
 * their field tables with hvtrace/event.h; host pages in the kernel's
 * ring-buffer page layout with this machine's header_page and sched_switch
 * format.
 */
#ifndef HVT_TESTS_ARCHIVE_FIXTURE_H
#define HVT_TESTS_ARCHIVE_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hvtrace/event.h>
#include <hvtrace/wire.h>

/* The standard archive's clocks: host TSC at 2 GHz, guest = host + FX_OFFSET. */
#define FX_T0		1000000000ull		/* host TSC of the first clock pair */
#define FX_MONO0	5000000000ll		/* its CLOCK_MONOTONIC */
#define FX_REAL0	1700000000000000000ll	/* its CLOCK_REALTIME */
#define FX_OFFSET	7000000000ll		/* guest TSC - host TSC */
#define FX_HOST_TSC(ns)	(FX_T0 + 2ull * (ns))	/* ns since the trace start */
#define FX_GUEST_TSC(ns) (FX_HOST_TSC(ns) + (uint64_t)FX_OFFSET)

/* Event records, as guest-kmod/events/sched.h and vdso/example define them. */
#define FX_SCHED_SWITCH_FIELDS							\
	HVT_FIELDS((text, prev_comm, 16), (int, int32_t, prev_tid),		\
		   (int, int32_t, prev_prio), (hex, uint32_t, prev_state),	\
		   (text, next_comm, 16), (int, int32_t, next_tid),		\
		   (int, int32_t, next_prio))
HVT_EVENT_RECORD(fx_sched_switch, FX_SCHED_SWITCH_FIELDS);

#define FX_SEND_FIELDS HVT_FIELDS((int, uint64_t, round), (int, int32_t, to_tid))
HVT_EVENT_RECORD(fx_send, FX_SEND_FIELDS);

/* The guest module's hvtrace_sync_end (guest-kmod/events/hvtrace.h). */
#define FX_SYNC_END_FIELDS							\
	HVT_FIELDS((int, uint64_t, seq), (int, uint64_t, tsc_before),		\
		   (int, uint64_t, tsc_after), (int, int64_t, ret))
HVT_EVENT_RECORD(fx_sync_end, FX_SYNC_END_FIELDS);

/* The guest module's block_rq_issue and block_rq_complete (guest-kmod/events/block.h). */
#define FX_BLOCK_RQ_ISSUE_FIELDS						\
	HVT_FIELDS((int, uint32_t, dev), (int, uint64_t, sector),		\
		   (int, uint32_t, nr_sector), (int, uint32_t, bytes),		\
		   (text, rwbs, 8))
HVT_EVENT_RECORD(fx_block_rq_issue, FX_BLOCK_RQ_ISSUE_FIELDS);
#define FX_BLOCK_RQ_COMPLETE_FIELDS						\
	HVT_FIELDS((int, uint32_t, dev), (int, uint64_t, sector),		\
		   (int, uint32_t, nr_sector), (int, int32_t, error),		\
		   (text, rwbs, 8))
HVT_EVENT_RECORD(fx_block_rq_complete, FX_BLOCK_RQ_COMPLETE_FIELDS);

/* Ids in the standard traces. */
#define FX_ID_SCHED_SWITCH	0
#define FX_ID_SEND		1
#define FX_ID_KINDS		2	/* one field of every kind, see fixture.c */
#define FX_ID_SYNC_END		3
#define FX_ID_FAR		40	/* >= 31: always an extended header */
#define FX_ID_BLOCK_RQ_ISSUE	5	/* in fx_registry_io()'s traces only */
#define FX_ID_BLOCK_RQ_COMPLETE	6

struct fx_event {
	uint32_t id;
	uint64_t ts;
	uint32_t cpu;
	int32_t tid;
	const void *payload;
	uint32_t len;
};

/* A host sched_switch as the kernel's format file lays it out. */
struct fx_host_switch {
	uint64_t ts;
	int32_t pid;			/* common_pid */
	const char *prev_comm;
	int32_t prev_pid, prev_prio;
	int64_t prev_state;
	const char *next_comm;
	int32_t next_pid, next_prio;
};

/* A host kvm_hypercall as the kernel's format file lays it out. */
struct fx_host_call {
	uint64_t ts;
	int32_t pid;
	uint64_t nr, a0, a1, a2;
};

/* A host kvm_write_tsc_offset as the kernel's format file lays it out. */
struct fx_host_tsc_write {
	uint64_t ts;
	int32_t pid;
	uint32_t vcpu;
	uint64_t prev, next;
};

/* A host kvm_entry (@entry) or kvm_exit as the kernel's format files lay them out. */
struct fx_host_kvm_run {
	uint64_t ts;
	int32_t pid;
	bool entry;
	uint32_t vcpu;
};

/* A host fx_dyn: __data_loc string and u32 array, pointer, 16-byte number (0xab..). */
struct fx_host_dyn {
	uint64_t ts;
	int32_t pid;
	const char *name;		/* at most 11 characters */
	uint32_t ids[3];
	uint64_t ptr;
	int16_t delta;
};

/* Directories and files. */
/*
 * A test's setup: a new directory for an archive, its path (64 bytes) in
 * *@state; -1 if it cannot be made. The teardown removes it.
 */
int fx_setup_root(void **state);
int fx_teardown_root(void **state);
int fx_mkdtemp(char *root, size_t len);
void fx_rm_rf(const char *root);
int fx_write(const char *root, const char *rel, const void *data, size_t len);
int fx_printf(const char *root, const char *rel, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int fx_append(const char *root, const char *rel, const void *data, size_t len);
/*
 * The standard archive's vm/demo/info.json as a collector writes it when
 * @processes were refused (one listed) and hvdemo's trace lost @threads.
 */
int fx_mark_untraced(const char *root, unsigned int processes, unsigned int threads);

/*
 * Packets from the real producer: @n events into sub-buffers of
 * @subbuf_size bytes, each closed packet stored as an archive stores it
 * (packet_size = content_size). malloc'd bytes, their count in *@len.
 */
unsigned char *fx_make_stream(const uint8_t uuid[16], uint32_t subbuf_size, uint32_t cpu_id,
			      uint64_t instance, const struct fx_event *ev, size_t n,
			      size_t *len);
int fx_write_stream(const char *root, const char *rel, const uint8_t uuid[16],
		    uint32_t subbuf_size, uint32_t cpu_id, uint64_t instance,
		    const struct fx_event *ev, size_t n);
/* The same with event @i from @next, written as they come: for streams of any length. */
typedef void (*fx_event_fn)(size_t i, void *ctx, struct fx_event *ev);
int fx_write_stream_gen(const char *root, const char *rel, const uint8_t uuid[16],
			uint32_t subbuf_size, uint32_t cpu_id, uint64_t instance, size_t n,
			fx_event_fn next, void *ctx);

/*
 * The kernel trace's stream-0 anew: @n (at most 64) sched_switch at guest
 * 2 ms + i * 100 us, next_tid 100 + i, two a packet; malloc'd, *@len bytes.
 */
unsigned char *fx_kernel_packets(size_t n, size_t *len);

/* The registry of the standard events (all of them), malloc'd, length in *@len. */
unsigned char *fx_registry(size_t *len);
/* The standard events and the block events (FX_ID_BLOCK_RQ_*), as fx_registry(). */
unsigned char *fx_registry_io(size_t *len);
/* @dir/registry and @dir/metadata of a trace with the events of @records (@len bytes). */
int fx_write_trace_records(const char *root, const char *dir, const uint8_t uuid[16],
			   const char *vm, unsigned int layer, unsigned int domain,
			   uint64_t freq_hz, unsigned int pid, const unsigned char *records,
			   size_t len);
/* @dir/registry and @dir/metadata of a trace with the standard events. */
int fx_write_trace(const char *root, const char *dir, const uint8_t uuid[16], const char *vm,
		   unsigned int layer, unsigned int domain, uint64_t freq_hz, unsigned int pid);

/* Payloads. */
struct fx_sched_switch fx_sched(const char *prev_comm, int32_t prev_tid, uint32_t prev_state,
				const char *next_comm, int32_t next_tid);
struct fx_send fx_send(uint64_t round, int32_t to_tid);
/* The FX_ID_KINDS payload: u8 7, s16 -5, hex u32 0xbeef, s64 -1, string, u16[3], blob. */
unsigned char *fx_kinds(const char *string, const void *blob, uint32_t blob_len,
			uint32_t *len);

/* Host ftrace: header_page, header_event, the sched_switch and kvm_hypercall formats. */
int fx_write_ftrace_meta(const char *root);
/* Pages of @page_size bytes holding @n sched_switch records; appended to @rel. */
int fx_write_ftrace_cpu(const char *root, const char *rel, uint32_t page_size,
			const struct fx_host_switch *ev, size_t n);
/* The same with @n kvm_hypercall records. */
int fx_write_ftrace_calls(const char *root, const char *rel, uint32_t page_size,
			  const struct fx_host_call *ev, size_t n);
/* The same with @n fx_dyn records, and fx_dyn's format file. */
int fx_write_ftrace_dyn(const char *root, const char *rel, uint32_t page_size,
			const struct fx_host_dyn *ev, size_t n);
int fx_write_ftrace_tsc_writes(const char *root, const char *rel, uint32_t page_size,
			       const struct fx_host_tsc_write *ev, size_t n);
/* The same with kvm_entry/kvm_exit records, and their format files. */
int fx_write_ftrace_kvm_runs(const char *root, const char *rel, uint32_t page_size,
			     const struct fx_host_kvm_run *ev, size_t n);

/* The standard archive (see fixture.c for its events and exact timings). */
struct fx_options {
	bool ftrace;			/* record the host layer */
	bool inconsistent_sync;		/* one exchange contradicts the others */
	bool monotonic_user;		/* add a user trace on CLOCK_MONOTONIC_RAW */
	bool sync_points;		/* with ftrace: FX_SYNC_POINTS of them, and one the
					 * host did not record (fixture.c); a KVM VM */
	bool kvm;			/* a KVM VM (info.json's accel) without them */
	const char *vcpu_tids;		/* the manifest's vcpu_threads.tids, "[0, 4321]";
					 * NULL: none (host thread 4321 is QEMU's) */
	const char *status;		/* NULL: "complete" */
	bool live;			/* the guest records on: its streams open and it
					 * not finished, in info.json */
	bool host_apps;			/* host/apps: a host application on the host TSC,
					 * its events at FX_APP_NS (fixture.c) */
};
int fx_standard_archive(const char *root, const struct fx_options *o);
/*
 * Rewrites vm/demo/info.json, with the options of the last
 * fx_standard_archive(), as the collector would after a test rewrote streams.
 */
int fx_refresh_info(const char *root);
/*
 * vm/demo/kvm_tsc.tsv: one debugfs snapshot (VM fd 11) of each of vCPUs
 * 0..@nr_vcpus-1, all at @offset, unscaled, read at FX_T0.
 */
int fx_write_kvm_snapshots(const char *root, int nr_vcpus, uint64_t offset);

/* fx_options.host_apps: thread FX_APP_TID's events, ns since the start (host TSC as is). */
#define FX_APP_TID	4400
#define FX_APP_NS_1	1250000
#define FX_APP_NS_2	1300000	/* the instant of a host sched_switch: after it */
/* Rewrites host/apps/info.json with the trace's domain @domain ("host_tsc"...). */
int fx_write_host_apps_info(const char *root, const char *domain);

#define FX_SYNC_POINTS	3	/* host and guest agree on these (fx_options.sync_points) */
#define FX_SYNC_HALF	5	/* ticks either side of the host's instant */

#endif
