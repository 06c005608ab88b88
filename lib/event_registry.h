/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * event_registry.h - validated, in-memory event registries (hvtrace/registry.h).
 *
 * Records come from the guest kernel, from applications and from archive
 * files: all untrusted. hvt_registry_add() checks every record completely
 * before it keeps it; names are limited to characters that are safe in TSDL.
 */
#ifndef HVT_LIB_EVENT_REGISTRY_H
#define HVT_LIB_EVENT_REGISTRY_H

#include <stddef.h>
#include <hvtrace/registry.h>

struct hvt_event_type {
	__u32 id;
	char name[HVT_NAME_MAX];
	unsigned int nr_fields;
	struct hvt_reg_field *fields;
	long fixed_size;		/* bytes of every payload; -1: strings or blobs vary */
	char *print_fmt;
	const void *record;		/* the record as received, record_size bytes */
	size_t record_size;
};

struct hvt_registry {
	struct hvt_event_type **by_id;	/* HVT_REG_MAX_EVENTS slots */
	unsigned int nr_events;
};

void hvt_registry_init(struct hvt_registry *r);
void hvt_registry_free(struct hvt_registry *r);
/*
 * Validates and adds the records in @buf. An id already present must carry an
 * identical record. Returns the number of new events, or -1 with a reason in
 * @err; on error nothing from @buf is kept.
 */
int hvt_registry_add(struct hvt_registry *r, const void *buf, size_t len,
		     char *err, size_t errlen);
const struct hvt_event_type *hvt_registry_get(const struct hvt_registry *r, __u32 id);

/* Bytes of field @f's value at @p, at most @avail; -1 if it does not fit. */
long hvt_reg_field_size(const struct hvt_reg_field *f, const unsigned char *p, size_t avail);
/* Bytes of a payload of variable size at @p, field by field, at most @avail; -1: too long. */
long hvt_event_payload_walk(const struct hvt_event_type *type, const unsigned char *p,
			    size_t avail);

/* Bytes of @type's payload at @p, at most @avail; -1 if it does not fit. */
static inline long hvt_event_payload_size(const struct hvt_event_type *type,
					  const unsigned char *p, size_t avail)
{
	if (type->fixed_size >= 0)
		return (unsigned long)type->fixed_size <= avail ? type->fixed_size : -1;
	return hvt_event_payload_walk(type, p, avail);
}

int hvt_registry_name_ok(const char *name, size_t max);	/* event names */
int hvt_registry_ident_ok(const char *name, size_t max);	/* field names */

#endif
