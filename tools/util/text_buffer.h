/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * text_buffer.h - the pieces merged lines are made of. Merging prints millions
 * of lines of a dozen pieces each; a printf, or even a stdio call, per piece
 * was most of the time it took. So pieces are appended to a buffer of the
 * caller's (inline, a bounds check and a memcpy when they fit) and the
 * buffer goes to its stream whole, when full and at hvt_text_flush(). Write
 * errors show in the stream's ferror(). Single-threaded, as the commands are.
 */
#ifndef HVT_TOOLS_UTIL_TEXT_BUFFER_H
#define HVT_TOOLS_UTIL_TEXT_BUFFER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define HVT_TEXT_MIN	64	/* the smallest buffer: room for any number */

struct hvt_text {
	char *p;		/* next byte */
	char *end;		/* end of the buffer */
	char *buf;
	FILE *out;
};

/* Appends to @buf, @size >= HVT_TEXT_MIN bytes, on its way to @out. */
void hvt_text_init(struct hvt_text *t, FILE *out, char *buf, size_t size);
/* Writes what the buffer holds to the stream (not fflush()ing the stream). */
void hvt_text_flush(struct hvt_text *t);
void hvt_text_mem_slow(struct hvt_text *t, const char *s, size_t n);

static inline void hvt_text_mem(struct hvt_text *t, const char *s, size_t n)
{
	if (n <= (size_t)(t->end - t->p)) {
		memcpy(t->p, s, n);
		t->p += n;
	} else {
		hvt_text_mem_slow(t, s, n);
	}
}

static inline void hvt_text_char(struct hvt_text *t, char c)
{
	if (t->p == t->end)
		hvt_text_flush(t);
	*t->p++ = c;
}

/* @n contiguous bytes, at most HVT_TEXT_MIN, to fill at the returned pointer. */
static inline char *hvt_text_room(struct hvt_text *t, size_t n)
{
	if ((size_t)(t->end - t->p) < n)
		hvt_text_flush(t);
	return t->p;
}

void hvt_text_u64(struct hvt_text *t, uint64_t v);
void hvt_text_s64(struct hvt_text *t, int64_t v);
void hvt_text_hex(struct hvt_text *t, uint64_t v);		/* 0x1f */

/*
 * @p up to its first NUL or @max bytes as text: printable ASCII as it is,
 * '\\', '\n' and '\t' escaped so, any other byte as \xNN.
 */
void hvt_text_escaped(struct hvt_text *t, const unsigned char *p, size_t max);
/*
 * A field's text value: hvt_text_escaped(), in double quotes (a quote as
 * \") when it is empty or holds a space or a quote, so that name=value
 * pairs split on blanks: prev_comm="CPU 0/TCG".
 */
void hvt_text_field_value(struct hvt_text *t, const unsigned char *p, size_t max);

/*
 * @s up to its first NUL or @max bytes as a JSON string, quotes included:
 * '"', '\\' and control characters escaped, valid UTF-8 kept, and any other
 * byte written as the code point of the same value (\u00XX), so that what a
 * guest wrote, however broken, always makes valid JSON.
 */
void hvt_text_json_str(struct hvt_text *t, const char *s, size_t max);

/*
 * An integer as a JSON number, or as a string of its decimal digits when
 * beyond +/-2^53: JavaScript (Perfetto) reads numbers as doubles, which hold
 * no larger integer exactly, and some parsers refuse numbers past 2^63.
 */
#define HVT_JSON_INT_MAX	(1ull << 53)
void hvt_text_json_u64(struct hvt_text *t, uint64_t v);
void hvt_text_json_s64(struct hvt_text *t, int64_t v);

/* Decimal digits of @v into @buf (at least 21 bytes), NUL-terminated; returns the length. */
unsigned int hvt_u64_text(char *buf, uint64_t v);

#endif
