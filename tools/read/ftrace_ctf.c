// SPDX-License-Identifier: GPL-2.0-only
/*
 * ftrace_ctf.c - host events in CTF (merge --format=ctf): the TSDL of an
 * event's fields and its payload bytes, from one description of each field
 * so that the two always agree (ftrace_reader.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <event-parse.h>

#include <hvtrace/compat.h>
#include "lib/event_registry.h"
#include "lib/tsdl.h"
#include "tools/read/ftrace_private.h"

/*
 * How a field goes into CTF. The TSDL type and the payload bytes are both
 * written from this, so that they always agree.
 */
enum ctf_shape {
	SHAPE_NUMBER,		/* an integer of 1, 2, 4 or 8 bytes */
	SHAPE_BYTES,		/* anything else static: its bytes, in hex */
	SHAPE_CHARS,		/* a static char array */
	SHAPE_ARRAY,		/* a static array of integers */
	SHAPE_STRING,		/* a __data_loc char[]: up to its first NUL */
	SHAPE_SEQUENCE,		/* another __data_loc array: u32 count, elements */
};

/* The field's shape, and in *@es the bytes of one element of an array or sequence. */
static enum ctf_shape ctf_shape(const struct tep_format_field *f, unsigned int *es)
{
	unsigned int e = f->elementsize > 0 ? (unsigned int)f->elementsize : 1;

	*es = hvt_ftrace_int_width(e) ? e : 1;
	if (f->flags & TEP_FIELD_IS_DYNAMIC)
		return f->flags & TEP_FIELD_IS_STRING ? SHAPE_STRING : SHAPE_SEQUENCE;
	if (f->flags & TEP_FIELD_IS_STRING)
		return SHAPE_CHARS;
	if (f->flags & TEP_FIELD_IS_ARRAY)
		return hvt_ftrace_int_width(e) && f->size % (int)e == 0 ? SHAPE_ARRAY : SHAPE_BYTES;
	return hvt_ftrace_int_width((unsigned int)f->size) ? SHAPE_NUMBER : SHAPE_BYTES;
}

static unsigned int int_flags(const struct tep_format_field *f)
{
	return (f->flags & TEP_FIELD_IS_SIGNED ? HVT_FIELD_F_SIGNED : 0u) |
	       (f->flags & TEP_FIELD_IS_POINTER ? HVT_FIELD_F_HEX : 0u);
}

/* "_name", with anything but letters, digits and '_' as '_': a TSDL identifier. */
static void put_tsdl_name(FILE *out, const char *name, const char *suffix)
{
	fputc('_', out);
	for (; *name; name++)
		fputc(isalnum((unsigned char)*name) ? *name : '_', out);
	fputs(suffix, out);
}

int hvt_ftrace_tsdl_fields(struct hvt_ftrace *ft, int id, FILE *out)
{
	struct tep_event *type = tep_find_event(ft->tep, id);
	const struct tep_format_field *f;
	unsigned int es;

	if (!type)
		return -1;
	for (f = type->format.fields; f; f = f->next) {
		fputs("\t\t", out);
		switch (ctf_shape(f, &es)) {
		case SHAPE_NUMBER:
			hvt_tsdl_put_int_type(out, 8u * (unsigned int)f->size, int_flags(f));
			put_tsdl_name(out, f->name, ";\n");
			break;
		case SHAPE_BYTES:
			hvt_tsdl_put_int_type(out, 8, HVT_FIELD_F_HEX);
			put_tsdl_name(out, f->name, "");
			fprintf(out, "[%d];\n", f->size);
			break;
		case SHAPE_CHARS:
			hvt_tsdl_put_int_type(out, 8, HVT_FIELD_F_TEXT);
			put_tsdl_name(out, f->name, "");
			fprintf(out, "[%d];\n", f->size);
			break;
		case SHAPE_ARRAY:
			hvt_tsdl_put_int_type(out, 8u * es, int_flags(f));
			put_tsdl_name(out, f->name, "");
			fprintf(out, "[%u];\n", (unsigned int)f->size / es);
			break;
		case SHAPE_STRING:
			fputs("string { encoding = UTF8; } ", out);
			put_tsdl_name(out, f->name, ";\n");
			break;
		case SHAPE_SEQUENCE:
			fputs("uint32_t ", out);
			put_tsdl_name(out, f->name, "_len;\n\t\t");
			hvt_tsdl_put_int_type(out, 8u * es, int_flags(f));
			put_tsdl_name(out, f->name, "[");
			put_tsdl_name(out, f->name, "_len];\n");
			break;
		}
	}
	return 0;
}

/* Bytes of one field's CTF form, written at @dst unless it is NULL. */
static size_t ctf_field(const struct hvt_ftrace_cpu *c, const struct tep_format_field *f,
			unsigned char *dst)
{
	const unsigned char *p;
	unsigned int es;
	uint32_t len = 0, n;

	switch (ctf_shape(f, &es)) {
	case SHAPE_STRING:
		p = hvt_ftrace_dynamic_data(c, f, &len);
		n = p ? (uint32_t)strnlen((const char *)p, len) : 0;
		if (dst) {
			if (n)
				memcpy(dst, p, n);
			dst[n] = '\0';
		}
		return n + 1u;
	case SHAPE_SEQUENCE:
		p = hvt_ftrace_dynamic_data(c, f, &len);
		n = p ? len / es : 0;	/* elements */
		if (dst) {
			hvt_put_u32(dst, n);
			if (n)
				memcpy(dst + 4, p, (size_t)n * es);
		}
		return 4u + (size_t)n * es;
	default:
		/* inside the record, or in the zeros after it (format_usable()) */
		if (dst)
			memcpy(dst, c->scratch + f->offset, (size_t)f->size);
		return (size_t)f->size;
	}
}

size_t hvt_ftrace_ctf_payload_size(struct hvt_ftrace_cpu *c)
{
	struct tep_event *type = tep_find_event_by_record(c->ft->tep, &c->record);
	const struct tep_format_field *f;
	size_t size = 0;

	for (f = type ? type->format.fields : NULL; f; f = f->next)
		size += ctf_field(c, f, NULL);
	return size;
}

void hvt_ftrace_ctf_payload(struct hvt_ftrace_cpu *c, unsigned char *dst)
{
	struct tep_event *type = tep_find_event_by_record(c->ft->tep, &c->record);
	const struct tep_format_field *f;

	for (f = type ? type->format.fields : NULL; f; f = f->next)
		dst += ctf_field(c, f, dst);
}
