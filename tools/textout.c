// SPDX-License-Identifier: GPL-2.0-only
/*
 * textout.c - buffered pieces of text (textout.h).
 */
#include "tools/textout.h"

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
