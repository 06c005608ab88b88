/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ftrace_private.h - the host layer readers' shared insides: ftrace_reader.c
 * reads the collector's raw pages, tracedat.c a trace-cmd trace.dat through
 * libtracecmd; both hand out records the same way (hvt_ftrace_take()).
 */
#ifndef HVT_TOOLS_READ_FTRACE_PRIVATE_H
#define HVT_TOOLS_READ_FTRACE_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <event-parse.h>
#include <kbuffer.h>
#include <trace-seq.h>

#include "tools/read/ftrace_reader.h"

struct tracecmd_input;

struct hvt_ftrace {
	struct tep_handle *tep;		/* tracecmd's own with a trace.dat */
	uint32_t page_size;
	uint32_t data_offset;		/* header: timestamp, commit */
	uint32_t commit_size;		/* 4 or 8 */
	struct tracecmd_input *tc;	/* NULL: raw pages */
	int *unsafe;			/* trace.dat: ids of events not to decode, sorted */
	size_t nr_unsafe;
	uint32_t *need;			/* by event id: 1 + the bytes its fields span; 0 unknown */
	bool native;			/* file byte order is ours (set by hvt_ftrace_field_find) */
	uint64_t span_lo, span_hi;	/* stamps a page may have (hvt_ftrace_set_span) */
};

struct hvt_ftrace_cpu {
	struct hvt_ftrace *ft;
	struct kbuffer *kbuf;
	char *name;
	int fd;
	uint32_t cpu;
	uint64_t file_size;
	uint64_t next_page;		/* file offset */
	uint64_t page_off;		/* file offset of the loaded page */
	unsigned char *page;		/* page_size + PAGE_PAD bytes */
	uint32_t data_size;		/* the loaded page's commit size */
	uint64_t zero_pages, zero_from;	/* a run of pages of zeros, and where it began */
	uint64_t last_page_ts;		/* the timestamp of the last page taken */
	bool loaded, first;
	unsigned char *scratch;		/* the current record, zero padded */
	size_t scratch_used;
	struct tep_record record;	/* the event last returned */
	struct trace_seq seq;
	struct hvt_ftrace_stats stats;
};

/*
 * Makes the @size-byte record at @data (at most a page) the current event:
 * 1 and *@ev filled in, or 0 after a warning if it is of no known, safe type.
 */
int hvt_ftrace_take(struct hvt_ftrace_cpu *c, const void *data, size_t size,
		    unsigned long long ts, uint64_t off, struct hvt_ftrace_event *ev);
/* The first field of @f's list that a record of at most @max bytes cannot hold. */
const struct tep_format_field *hvt_ftrace_field_outside(const struct tep_format_field *f,
							uint32_t max);
/*
 * The first field of @ev that cannot hold a value (a scalar of no bytes, an
 * array of N elements whose size is not a multiple of N), or NULL; the
 * ftrace system's own entries (flexible data of size 0) are not judged.
 */
const struct tep_format_field *hvt_ftrace_field_malformed(const struct tep_event *ev);

/* ftrace_fields.c, for ftrace_ctf.c */
/* Whether a number of @bytes bytes has a C integer type. */
bool hvt_ftrace_int_width(unsigned int bytes);
/*
 * A __data_loc (or __rel_loc) field of the current record: its data, which
 * must lie inside the record; NULL if it does not.
 */
const unsigned char *hvt_ftrace_dynamic_data(const struct hvt_ftrace_cpu *c,
					     const struct tep_format_field *f, uint32_t *len);

/* tracedat.c */
int hvt_tracedat_next(struct hvt_ftrace_cpu *c, struct hvt_ftrace_event *ev);
bool hvt_ftrace_unsafe(const struct hvt_ftrace *ft, int id);
void hvt_tracedat_close(struct hvt_ftrace *ft);

#endif
