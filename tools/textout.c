// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>

#include "tools/textout.h"

unsigned int hvt_u64_text(char *buf, uint64_t v)
{
	char tmp[20];
	unsigned int n = 0, i;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
	return n;
}

void hvt_out_str(FILE *out, const char *s)
{
	fputs_unlocked(s, out);
}

void hvt_out_col(FILE *out, const char *s, unsigned int width)
{
	size_t len = strlen(s);

	fwrite_unlocked(s, 1, len, out);
	for (; len < width; len++)
		putc_unlocked(' ', out);
	putc_unlocked(' ', out);
}

void hvt_out_u64(FILE *out, uint64_t v)
{
	char buf[21];
	unsigned int n = hvt_u64_text(buf, v);

	fwrite_unlocked(buf, 1, n, out);
}

void hvt_out_s64(FILE *out, int64_t v)
{
	if (v < 0) {
		putc_unlocked('-', out);
		hvt_out_u64(out, -(uint64_t)v);
	} else {
		hvt_out_u64(out, (uint64_t)v);
	}
}

void hvt_out_hex(FILE *out, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char buf[16];
	int n = 0;

	do {
		buf[n++] = digits[v & 15];
		v >>= 4;
	} while (v);
	putc_unlocked('0', out);
	putc_unlocked('x', out);
	while (n)
		putc_unlocked(buf[--n], out);
}
