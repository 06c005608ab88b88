// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/event_registry.h"

void hvt_registry_init(struct hvt_registry *r)
{
	memset(r, 0, sizeof(*r));
}

static void event_free(struct hvt_event_type *ev)
{
	if (!ev)
		return;
	free(ev->fields);
	free(ev->print_fmt);
	free((void *)ev->record);
	free(ev);
}

void hvt_registry_free(struct hvt_registry *r)
{
	unsigned int i;

	if (r->by_id)
		for (i = 0; i < HVT_REG_MAX_EVENTS; i++)
			event_free(r->by_id[i]);
	free(r->by_id);
	memset(r, 0, sizeof(*r));
}

const struct hvt_event_type *hvt_registry_get(const struct hvt_registry *r, __u32 id)
{
	if (!r->by_id || id >= HVT_REG_MAX_EVENTS)
		return NULL;
	return r->by_id[id];
}

static int terminated(const char *s, size_t max)
{
	return memchr(s, '\0', max) != NULL;
}

/* Event names: "sched_switch", "provider:event"; letters, digits, _ : . - */
int hvt_registry_name_ok(const char *name, size_t max)
{
	const char *p;

	if (!terminated(name, max) || !name[0])
		return 0;
	for (p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == ':' ||
		      *p == '.' || *p == '-'))
			return 0;
	return 1;
}

