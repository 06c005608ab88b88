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
 * stamped later: the lines go out in time order through a bounded window
 * (qemu_log_lines.h), so that memory does not grow with the log. Events are
 * stamped on the middle of their microsecond: their CLOCK_REALTIME in ns is
 * ev.ts. Lines of another shape (other log output in the same file,
 * damage), over-long lines and names past the limit are skipped, and each
 * kind is said once with its count, as are lines that came later than the
 * window.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fileio.h"
#include "tools/read/qemu_log_lines.h"
#include "tools/read/reader.h"
#include "tools/util/stream_warn.h"

struct qemu_log {
	struct hvt_qemu_lines lines;
	struct hvt_qemu_line *cur;	/* the event last handed on */
	char *name;			/* for messages */
	bool said;			/* what the end counts */
	struct hvt_reader_stats stats;
};

/* At the end: what was skipped or placed late, each said once. */
static void say_counts(struct qemu_log *q)
{
	const struct hvt_qemu_lines *l = &q->lines;
	unsigned long *w = &q->stats.warnings;

	if (q->said)
		return;
	q->said = true;
	if (l->other)
		hvt_stream_warn(w, q->name, "%" PRIu64 " line%s not of QEMU's log trace backend "
				"(TID@SECONDS.MICROSECONDS:EVENT ...; with -msg timestamp=on), the "
				"first line %" PRIu64 "; skipped", l->other, l->other == 1 ? "" : "s",
				l->first_other);
	if (l->too_long)
		hvt_stream_warn(w, q->name, "%" PRIu64 " line%s longer than %u bytes; skipped",
				l->too_long, l->too_long == 1 ? "" : "s", HVT_QEMU_LOG_MAX_LINE);
	if (l->unnamed)
		hvt_stream_warn(w, q->name, "%" PRIu64 " line%s of event names past the first %u "
				"distinct ones (not a QEMU trace log?); skipped", l->unnamed,
				l->unnamed == 1 ? "" : "s", HVT_QEMU_LOG_MAX_NAMES);
	if (l->late)
		hvt_stream_warn(w, q->name, "%" PRIu64 " line%s came more than %llu s after a line "
				"stamped later (by up to %.3f s): each placed at the time of the "
				"line before it", l->late, l->late == 1 ? "" : "s",
				HVT_QEMU_LOG_WINDOW_NS / 1000000000ull, l->late_max_ns / 1e9);
}

static int qemu_next(void *r, struct hvt_reader_event *ev)
{
	struct qemu_log *q = r;
	struct hvt_qemu_line *l;

	free(q->cur);
	q->cur = NULL;
	l = hvt_qemu_lines_next(&q->lines);
	if (!l) {
		if (errno)
			hvt_stream_warn(&q->stats.warnings, q->name, "%s; the rest not read",
					errno == ENOMEM ? "out of memory" : strerror(errno));
		say_counts(q);
		return 0;
	}
	q->cur = l;
	ev->ts = l->ts;
	ev->offset = l->line;
	ev->cpu = HVT_NO_CPU;
	ev->tid = l->tid;
	ev->name = hvt_qemu_lines_name(&q->lines, l->name, &ev->name_len);
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
	hvt_text_escaped(t, (const unsigned char *)q->cur->args, q->cur->args_len);
}

static void qemu_json_fields(void *r, struct hvt_text *t, const struct hvt_field_subst *sub)
{
	const struct qemu_log *q = r;

	(void)sub;
	hvt_text_mem(t, ",\"args\":", 8);
	hvt_text_json_str(t, q->cur->args, q->cur->args_len);
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
	const char *p = q->cur->args, *end = p + q->cur->args_len;
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
	memcpy(buf, q->cur->args, n);
	buf[n] = '\0';
	return 0;
}

/* A class per event name; each has one field, its arguments as a string. */
static struct hvt_event_class qemu_event_class(const void *r)
{
	const struct qemu_log *q = r;

	return (struct hvt_event_class){ q, q->cur->name };
}

/* The arguments up to a NUL, which a CTF string cannot hold, then one. */
static size_t args_bytes(const struct qemu_log *q)
{
	const char *nul = memchr(q->cur->args, '\0', q->cur->args_len);

	return nul ? (size_t)(nul - (q->cur->args)) : q->cur->args_len;
}

static size_t qemu_payload_size(void *r)
{
	return args_bytes(r) + 1;
}

static void qemu_payload(void *r, unsigned char *dst)
{
	const struct qemu_log *q = r;
	size_t n = args_bytes(q);

	memcpy(dst, q->cur->args, n);
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

	free(q->cur);
	say_counts(q);		/* read to its end or not (merge --to): what was met */
	hvt_qemu_lines_close(&q->lines);
	free(q->name);
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
	if (!q || !(q->name = strdup(name))) {
		hvt_stream_warn(warnings, name, "out of memory; skipping it");
		free(q);
		return -1;
	}
	if (hvt_qemu_lines_open(&q->lines, path)) {
		hvt_stream_warn(warnings, name, "cannot read it: %s; skipping it",
				errno == ENOMEM ? "out of memory" : hvt_file_strerror(errno));
		free(q->name);
		free(q);
		return -1;
	}
	rd->ops = &qemu_ops;
	rd->r = q;
	return 0;
}
