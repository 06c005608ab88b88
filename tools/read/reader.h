/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * reader.h - one interface for every kind of source: what the merge, its
 * outputs and the checks know of a stream, whatever its format.
 *
 * A reader hands out one stream's events in stream order, on the stream's
 * own clock; the merge (merge/timeline.h) places them on the host's time
 * line and knows no format, as babeltrace2's muxer does. Each format has
 * its operations in a file of its own: ftrace_source.c (the host's raw
 * pages or a trace.dat CPU) and ctf_source.c (a guest CTF stream). A new
 * format adds one such file and a constructor here.
 *
 * Text, JSON and CTF payloads are written by the reader, which knows its
 * fields. The current event, and what the field functions see, is the one
 * the last next() returned; it stays valid until the next call.
 */
#ifndef HVT_TOOLS_READ_READER_H
#define HVT_TOOLS_READ_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/read/ctf_reader.h"
#include "tools/read/ftrace_reader.h"
#include "tools/util/text_buffer.h"

#define HVT_NO_CPU	HVT_CTF_NO_CPU	/* an event without a CPU (per-thread streams) */

/* The current event, as every reader describes it. */
struct hvt_reader_event {
	uint64_t ts;			/* on the stream's own clock, as recorded */
	uint64_t offset;		/* of the event in its file: messages, progress */
	uint32_t cpu;			/* HVT_NO_CPU: none */
	int32_t tid;
	const char *name;		/* "sched_switch" */
	size_t name_len;
};

/* What a reader met so far. */
struct hvt_reader_stats {
	uint64_t lost_events;		/* the producer's own count of lost events */
	uint64_t lost_packets;		/* packets missing from the file */
	uint64_t packets;		/* packets read whole (CTF; 0 for ftrace pages) */
	uint64_t skipped_packets;	/* ... and skipped, each with a warning of its own */
	uint64_t skipped_records;	/* single records of a read page or packet not decoded:
					 * an unknown type, or one its format cannot hold */
	unsigned long warnings;		/* damage met while reading */
};

/*
 * An event class for CTF export: events of one class share their payload's
 * layout. @owner is an object of the reader's (a trace's type table), @id
 * a number inside it; two classes are the same if both are.
 */
struct hvt_event_class {
	const void *owner;
	uint64_t id;
};

struct hvt_reader_ops {
	const char *format;		/* "ftrace", "ctf": for messages */
	/* The next event in stream order: 1, or 0 at the end. */
	int (*next)(void *r, struct hvt_reader_event *ev);
	/*
	 * " name=value" per field; with @print_fmt as the format's producer
	 * prints it. Field @sub->name (if @sub) as @sub->text.
	 */
	void (*print_fields)(void *r, struct hvt_text *t, bool print_fmt,
			     const struct hvt_field_subst *sub);
	/* ,"name":value per field; field @sub->name (if @sub) as the string @sub->text */
	void (*json_fields)(void *r, struct hvt_text *t, const struct hvt_field_subst *sub);
	/* A numeric field of the current event: 0, or -1 if it has none of that name. */
	int (*field_u64)(void *r, const char *name, uint64_t *v);
	/* A text field, cut to @len - 1 bytes and NUL-terminated: 0, or -1 if none. */
	int (*field_text)(void *r, const char *name, char *buf, size_t len);
	/*
	 * Optional (NULL: look fields up by name): the place of field @name in
	 * the current event's class (-1: none), and the fields at such places
	 * read in one pass (hvt_ctf_fields_pick()), how many were read.
	 */
	int (*field_index)(void *r, const char *name);
	unsigned int (*fields_pick)(void *r, const struct hvt_field_pick *picks, unsigned int n);
	/* CTF export: the event's class, its payload's size and bytes. */
	struct hvt_event_class (*event_class)(const void *r);
	size_t (*payload_size)(void *r);
	void (*payload)(void *r, unsigned char *dst);
	/* The TSDL member lines of a class's payload; -1 if there is no such class. */
	int (*tsdl_fields)(const struct hvt_event_class *c, FILE *out);
	void (*stats)(const void *r, struct hvt_reader_stats *st);
	/* Reads the file only up to @bytes from now on (NULL: not a growing format). */
	void (*limit)(void *r, uint64_t bytes);
	void (*close)(void *r);
};

/* A reader: its operations and its state. ops NULL: none (not opened). */
struct hvt_reader {
	const struct hvt_reader_ops *ops;
	void *r;
};

/*
 * One host CPU of @ft (its raw pages at @path, or that CPU of a trace.dat),
 * events on the trace's clock. 0, or -1 after a warning counted in
 * *@warnings (and *@rd has no ops) if it cannot be opened or memory ran out.
 */
int hvt_reader_open_ftrace_cpu(struct hvt_reader *rd, struct hvt_ftrace *ft, const char *path,
			       const char *name, int cpu, unsigned long *warnings);
/*
 * One guest CTF stream (ctf_reader.h's hvt_ctf_open()) of guest CPU @cpu
 * (HVT_NO_CPU: none) or thread @tid: packets of another stream are skipped
 * (hvt_ctf_expect_stream()). The same return.
 */
int hvt_reader_open_ctf(struct hvt_reader *rd, const char *path, const char *name,
			const __u8 uuid[HVT_UUID_LEN], const struct hvt_ctf_types *types,
			uint32_t cpu, int32_t tid, unsigned long *warnings);
/*
 * QEMU's own trace events from a file of its log trace backend
 * (qemu_log.c), ev.ts their CLOCK_REALTIME in ns, sorted. The same return.
 */
int hvt_reader_open_qemu_log(struct hvt_reader *rd, const char *path, const char *name,
			     unsigned long *warnings);
/* The ftrace CPU reader behind @rd, or NULL if it reads another format. */
struct hvt_ftrace_cpu *hvt_reader_ftrace_cpu(const struct hvt_reader *rd);
/* hvt_ctf_time_monotonic() on a reader of a CTF stream; nothing on another. */
void hvt_reader_ctf_time_monotonic(struct hvt_reader *rd);

static inline bool hvt_reader_opened(const struct hvt_reader *rd)
{
	return rd->ops != NULL;
}

static inline int hvt_reader_next(struct hvt_reader *rd, struct hvt_reader_event *ev)
{
	return rd->ops ? rd->ops->next(rd->r, ev) : 0;
}

/*
 * A file still being written: read it only up to @bytes, what its writer
 * recorded whole, which may lie past where the reader stopped (it goes on
 * from there). Nothing for a reader that was not opened, or of a file that
 * does not grow (a trace.dat, QEMU's log).
 */
static inline void hvt_reader_limit(struct hvt_reader *rd, uint64_t bytes)
{
	if (rd->ops && rd->ops->limit)
		rd->ops->limit(rd->r, bytes);
}

/* All zero for a reader that was not opened. */
void hvt_reader_stats(const struct hvt_reader *rd, struct hvt_reader_stats *st);
/* Closes it; nothing for one that was not opened. */
void hvt_reader_close(struct hvt_reader *rd);

#endif
