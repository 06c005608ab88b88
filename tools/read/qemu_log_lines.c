// SPDX-License-Identifier: GPL-2.0-only
/*
 * qemu_log_lines.c - a QEMU log's lines in time order, in bounded memory
 * (qemu_log_lines.h).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/fileio.h"
#include "tools/read/qemu_log_lines.h"

#define BUF_SIZE	(2 * HVT_QEMU_LOG_MAX_LINE)

int hvt_qemu_lines_open(struct hvt_qemu_lines *q, const char *path)
{
	uint64_t size;

	memset(q, 0, sizeof(*q));
	q->fd = hvt_open_regular(path, UINT64_MAX, &size);
	if (q->fd < 0)
		return -1;
	q->buf = malloc(BUF_SIZE);
	q->heap = malloc(HVT_QEMU_LOG_PENDING_MAX * sizeof(*q->heap));
	if (!q->buf || !q->heap) {
		hvt_qemu_lines_close(q);
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

void hvt_qemu_lines_close(struct hvt_qemu_lines *q)
{
	size_t i;

	if (q->fd >= 0)
		close(q->fd);
	for (i = 0; i < q->nr_pending; i++)
		free(q->heap[i]);
	for (i = 0; i < q->nr_names; i++)
		free(q->names[i]);
	free(q->heap);
	free(q->buf);
	free(q->names);
	free(q->name_lens);
	free(q->slots);
	memset(q, 0, sizeof(*q));
	q->fd = -1;
}

/* --- one line's shape ------------------------------------------------------ */

/* Digits at @p (at most @max of them, at least one): their value, and @p moved past. */
static int digits(const char **p, const char *end, unsigned int max, uint64_t *v)
{
	const char *start = *p;

	*v = 0;
	while (*p < end && **p >= '0' && **p <= '9' && (unsigned int)(*p - start) < max)
		*v = *v * 10 + (uint64_t)(*(*p)++ - '0');
	return *p == start ? -1 : 0;
}

static int name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

struct parsed {
	uint64_t ts;
	int32_t tid;
	const char *name, *args;
	size_t name_len, args_len;
};

/* Parses TID@SECONDS.MICROSECONDS:NAME ARGUMENTS in [@p, @end): 0, or -1. */
static int parse_line(const char *p, const char *end, struct parsed *l)
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
	l->name = p;
	while (p < end && name_char(*p))
		p++;
	l->name_len = (size_t)(p - l->name);
	if (!l->name_len || (p < end && *p != ' '))
		return -1;
	if (p < end)
		p++;
	l->args = p;
	l->args_len = (size_t)(end - p);
	l->tid = (int32_t)tid;
	l->ts = sec * 1000000000u + usec * 1000u + 500u;
	return 0;
}

/* --- distinct names -------------------------------------------------------- */

static uint32_t hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	while (n--)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* The slot of name [@s, @s + @n): the name's index + 1 there, or 0 (free). */
static uint32_t *name_slot(const struct hvt_qemu_lines *q, const char *s, size_t n)
{
	uint32_t h, i;

	for (h = hash(s, n) & (q->nr_slots - 1); (i = q->slots[h]); h = (h + 1) & (q->nr_slots - 1))
		if (q->name_lens[i - 1] == n && !memcmp(q->names[i - 1], s, n))
			break;
	return &q->slots[h];
}

/* Twice the slots, the names placed again; -1 without memory. */
static int grow_slots(struct hvt_qemu_lines *q)
{
	uint32_t size = q->nr_slots ? q->nr_slots * 2 : 64, *old = q->slots, old_n = q->nr_slots;
	char **names = realloc(q->names, size / 2 * sizeof(*names));
	uint32_t *lens = names ? realloc(q->name_lens, size / 2 * sizeof(*lens)) : NULL;
	uint32_t i;

	if (names)
		q->names = names;
	if (lens)
		q->name_lens = lens;
	if (!names || !lens || !(q->slots = calloc(size, sizeof(*q->slots)))) {
		q->slots = old;
		return -1;
	}
	q->nr_slots = size;
	for (i = 0; i < old_n; i++)
		if (old[i])
			*name_slot(q, q->names[old[i] - 1], q->name_lens[old[i] - 1]) = old[i];
	free(old);
	return 0;
}

/* The index of name [@s, @s + @n), added if new: 0 and *@index, 1 past the limit, -1. */
static int intern(struct hvt_qemu_lines *q, const char *s, size_t n, uint32_t *index)
{
	uint32_t *slot;

	if (q->nr_slots && *(slot = name_slot(q, s, n))) {
		*index = *slot - 1;
		return 0;
	}
	if (q->nr_names >= HVT_QEMU_LOG_MAX_NAMES)
		return 1;
	if (q->nr_names * 2 >= q->nr_slots && grow_slots(q))
		return -1;
	if (!(q->names[q->nr_names] = strndup(s, n)))
		return -1;
	q->name_lens[q->nr_names] = (uint32_t)n;
	*name_slot(q, s, n) = q->nr_names + 1;
	*index = q->nr_names++;
	return 0;
}

