// SPDX-License-Identifier: GPL-2.0-only
/*
 * ctf_fields.c - an event's payload as its registry record describes it
 * (docs/format.md, section 3): its size, and its text form "name=value".
 *
 * The registry was validated (lib/registry.c), so kinds and integer widths
 * are known to be sane; the payload bytes were not, hence the bounds checks.
 */
#include <string.h>

#include "tools/ctf_reader.h"
#include "tools/textout.h"

/* Bytes of one field at @p, at most @avail; -1 if it does not fit. */
static long field_size(const struct hvt_reg_field *f, const unsigned char *p, size_t avail)
{
	const unsigned char *nul;
	size_t n;

	switch (f->kind) {
	case HVT_FIELD_INT:
		n = f->int_bits / 8u;
		break;
	case HVT_FIELD_ARRAY:
		n = (size_t)f->length * (f->int_bits / 8u);
		break;
	case HVT_FIELD_STRING:
		nul = memchr(p, '\0', avail);
		if (!nul)
			return -1;
		n = (size_t)(nul - p) + 1;
		break;
	case HVT_FIELD_BLOB:
		if (avail < 4)
			return -1;
		n = 4 + (size_t)hvt_get_u32(p);
		break;
	default:
		return -1;
	}
	return n <= avail ? (long)n : -1;
}

long hvt_ctf_payload_walk(const struct hvt_event_type *type, const unsigned char *p,
			  size_t avail)
{
	size_t off = 0;
	unsigned int i;

	for (i = 0; i < type->nr_fields; i++) {
		long n = field_size(&type->fields[i], p + off, avail - off);

		if (n < 0)
			return -1;
		off += (size_t)n;
	}
	return (long)off;
}

static uint64_t get_uint(const unsigned char *p, unsigned int bits)
{
	uint16_t v16;

	switch (bits) {
	case 8:
		return p[0];
	case 16:
		memcpy(&v16, p, sizeof(v16));
		return v16;
	case 32:
		return hvt_get_u32(p);
	default:
		return hvt_get_u64(p);
	}
}

static int64_t sign_extend(uint64_t v, unsigned int bits)
{
	if (bits < 64 && (v & (1ull << (bits - 1))))
		v |= ~0ull << bits;
	return (int64_t)v;
}

static void print_int(FILE *out, const struct hvt_reg_field *f, const unsigned char *p)
{
	uint64_t v = get_uint(p, f->int_bits);

	if (f->flags & HVT_FIELD_F_HEX)
		hvt_out_hex(out, v);
	else if (f->flags & HVT_FIELD_F_SIGNED)
		hvt_out_s64(out, sign_extend(v, f->int_bits));
	else
		hvt_out_u64(out, v);
}

/* Characters up to the first NUL (at most @max), non-printables escaped. */
static void print_text(FILE *out, const unsigned char *p, size_t max)
{
	size_t i;

	for (i = 0; i < max && p[i]; i++) {
		unsigned char c = p[i];

		if (c == '\\')
			fputs("\\\\", out);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(out, "\\x%02x", c);
		else
			putc_unlocked(c, out);
	}
}

/* Integer arrays as [a,b,c]; char arrays with the text flag as text. */
static void print_array(FILE *out, const struct hvt_reg_field *f, const unsigned char *p)
{
	unsigned int i, step = f->int_bits / 8u;

	if (f->flags & HVT_FIELD_F_TEXT) {
		print_text(out, p, f->length);
		return;
	}
	putc_unlocked('[', out);
	for (i = 0; i < f->length; i++) {
		if (i)
			putc_unlocked(',', out);
		print_int(out, f, p + (size_t)i * step);
	}
	putc_unlocked(']', out);
}

void hvt_ctf_print_fields(FILE *out, const struct hvt_ctf_event *ev)
{
	const unsigned char *p = ev->payload;
	size_t off = 0;
	unsigned int i;

	for (i = 0; i < ev->type->nr_fields; i++) {
		const struct hvt_reg_field *f = &ev->type->fields[i];
		long n = field_size(f, p + off, ev->payload_len - off);

		if (n < 0)
			return;		/* cannot happen: the reader sized the payload */
		putc_unlocked(' ', out);
		hvt_out_str(out, f->name);
		putc_unlocked('=', out);
		switch (f->kind) {
		case HVT_FIELD_INT:
			print_int(out, f, p + off);
			break;
		case HVT_FIELD_ARRAY:
			print_array(out, f, p + off);
			break;
		case HVT_FIELD_STRING:
			print_text(out, p + off, (size_t)n);
			break;
		case HVT_FIELD_BLOB:
			putc_unlocked('<', out);
			hvt_out_u64(out, (uint64_t)n - 4);
			hvt_out_str(out, " bytes>");
			break;
		}
		off += (size_t)n;
	}
}
