// SPDX-License-Identifier: GPL-2.0-only
/*
 * ctf_fields.c - an event's payload as its registry record describes it
 * (docs/format.md, section 3): its size, and its text form "name=value" or
 * JSON form "name":value.
 *
 * The registry was validated (lib/registry.c), so kinds and integer widths
 * are known to be sane; the payload bytes were not, hence the bounds checks.
 */
#include <stdbool.h>
#include <string.h>

#include "tools/read/ctf_reader.h"
#include "tools/util/text_buffer.h"

/* A walk over an event's fields, each with its bytes. */
struct field_walk {
	const struct hvt_event_type *type;
	const unsigned char *p, *end;
	unsigned int i;			/* fields so far */
	const struct hvt_reg_field *f;	/* the current one: its bytes are p, n */
	long n;
};

static void walk_start(struct field_walk *w, const struct hvt_ctf_event *ev)
{
	*w = (struct field_walk){ .type = ev->type->reg, .p = ev->payload,
				  .end = ev->payload + ev->payload_len };
}

/*
 * The next field: false at the end, or at a field that does not fit, which
 * cannot happen in a payload the reader sized.
 */
static bool walk_next(struct field_walk *w)
{
	w->p += w->n;
	if (w->i == w->type->nr_fields)
		return false;
	w->f = &w->type->fields[w->i++];
	w->n = hvt_reg_field_size(w->f, w->p, (size_t)(w->end - w->p));
	return w->n >= 0;
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

static void print_int(struct hvt_text *t, const struct hvt_reg_field *f, const unsigned char *p)
{
	uint64_t v = get_uint(p, f->int_bits);

	if (f->flags & HVT_FIELD_F_HEX)
		hvt_text_hex(t, v);
	else if (f->flags & HVT_FIELD_F_SIGNED)
		hvt_text_s64(t, sign_extend(v, f->int_bits));
	else
		hvt_text_u64(t, v);
}

typedef void (*write_int_fn)(struct hvt_text *t, const struct hvt_reg_field *f,
			     const unsigned char *p);

/* [a,b,c], each element written by @write_int; the same in text and JSON. */
static void write_ints(struct hvt_text *t, const struct hvt_reg_field *f, const unsigned char *p,
		       write_int_fn write_int)
{
	unsigned int i, step = f->int_bits / 8u;

	hvt_text_char(t, '[');
	for (i = 0; i < f->length; i++) {
		if (i)
			hvt_text_char(t, ',');
		write_int(t, f, p + (size_t)i * step);
	}
	hvt_text_char(t, ']');
}

/* Integer arrays as [a,b,c]; char arrays with the text flag as text. */
static void print_array(struct hvt_text *t, const struct hvt_reg_field *f,
			const unsigned char *p)
{
	if (f->flags & HVT_FIELD_F_TEXT)
		hvt_text_field_value(t, p, f->length);
	else
		write_ints(t, f, p, print_int);
}

/* Whether field @f is the one @sub replaces. */
static bool substituted(const struct hvt_reg_field *f, const struct hvt_field_subst *sub)
{
	return sub && !strncmp(f->name, sub->name, sizeof(f->name));
}

void hvt_ctf_print_fields(struct hvt_text *t, const struct hvt_ctf_event *ev,
			  const struct hvt_field_subst *sub)
{
	const struct hvt_ctf_type *type = ev->type;
	unsigned int prefix = 0;
	struct field_walk w;

	for (walk_start(&w, ev); walk_next(&w);) {
		const struct hvt_reg_field *f = w.f;
		const unsigned char *p = w.p;
		long n = w.n;

		hvt_text_mem(t, type->prefixes + prefix, type->prefix_end[w.i - 1] - prefix);
		prefix = type->prefix_end[w.i - 1];
		if (substituted(f, sub)) {
			hvt_text_mem(t, sub->text, strlen(sub->text));
			continue;
		}
		switch (f->kind) {
		case HVT_FIELD_INT:
			print_int(t, f, p);
			break;
		case HVT_FIELD_ARRAY:
			print_array(t, f, p);
			break;
		case HVT_FIELD_STRING:
			hvt_text_field_value(t, p, (size_t)n);
			break;
		case HVT_FIELD_BLOB:
			hvt_text_char(t, '<');
			hvt_text_u64(t, n - 4);
			hvt_text_mem(t, " bytes>", 7);
			break;
		}
	}
}

/* The text of field @f at @w's place, cut as hvt_ctf_field_text() says: 0, or -1 if not text. */
static int text_at(const struct field_walk *w, char *buf, size_t len)
{
	const struct hvt_reg_field *f = w->f;
	size_t n;

	if (f->kind == HVT_FIELD_STRING)
		n = (size_t)w->n;
	else if (f->kind == HVT_FIELD_ARRAY && (f->flags & HVT_FIELD_F_TEXT))
		n = f->length;
	else
		return -1;
	if (!len)
		return -1;
	n = strnlen((const char *)w->p, n);
	if (n > len - 1)
		n = len - 1;
	memcpy(buf, w->p, n);
	buf[n] = '\0';
	return 0;
}

/* The integer at @w's place, sign-extended if signed: 0, or -1 if not an integer. */
static int u64_at(const struct field_walk *w, uint64_t *v)
{
	const struct hvt_reg_field *f = w->f;

	if (f->kind != HVT_FIELD_INT)
		return -1;
	*v = get_uint(w->p, f->int_bits);
	if (f->flags & HVT_FIELD_F_SIGNED)
		*v = (uint64_t)sign_extend(*v, f->int_bits);
	return 0;
}

static bool named(const struct hvt_reg_field *f, const char *name)
{
	return !strncmp(f->name, name, sizeof(f->name)) && strlen(name) < sizeof(f->name);
}

int hvt_ctf_field_text(const struct hvt_ctf_event *ev, const char *name, char *buf, size_t len)
{
	struct field_walk w;

	for (walk_start(&w, ev); walk_next(&w);)
		if (named(w.f, name))
			return text_at(&w, buf, len);
	return -1;
}

int hvt_ctf_field_u64(const struct hvt_ctf_event *ev, const char *name, uint64_t *v)
{
	struct field_walk w;

	for (walk_start(&w, ev); walk_next(&w);)
		if (w.f->kind == HVT_FIELD_INT && named(w.f, name))
			return u64_at(&w, v);
	return -1;
}

int hvt_ctf_field_index(const struct hvt_ctf_event *ev, const char *name)
{
	const struct hvt_event_type *type = ev->type->reg;
	unsigned int i;

	for (i = 0; i < type->nr_fields; i++)
		if (named(&type->fields[i], name))
			return (int)i;
	return -1;
}

unsigned int hvt_ctf_fields_pick(const struct hvt_ctf_event *ev, const struct hvt_field_pick *picks,
				 unsigned int n)
{
	unsigned int read = 0, i;
	struct field_walk w;
	int last = -1;

	for (i = 0; i < n; i++)
		if (picks[i].index > last)
			last = picks[i].index;
	for (walk_start(&w, ev); (int)w.i <= last && walk_next(&w);)
		for (i = 0; i < n; i++) {
			const struct hvt_field_pick *p = &picks[i];

			if (p->index != (int)w.i - 1)
				continue;
			read += p->num ? !u64_at(&w, p->num) : !text_at(&w, p->text, p->len);
		}
	return read;
}

static void json_int(struct hvt_text *t, const struct hvt_reg_field *f, const unsigned char *p)
{
	uint64_t v = get_uint(p, f->int_bits);

	if (f->flags & HVT_FIELD_F_HEX) {
		hvt_text_char(t, '"');
		hvt_text_hex(t, v);
		hvt_text_char(t, '"');
	} else if (f->flags & HVT_FIELD_F_SIGNED) {
		hvt_text_json_s64(t, sign_extend(v, f->int_bits));
	} else {
		hvt_text_json_u64(t, v);
	}
}

static void json_array(struct hvt_text *t, const struct hvt_reg_field *f,
		       const unsigned char *p)
{
	if (f->flags & HVT_FIELD_F_TEXT)
		hvt_text_json_str(t, (const char *)p, f->length);
	else
		write_ints(t, f, p, json_int);
}

void hvt_ctf_json_fields(struct hvt_text *t, const struct hvt_ctf_event *ev,
			 const struct hvt_field_subst *sub)
{
	struct field_walk w;

	for (walk_start(&w, ev); walk_next(&w);) {
		const struct hvt_reg_field *f = w.f;
		const unsigned char *p = w.p;
		long n = w.n;

		hvt_text_mem(t, ",\"", 2);
		hvt_text_mem(t, f->name, strlen(f->name));	/* an identifier */
		hvt_text_mem(t, "\":", 2);
		if (substituted(f, sub)) {
			hvt_text_json_str(t, sub->text, strlen(sub->text));
			continue;
		}
		switch (f->kind) {
		case HVT_FIELD_INT:
			json_int(t, f, p);
			break;
		case HVT_FIELD_ARRAY:
			json_array(t, f, p);
			break;
		case HVT_FIELD_STRING:
			hvt_text_json_str(t, (const char *)p, (size_t)n);
			break;
		case HVT_FIELD_BLOB:
			hvt_text_mem(t, "{\"blob\":", 8);
			hvt_text_json_str(t, f->decoder, sizeof(f->decoder));
			hvt_text_mem(t, ",\"bytes\":", 9);
			hvt_text_u64(t, (uint64_t)n - 4);
			hvt_text_char(t, '}');
			break;
		}
	}
}
