// SPDX-License-Identifier: GPL-2.0-only
/*
 * ftrace_reader.c - the host layer's raw ring-buffer pages (ftrace_reader.h).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <event-parse.h>
#include <kbuffer.h>
#include <trace-seq.h>

#include <hvtrace/compat.h>
#include "lib/fileio.h"
#include "lib/log.h"
#include "lib/event_registry.h"
#include "lib/tsdl.h"
#include "tools/read/ftrace_private.h"
#include "tools/read/ftrace_reader.h"
#include "tools/util/stream_warn.h"

#define FORMAT_MAX		(1u << 20)
/* A page's commit word: data bytes in the low bits, flags above (kbuffer's masks). */
#define COMMIT_MASK		((1u << 27) - 1)
#define COMMIT_MISSED		(1ull << 31)
#define COMMIT_MISSED_STORED	(1ull << 30)	/* the count follows the data */
/*
 * Zeros after the data a damaged record may make libtraceevent read:
 * __data_loc fields hold a 16-bit offset and a 16-bit length.
 */
#define SCRATCH_PAD		(2u * 65536u + 64u)
/* kbuffer reads an event header (up to 8 bytes) or a missed count past the data. */
#define PAGE_PAD		64u


static int parse_header_page(struct hvt_ftrace *ft, const char *dir)
{
	char *path = hvt_join(dir, "header_page"), *text = NULL;
	size_t len;
	int ret = -1;

	if (!path)
		return -1;
	if (hvt_read_file(path, FORMAT_MAX, &text, &len))
		hvt_err("cannot read %s: %s", path, hvt_file_strerror(errno));
	else if (!len)
		hvt_err("%s: empty", path);
	else if (tep_parse_header_page(ft->tep, text, len, 8))
		hvt_err("%s: does not parse", path);
	else
		ret = 0;
	free(text);
	free(path);
	if (ret)
		return -1;
	ft->commit_size = (uint32_t)tep_get_header_page_size(ft->tep);
	ft->data_offset = (uint32_t)tep_get_header_timestamp_size(ft->tep) + ft->commit_size;
	/* kbuffer assumes an 8-byte timestamp and a long-sized commit. */
	if (tep_get_header_timestamp_size(ft->tep) != 8 ||
	    (ft->commit_size != 4 && ft->commit_size != 8) || ft->data_offset >= ft->page_size) {
		hvt_err("%s/header_page: page layout not supported", dir);
		return -1;
	}
	return 0;
}

/* A handle for little-endian, 64-bit pages of @page_size bytes; NULL if out of memory. */
static struct tep_handle *tep_new(uint32_t page_size)
{
	struct tep_handle *tep = tep_alloc();

	if (tep) {
		tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
		tep_set_long_size(tep, 8);
		tep_set_page_size(tep, (int)page_size);
	}
	return tep;
}

const struct tep_format_field *hvt_ftrace_field_outside(const struct tep_format_field *f,
							uint32_t max)
{
	for (; f; f = f->next)
		if (f->offset < 0 || f->size < 0 || (int64_t)f->offset + f->size > (int64_t)max)
			return f;
	return NULL;
}

static const struct tep_format_field *field_malformed(const struct tep_format_field *f)
{
	for (; f; f = f->next) {
		/* a value of no bytes: only an array may be empty ("char buf[];") */
		if (!f->size && !(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)))
			return f;
		/* an array of N elements whose size is not N of one size */
		if ((f->flags & TEP_FIELD_IS_ARRAY) && !(f->flags & TEP_FIELD_IS_DYNAMIC) &&
		    f->arraylen && ((unsigned int)f->size % f->arraylen ||
				    (unsigned int)f->size < f->arraylen))
			return f;
	}
	return NULL;
}

const struct tep_format_field *hvt_ftrace_field_malformed(const struct tep_event *ev)
{
	const struct tep_format_field *bad;

	/* the tracer's own entries declare their trailing data so ("char data;", size 0) */
	if (ev->system && !strcmp(ev->system, "ftrace"))
		return NULL;
	bad = field_malformed(ev->format.common_fields);
	return bad ? bad : field_malformed(ev->format.fields);
}

