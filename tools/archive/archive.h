/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * archive.h - reading an hvtrace archive's descriptions (docs/format.md,
 * section 1): the manifest hvtrace.json with host/clock.tsv, and per VM its
 * info.json with sync.tsv.
 *
 * Everything is validated before use: an archive may be truncated by a crash
 * or damaged on disk, and info.json repeats values that came from a guest.
 * Paths from the files are only accepted as plain relative paths inside the
 * archive. Problems in one entry (a trace, a stream, a line of a .tsv file)
 * are warnings that skip that entry and are counted in the owner's
 * `warnings`; only what makes the whole file unusable is an error. What is
 * valid but worth a warning (an unfinished recording, a guest that ended
 * early) is left to the users of these structures.
 */
#ifndef HVT_TOOLS_ARCHIVE_ARCHIVE_H
#define HVT_TOOLS_ARCHIVE_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include <hvtrace/ctf.h>
#include <hvtrace/wire.h>
#include "clocksync/clocksync.h"
#include "lib/names.h"

#define HVT_MAX_TRACES		HVT_W_MAX_TRACES	/* per VM, as the wire protocol limits */
#define HVT_MAX_STREAMS		HVT_W_MAX_STREAMS	/* per VM */
#define HVT_MAX_HOST_CPUS	HVT_W_MAX_CPUS
#define HVT_JSON_MAX		(16u << 20)	/* bytes of a .json file */

/* enum hvt_layer and enum hvt_clock_domain are the wire protocol's (wire.h). */

struct hvt_ftrace_cpu_info {
	int cpu;
	char *path;			/* ROOT/host/ftrace/cpuN.raw */
	int64_t bytes;			/* the collector wrote so many; -1: not said */
};

#define HVT_MAX_VCPU_THREADS	4096	/* vCPUs with a known host thread, per VM */

struct hvt_vm_ref {
	char name[HVT_VM_NAME_MAX + 1];
	char *dir;			/* ROOT/vm/NAME; NULL: a KVM VM known by name only
					 * (merge TRACE.DAT --guest-trace) */
	int32_t *vcpu_tids;		/* vcpu_threads.tids: vCPU n's host thread, 0: unknown */
	size_t nr_vcpu_tids;		/* 0: the manifest does not say */
	bool host_apps;			/* host.apps, the host's own applications */
	int64_t qemu_log_bytes;		/* vms[].qemu_log.bytes: QEMU's log kept in its
					 * directory (qemu-trace.log); -1: none recorded */
	bool host_span;			/* the recording's host TSC span is known: */
	uint64_t host_lo, host_hi;	/* hvt_archive_host_span()'s, for its exchanges */
};

/* A host thread of host/ftrace/tasks.tsv. */
struct hvt_host_task {
	int32_t tid, pid;
	char comm[16];
};

struct hvt_archive {
	char *root;
	bool complete;			/* "status": "complete" */
	bool starting;			/* "starting": the collector is setting up */
	bool failed;			/* "failed": setting up failed, no events */
	int64_t collector_pid;		/* the recording's collector, 0: not said */
	char hostname[256];		/* ... on this host ("": not said) */
	uint64_t tsc_freq_hz;		/* informational; 0 if absent */
	struct hvt_clock_pair *pairs;	/* host/clock.tsv, TSC increasing */
	size_t nr_pairs;
	char *ftrace_dir;		/* NULL: the host layer was not recorded */
	uint32_t page_size;
	struct hvt_ftrace_cpu_info *cpus;
	size_t nr_cpus;
	struct hvt_vm_ref *vms;
	size_t nr_vms;
	struct hvt_vm_ref host_apps;	/* host.apps: dir NULL if none; named "host" */
	struct hvt_host_task *host_tasks;	/* host/ftrace/tasks.tsv, by tid; NULL: none */
	size_t nr_host_tasks;
	unsigned long warnings;		/* entries or lines skipped */
	size_t unlisted_cpus;		/* host CPU files hvtrace.json does not list: not read */
};

