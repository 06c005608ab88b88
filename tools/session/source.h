/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * source.h - one source of a session: one stream file behind a reader
 * (read/reader.h), its events in the stream's order placed on the host's
 * time line, each with its error bound.
 *
 * A source is a host CPU's ftrace pages (or that CPU of a trace-cmd
 * trace.dat), a guest CTF stream, a host application's CTF stream, or a
 * file of QEMU's log trace backend. The session (session.h) opens it and
 * decides how its clock is placed; hvt_source_next() then hands out its
 * events in stream order, each guest event through its VM's clock
 * (align/vm_align.h), in stream order so that guest values repeated after
 * a backwards TSC jump land after the jump. Only then is the order
 * checked: an event whose time goes back is dropped with a warning.
 */
#ifndef HVT_TOOLS_SESSION_SOURCE_H
#define HVT_TOOLS_SESSION_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clocksync/realtime_tsc.h"
#include "tools/align/align.h"
#include "tools/align/vm_align.h"
#include "tools/read/reader.h"
#include "tools/util/text_buffer.h"

struct hvt_source {
	enum hvt_layer layer;
	const char *vm;			/* NULL on the host */
	size_t vm_number;		/* 0 on the host, else 1 + its VM's index in the archive */
	size_t vmm_vm;			/* QEMU's log: 1 + the index of the VM it is of, 0: not
					 * known (one given with --qemu-trace, of several VMs) */
	char *name;			/* file relative to the archive, for messages */
	uint32_t index;			/* tie-break: order of opening, unique */
	uint32_t stream_id;		/* a CTF stream of a VM or the host applications: its
					 * id; UINT32_MAX for any other source */
	int32_t guest_cpu;		/* a VM's source: its guest CPU, -1 per thread */
	const struct hvt_tsc_timeline *guest_tl;	/* guest TSC -> host TSC; NULL on the
						 * host or unaligned */
	struct hvt_tsc_cursor cur;	/* where this stream is in its VM's timeline */
	struct hvt_realtime_tsc *realtime;	/* ev.ts is CLOCK_REALTIME ns: its host TSC */
	bool unbounded;			/* ... the current event's lies outside the pairs' reach */
	uint64_t outside;		/* ... events so placed, said at the end */
	bool aligned;			/* false: never part of a time line */
	bool unwanted;			/* not part of this time line: not selected (set by
					 * the time line that leaves it out) */
	int32_t host_cpu;		/* the host CPU of a host CPU file, else -1 */
	struct hvt_reader rd;		/* no ops if it could not be opened */
	unsigned long warnings;		/* opening it, events out of order */
	struct hvt_reader_event ev;	/* the current event; ev.ts on its own clock */
	uint64_t host_tsc;		/* unaligned: the trace's own clock, as recorded */
	uint64_t held;			/* events placed before this are placed here
					 * (session.h, hvt_session_refresh()) */
	uint64_t shift;			/* ... the current event by so many ticks */
	uint64_t events;		/* returned so far */
	bool pending;			/* its current event is read, not yet taken by a time
					 * line: a refit places it anew (refresh.c) */
	uint64_t prev_tsc;		/* ... the host TSC of the event before it */
	uint64_t first_tsc;		/* ... the first's host TSC (events > 0) */
	int64_t expect_packets;		/* info.json's packets, -1 unknown: judged at the end */
	int64_t expect_events;		/* info.json's events, -1 unknown: judged at the end */
	int64_t expect_bytes;		/* a host CPU file: hvtrace.json's bytes, -1 unknown;
					 * judged at the end, against ... */
	int64_t file_bytes;		/* ... its size when opened */
	bool expect_no_more;		/* the archive is complete: more is wrong too */
	bool incomplete;		/* recorded data of it could not be read: its file
					 * missing, unreadable, or shorter than recorded */
	bool closed;			/* followed: its writer closed it, or its VM
					 * finished: what it has is all (follow.h) */
};

struct hvt_session_vm;

/* Reads a source's next event not earlier than the last: 1, or 0 at its end. */
int hvt_source_next(struct hvt_source *s);
uint32_t hvt_source_cpu(const struct hvt_source *s);		/* HVT_NO_CPU: none */
int32_t hvt_source_tid(const struct hvt_source *s);
const char *hvt_source_event_name(const struct hvt_source *s);
void hvt_source_print_name(const struct hvt_source *s, struct hvt_text *t);
/*
 * " name=value" per field; host events with @print_fmt: as ftrace prints
 * them. Field @sub->name (if @sub) as @sub->text (read/field_subst.h).
 */
void hvt_source_print_fields(struct hvt_source *s, struct hvt_text *t, bool print_fmt,
			     const struct hvt_field_subst *sub);
void hvt_source_json_fields(struct hvt_source *s, struct hvt_text *t,
			    const struct hvt_field_subst *sub);	/* ,"name":value */
/* An integer field of the current event: 0, or -1 if it has none of that name. */
int hvt_source_field_u64(struct hvt_source *s, const char *name, uint64_t *v);
/* A text field of the current event in @buf (cut to @len - 1): 0, or -1 if none. */
int hvt_source_field_text(struct hvt_source *s, const char *name, char *buf, size_t len);
unsigned long hvt_source_warnings(const struct hvt_source *s);
/* Whether @s takes part in a time line: aligned, selected and readable. */
bool hvt_source_merged(const struct hvt_source *s);
/*
 * Events its producer reported lost, so far: ftrace's lost events; a CTF
 * stream's events_discarded, which counts the events of the packets a
 * flight-recorder buffer overwrote too.
 */
uint64_t hvt_source_lost(const struct hvt_source *s);
/* Lost events and warnings so far: what tells a reader of the host layer of a gap. */
static inline uint64_t hvt_source_damage(const struct hvt_source *s)
{
	return hvt_source_lost(s) + hvt_source_warnings(s);
}
/* Packets missing from a CTF stream (gaps in packet_seq_num), so far. */
uint64_t hvt_source_missing_packets(const struct hvt_source *s);
/*
 * The error bound of guest source @s's current event, of VM @vm: how far
 * its true host instant may be from s->host_tsc, in host ticks - the
 * guaranteed interval's half-width for an estimated clock (align.h), the
 * rounding of KVM's exact transform for an exactly aligned one (0 unless
 * the guest TSC is slower than the host's). 0, or -1 where there is none.
 */
int hvt_source_error_bound(struct hvt_session_vm *vm, const struct hvt_source *s,
			   uint64_t *bound);

#endif
