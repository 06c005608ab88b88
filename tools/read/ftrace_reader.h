/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ftrace_reader.h - decoding the host layer: host/ftrace/cpuN.raw, the raw
 * ring-buffer pages of one CPU, with libtraceevent (docs/format.md,
 * "host/ftrace").
 *
 * hvt_ftrace_open() parses header_page and every events/SYS/EVENT/format
 * once; each CPU file then reads one page at a time (bounded memory) and
 * hands out its events through kbuffer. Before kbuffer or libtraceevent see
 * a page, the reader checks what they do not: the page's commit size, and
 * that each event lies inside the page's data; before a format is used, that
 * each of its fields lies inside the data a record can hold. Event data is
 * copied into a zero-padded scratch buffer so that field reads a damaged
 * record could direct past its end stay inside memory we own.
 */
#ifndef HVT_TOOLS_READ_FTRACE_READER_H
#define HVT_TOOLS_READ_FTRACE_READER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/read/field_subst.h"
#include "tools/util/text_buffer.h"

struct hvt_ftrace;
struct hvt_ftrace_cpu;

struct hvt_ftrace_event {
	uint64_t ts;			/* x86-tsc trace clock: host TSC */
	uint32_t cpu;
	int32_t tid;
	const char *name;		/* "sched_switch" */
	int id;				/* its format's id */
	uint64_t offset;		/* of the record in the file */
};

struct hvt_ftrace_stats {
	uint64_t pages;
	uint64_t lost_events;		/* the kernel's missed-events counts */
	uint64_t skipped_pages;		/* damaged pages not decoded, each warned about */
	uint64_t skipped_records;	/* records of a read page not decoded, each warned about */
	unsigned long warnings;
};

/*
 * Parses @dir/header_page and @dir/events/SYS/EVENT/format for pages of
 * @page_size bytes. NULL after an error message if header_page is unusable;
 * a format file that does not parse, or has a field outside any record, is a
 * warning counted in *@warnings, and its events are then of an unknown type.
 */
struct hvt_ftrace *hvt_ftrace_open(const char *dir, uint32_t page_size,
				   unsigned long *warnings);
/*
 * The same from a trace-cmd recording (tracedat.c), which must be on the
 * host TSC (trace-cmd record -C x86-tsc): NULL after an error message if
 * it is not, or cannot be read. Its CPU files are opened with any path.
 * With @clock, any trace clock is taken, and its name (the handle's, valid
 * while it is open) is put in *@clock.
 */
struct hvt_ftrace *hvt_ftrace_open_tracedat(const char *path, const char **clock,
					    unsigned long *warnings);
/*
 * Of a trace.dat: its timestamps as recorded from now on, without the
 * corrections trace-cmd would apply (--ts-offset, --tsc2nsec, host/guest
 * time-sync data).
 */
void hvt_ftrace_tracedat_raw(struct hvt_ftrace *ft);
/* Of a trace.dat: its CPUs (0 to N - 1), and its first timestamp. */
int hvt_ftrace_nr_cpus(const struct hvt_ftrace *ft);
uint64_t hvt_ftrace_first_ts(const struct hvt_ftrace *ft);
/*
 * The host TSC span a raw CPU file's pages can be stamped in (the
 * recording's, with a margin): a page stamped outside it is damaged, and
 * skipped with a warning. Without it (the default), only a page stamped
 * later than the two after it is found out; not the first or the last.
 */
void hvt_ftrace_set_span(struct hvt_ftrace *ft, uint64_t lo, uint64_t hi);
void hvt_ftrace_close(struct hvt_ftrace *ft);

/* Opens one CPU's pages; NULL after a warning counted in *@warnings. */
struct hvt_ftrace_cpu *hvt_ftrace_cpu_open(struct hvt_ftrace *ft, const char *path,
					   const char *name, int cpu,
					   unsigned long *warnings);
/* The next event in file order, as recorded: 1, or 0 at the end of the file. */
int hvt_ftrace_cpu_next(struct hvt_ftrace_cpu *c, struct hvt_ftrace_event *ev);
/* A numeric field of the event last returned: 0, or -1 if it has none of that name. */
int hvt_ftrace_field_u64(struct hvt_ftrace_cpu *c, const char *name, uint64_t *v);
/*
 * The same in two steps, for a loop over many events of one kind: field
 * @name of event @id found once (NULL if it has none, or is not a number
 * of 1, 2, 4 or 8 bytes), then read from each event last returned, which
 * must be of event @id.
 */
struct tep_format_field;
const struct tep_format_field *hvt_ftrace_field_find(struct hvt_ftrace *ft, int id,
						     const char *name);
uint64_t hvt_ftrace_field_read(const struct hvt_ftrace_cpu *c, const struct tep_format_field *f);
/*
 * A text field (char array or string) of the event last returned, cut at
 * its first NUL and to @len - 1 bytes, in @buf: 0, or -1 if it has no such
 * field.
 */
