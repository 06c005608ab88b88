// SPDX-License-Identifier: GPL-2.0-only
/*
 * text_buffer.c - buffered pieces of text (text_buffer.h).
 */
#include <stdbool.h>

#include "tools/util/text_buffer.h"

void hvt_text_init(struct hvt_text *t, FILE *out, char *buf, size_t size)
{
	t->buf = t->p = buf;
	t->end = buf + size;
	t->out = out;
}

void hvt_text_flush(struct hvt_text *t)
{
	if (t->p > t->buf)
		fwrite_unlocked(t->buf, 1, (size_t)(t->p - t->buf), t->out);
	t->p = t->buf;
}

void hvt_text_mem_slow(struct hvt_text *t, const char *s, size_t n)
{
	hvt_text_flush(t);
	if (n > (size_t)(t->end - t->p)) {
		fwrite_unlocked(s, 1, n, t->out);	/* larger than the whole buffer */
		return;
	}
	memcpy(t->p, s, n);
	t->p += n;
}

static const char pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Digits of @v ending just before @end, two at a time; returns where they start. */
static char *digits(char *end, uint64_t v)
{
	while (v >= 100) {
		end -= 2;
		memcpy(end, pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		end -= 2;
		memcpy(end, pairs + 2 * v, 2);
	} else {
		*--end = (char)('0' + v);
	}
	return end;
}

unsigned int hvt_u64_text(char *buf, uint64_t v)
{
	char tmp[20], *start = digits(tmp + sizeof(tmp), v);
	unsigned int n = (unsigned int)(tmp + sizeof(tmp) - start);

	memcpy(buf, start, n);
	buf[n] = '\0';
	return n;
}

void hvt_text_u64(struct hvt_text *t, uint64_t v)
{
	char tmp[20], *start = digits(tmp + sizeof(tmp), v);

	hvt_text_mem(t, start, (size_t)(tmp + sizeof(tmp) - start));
}

void hvt_text_s64(struct hvt_text *t, int64_t v)
{
	char tmp[21], *start = digits(tmp + sizeof(tmp), v < 0 ? -(uint64_t)v : (uint64_t)v);

	if (v < 0)
		*--start = '-';
	hvt_text_mem(t, start, (size_t)(tmp + sizeof(tmp) - start));
}

void hvt_text_hex(struct hvt_text *t, uint64_t v)
{
	static const char xdigits[] = "0123456789abcdef";
	char tmp[18], *end = tmp + sizeof(tmp), *p = end;

	do {
		*--p = xdigits[v & 15];
		v >>= 4;
	} while (v);
	*--p = 'x';
	*--p = '0';
	hvt_text_mem(t, p, (size_t)(end - p));
}

/* Bytes of the valid UTF-8 sequence at @p (at most @n bytes), 0 if none. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static void json_escape(struct hvt_text *t, unsigned char c)
{
	static const char xdigits[] = "0123456789abcdef";
	char *p = hvt_text_room(t, 6);

	switch (c) {
	case '"':
	case '\\':
		p[0] = '\\';
		p[1] = (char)c;
		t->p += 2;
		return;
	case '\n':
		memcpy(p, "\\n", 2);
		t->p += 2;
		return;
	case '\t':
		memcpy(p, "\\t", 2);
		t->p += 2;
		return;
	}
	memcpy(p, "\\u00", 4);
	p[4] = xdigits[c >> 4];
	p[5] = xdigits[c & 15];
	t->p += 6;
}

void hvt_text_json_str(struct hvt_text *t, const char *str, size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	hvt_text_char(t, '"');
	while (i < max && s[i]) {
		size_t run = i, n;

		while (run < max && s[run] >= 0x20 && s[run] < 0x7f && s[run] != '"' &&
		       s[run] != '\\')
			run++;
		hvt_text_mem(t, str + i, run - i);
		if (run == max || !s[run])
			break;
		n = s[run] >= 0x80 ? utf8_len(s + run, max - run) : 0;
		if (n) {
			hvt_text_mem(t, str + run, n);
			i = run + n;
		} else {
			json_escape(t, s[run]);
			i = run + 1;
		}
	}
	hvt_text_char(t, '"');
}

void hvt_text_json_u64(struct hvt_text *t, uint64_t v)
{
	if (v <= HVT_JSON_INT_MAX) {
		hvt_text_u64(t, v);
		return;
	}
	hvt_text_char(t, '"');
	hvt_text_u64(t, v);
	hvt_text_char(t, '"');
}

void hvt_text_json_s64(struct hvt_text *t, int64_t v)
{
	uint64_t mag = v < 0 ? -(uint64_t)v : (uint64_t)v;

	if (mag <= HVT_JSON_INT_MAX) {
		hvt_text_s64(t, v);
		return;
	}
	hvt_text_char(t, '"');
	hvt_text_s64(t, v);
	hvt_text_char(t, '"');
}

static void print_escaped(struct hvt_text *t, unsigned char c)
{
	static const char xdigits[] = "0123456789abcdef";
	char *p;

	switch (c) {
	case '\\':
		hvt_text_mem(t, "\\\\", 2);
		break;
	case '\n':
		hvt_text_mem(t, "\\n", 2);
		break;
	case '\t':
		hvt_text_mem(t, "\\t", 2);
		break;
	default:
		p = hvt_text_room(t, 4);
		p[0] = '\\';
		p[1] = 'x';
		p[2] = xdigits[c >> 4];
		p[3] = xdigits[c & 15];
		t->p += 4;
		break;
	}
}

static int plain(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '\\';
}

void hvt_text_field_value(struct hvt_text *t, const unsigned char *p, size_t max)
{
	size_t n = 0, seg;
	bool quote;

	while (n < max && p[n] && p[n] != ' ' && p[n] != '"')
		n++;
	quote = !n || (n < max && p[n]);
	if (!quote) {
		hvt_text_escaped(t, p, max);
		return;
	}
	hvt_text_char(t, '"');
	for (n = 0; n < max && p[n];) {
		for (seg = n; seg < max && p[seg] && p[seg] != '"'; seg++)
			;
		hvt_text_escaped(t, p + n, seg - n);
		if (seg == max || !p[seg])
			break;
		hvt_text_mem(t, "\\\"", 2);
		n = seg + 1;
	}
	hvt_text_char(t, '"');
}

void hvt_text_escaped(struct hvt_text *t, const unsigned char *p, size_t max)
{
	size_t i = 0;

	while (i < max && p[i]) {
		size_t run = i;

		while (run < max && plain(p[run]))
			run++;
		hvt_text_mem(t, (const char *)p + i, run - i);
		if (run == max || !p[run])
			break;
		print_escaped(t, p[run]);
		i = run + 1;
	}
}
