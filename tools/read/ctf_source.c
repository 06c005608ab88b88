// SPDX-License-Identifier: GPL-2.0-only
/*
 * ctf_source.c - a guest CTF stream as a reader (reader.h, ctf_reader.h).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/tsdl.h"
#include "tools/read/reader.h"
#include "tools/util/stream_warn.h"

struct ctf_source {
	struct hvt_ctf_stream *stream;
	struct hvt_ctf_event ev;	/* the current event */
};

static int ctf_next(void *r, struct hvt_reader_event *ev)
{
	struct ctf_source *cs = r;

	if (!hvt_ctf_next(cs->stream, &cs->ev))
		return 0;
	ev->ts = cs->ev.ts;
	ev->offset = cs->ev.offset;
	ev->cpu = cs->ev.cpu;
	ev->tid = cs->ev.tid;
	ev->name = cs->ev.type->reg->name;
	ev->name_len = cs->ev.type->name_len;
	return 1;
}

/* Guest events have no print format of their own: the same with @print_fmt. */
static void ctf_print_fields(void *r, struct hvt_text *t, bool print_fmt,
			     const struct hvt_field_subst *sub)
{
	(void)print_fmt;
	hvt_ctf_print_fields(t, &((struct ctf_source *)r)->ev, sub);
}

static void ctf_json_fields(void *r, struct hvt_text *t, const struct hvt_field_subst *sub)
{
	hvt_ctf_json_fields(t, &((struct ctf_source *)r)->ev, sub);
}

static int ctf_field_text(void *r, const char *name, char *buf, size_t len)
{
	return hvt_ctf_field_text(&((struct ctf_source *)r)->ev, name, buf, len);
}

static int ctf_field_u64(void *r, const char *name, uint64_t *v)
{
	return hvt_ctf_field_u64(&((struct ctf_source *)r)->ev, name, v);
}

static int ctf_field_index(void *r, const char *name)
{
	return hvt_ctf_field_index(&((struct ctf_source *)r)->ev, name);
}

static unsigned int ctf_fields_pick(void *r, const struct hvt_field_pick *picks, unsigned int n)
{
	return hvt_ctf_fields_pick(&((struct ctf_source *)r)->ev, picks, n);
}

/* Classes are the registry's event types; their payload goes to CTF as it is. */
static struct hvt_event_class ctf_event_class(const void *r)
{
	return (struct hvt_event_class){ ((const struct ctf_source *)r)->ev.type, 0 };
}

static size_t ctf_payload_size(void *r)
{
	return ((struct ctf_source *)r)->ev.payload_len;
}

static void ctf_payload(void *r, unsigned char *dst)
{
	const struct hvt_ctf_event *ev = &((struct ctf_source *)r)->ev;

	if (ev->payload_len)
		memcpy(dst, ev->payload, ev->payload_len);
}

static int ctf_tsdl_fields(const struct hvt_event_class *c, FILE *out)
{
	const struct hvt_ctf_type *type = c->owner;
	unsigned int i;

	if (!type)
		return -1;
	for (i = 0; i < type->reg->nr_fields; i++)
		hvt_tsdl_put_field(out, &type->reg->fields[i]);
	return 0;
}

static void ctf_stats(const void *r, struct hvt_reader_stats *st)
{
	const struct hvt_ctf_stats *cst = hvt_ctf_stats(((const struct ctf_source *)r)->stream);

	st->lost_events = cst->lost_events;
	st->lost_packets = cst->lost_packets;
	st->packets = cst->packets;
	st->skipped_packets = cst->skipped_packets;
	st->skipped_records = cst->skipped_tails;
	st->warnings = cst->warnings;
}

static void ctf_limit(void *r, uint64_t bytes)
{
	hvt_ctf_limit(((struct ctf_source *)r)->stream, bytes);
}

static void ctf_close(void *r)
{
	struct ctf_source *cs = r;

	hvt_ctf_close(cs->stream);
	free(cs);
}

static const struct hvt_reader_ops ctf_ops = {
	.format = "ctf",
	.next = ctf_next,
	.print_fields = ctf_print_fields,
	.json_fields = ctf_json_fields,
	.field_u64 = ctf_field_u64,
	.field_text = ctf_field_text,
	.field_index = ctf_field_index,
	.fields_pick = ctf_fields_pick,
	.event_class = ctf_event_class,
	.payload_size = ctf_payload_size,
	.payload = ctf_payload,
	.tsdl_fields = ctf_tsdl_fields,
	.stats = ctf_stats,
	.limit = ctf_limit,
	.close = ctf_close,
};

int hvt_reader_open_ctf(struct hvt_reader *rd, const char *path, const char *name,
			const __u8 uuid[HVT_UUID_LEN], const struct hvt_ctf_types *types,
			uint32_t cpu, int32_t tid, unsigned long *warnings)
{
	struct ctf_source *cs = calloc(1, sizeof(*cs));

	memset(rd, 0, sizeof(*rd));
	if (!cs) {
		hvt_stream_warn(warnings, name, "out of memory; skipping it");
		return -1;
	}
	cs->stream = hvt_ctf_open(path, name, uuid, types, warnings);
	if (!cs->stream) {
		free(cs);
		return -1;
	}
	hvt_ctf_expect_stream(cs->stream, cpu, tid);
	rd->ops = &ctf_ops;
	rd->r = cs;
	return 0;
}

void hvt_reader_ctf_time_monotonic(struct hvt_reader *rd)
{
	if (rd->ops == &ctf_ops)
		hvt_ctf_time_monotonic(((struct ctf_source *)rd->r)->stream);
}
