// SPDX-License-Identifier: GPL-2.0-only
/*
 * ftrace_fields.c - a host event's fields as text (" name=value", or as
 * ftrace prints it) and as JSON (ftrace_reader.h).
 */
#include <stdbool.h>
#include <string.h>
#include <event-parse.h>
#include <trace-seq.h>

#include "tools/read/ftrace_private.h"
#include "tools/util/text_buffer.h"

void hvt_ftrace_print_info(struct hvt_ftrace_cpu *c, struct hvt_text *t)
{
	const char *p, *end, *nl;

	trace_seq_reset(&c->seq);
	tep_print_event(c->ft->tep, &c->seq, &c->record, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&c->seq);
	hvt_text_char(t, ' ');
	/* One event, one line, whatever a print format says. */
	for (p = c->seq.buffer, end = p + c->seq.len; (nl = memchr(p, '\n', (size_t)(end - p)));
	     p = nl + 1) {
		hvt_text_mem(t, p, (size_t)(nl - p));
		hvt_text_char(t, ' ');
	}
	hvt_text_mem(t, p, (size_t)(end - p));
}

static int64_t sign_extend(uint64_t v, int size)
{
	unsigned int bits = (unsigned int)size * 8u;

	if (bits && bits < 64 && (v & (1ull << (bits - 1))))
		v |= ~0ull << bits;
	return (int64_t)v;
}

/* Whether a number of @bytes bytes has a C integer type. */
bool hvt_ftrace_int_width(unsigned int bytes)
{
	return bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8;
}

/* One number of @size bytes at @p, as the field's flags say. */
static void json_number(struct hvt_ftrace_cpu *c, const struct tep_format_field *f,
			const unsigned char *p, int size, struct hvt_text *t)
{
	uint64_t v;

	if (size < 0 || !hvt_ftrace_int_width((unsigned int)size)) {
		hvt_text_mem(t, "null", 4);	/* no integer of that width */
		return;
	}
	v = tep_read_number(c->ft->tep, p, size);
	if (f->flags & TEP_FIELD_IS_POINTER) {
		hvt_text_char(t, '"');
		hvt_text_hex(t, v);
		hvt_text_char(t, '"');
	} else if (f->flags & TEP_FIELD_IS_SIGNED) {
		hvt_text_json_s64(t, sign_extend(v, size));
	} else {
		hvt_text_json_u64(t, v);
	}
}

/*
 * A __data_loc (or __rel_loc) field: its data, which must lie inside the
 * record; NULL if it does not.
 */
const unsigned char *hvt_ftrace_dynamic_data(const struct hvt_ftrace_cpu *c,
					     const struct tep_format_field *f, uint32_t *len)
{
	uint32_t loc = 0;
	uint64_t off;

	if (f->size == 4)
		memcpy(&loc, c->scratch + f->offset, sizeof(loc));
	off = loc & 0xffff;

	*len = loc >> 16;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		off += (uint64_t)f->offset + (uint64_t)f->size;
	if (off + *len > (uint64_t)c->record.size)
		return NULL;
	return c->scratch + off;
}

/* How an output format writes a host field's parts: JSON or text. */
struct field_writer {
	void (*number)(struct hvt_ftrace_cpu *c, const struct tep_format_field *f,
		       const unsigned char *p, int size, struct hvt_text *t);
	void (*text)(struct hvt_text *t, const unsigned char *p, size_t size);
	const char *outside;		/* for a __data_loc pointing outside its record */
};

static void write_field(struct hvt_ftrace_cpu *c, const struct tep_format_field *f,
			struct hvt_text *t, const struct field_writer *w)
{
	const unsigned char *p = c->scratch + f->offset;
	int size = f->size, step;
	uint32_t len, i;

	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		p = hvt_ftrace_dynamic_data(c, f, &len);
		if (!p) {
			hvt_text_mem(t, w->outside, strlen(w->outside));
			return;
		}
		size = (int)len;
	}
	if (f->flags & TEP_FIELD_IS_STRING) {
		w->text(t, p, (size_t)size);
		return;
	}
	if (!(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC))) {
		w->number(c, f, p, size, t);
		return;
	}
	step = f->elementsize >= 1 && f->elementsize <= 8 ? (int)f->elementsize : 1;
	hvt_text_char(t, '[');
	for (i = 0; i + (uint32_t)step <= (uint32_t)size; i += (uint32_t)step) {
		if (i)
			hvt_text_char(t, ',');
		w->number(c, f, p + i, step, t);
	}
	hvt_text_char(t, ']');
}