static unsigned int nr_fields(const struct tep_format_field *f)
{
	unsigned int n = 0;

	for (; f; f = f->next)
		n++;
	return n;
}

/* How many "field:" lines the format text @text has. */
static unsigned int field_lines(const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	unsigned int n = 0;

	while ((p = memmem(p, (size_t)(end - p), "\tfield:", 7))) {
		n++;
		p += 7;
	}
	return n;
}

/* The name of @ev's last field read, for a message. */
static const char *last_field_name(const struct tep_event *ev)
{
	const struct tep_format_field *f = ev->format.fields ? ev->format.fields :
					   ev->format.common_fields;

	while (f && f->next)
		f = f->next;
	return f ? f->name : "the start";
}

/*
 * Whether the format in @text may be used: it parses, and every field, the
 * common ones included, lies inside the data a record can have. libtraceevent
 * reads fields where the format says, unchecked, so a damaged offset would
 * send it far past the record. Parsed into a handle of its own, as a
 * refused event must not stay in ft->tep.
 */
static bool format_usable(const struct hvt_ftrace *ft, const char *path, const char *text,
			  size_t len, const char *sys)
{
	const uint32_t max = ft->page_size - ft->data_offset;
	const struct tep_format_field *bad;
	struct tep_handle *tep = tep_new(ft->page_size);
	struct tep_event *ev = NULL;
	enum tep_errno err;
	char msg[128];

	if (!tep) {
		hvt_warn("%s: out of memory; that event will not be decoded", path);
		return false;
	}
	/* libtraceevent says "failed to allocate memory" of an empty or foreign file */
	if (!len || !memmem(text, len, "name: ", 6) || !memmem(text, len, "\nID: ", 5) ||
	    !memmem(text, len, "\nformat:", 8)) {
		hvt_warn("%s: %s; that event will not be decoded", path, len ? "not an ftrace "
			 "format file (no name, ID and format lines)" : "empty");
		tep_free(tep);
		return false;
	}
	err = tep_parse_format(tep, &ev, text, len, sys);
	if (err || !ev) {
		tep_strerror(tep, err, msg, sizeof(msg));
		hvt_warn("%s: %s; that event will not be decoded", path, msg);
		tep_free(tep);
		return false;
	}
	if (!tep_find_common_field(ev, "common_type")) {
		hvt_warn("%s: no common_type field (a damaged format file?); that event will not "
			 "be decoded", path);
		tep_free(tep);
		return false;
	}
	/* libtraceevent stops at a field line it cannot read, and keeps those before */
	if (nr_fields(ev->format.common_fields) + nr_fields(ev->format.fields) <
	    field_lines(text, len)) {
		hvt_warn("%s: only %u of its %u fields could be read (a damaged field line after "
			 "%s); that event will not be decoded", path,
			 nr_fields(ev->format.common_fields) + nr_fields(ev->format.fields),
			 field_lines(text, len), last_field_name(ev));
		tep_free(tep);
		return false;
	}
	bad = hvt_ftrace_field_outside(ev->format.common_fields, max);
	if (!bad)
		bad = hvt_ftrace_field_outside(ev->format.fields, max);
	if (bad)
		hvt_warn("%s: field %s (offset %d, size %d) lies outside any record of a "
			 "%u-byte page (at most %u bytes of data); that event will not be decoded",
			 path, bad->name, bad->offset, bad->size, ft->page_size, max);
	else if ((bad = hvt_ftrace_field_malformed(ev)))
		hvt_warn("%s: field %s (size %d%s) cannot hold a value; that event will not be "
			 "decoded", path, bad->name, bad->size,
			 bad->arraylen ? ", not a whole number of its elements" : "");
	tep_free(tep);
	return !bad;
}

static void parse_format(struct hvt_ftrace *ft, const char *path, const char *sys,
			 unsigned long *warnings)
{
	enum tep_errno err;
	char *text = NULL, msg[128];
	size_t len;

	if (hvt_read_file(path, FORMAT_MAX, &text, &len)) {
		hvt_warn("cannot read %s: %s; that event will not be decoded", path,
			 hvt_file_strerror(errno));
		(*warnings)++;
		return;
	}
	if (!format_usable(ft, path, text, len, sys)) {
		(*warnings)++;
	} else if ((err = tep_parse_event(ft->tep, text, len, sys))) {
		tep_strerror(ft->tep, err, msg, sizeof(msg));
		hvt_warn("%s: %s; that event will not be decoded", path, msg);
		(*warnings)++;
	}
	free(text);
}