int hvt_ftrace_field_text(struct hvt_ftrace_cpu *c, const char *name, char *buf, size_t len);
/* The same in two steps: text field @name of event @id found once (NULL: none), then read. */
const struct tep_format_field *hvt_ftrace_text_field_find(struct hvt_ftrace *ft, int id,
							  const char *name);
int hvt_ftrace_text_field_read(const struct hvt_ftrace_cpu *c, const struct tep_format_field *f,
			       char *buf, size_t len);
/* How a format tells the state a task was switched out in. */
struct hvt_task_states {
	uint64_t mask;			/* the state bits: with none set, it was runnable */
	uint64_t preempt;		/* the bit that says preempted ("R+"); 0: none */
	uint64_t idle;			/* bits that, all set, say I (idle); 0: a bit of its own */
	char letter[64];		/* per bit of mask: its letter ("S", "D", ...) */
};

/*
 * How task state field @state of event @id (sched_switch's prev_state)
 * says it, found once per format by printing a record with each bit alone
 * through the event's print fmt: the bits printed as a state, with their
 * letter; a task switched out with none of them set was runnable ("R", or
 * "R+" preempted, for the bit printed so). Linux since 4.14 keeps the
 * states in the low 8 bits (S D T t X Z P I) and flags a preemption with
 * the next one; older kernels used other bits. Where the print fmt does not
 * show the state, that usual rule (HVT_FTRACE_STATE_MASK).
 */
#define HVT_FTRACE_STATE_MASK	0xffu
void hvt_ftrace_task_states(struct hvt_ftrace *ft, int id, const struct tep_format_field *state,
			    struct hvt_task_states *ts);
/*
 * Writes " name=value" for each field of the event last returned (not the
 * common ones): numbers in decimal, pointers and numbers of widths other
 * than 1, 2, 4 or 8 bytes in hex, char arrays and strings as text
 * (hvt_text_escaped()), other arrays as [a,b]; '?' for data outside its
 * record. Field @sub->name, if @sub, as @sub->text (field_subst.h).
 */
void hvt_ftrace_print_fields(struct hvt_ftrace_cpu *c, struct hvt_text *t,
			     const struct hvt_field_subst *sub);
/*
 * Writes " " and the event last returned as its format's print fmt says,
 * on one line: ftrace's own text, through libtraceevent (some microseconds).
 */
void hvt_ftrace_print_info(struct hvt_ftrace_cpu *c, struct hvt_text *t);
/*
 * Writes ,"name":value for each field of the event last returned (not the
 * common ones): numbers, pointers as "0x.." strings, char arrays and strings
 * as strings, other arrays as arrays of numbers; a number of a width other
 * than 1, 2, 4 or 8 bytes, or data outside its record, as null; field
 * @sub->name, if @sub, as the string @sub->text.
 */
void hvt_ftrace_json_fields(struct hvt_ftrace_cpu *c, struct hvt_text *t,
			    const struct hvt_field_subst *sub);
/* CTF (merge --format=ctf, tools/ctf_out.h). */

/* The ftrace id of the event last returned. */
int hvt_ftrace_cpu_event_id(const struct hvt_ftrace_cpu *c);
/* The trace a CPU reader reads. */
struct hvt_ftrace *hvt_ftrace_cpu_trace(const struct hvt_ftrace_cpu *c);
/*
 * The payload of the event last returned, as hvt_ftrace_tsdl_fields()
 * declares it: its size, and the bytes, written at @dst, which must have
 * room for them. Data a damaged record places outside itself reads as empty.
 */
size_t hvt_ftrace_ctf_payload_size(struct hvt_ftrace_cpu *c);
void hvt_ftrace_ctf_payload(struct hvt_ftrace_cpu *c, unsigned char *dst);
/*
 * The member lines of a TSDL struct for the payload of event @id: integers
 * as wide as ftrace's (pointers in hex), char arrays as text, __data_loc
 * strings as strings, other __data_loc arrays as sequences after a u32
 * count, fields of any other width as byte arrays. -1 if there is no such
 * event.
 */
int hvt_ftrace_tsdl_fields(struct hvt_ftrace *ft, int id, FILE *out);

const struct hvt_ftrace_stats *hvt_ftrace_cpu_stats(const struct hvt_ftrace_cpu *c);
/*
 * Reads a CPU's raw pages only up to @bytes, rounded down to whole pages
 * (a file still being written), which may lie past the end read so far:
 * the next hvt_ftrace_cpu_next() goes on from there. Nothing for a
 * trace.dat.
 */
void hvt_ftrace_cpu_limit(struct hvt_ftrace_cpu *c, uint64_t bytes);
void hvt_ftrace_cpu_close(struct hvt_ftrace_cpu *c);

#endif