static void json_text(struct hvt_text *t, const unsigned char *p, size_t size)
{
	hvt_text_json_str(t, (const char *)p, size);
}

static const struct field_writer json_writer = { json_number, json_text, "null" };

/* One number of @size bytes at @p as text: hex for pointers and odd widths. */
static void text_number(struct hvt_ftrace_cpu *c, const struct tep_format_field *f,
			const unsigned char *p, int size, struct hvt_text *t)
{
	static const char xdigits[] = "0123456789abcdef";
	uint64_t v;
	int i;

	if (size < 0 || !hvt_ftrace_int_width((unsigned int)size)) {
		hvt_text_mem(t, "0x", 2);	/* the bytes of a little-endian number */
		for (i = size - 1; i >= 0; i--) {
			hvt_text_char(t, xdigits[p[i] >> 4]);
			hvt_text_char(t, xdigits[p[i] & 15]);
		}
		return;
	}
	v = tep_read_number(c->ft->tep, p, size);
	if (f->flags & TEP_FIELD_IS_POINTER)
		hvt_text_hex(t, v);
	else if (f->flags & TEP_FIELD_IS_SIGNED)
		hvt_text_s64(t, sign_extend(v, size));
	else
		hvt_text_u64(t, v);
}


static const struct field_writer text_writer = { text_number, hvt_text_field_value, "?" };

/* Whether field @f is the one @sub replaces. */
static bool substituted(const struct tep_format_field *f, const struct hvt_field_subst *sub)
{
	return sub && !strcmp(f->name, sub->name);
}

void hvt_ftrace_print_fields(struct hvt_ftrace_cpu *c, struct hvt_text *t,
			     const struct hvt_field_subst *sub)
{
	struct tep_event *type = tep_find_event_by_record(c->ft->tep, &c->record);
	const struct tep_format_field *f;

	for (f = type ? type->format.fields : NULL; f; f = f->next) {
		hvt_text_char(t, ' ');
		hvt_text_mem(t, f->name, strlen(f->name));
		hvt_text_char(t, '=');
		if (substituted(f, sub))
			hvt_text_mem(t, sub->text, strlen(sub->text));
		else
			write_field(c, f, t, &text_writer);
	}
}

int hvt_ftrace_cpu_event_id(const struct hvt_ftrace_cpu *c)
{
	return tep_data_type(c->ft->tep, (struct tep_record *)&c->record);
}

const struct tep_format_field *hvt_ftrace_field_find(struct hvt_ftrace *ft, int id,
						     const char *name)
{
	struct tep_event *type = tep_find_event(ft->tep, id);
	const struct tep_format_field *f = type ? tep_find_field(type, name) : NULL;

	if (!f || (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING)) ||
	    (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8))
		return NULL;
	ft->native = tep_is_file_bigendian(ft->tep) == tep_is_local_bigendian(ft->tep);
	return f;
}

/* The record is in the scratch buffer, as long as its format's fields at least (hvt_ftrace_take). */
uint64_t hvt_ftrace_field_read(const struct hvt_ftrace_cpu *c, const struct tep_format_field *f)
{
	const unsigned char *p = c->scratch + f->offset;
	uint32_t v32;
	uint16_t v16;
	uint64_t v64;

	if (!c->ft->native)
		return tep_read_number(c->ft->tep, p, f->size);
	switch (f->size) {
	case 1:
		return *p;
	case 2:
		memcpy(&v16, p, 2);
		return v16;
	case 4:
		memcpy(&v32, p, 4);
		return v32;
	default:
		memcpy(&v64, p, 8);
		return v64;
	}
}

const struct tep_format_field *hvt_ftrace_text_field_find(struct hvt_ftrace *ft, int id,
							  const char *name)
{
	struct tep_event *type = tep_find_event(ft->tep, id);
	const struct tep_format_field *f = type ? tep_find_field(type, name) : NULL;

	if (!f || !(f->flags & (TEP_FIELD_IS_STRING | TEP_FIELD_IS_ARRAY)) ||
	    (!(f->flags & TEP_FIELD_IS_STRING) && f->elementsize != 1))
		return NULL;
	return f;
}

int hvt_ftrace_text_field_read(const struct hvt_ftrace_cpu *c, const struct tep_format_field *f,
			       char *buf, size_t len)
{
	const unsigned char *p = c->scratch + f->offset;
	uint32_t size = (uint32_t)f->size;

	if (!len)
		return -1;
	if ((f->flags & TEP_FIELD_IS_DYNAMIC) && !(p = hvt_ftrace_dynamic_data(c, f, &size)))
		return -1;
	if (size > len - 1)
		size = (uint32_t)(len - 1);
	memcpy(buf, p, size);
	buf[size] = '\0';
	return 0;
}

