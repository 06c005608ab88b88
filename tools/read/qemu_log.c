// SPDX-License-Identifier: GPL-2.0-only
/*
 * qemu_log.c - QEMU's own trace events, as its "log" trace backend writes
 * them (-trace enable=PATTERN,file=FILE -msg timestamp=on), as a reader
 * (reader.h): one line per event,
 *
 *     TID@SECONDS.MICROSECONDS:NAME ARGUMENTS
 *
 * TID the thread that emitted it, the time CLOCK_REALTIME (gettimeofday,
 * truncated to the microsecond), ARGUMENTS the event's printf text.
 *
 * QEMU's threads write their lines in turns, so a line may follow one
 * stamped later: the file is read whole and its events sorted by time
 * (line order within a time). Events are stamped on the middle of their
 * microsecond: their CLOCK_REALTIME in ns is ev.ts. Each name is made a
 * string in place (the space or newline after it becomes a NUL). Lines of
 * another shape (other log output in the same file, damage) are skipped
 * with one warning that counts them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fileio.h"
#include "tools/read/reader.h"
#include "tools/util/stream_warn.h"

#define MAX_FILE	(1ull << 32)	/* 4 GiB of log */
#define MAX_NAMES	65536u		/* distinct event names */

struct qemu_line {
	uint64_t ts;			/* CLOCK_REALTIME ns, mid-microsecond */
	uint32_t line;			/* from 1, for order and messages */
	int32_t tid;
	uint32_t name, name_len;	/* offsets into the text */
	uint32_t args, args_len;
	uint32_t class;			/* index into names */
};

struct qemu_log {
	char *text;
	size_t len;
	struct qemu_line *lines;
	size_t nr_lines, next;
	const struct qemu_line *cur;
	uint32_t *names;		/* hash of distinct names: line index + 1, 0 free */
	uint32_t names_size, nr_names;
	struct hvt_reader_stats stats;
};

static uint32_t hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	while (n--)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* The class of line @l: its name's index among the distinct names, added if new. */
/* The slot of @l's name in the table: its line index + 1 there, or 0 (free). */
static uint32_t *name_slot(struct qemu_log *q, const struct qemu_line *l)
{
	uint32_t h, i;

	for (h = hash(q->text + l->name, l->name_len) & (q->names_size - 1); (i = q->names[h]);
	     h = (h + 1) & (q->names_size - 1)) {
		const struct qemu_line *o = &q->lines[i - 1];

		if (o->name_len == l->name_len && !memcmp(q->text + o->name, q->text + l->name,
							  l->name_len))
			break;
	}
	return &q->names[h];
}

static int intern(struct qemu_log *q, struct qemu_line *l, uint32_t index)
{
	uint32_t h, *slot;

	if (q->names_size && *(slot = name_slot(q, l))) {
		l->class = q->lines[*slot - 1].class;
		return 0;
	}
	if (q->nr_names >= MAX_NAMES)
		return -1;
	if (q->nr_names * 2 >= q->names_size) {
		uint32_t size = q->names_size ? q->names_size * 2 : 64, *old = q->names, j;

		q->names = calloc(size, sizeof(*q->names));
		if (!q->names) {
			q->names = old;
			return -1;
		}
		for (j = 0; j < q->names_size; j++) {
			const struct qemu_line *o;

			if (!old[j])
				continue;
			o = &q->lines[old[j] - 1];
			for (h = hash(q->text + o->name, o->name_len) & (size - 1); q->names[h];
			     h = (h + 1) & (size - 1))
				;
			q->names[h] = old[j];
		}
		free(old);
		q->names_size = size;
	}
	*name_slot(q, l) = index + 1;	/* a free slot: the name is new */
	l->class = q->nr_names++;
	return 0;
}

/* Digits at @p (at most @max of them, at least one): their value, and @p moved past. */
static int digits(const char **p, const char *end, unsigned int max, uint64_t *v)
{
	unsigned int n = 0;

	*v = 0;
	while (*p < end && **p >= '0' && **p <= '9' && n < max) {
		*v = *v * 10 + (uint64_t)(**p - '0');
		(*p)++;
		n++;
	}
	return n ? 0 : -1;
}

static int name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* Parses the line [@p, @end) into @l: 0, or -1 if it is not a trace event. */
static int parse_line(const struct qemu_log *q, const char *p, const char *end,
		      struct qemu_line *l)
{
	uint64_t tid, sec, usec;
	const char *start;