/* --- the window ------------------------------------------------------------ */

static bool before(const struct hvt_qemu_line *a, const struct hvt_qemu_line *b)
{
	return a->ts != b->ts ? a->ts < b->ts : a->line < b->line;
}

static void heap_push(struct hvt_qemu_lines *q, struct hvt_qemu_line *l)
{
	size_t i = q->nr_pending++;

	while (i && before(l, q->heap[(i - 1) / 2])) {
		q->heap[i] = q->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	q->heap[i] = l;
}

static struct hvt_qemu_line *heap_pop(struct hvt_qemu_lines *q)
{
	struct hvt_qemu_line *top = q->heap[0], *last = q->heap[--q->nr_pending];
	size_t i = 0, n = q->nr_pending;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && before(q->heap[c + 1], q->heap[c]))
			c++;
		if (!before(q->heap[c], last))
			break;
		q->heap[i] = q->heap[c];
		i = c;
	}
	if (n)
		q->heap[i] = last;
	return top;
}

/* --- reading --------------------------------------------------------------- */

/* Line [@p, @end), number q->line: into the window, or counted. 0, or -1 without memory. */
static int take_line(struct hvt_qemu_lines *q, const char *p, const char *end)
{
	struct hvt_qemu_line *l;
	struct parsed pl;
	uint32_t name;
	int r;

	if (end > p && end[-1] == '\r')		/* a log that went through a CRLF tool */
		end--;
	if (parse_line(p, end, &pl)) {
		if (!q->other++)
			q->first_other = q->line;
		return 0;
	}
	r = intern(q, pl.name, pl.name_len, &name);
	if (r)
		return r < 0 ? -1 : (q->unnamed++, 0);
	l = malloc(sizeof(*l) + pl.args_len);
	if (!l)
		return -1;
	l->ts = pl.ts;
	l->line = q->line;
	l->tid = pl.tid;
	l->name = name;
	l->args_len = (uint32_t)pl.args_len;
	memcpy(l->args, pl.args, pl.args_len);
	q->last_read = l->ts;
	q->pending_bytes += sizeof(*l) + l->args_len;
	heap_push(q, l);
	return 0;
}

/* Reads more of the file into buf: 0, or -1 on a read error. */
static int fill(struct hvt_qemu_lines *q)
{
	ssize_t n;

	if (q->start) {
		memmove(q->buf, q->buf + q->start, q->end - q->start);
		q->end -= q->start;
		q->start = 0;
	}
	do
		n = read(q->fd, q->buf + q->end, BUF_SIZE - q->end);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	q->eof = n == 0;
	q->end += (size_t)n;
	return 0;
}

/* One more line read (taken or counted): 1, 0 at the end of the file, -1 (errno). */
static int read_line(struct hvt_qemu_lines *q)
{
	for (;;) {
		char *p = q->buf + q->start;
		char *nl = memchr(p, '\n', q->end - q->start);

		if (nl || (q->eof && q->end > q->start)) {
			char *eol = nl ? nl : q->buf + q->end;
			bool skipped = q->skipping;

			q->start = (size_t)(eol - q->buf) + (nl != NULL);
			q->skipping = false;
			if (skipped)
				continue;	/* the end of an over-long line, counted */
			q->line++;
			if (eol - p > (ptrdiff_t)HVT_QEMU_LOG_MAX_LINE) {
				q->too_long++;
				return 1;
			}
			if (take_line(q, p, eol)) {
				errno = ENOMEM;
				return -1;
			}
			return 1;
		}
		if (q->eof)
			return 0;
		if (q->end - q->start > HVT_QEMU_LOG_MAX_LINE) {
			if (!q->skipping) {
				q->line++;
				q->too_long++;
			}
			q->skipping = true;	/* the rest of it, up to its newline */
			q->start = q->end;
		}
		if (fill(q))
			return -1;
	}
}

/* Whether the earliest line waiting may go: none later can come before it. */
static bool settled(const struct hvt_qemu_lines *q)
{
	return q->nr_pending && (q->nr_pending >= HVT_QEMU_LOG_PENDING_MAX ||
				 q->pending_bytes >= HVT_QEMU_LOG_PENDING_BYTES ||
				 (q->last_read > q->heap[0]->ts &&
				  q->last_read - q->heap[0]->ts >= HVT_QEMU_LOG_WINDOW_NS));
}

struct hvt_qemu_line *hvt_qemu_lines_next(struct hvt_qemu_lines *q)
{
	struct hvt_qemu_line *l;
	int r = 1;

	while (!settled(q) && (r = read_line(q)) > 0)
		;
	if (r < 0 || !q->nr_pending) {
		if (!r)
			errno = 0;
		return NULL;
	}
	l = heap_pop(q);
	q->pending_bytes -= sizeof(*l) + l->args_len;
	if (l->ts < q->last_out) {	/* later than the window: placed at the line before */
		q->late++;
		if (q->last_out - l->ts > q->late_max_ns)
			q->late_max_ns = q->last_out - l->ts;
		l->ts = q->last_out;
	}
	q->last_out = l->ts;
	return l;
}
