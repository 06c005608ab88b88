/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * timeline.h - one time line from every stream of an archive.
 *
 * A source is one stream file behind a reader (read/reader.h): a host
 * CPU's ftrace pages (or that CPU of a trace-cmd trace.dat, merge
 * --host-trace) or a guest CTF stream. Each
 * is already in time order, so the timeline is a k-way merge: a heap
 * (heap.h, which documents the tie-break) holds each source's next event
 * keyed by its host TSC; the smallest is returned, then that source reads
 * its next event and is re-keyed in place. Memory: one packet or page per
 * source.
 *
 * The merge knows no format (read/reader.h) and no alignment policy:
 * align/vm_align.h decides how each VM's clock is placed, exactly by KVM's
 * TSC parameters or by the estimate. Every guest event goes through it
 * in stream order, so that guest values repeated after a backwards TSC jump
 * land after the jump. Only then is a source's order checked: an event whose
 * time goes back is dropped with a warning. Traces on
 * CLOCK_MONOTONIC_RAW, and VMs without any clock exchange, cannot be aligned:
 * they are skipped with one warning each (the check command still decodes
 * them, see hvt_timeline_open's @all_streams).
 */
#ifndef HVT_TOOLS_MERGE_TIMELINE_H
#define HVT_TOOLS_MERGE_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/event_registry.h"
#include "clocksync/realtime_tsc.h"
#include "tools/align/align.h"
#include "tools/align/vm_align.h"
#include "tools/archive/archive.h"
#include "tools/read/ctf_reader.h"
#include "tools/read/ftrace_reader.h"
#include "tools/read/reader.h"
#include "tools/merge/heap.h"
#include "tools/util/textout.h"

struct hvt_source {
	enum hvt_layer layer;
	const char *vm;			/* NULL on the host */
	char *name;			/* file relative to the archive, for messages */
	uint32_t index;			/* tie-break: order of opening, unique */
	const struct hvt_tsc_timeline *guest_tl;	/* guest TSC -> host TSC; NULL on the
						 * host or unaligned */
	struct hvt_tsc_cursor cur;	/* where this stream is in its VM's timeline */
	struct hvt_realtime_tsc *realtime;	/* ev.ts is CLOCK_REALTIME ns: its host TSC */
	bool aligned;			/* false: not part of the merge */
	bool unwanted;			/* not part of the merge either: not selected */
	int32_t host_cpu;		/* the host CPU of a host CPU file, else -1 */
	struct hvt_reader rd;		/* no ops if it could not be opened */
	unsigned long warnings;		/* opening it, events out of order */
	struct hvt_reader_event ev;	/* the current event; ev.ts on its own clock */
	uint64_t host_tsc;		/* unaligned: the trace's own clock, as recorded */
	uint64_t events;		/* returned so far */
	int64_t expect_packets;		/* info.json's packets, -1 unknown: judged at the end */
	bool expect_no_more;		/* the archive is complete: more is wrong too */
};

struct hvt_timeline_vm {
	struct hvt_vm_info vm;
	bool loaded;			/* info.json was usable */
	struct hvt_vm_align al;		/* how its guest clock is placed (vm_align.h) */
	struct hvt_registry *regs;	/* one per trace of vm */
	struct hvt_ctf_types *types;	/* one per trace, from its registry */
	unsigned long *reg_warnings;	/* one per trace */
};

struct hvt_timeline {
	struct hvt_archive archive;
	struct hvt_host_clock clock;
	struct hvt_ftrace *ftrace;	/* NULL: no host layer */
	bool host_trace;		/* ... read from a trace.dat (merge --host-trace) */
	bool tracedat_only;		/* a trace.dat on its own: no archive around it */
	const char *tracedat_clock;	/* ... its trace clock */
	struct hvt_ftrace **extra_ftrace;	/* --guest-trace, more trace.dat: each file's */
	size_t nr_extra_ftrace;
	struct hvt_realtime_tsc realtime;	/* merge --qemu-trace: CLOCK_REALTIME -> TSC */
	struct hvt_host_layer align_host;	/* what alignment read of it */
	struct hvt_timeline_vm *vms;	/* archive.nr_vms */
	struct hvt_timeline_vm host_apps;	/* archive.host_apps: loaded, or not */
	struct hvt_source *sources;
	size_t nr_sources;
	struct hvt_heap heap;
	struct hvt_source *current;	/* returned last, to be advanced */
	unsigned long warnings;		/* about no stream in particular */
	uint64_t events[HVT_NR_LAYERS];	/* returned so far */
};

/*
 * Opens the archive at @root and every stream in it. With @all_streams,
 * streams that cannot be aligned are opened too (aligned = false) for
 * hvt_source_next(), but never merged. Returns -1 (after an error message)
 * only if the archive cannot be read at all.
 */
int hvt_timeline_open(struct hvt_timeline *tl, const char *root, bool all_streams);
struct hvt_timeline_opts {
	bool all_streams;		/* as hvt_timeline_open()'s */
	/* Merge only the sources @want accepts (called once per source, after
	 * alignment); the others are still opened, and are not read. */
	bool (*want)(const struct hvt_source *s, void *ctx);
	void *ctx;
	/* The host layer from this trace-cmd trace.dat instead of host/ftrace. */
	const char *host_trace;
	/* VM=TRACE.DAT: trace-cmd recordings made in VMs of the archive (-C x86-tsc). */
	const char *const *guest_traces;
	size_t nr_guest_traces;
	/* More trace.dat files beside a trace.dat given alone, on the same clock. */
	const char *const *more_tracedat;
	size_t nr_more_tracedat;
	/* QEMU's own trace events, files of its log trace backend. */
	const char *const *qemu_traces;
	size_t nr_qemu_traces;
};

/* The same with options; NULL @o: hvt_timeline_open()'s defaults. */
int hvt_timeline_open_some(struct hvt_timeline *tl, const char *root,
			   const struct hvt_timeline_opts *o);
void hvt_timeline_close(struct hvt_timeline *tl);
/* The source holding the next event of the time line, or NULL at the end. */
struct hvt_source *hvt_timeline_next(struct hvt_timeline *tl);
/* Every warning issued so far, from any reader. */
unsigned long hvt_timeline_warnings(const struct hvt_timeline *tl);
/* Events the producers reported lost (discarded, missed, lost packets). */
uint64_t hvt_timeline_lost(const struct hvt_timeline *tl);

/* Reads a source's next event not earlier than the last: 1, or 0 at its end. */
int hvt_source_next(struct hvt_source *s);
uint32_t hvt_source_cpu(const struct hvt_source *s);		/* HVT_NO_CPU: none */
int32_t hvt_source_tid(const struct hvt_source *s);
const char *hvt_source_event_name(const struct hvt_source *s);
void hvt_source_print_name(const struct hvt_source *s, struct hvt_text *t);
/* " name=value" per field; host events with @print_fmt: as ftrace prints them. */
void hvt_source_print_fields(struct hvt_source *s, struct hvt_text *t, bool print_fmt);
void hvt_source_json_fields(struct hvt_source *s, struct hvt_text *t);	/* ,"name":value */
/* An integer field of the current event: 0, or -1 if it has none of that name. */
int hvt_source_field_u64(struct hvt_source *s, const char *name, uint64_t *v);
/* A text field of the current event in @buf (cut to @len - 1): 0, or -1 if none. */
int hvt_source_field_text(struct hvt_source *s, const char *name, char *buf, size_t len);
unsigned long hvt_source_warnings(const struct hvt_source *s);
/* 0 for a host source, else 1 + the index of its VM in the archive's list. */
size_t hvt_source_vm_number(const struct hvt_timeline *tl, const struct hvt_source *s);
/* Whether @s takes part in the merge: aligned, selected and readable. */
bool hvt_source_merged(const struct hvt_source *s);
/*
 * Events its producer reported lost, so far: ftrace's lost events; a CTF
 * stream's events_discarded, which counts the events of the packets a
 * flight-recorder buffer overwrote too.
 */
uint64_t hvt_source_lost(const struct hvt_source *s);
/*
 * The error bound of guest source @s's current event, of VM @st: how far
 * its true host instant may be from s->host_tsc, in host ticks - the
 * guaranteed interval's half-width for an estimated clock (align.h), the
 * rounding of KVM's exact transform for an exactly aligned one (0 unless
 * the guest TSC is slower than the host's). 0, or -1 where there is none.
 */
int hvt_source_error_bound(struct hvt_timeline_vm *st, const struct hvt_source *s,
			   uint64_t *bound);
/* Packets missing from a CTF stream (gaps in packet_seq_num), so far. */
uint64_t hvt_source_missing_packets(const struct hvt_source *s);

#endif