	/* seconds below 2^62 ns: the time fits CLOCK_REALTIME's int64 ns, with room */
	if (digits(&p, end, 10, &tid) || tid > INT32_MAX || p == end || *p++ != '@' ||
	    digits(&p, end, 10, &sec) || sec >= (1ull << 62) / 1000000000u || p == end ||
	    *p++ != '.')
		return -1;
	start = p;
	if (digits(&p, end, 6, &usec) || p - start != 6 || p == end || *p++ != ':')
		return -1;
	l->name = (uint32_t)(p - q->text);
	while (p < end && name_char(*p))
		p++;
	l->name_len = (uint32_t)(p - q->text) - l->name;
	if (!l->name_len || (p < end && *p != ' '))
		return -1;
	if (p < end)
		p++;
	l->args = (uint32_t)(p - q->text);
	l->args_len = (uint32_t)(end - p);
	l->tid = (int32_t)tid;
	l->ts = sec * 1000000000u + usec * 1000u + 500u;
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct qemu_line *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

static int load(struct qemu_log *q, const char *name, unsigned long *warnings)
{
	const char *p = q->text, *end = q->text + q->len;
	uint32_t line = 0, other = 0, first_other = 0;
	size_t cap = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		struct qemu_line l = { .line = ++line };

		if (eol > p && eol[-1] == '\r')	/* a log that went through a CRLF tool */
			eol--;

		if (parse_line(q, p, eol, &l)) {
			if (!other++)
				first_other = line;
		} else {
			/* names are NUL-terminated: the space or newline after one */
			q->text[l.name + l.name_len] = '\0';
			if (q->nr_lines == cap) {
				struct qemu_line *a;

				cap = cap ? cap * 2 : 1024;
				a = realloc(q->lines, cap * sizeof(*a));
				if (!a)
					return -1;
				q->lines = a;
			}
			q->lines[q->nr_lines] = l;
			if (intern(q, &q->lines[q->nr_lines], (uint32_t)q->nr_lines))
				return -1;
			q->nr_lines++;
		}
		p = nl ? nl + 1 : end;
	}
	if (other)
		hvt_stream_warn(warnings, name, "%u line%s not of QEMU's log trace backend "
				"(TID@SECONDS.MICROSECONDS:EVENT ...; with -msg timestamp=on), the "
				"first line %u; skipped", other, other == 1 ? "" : "s", first_other);
	if (q->nr_lines)
		qsort(q->lines, q->nr_lines, sizeof(*q->lines), by_time);
	return 0;
}

static int qemu_next(void *r, struct hvt_reader_event *ev)
{
	struct qemu_log *q = r;
	const struct qemu_line *l;

	if (q->next == q->nr_lines)
		return 0;
	l = q->cur = &q->lines[q->next++];
	ev->ts = l->ts;
	ev->offset = l->line;
	ev->cpu = HVT_NO_CPU;
	ev->tid = l->tid;
	ev->name = q->text + l->name;
	ev->name_len = l->name_len;
	return 1;
}

/* QEMU's events are a line of text: no field to substitute. */
static void qemu_print_fields(void *r, struct hvt_text *t, bool print_fmt,
			      const struct hvt_field_subst *sub)
{
	const struct qemu_log *q = r;

	(void)print_fmt;
	(void)sub;
	if (!q->cur->args_len)
		return;
	hvt_text_char(t, ' ');
	hvt_text_escaped(t, (const unsigned char *)q->text + q->cur->args, q->cur->args_len);
}

static void qemu_json_fields(void *r, struct hvt_text *t, const struct hvt_field_subst *sub)
{
	const struct qemu_log *q = r;

	(void)sub;
	hvt_text_mem(t, ",\"args\":", 8);
	hvt_text_json_str(t, q->text + q->cur->args, q->cur->args_len);
}

/* The number that starts at @p (up to a blank or @end): 0, or -1 if none. */
static int number(const char *p, const char *end, uint64_t *v)
{
	bool neg = p < end && *p == '-';
	unsigned int base = 10, d;
	uint64_t x = 0;
	const char *start;

	p += neg;
	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	for (start = p; p < end && *p != ' '; p++) {
		char c = *p;

		if (c >= '0' && c <= '9')
			d = (unsigned int)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (unsigned int)(c - 'a' + 10);
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = (unsigned int)(c - 'A' + 10);
		else
			return -1;
		if (x > (UINT64_MAX - d) / base)
			return -1;	/* too large for 64 bits */
		x = x * base + d;
	}
	if (p == start)
		return -1;
	*v = neg ? (uint64_t)0 - x : x;
	return 0;
}