/* C identifiers. */
int hvt_registry_ident_ok(const char *name, size_t max)
{
	const char *p;

	if (!terminated(name, max) || !name[0] || (name[0] >= '0' && name[0] <= '9'))
		return 0;
	for (p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_'))
			return 0;
	return 1;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int field_ok(const struct hvt_reg_field *f, char *err, size_t errlen)
{
	const unsigned int flags = HVT_FIELD_F_SIGNED | HVT_FIELD_F_HEX | HVT_FIELD_F_TEXT;
	int int_ok = f->int_bits == 8 || f->int_bits == 16 || f->int_bits == 32 ||
		     f->int_bits == 64;

	if (!hvt_registry_ident_ok(f->name, sizeof(f->name)))
		return fail(err, errlen, "invalid field name");
	if (f->flags & ~flags || f->reserved)
		return fail(err, errlen, "field %s: unknown flags", f->name);
	if (!terminated(f->decoder, sizeof(f->decoder)))
		return fail(err, errlen, "field %s: decoder name not terminated", f->name);
	switch (f->kind) {
	case HVT_FIELD_INT:
		if (!int_ok || f->length)
			return fail(err, errlen, "field %s: bad integer", f->name);
		return 0;
	case HVT_FIELD_ARRAY:
		if (!int_ok || f->length == 0 || f->length > 65536)
			return fail(err, errlen, "field %s: bad array", f->name);
		if ((f->flags & HVT_FIELD_F_TEXT) && f->int_bits != 8)
			return fail(err, errlen, "field %s: text array of non-bytes", f->name);
		return 0;
	case HVT_FIELD_STRING:
		return f->length ? fail(err, errlen, "field %s: bad string", f->name) : 0;
	case HVT_FIELD_BLOB:
		if (f->length || !hvt_registry_ident_ok(f->decoder, sizeof(f->decoder)))
			return fail(err, errlen, "field %s: bad blob", f->name);
		return 0;
	default:
		return fail(err, errlen, "field %s: unknown kind %u", f->name, f->kind);
	}
}

/* Checks one record at @p with @avail bytes left; its size in *size. */
static int record_ok(const unsigned char *p, size_t avail, size_t *size,
		     char *err, size_t errlen)
{
	struct hvt_reg_event h;
	size_t fixed;
	unsigned int i;

	if (avail < sizeof(h))
		return fail(err, errlen, "truncated registry record");
	memcpy(&h, p, sizeof(h));
	if (h.magic != HVT_REG_EVENT_MAGIC)
		return fail(err, errlen, "bad registry record magic");
	if (h.nr_fields > HVT_REG_MAX_FIELDS || h.print_fmt_len == 0 ||
	    h.print_fmt_len > HVT_REG_MAX_FMT)
		return fail(err, errlen, "registry record out of limits");
	if (h.size % 8 || h.size > avail ||
	    h.size != hvt_reg_event_size(h.nr_fields, h.print_fmt_len))
		return fail(err, errlen, "registry record size inconsistent");
	if (h.id >= HVT_REG_MAX_EVENTS)
		return fail(err, errlen, "event id %u too large", h.id);
	if (!hvt_registry_name_ok(h.name, sizeof(h.name)))
		return fail(err, errlen, "invalid event name (id %u)", h.id);
	fixed = sizeof(h) + h.nr_fields * sizeof(struct hvt_reg_field);
	for (i = 0; i < h.nr_fields; i++) {
		struct hvt_reg_field f;
		unsigned int j;

		memcpy(&f, p + sizeof(h) + i * sizeof(f), sizeof(f));
		if (field_ok(&f, err, errlen))
			return -1;
		for (j = 0; j < i; j++)
			if (!strncmp(f.name, (const char *)p + sizeof(h) + j * sizeof(f),
				     sizeof(f.name)))
				return fail(err, errlen, "event %s: duplicate field %s",
					    h.name, f.name);
	}
	if (p[fixed + h.print_fmt_len - 1] != '\0' ||
	    strlen((const char *)p + fixed) != h.print_fmt_len - 1u)
		return fail(err, errlen, "event %s: print format not terminated", h.name);
	*size = h.size;
	return 0;
}

/* The payload size if no field varies (registry.h's kinds), else -1. */
static long fixed_size(const struct hvt_reg_field *f, unsigned int n)
{
	long size = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (f[i].kind == HVT_FIELD_INT)
			size += f[i].int_bits / 8;
		else if (f[i].kind == HVT_FIELD_ARRAY)
			size += (long)f[i].length * (f[i].int_bits / 8);
		else
			return -1;
	}
	return size;
}

static struct hvt_event_type *event_from_record(const unsigned char *p, size_t size)
{
	struct hvt_event_type *ev = calloc(1, sizeof(*ev));
	struct hvt_reg_event h;
	size_t fields;

	if (!ev)
		return NULL;
	memcpy(&h, p, sizeof(h));
	fields = h.nr_fields * sizeof(struct hvt_reg_field);
	ev->id = h.id;
	memcpy(ev->name, h.name, sizeof(ev->name));
	ev->nr_fields = h.nr_fields;
	ev->fields = malloc(fields ? fields : 1);
	ev->print_fmt = strdup((const char *)p + sizeof(h) + fields);
	ev->record = malloc(size);
	if (!ev->fields || !ev->print_fmt || !ev->record) {
		event_free(ev);
		return NULL;
	}
	memcpy(ev->fields, p + sizeof(h), fields);
	ev->fixed_size = fixed_size(ev->fields, ev->nr_fields);
	memcpy((void *)ev->record, p, size);
	ev->record_size = size;
	return ev;
}

int hvt_registry_add(struct hvt_registry *r, const void *buf, size_t len,
		     char *err, size_t errlen)
{
	struct hvt_event_type *fresh[HVT_REG_MAX_PER_UPDATE];
	const unsigned char *p = buf;
	unsigned int n = 0, i;
	size_t off = 0, size = 0;

	if (!r->by_id) {
		r->by_id = calloc(HVT_REG_MAX_EVENTS, sizeof(*r->by_id));
		if (!r->by_id)
			return fail(err, errlen, "out of memory");
	}
	while (off < len) {
		const struct hvt_event_type *old;
		__u32 id;

		if (record_ok(p + off, len - off, &size, err, errlen))
			goto undo;
		memcpy(&id, p + off + offsetof(struct hvt_reg_event, id), sizeof(id));
		old = r->by_id[id];
		for (i = 0; i < n && !old; i++)
			if (fresh[i]->id == id)
				old = fresh[i];
		if (old) {
			if (old->record_size != size || memcmp(old->record, p + off, size)) {
				fail(err, errlen, "event id %u redefined differently", id);
				goto undo;
			}
		} else {
			if (n == sizeof(fresh) / sizeof(fresh[0])) {
				fail(err, errlen, "too many events in one registry update");
				goto undo;
			}
			fresh[n] = event_from_record(p + off, size);
			if (!fresh[n]) {
				fail(err, errlen, "out of memory");
				goto undo;
			}
			n++;
		}
		off += size;
	}
	for (i = 0; i < n; i++)
		r->by_id[fresh[i]->id] = fresh[i];
	r->nr_events += n;
	return (int)n;
undo:
	for (i = 0; i < n; i++)
		event_free(fresh[i]);
	return -1;
}

/* Payload sizes: the registry validated kinds and widths, the bytes are untrusted. */

long hvt_reg_field_size(const struct hvt_reg_field *f, const unsigned char *p, size_t avail)
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

long hvt_event_payload_walk(const struct hvt_event_type *type, const unsigned char *p,
			    size_t avail)
{
	size_t off = 0;
	unsigned int i;

	for (i = 0; i < type->nr_fields; i++) {
		long n = hvt_reg_field_size(&type->fields[i], p + off, avail - off);

		if (n < 0)
			return -1;
		off += (size_t)n;
	}
	return (long)off;
}