struct hvt_trace_info {
	uint32_t id;
	enum hvt_layer layer;		/* HVT_LAYER_KERNEL or HVT_LAYER_USER */
	enum hvt_clock_domain domain;	/* GUEST_TSC is aligned through sync.tsv;
					 * TSC (host_tsc, host.apps only) is the host's */
	char *dir;			/* ROOT/vm/NAME/kernel */
	char *rel;			/* vm/NAME/kernel, for messages */
	__u8 uuid[HVT_UUID_LEN];
	uint32_t pid;
	char comm[16];			/* its process's name, as the guest said it ("": none) */
	uint64_t freq_hz;		/* of its clock, as the collector rendered it */
	uint64_t untraced_threads;	/* its threads the guest could not trace */
};

struct hvt_stream_info {
	uint32_t id;
	size_t trace;			/* index into hvt_vm.traces */
	char *path;			/* ROOT/vm/NAME/kernel/stream-0 */
	char *rel;			/* vm/NAME/kernel/stream-0, for messages */
	int32_t cpu;			/* -1: a per-thread stream */
	int32_t tid;
	int64_t packets, bytes;		/* as the collector last recorded them; -1: not given */
	int64_t events;			/* ... the events in those packets; -1: not given */
	int64_t dropped_packets;	/* the collector could not store: ids never registered */
	bool closed;			/* the guest closed it: nothing more will come */
};

/* One line of sync.tsv. */
struct hvt_sync_rec {
	uint64_t seq;
	struct hvt_exchange ex;
	uint32_t cpu_recv, cpu_send;	/* guest CPUs that took the two stamps */
};

/* One line of kvm_tsc.tsv: a vCPU's KVM TSC parameters, read between two host TSC values. */
struct hvt_kvm_reading {
	uint64_t before, after;
	uint32_t source;		/* HVT_TSC_SRC_DEBUGFS, the only one so far */
	uint32_t vm_fd, vcpu;
	uint64_t offset;		/* two's complement */
	uint64_t ratio;			/* 0: the CPU does not scale (frac is 0 too) */
	uint32_t frac;
};

struct hvt_vm_info {
	char name[HVT_VM_NAME_MAX + 1];
	char *dir;
	bool host_apps;			/* host/apps: files named so in messages */
	struct hvt_trace_info *traces;
	size_t nr_traces;
	struct hvt_stream_info *streams;
	size_t nr_streams;
	size_t streams_skipped;		/* entries of info.json's streams that were not read */
	struct hvt_sync_rec *sync;	/* sync.tsv, in file order */
	size_t nr_sync;
	int64_t sync_recorded;		/* info.json's sync.exchanges; -1: not said */
	bool finished;
	bool tcg;			/* accel "tcg": no sync points to look for */
	bool kvm;			/* accel "kvm": KVM TSC changes in the host layer */
	size_t nr_cpus;			/* the guest's (info.json guest.nr_cpus); 0: unknown */
	char *end_reason;		/* NULL if absent */
	/* what went untraced: processes refused, threads of traced ones (all traces) */
	uint64_t untraced_processes, untraced_threads;
	unsigned long warnings;		/* about info.json */
	size_t unlisted_files;		/* stream files and trace directories it does not list */
	unsigned long sync_warnings;	/* about sync.tsv */
};

/*
 * Reads ROOT/hvtrace.json and host/clock.tsv. Returns 0, or -1 after an error
 * message when the archive cannot be used at all. Whether the clock pairs
 * define a host clock is hvt_host_clock_init()'s decision.
 */
int hvt_archive_open(struct hvt_archive *a, const char *root);
void hvt_archive_close(struct hvt_archive *a);
/*
 * For a follower: waits up to @seconds for ROOT's manifest to be there and
 * past "starting" (its collector set up the host layer and the VMs), said
 * once if it waits; @give_up(@ctx), if given, ends the wait early (the
 * collector the caller started exited). Whether it is set up.
 */
bool hvt_archive_wait_set_up(const char *root, int seconds, bool (*give_up)(void *ctx),
			     void *ctx);
/*
 * Whether writing @path would change the archive at @root: the directory
 * itself, its manifest, or any file under host/ and vm/, whatever name
 * @path gives it (docs/format.md; files beside them are not the archive's).
 */