int hvt_ftrace_field_text(struct hvt_ftrace_cpu *c, const char *name, char *buf, size_t len)
{
	const struct tep_format_field *f = hvt_ftrace_text_field_find(c->ft,
								      hvt_ftrace_cpu_event_id(c), name);

	return f ? hvt_ftrace_text_field_read(c, f, buf, len) : -1;
}

void hvt_ftrace_json_fields(struct hvt_ftrace_cpu *c, struct hvt_text *t,
			    const struct hvt_field_subst *sub)
{
	struct tep_event *type = tep_find_event_by_record(c->ft->tep, &c->record);
	const struct tep_format_field *f;

	for (f = type ? type->format.fields : NULL; f; f = f->next) {
		hvt_text_char(t, ',');
		hvt_text_json_str(t, f->name, strlen(f->name));
		hvt_text_char(t, ':');
		if (substituted(f, sub))
			hvt_text_json_str(t, sub->text, strlen(sub->text));
		else
			write_field(c, f, t, &json_writer);
	}
}

/* @v as the @size-byte number of the trace's byte order at @p. */
static void put_number(const struct hvt_ftrace *ft, unsigned char *p, int size, uint64_t v)
{
	bool big = tep_is_file_bigendian(ft->tep);
	int i;

	for (i = 0; i < size; i++)
		p[big ? size - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

/*
 * The text the print fmt of event @type gives the task state of the record
 * at @data (after "prev_state="), its first two characters in @text; -1 if
 * the text has no such part.
 */
static int printed_state(struct hvt_ftrace *ft, unsigned char *data, uint32_t size,
			 struct trace_seq *seq, char text[2])
{
	struct tep_record rec = { .data = data, .size = (int)size };
	const char *p;

	trace_seq_reset(seq);
	tep_print_event(ft->tep, seq, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(seq);
	p = seq->buffer ? strstr(seq->buffer, "prev_state=") : NULL;
	if (!p)
		return -1;
	p += strlen("prev_state=");
	text[0] = p[0];
	text[1] = p[0] ? p[1] : '\0';
	return 0;
}

/* The usual rule, Linux 4.14 on: S D T t X Z P I in the low bits, 0x100 R+. */
static void usual_states(struct hvt_task_states *ts)
{
	memset(ts, 0, sizeof(*ts));
	ts->mask = HVT_FTRACE_STATE_MASK;
	ts->preempt = HVT_FTRACE_STATE_MASK + 1;
	memcpy(ts->letter, "SDTtXZPI", 8);
}

void hvt_ftrace_task_states(struct hvt_ftrace *ft, int id, const struct tep_format_field *state,
			    struct hvt_task_states *ts)
{
	struct tep_event *type = tep_find_event(ft->tep, id);
	const struct tep_format_field *common = type ?
		tep_find_common_field(type, "common_type") : NULL;
	unsigned char data[256];
	uint32_t size = 0;
	struct trace_seq seq;
	unsigned int bit;
	const struct tep_format_field *f;

	usual_states(ts);
	if (!type || !common || !state || !hvt_ftrace_int_width((unsigned int)common->size))
		return;
	for (f = type->format.fields; f; f = f->next)
		if ((uint32_t)(f->offset + f->size) > size)
			size = (uint32_t)(f->offset + f->size);
	if (size > sizeof(data) || (uint32_t)(common->offset + common->size) > size)
		return;
	memset(ts, 0, sizeof(*ts));
	trace_seq_init(&seq);
	for (bit = 0; bit < (unsigned int)state->size * 8u && bit < 64; bit++) {
		char text[2];

		memset(data, 0, sizeof(data));
		put_number(ft, data + common->offset, common->size, (uint64_t)id);
		put_number(ft, data + state->offset, state->size, 1ull << bit);
		if (printed_state(ft, data, size, &seq, text)) {
			usual_states(ts);	/* a print fmt of its own: the usual rule */
			break;
		}
		if (text[0] != 'R') {
			ts->mask |= 1ull << bit;
			ts->letter[bit] = text[0];
		} else if (text[1] == '+' && !ts->preempt) {
			ts->preempt = 1ull << bit;
		}
	}
	trace_seq_destroy(&seq);
}