/*
 * A number of the arguments: QEMU's events print theirs as "NAME VALUE"
 * pairs ("vdev 0x55d0 req 0x55e0 sector 8 nsectors 8"), VALUE decimal,
 * negative or 0x hexadecimal; field @name is the word after the word
 * @name. -1 if there is no such word, or what follows is not a number.
 */
static int qemu_field_u64(void *r, const char *name, uint64_t *v)
{
	const struct qemu_log *q = r;
	const char *p = q->text + q->cur->args, *end = p + q->cur->args_len;
	size_t n = strlen(name);

	while (p < end) {
		const char *word = p;

		while (p < end && *p != ' ')
			p++;
		if ((size_t)(p - word) == n && !memcmp(word, name, n) && p < end)
			return number(p + 1, end, v);
		while (p < end && *p == ' ')
			p++;
	}
	return -1;
}

static int qemu_field_text(void *r, const char *name, char *buf, size_t len)
{
	const struct qemu_log *q = r;
	size_t n = q->cur->args_len < len - 1 ? q->cur->args_len : len - 1;

	if (strcmp(name, "args") || !len)
		return -1;
	memcpy(buf, q->text + q->cur->args, n);
	buf[n] = '\0';
	return 0;
}

/* A class per event name; each has one field, its arguments as a string. */
static struct hvt_event_class qemu_event_class(const void *r)
{
	const struct qemu_log *q = r;

	return (struct hvt_event_class){ q, q->cur->class };
}

/* The arguments up to a NUL, which a CTF string cannot hold, then one. */
static size_t args_bytes(const struct qemu_log *q)
{
	const char *nul = memchr(q->text + q->cur->args, '\0', q->cur->args_len);

	return nul ? (size_t)(nul - (q->text + q->cur->args)) : q->cur->args_len;
}

static size_t qemu_payload_size(void *r)
{
	return args_bytes(r) + 1;
}

static void qemu_payload(void *r, unsigned char *dst)
{
	const struct qemu_log *q = r;
	size_t n = args_bytes(q);

	memcpy(dst, q->text + q->cur->args, n);
	dst[n] = '\0';
}

static int qemu_tsdl_fields(const struct hvt_event_class *c, FILE *out)
{
	(void)c;
	fputs("\t\tstring args;\n", out);
	return 0;
}

static void qemu_stats(const void *r, struct hvt_reader_stats *st)
{
	*st = ((const struct qemu_log *)r)->stats;
}

static void qemu_close(void *r)
{
	struct qemu_log *q = r;

	free(q->text);
	free(q->lines);
	free(q->names);
	free(q);
}

static const struct hvt_reader_ops qemu_ops = {
	.format = "qemu-log",
	.next = qemu_next,
	.print_fields = qemu_print_fields,
	.json_fields = qemu_json_fields,
	.field_u64 = qemu_field_u64,
	.field_text = qemu_field_text,
	.event_class = qemu_event_class,
	.payload_size = qemu_payload_size,
	.payload = qemu_payload,
	.tsdl_fields = qemu_tsdl_fields,
	.stats = qemu_stats,
	.close = qemu_close,
};

int hvt_reader_open_qemu_log(struct hvt_reader *rd, const char *path, const char *name,
			     unsigned long *warnings)
{
	struct qemu_log *q = calloc(1, sizeof(*q));

	memset(rd, 0, sizeof(*rd));
	if (!q) {
		hvt_stream_warn(warnings, name, "out of memory; skipping it");
		return -1;
	}
	if (hvt_read_file(path, MAX_FILE, &q->text, &q->len)) {
		hvt_stream_warn(warnings, name, "cannot read it: %s; skipping it",
				hvt_file_strerror(errno));
		free(q);
		return -1;
	}
	if (q->len > UINT32_MAX || load(q, name, &q->stats.warnings)) {
		hvt_stream_warn(warnings, name, "%s; skipping it", q->len > UINT32_MAX ?
				"larger than 4 GiB" : q->nr_names >= MAX_NAMES ?
				"more than 65536 distinct event names: not a QEMU trace log?" :
				"out of memory");
		qemu_close(q);
		return -1;
	}
	rd->ops = &qemu_ops;
	rd->r = q;
	return 0;
}