bool hvt_archive_touched_by(const char *root, const char *path);
/*
 * "its VMs: a, b" or "it has no VM" in @buf (truncated to @len): what an
 * error about a VM name that is not in @a says. Returns @buf.
 */
/*
 * The host TSC span [@lo, @hi] the host layer's pages are stamped in: the
 * clock pairs', taken from before the host layer starts to after it stops,
 * with a margin of HVT_HOST_SPAN_MARGIN_S at the TSC's rate between the
 * first and the last pair; open at the end while the recording goes on.
 * False where the pairs cannot say (fewer than two, a rate no TSC has:
 * damage): then any time is possible.
 */
#define HVT_HOST_SPAN_MARGIN_S	60
bool hvt_archive_host_span(const struct hvt_archive *a, uint64_t *lo, uint64_t *hi);
const char *hvt_archive_vm_list(const struct hvt_archive *a, char *buf, size_t len);

/*
 * Whether @vm was recorded with the host layer only (record --qemu-pid
 * without a guest link): no traces, and an end_reason that says so
 * (docs/format.md). It has nothing to align.
 */
bool hvt_vm_info_host_only(const struct hvt_vm_info *vm);
/*
 * What went untraced in @vm while it was recorded, as merge and check say
 * it ("3 processes and 872 threads went untraced (the agent's limits; ...)"),
 * in @buf; NULL when nothing did.
 */
const char *hvt_vm_info_untraced_text(const struct hvt_vm_info *vm, char *buf, size_t len);
/* Reads a VM's info.json and sync.tsv; -1 after an error message. */
int hvt_vm_info_load(struct hvt_vm_info *vm, const struct hvt_vm_ref *ref);
/*
 * What @fresh, the same VM's info.json and sync.tsv read again later,
 * adds to @vm: its new traces and streams appended (those @vm has keep
 * their index and strings, their counts updated), its exchanges, end and
 * warnings taken. @fresh is freed. -1 if out of memory (@vm then has what
 * was taken so far, consistent).
 */
int hvt_vm_info_update(struct hvt_vm_info *vm, struct hvt_vm_info *fresh);
void hvt_vm_info_free(struct hvt_vm_info *vm);

/*
 * The .tsv files; lines that do not parse are warned about and skipped. A
 * missing or unusable file is an error for clock.tsv (nothing can be placed in
 * time without it) but only a warning for sync.tsv (that VM is not aligned).
 */
int hvt_tsv_read_clock(const char *path, struct hvt_clock_pair **pairs, size_t *n,
		       unsigned long *warnings);
int hvt_tsv_read_sync(const char *path, struct hvt_sync_rec **recs, size_t *n,
		      unsigned long *warnings);
/* vm/NAME/kvm_tsc.tsv, in file order; a missing file is 0 readings, not an error. */
int hvt_tsv_read_kvm_tsc(const char *path, struct hvt_kvm_reading **readings, size_t *n,
			 unsigned long *warnings);

/* Helpers shared by the readers. */
/*
 * host/ftrace/tasks.tsv, if the archive has one, into a->host_tasks; a file
 * that cannot be read, or rows that do not parse, are warnings. -1 if out
 * of memory.
 */
int hvt_archive_load_tasks(struct hvt_archive *a);
/* Host thread @tid as tasks.tsv lists it, or NULL. */
const struct hvt_host_task *hvt_archive_host_task(const struct hvt_archive *a, int32_t tid);
int hvt_relpath_ok(const char *rel);			/* "a/b-1.x", never ".." or "/" */
int hvt_uuid_parse(const char *text, __u8 uuid[HVT_UUID_LEN]);
/* A parsed JSON file, or NULL after an error message ending with @hint. */
json_t *hvt_json_load(const char *path, const char *hint);
/*
 * Why @obj does not have the members @spec lists ("key:T ...", T one of s
 * string, I integer, b boolean, o anything; "?key" optional; "a.b" a member
 * of member a): the first missing or of another type, named, in @buf; NULL
 * if every one is there as it should be. jansson's own unpack errors do not
 * name the member of a type mismatch ("Expected string, got integer").
 */
const char *hvt_json_why(json_t *obj, const char *spec, char *buf, size_t len);
const char *hvt_layer_name(enum hvt_layer layer);

#endif