/* events/SYS/EVENT/format; names come from readdir, never from the files. */
static void parse_system(struct hvt_ftrace *ft, const char *sysdir, const char *sys,
			 unsigned long *warnings)
{
	DIR *d = opendir(sysdir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[4096];
		struct stat st;

		if (de->d_name[0] == '.' ||
		    hvt_path(path, sizeof(path), "%s/%s/format", sysdir, de->d_name) ||
		    stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		parse_format(ft, path, sys, warnings);
	}
	closedir(d);
}

static void parse_formats(struct hvt_ftrace *ft, const char *dir, unsigned long *warnings)
{
	char *events = hvt_join(dir, "events");
	struct dirent *de;
	DIR *d;

	d = events ? opendir(events) : NULL;
	if (!d) {
		hvt_warn("cannot open %s/events: %s; host events cannot be decoded", dir,
			 strerror(errno));
		(*warnings)++;
		free(events);
		return;
	}
	while ((de = readdir(d))) {
		char sysdir[4096];

		if (de->d_name[0] == '.' ||
		    hvt_path(sysdir, sizeof(sysdir), "%s/%s", events, de->d_name))
			continue;
		parse_system(ft, sysdir, de->d_name, warnings);
	}
	closedir(d);
	free(events);
}

struct hvt_ftrace *hvt_ftrace_open(const char *dir, uint32_t page_size,
				   unsigned long *warnings)
{
	struct hvt_ftrace *ft = calloc(1, sizeof(*ft));

	if (!ft || !(ft->tep = tep_new(page_size))) {
		hvt_err("out of memory");
		free(ft);
		return NULL;
	}
	ft->page_size = page_size;
	ft->span_hi = UINT64_MAX;
	if (parse_header_page(ft, dir)) {
		hvt_ftrace_close(ft);
		return NULL;
	}
	parse_formats(ft, dir, warnings);
	return ft;
}

void hvt_ftrace_set_span(struct hvt_ftrace *ft, uint64_t lo, uint64_t hi)
{
	ft->span_lo = lo;
	ft->span_hi = hi;
}

void hvt_ftrace_close(struct hvt_ftrace *ft)
{
	if (!ft)
		return;
	if (ft->tc)
		hvt_tracedat_close(ft);	/* the tep is the trace.dat handle's */
	else
		tep_free(ft->tep);
	free(ft->unsafe);
	free(ft->need);
	free(ft);
}

struct hvt_ftrace_cpu *hvt_ftrace_cpu_open(struct hvt_ftrace *ft, const char *path,
					   const char *name, int cpu,
					   unsigned long *warnings)
{
	struct hvt_ftrace_cpu *c = calloc(1, sizeof(*c));

	if (!c)
		goto nomem;
	c->fd = -1;
	c->ft = ft;
	c->cpu = (uint32_t)cpu;
	trace_seq_init(&c->seq);
	c->name = strdup(name);
	c->page = calloc(1, ft->page_size + PAGE_PAD);
	c->scratch = calloc(1, ft->page_size + SCRATCH_PAD);
	c->kbuf = kbuffer_alloc(ft->commit_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
				KBUFFER_ENDIAN_LITTLE);
	if (!c->name || !c->page || !c->scratch || !c->kbuf)
		goto nomem;
	if (ft->tc) {		/* a trace.dat: tracedat.c reads it, from its start */
		c->first = true;
		return c;
	}
	c->fd = hvt_stream_open(path, name, "that CPU", &c->file_size, warnings);
	if (c->fd < 0) {
		hvt_ftrace_cpu_close(c);
		return NULL;
	}
	return c;
nomem:
	hvt_err("out of memory opening %s", name);
	(*warnings)++;
	hvt_ftrace_cpu_close(c);
	return NULL;
}

void hvt_ftrace_cpu_close(struct hvt_ftrace_cpu *c)
{
	if (!c)
		return;
	if (c->fd >= 0)
		close(c->fd);
	kbuffer_free(c->kbuf);
	trace_seq_destroy(&c->seq);
	free(c->scratch);
	free(c->page);
	free(c->name);
	free(c);
}

const struct hvt_ftrace_stats *hvt_ftrace_cpu_stats(const struct hvt_ftrace_cpu *c)
{
	return &c->stats;
}

struct hvt_ftrace *hvt_ftrace_cpu_trace(const struct hvt_ftrace_cpu *c)
{
	return c->ft;
}

void hvt_ftrace_cpu_limit(struct hvt_ftrace_cpu *c, uint64_t bytes)
{
	if (!c->ft->tc)
		c->file_size = bytes - bytes % c->ft->page_size;
}

/* Checks the page's commit word before kbuffer trusts it: 1 usable, 0 skip. */
static int check_page(struct hvt_ftrace_cpu *c)
{
	const struct hvt_ftrace *ft = c->ft;
	uint64_t commit = ft->commit_size == 8 ? hvt_get_u64(c->page + 8) :
			  hvt_get_u32(c->page + 8);

	c->data_size = (uint32_t)(commit & COMMIT_MASK);
	if (c->data_size > ft->page_size - ft->data_offset) {
		hvt_stream_warn(&c->stats.warnings, c->name,
				"page at offset %" PRIu64 ": %u data bytes do not fit in a page;"
				" skipping the page", c->page_off, c->data_size);
		c->stats.skipped_pages++;
		return 0;
	}
	if (commit & COMMIT_MISSED) {
		uint32_t at = ft->data_offset + c->data_size;

		/* The kernel stores the count only when it fits after the data. */
		c->stats.lost_events += (commit & COMMIT_MISSED_STORED) && at + 8 <= ft->page_size ?
					hvt_get_u64(c->page + at) : 1;
	}
	/*
	 * The kernel hands out no page without data: one stamped with a
	 * commit of 0 lost what it held (a zeroed commit word). An unstamped
	 * one is padding, said apart (zero_pages_end()).
	 */
	if (!c->data_size && hvt_get_u64(c->page)) {
		hvt_stream_warn(&c->stats.warnings, c->name, "page at offset %" PRIu64 ": stamped %"
				PRIu64 " with a commit of 0 (no data): a damaged page; skipping it",
				c->page_off, (uint64_t)hvt_get_u64(c->page));
		c->stats.skipped_pages++;
	}
	return c->data_size > 0;
}

/*
 * Pages of nothing but zeros (no timestamp, no commit): not what the kernel
 * hands out, but what a file padded or overwritten with zeros holds. Said
 * once per run of them, when the run ends.
 */
static void zero_pages_end(struct hvt_ftrace_cpu *c)
{
	if (!c->zero_pages)
		return;
	hvt_stream_warn(&c->stats.warnings, c->name, "%" PRIu64 " page%s of zeros from offset %"
			PRIu64 " (%" PRIu64 " bytes with no data); skipped", c->zero_pages,
			c->zero_pages == 1 ? "" : "s", c->zero_from,
			c->zero_pages * c->ft->page_size);
	c->zero_pages = 0;
}

static bool zero_page(const struct hvt_ftrace_cpu *c)
{
	return !c->data_size && !hvt_get_u64(c->page) && !hvt_get_u64(c->page + 8);
}

/*
 * Whether the page just read is stamped out of line: later than the page
 * after it, which itself follows the page before (one damaged stamp, say
 * 2^64 - 1, would otherwise put every later page "before" it and drop
 * them). Only the page between two that agree is judged.
 */
static bool page_out_of_line(struct hvt_ftrace_cpu *c)
{
	uint64_t ts = hvt_get_u64(c->page), next;
	unsigned char b[8];

	if (!c->stats.pages ||	/* judged only after a page was taken */
	    c->next_page + c->ft->page_size > c->file_size ||
	    hvt_pread_all(c->fd, b, sizeof(b), (off_t)c->next_page))
		return false;
	next = hvt_get_u64(b);
	return next && ts > next && next >= c->last_page_ts;
}

/* One page, from next_page: true if it has events (it is then loaded). */
static bool load_next_page(struct hvt_ftrace_cpu *c)
{
	uint64_t left = c->file_size - c->next_page;

	c->page_off = c->next_page;
	if (left < c->ft->page_size ||
	    hvt_pread_all(c->fd, c->page, c->ft->page_size, (off_t)c->page_off)) {
		zero_pages_end(c);
		hvt_stream_warn(&c->stats.warnings, c->name,
				"page at offset %" PRIu64 ": truncated (%" PRIu64
				" bytes left); ignoring them", c->page_off, left);
		c->next_page = c->file_size;
		return false;
	}
	c->next_page += c->ft->page_size;
	if (!check_page(c)) {
		if (!zero_page(c))
			zero_pages_end(c);
		else if (!c->zero_pages++)
			c->zero_from = c->page_off;
		return false;
	}
	zero_pages_end(c);
	if (hvt_get_u64(c->page) < c->ft->span_lo || hvt_get_u64(c->page) > c->ft->span_hi) {
		hvt_stream_warn(&c->stats.warnings, c->name, "page at offset %" PRIu64 ": stamped %"
				PRIu64 ", outside the recording (host TSC %" PRIu64 " to %" PRIu64
				"): a damaged timestamp; skipping the page", c->page_off,
				(uint64_t)hvt_get_u64(c->page), c->ft->span_lo, c->ft->span_hi);
		c->stats.skipped_pages++;
		return false;
	}
	if (page_out_of_line(c)) {
		hvt_stream_warn(&c->stats.warnings, c->name, "page at offset %" PRIu64 ": stamped %"
				PRIu64 ", after the page that follows it: a damaged timestamp; "
				"skipping the page", c->page_off, (uint64_t)hvt_get_u64(c->page));
		c->stats.skipped_pages++;
		return false;
	}
	c->last_page_ts = hvt_get_u64(c->page);
	kbuffer_load_subbuffer(c->kbuf, c->page);
	c->stats.pages++;
	c->loaded = true;
	c->first = true;
	return true;
}

/* Loads the next page with events; false at the end of the file. */
static bool load_page(struct hvt_ftrace_cpu *c)
{
	while (c->next_page < c->file_size)
		if (load_next_page(c))
			return true;
	zero_pages_end(c);
	c->loaded = false;
	return false;
}

/* Copies the record into the zero-padded scratch buffer. */
static void load_record(struct hvt_ftrace_cpu *c, const void *data, size_t size,
			unsigned long long ts)
{
	memcpy(c->scratch, data, size);
	if (c->scratch_used > size)
		memset(c->scratch + size, 0, c->scratch_used - size);
	c->scratch_used = size;
	memset(&c->record, 0, sizeof(c->record));
	c->record.ts = ts;
	c->record.data = c->scratch;
	c->record.size = (int)size;
	c->record.cpu = (int)c->cpu;
	c->record.locked = 1;		/* ours, not libtraceevent's to free */
}

static uint32_t fields_end(const struct tep_format_field *f, uint32_t end)
{
	for (; f; f = f->next)
		if (f->offset >= 0 && f->size >= 0 && (uint32_t)(f->offset + f->size) > end)
			end = (uint32_t)(f->offset + f->size);
	return end;
}

/*
 * The bytes of record the fields of @type span (its format's fixed part;
 * field_outside() bounds them by a page); 0 if unknown (out of memory).
 * Kept by id: a record shorter than that was written by another format.
 */
static uint32_t record_need(struct hvt_ftrace *ft, const struct tep_event *type)
{
	if (type->id < 0 || type->id > UINT16_MAX)
		return 0;
	if (!ft->need && !(ft->need = calloc(UINT16_MAX + 1, sizeof(*ft->need))))
		return 0;
	if (!ft->need[type->id])
		ft->need[type->id] = 1 + fields_end(type->format.fields,
						    fields_end(type->format.common_fields, 0));
	return ft->need[type->id] - 1;
}

int hvt_ftrace_take(struct hvt_ftrace_cpu *c, const void *data, size_t size,
		    unsigned long long ts, uint64_t off, struct hvt_ftrace_event *ev)
{
	uint32_t need;
	struct tep_event *type;

	load_record(c, data, size, ts);
	type = tep_find_event_by_record(c->ft->tep, &c->record);
	if (type && c->ft->nr_unsafe && hvt_ftrace_unsafe(c->ft, type->id)) {
		hvt_stream_warn(&c->stats.warnings, c->name, "record at offset %" PRIu64
				": event %s has a field outside any record; skipping it", off,
				type->name);
		c->stats.skipped_records++;
		return 0;
	}
	if (!type) {
		hvt_stream_warn(&c->stats.warnings, c->name, "record at offset %" PRIu64
				": unknown event type %u; skipping it", off,
				size >= 2 ? (unsigned int)(c->scratch[0] | c->scratch[1] << 8) : 0u);
		c->stats.skipped_records++;
		return 0;
	}
	need = record_need(c->ft, type);
	if (need > size) {
		hvt_stream_warn(&c->stats.warnings, c->name, "record at offset %" PRIu64
				": %zu bytes, where the format of %s puts fields up to byte %u "
				"(a damaged format file?); skipping it", off, size, type->name,
				need);
		c->stats.skipped_records++;
		return 0;
	}
	ev->ts = ts;
	ev->cpu = c->cpu;
	ev->tid = tep_data_pid(c->ft->tep, &c->record);
	ev->name = type->name;
	ev->id = type->id;
	ev->offset = off;
	return 1;
}

/* The event kbuffer points at: 1 returned, 0 skipped, -1 rest of the page unusable. */
static int decode(struct hvt_ftrace_cpu *c, unsigned char *data, unsigned long long ts,
		  struct hvt_ftrace_event *ev)
{
	uint64_t off = c->page_off + (uint64_t)kbuffer_curr_offset(c->kbuf);
	long start = (long)(data - c->page), size = kbuffer_event_size(c->kbuf);

	if (size < 0 || start < 0 || start + size > (long)(c->ft->data_offset + c->data_size)) {
		hvt_stream_warn(&c->stats.warnings, c->name, "record at offset %" PRIu64
				" runs past its page's data; skipping the rest of the page", off);
		return -1;
	}
	return hvt_ftrace_take(c, data, (size_t)size, ts, off, ev);
}

/*
 * An event of a page stamped inside the recording's span, itself outside it:
 * a time extend (or delta) damaged on its way, which would put it and every
 * later event of the page, and every page after them, out of order. The
 * rest of the page is skipped, said.
 */
static void outside_span(struct hvt_ftrace_cpu *c, unsigned long long ts)
{
	hvt_stream_warn(&c->stats.warnings, c->name, "page at offset %" PRIu64 ": an event "
			"stamped %llu, outside the recording (host TSC %" PRIu64 " to %" PRIu64
			"): a damaged time extend; skipping the rest of the page", c->page_off, ts,
			c->ft->span_lo, c->ft->span_hi);
	c->stats.skipped_pages++;
}

int hvt_ftrace_cpu_next(struct hvt_ftrace_cpu *c, struct hvt_ftrace_event *ev)
{
	if (c->ft->tc)
		return hvt_tracedat_next(c, ev);
	for (;;) {
		unsigned long long ts;
		unsigned char *data;
		int ret;

		if (!c->loaded && !load_page(c))
			return 0;
		data = c->first ? kbuffer_read_event(c->kbuf, &ts) :
				  kbuffer_next_event(c->kbuf, &ts);
		c->first = false;
		if (!data) {
			c->loaded = false;
			continue;
		}
		if (ts < c->ft->span_lo || ts > c->ft->span_hi) {
			outside_span(c, ts);	/* a damaged time extend: the rest is unplaceable */
			c->loaded = false;
			continue;
		}
		ret = decode(c, data, ts, ev);
		if (ret > 0)
			return 1;
		if (ret < 0)
			c->loaded = false;
	}
}

int hvt_ftrace_field_u64(struct hvt_ftrace_cpu *c, const char *name, uint64_t *v)
{
	struct tep_event *type = tep_find_event_by_record(c->ft->tep, &c->record);
	unsigned long long val;

	if (!type || tep_get_field_val(NULL, type, name, &c->record, &val, 0))
		return -1;
	*v = val;
	return 0;
}
