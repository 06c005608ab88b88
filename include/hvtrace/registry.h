/* SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR MIT */
/*
 * registry.h - the event registry records (docs/format.md, "Registry").
 *
 * Every event has a numeric id, a name and a table of typed fields. The guest
 * kernel module and libhvtrace describe their events with these records; the
 * agent forwards them; the host collector validates them, appends them to the
 * trace's "registry" file and renders the TSDL "metadata" file from them; the
 * merger decodes events with them. One record per event:
 *
 *   struct hvt_reg_event                 fixed part
 *   struct hvt_reg_field[nr_fields]      one per payload field, in order
 *   char print_fmt[print_fmt_len]        printf-style format, NUL-terminated
 *   padding to a multiple of 8 bytes     (size covers it)
 */
#ifndef HVTRACE_REGISTRY_H
#define HVTRACE_REGISTRY_H

#include <hvtrace/compat.h>

#define HVT_REG_EVENT_MAGIC	0x45525648u	/* "HVRE" */
#define HVT_NAME_MAX		64	/* event name, NUL included */
#define HVT_FIELD_NAME_MAX	32	/* field name, NUL included */
#define HVT_DECODER_NAME_MAX	32
#define HVT_REG_MAX_FIELDS	64
#define HVT_REG_MAX_FMT		512
#define HVT_REG_MAX_EVENTS	4096	/* per trace */
#define HVT_REG_MAX_PER_UPDATE	(HVT_REG_MAX_EVENTS / 8)	/* records in one REGISTRY */

enum hvt_field_kind {
	HVT_FIELD_INT = 1,	/* int_bits, HVT_FIELD_F_SIGNED, HVT_FIELD_F_HEX */
	HVT_FIELD_STRING = 2,	/* NUL-terminated, at most the rest of the event */
	HVT_FIELD_ARRAY = 3,	/* length elements of int_bits; F_TEXT: a char array */
	HVT_FIELD_BLOB = 4,	/* __u32 byte count, then the bytes; decoder names them */
};

#define HVT_FIELD_F_SIGNED	0x01
#define HVT_FIELD_F_HEX		0x02
#define HVT_FIELD_F_TEXT	0x04

struct hvt_reg_field {
	char name[HVT_FIELD_NAME_MAX];
	__u8 kind;		/* enum hvt_field_kind */
	__u8 int_bits;		/* 8, 16, 32 or 64 for INT and ARRAY elements */
	__u8 flags;
	__u8 reserved;
	__u32 length;		/* ARRAY: element count; otherwise 0 */
	char decoder[HVT_DECODER_NAME_MAX];	/* BLOB: decoder name; else "" */
};

struct hvt_reg_event {
	__u32 magic;		/* HVT_REG_EVENT_MAGIC */
	__u32 size;		/* whole record, multiple of 8 */
	__u32 id;		/* event id in the trace's packets */
	__u16 nr_fields;
	__u16 print_fmt_len;	/* bytes, NUL included */
	char name[HVT_NAME_MAX];
};

static inline __u32 hvt_reg_event_size(__u32 nr_fields, __u32 print_fmt_len)
{
	__u32 size = (__u32)sizeof(struct hvt_reg_event) +
		     nr_fields * (__u32)sizeof(struct hvt_reg_field) + print_fmt_len;

	return (size + 7u) & ~7u;
}

/*
 * Writes the record describing one event at @dst (NULL: only measure);
 * returns its size. @name and @print_fmt are truncated to their limits.
 */
static inline __u32 hvt_reg_event_write(void *dst, __u32 id, const char *name,
					const struct hvt_reg_field *fields,
					__u32 nr_fields, const char *print_fmt)
{
	__u32 fmt_len = (__u32)strlen(print_fmt) + 1;
	__u32 name_len = (__u32)strlen(name);
	struct hvt_reg_event rec;
	__u32 size;

	if (fmt_len > HVT_REG_MAX_FMT)
		fmt_len = HVT_REG_MAX_FMT;
	if (name_len >= HVT_NAME_MAX)
		name_len = HVT_NAME_MAX - 1;
	size = hvt_reg_event_size(nr_fields, fmt_len);
	if (!dst)
		return size;
	memset(&rec, 0, sizeof(rec));
	rec.magic = HVT_REG_EVENT_MAGIC;
	rec.size = size;
	rec.id = id;
	rec.nr_fields = (__u16)nr_fields;
	rec.print_fmt_len = (__u16)fmt_len;
	memcpy(rec.name, name, name_len);
	memset(dst, 0, size);
	memcpy(dst, &rec, sizeof(rec));
	memcpy((char *)dst + sizeof(rec), fields, nr_fields * sizeof(*fields));
	memcpy((char *)dst + sizeof(rec) + nr_fields * sizeof(*fields), print_fmt,
	       fmt_len - 1);
	return size;
}

#endif /* HVTRACE_REGISTRY_H */
