// SPDX-License-Identifier: GPL-2.0-only
/*
 * ftrace_source.c - a host CPU's ftrace records as a reader (reader.h):
 * the collector's raw pages or one CPU of a trace.dat (ftrace_reader.h).
 */
#include <string.h>

#include "tools/read/ftrace_private.h"
#include "tools/read/reader.h"

/* The state is the CPU reader itself, which knows its trace (for CTF classes). */

static int ftrace_next(void *r, struct hvt_reader_event *ev)
{
	struct hvt_ftrace_event fe;

	if (!hvt_ftrace_cpu_next(r, &fe))
		return 0;
	ev->ts = fe.ts;
	ev->offset = fe.offset;
	ev->cpu = fe.cpu;
	ev->tid = fe.tid;
	ev->name = fe.name;
	ev->name_len = strlen(fe.name);
	return 1;
}

static void ftrace_print_fields(void *r, struct hvt_text *t, bool print_fmt,
				const struct hvt_field_subst *sub)
{
	if (print_fmt)
		hvt_ftrace_print_info(r, t);	/* the print fmt says every field its way */
	else
		hvt_ftrace_print_fields(r, t, sub);
}

static void ftrace_json_fields(void *r, struct hvt_text *t, const struct hvt_field_subst *sub)
{
	hvt_ftrace_json_fields(r, t, sub);
}

static int ftrace_field_u64(void *r, const char *name, uint64_t *v)
{
	return hvt_ftrace_field_u64(r, name, v);
}

static int ftrace_field_text(void *r, const char *name, char *buf, size_t len)
{
	return hvt_ftrace_field_text(r, name, buf, len);
}

/* Classes are the trace's event ids: one per format file. */
static struct hvt_event_class ftrace_event_class(const void *r)
{
	const struct hvt_ftrace_cpu *c = r;

	return (struct hvt_event_class){ c->ft, (uint64_t)(uint32_t)hvt_ftrace_cpu_event_id(c) };
}

static size_t ftrace_payload_size(void *r)
{
	return hvt_ftrace_ctf_payload_size(r);
}

static void ftrace_payload(void *r, unsigned char *dst)
{
	hvt_ftrace_ctf_payload(r, dst);
}

static int ftrace_tsdl_fields(const struct hvt_event_class *c, FILE *out)
{
	return hvt_ftrace_tsdl_fields((struct hvt_ftrace *)c->owner, (int)(uint32_t)c->id, out);
}

static void ftrace_stats(const void *r, struct hvt_reader_stats *st)
{
	const struct hvt_ftrace_stats *fst = hvt_ftrace_cpu_stats(r);

	/* Pages are never missing: a lost page is ftrace's lost events. */
	*st = (struct hvt_reader_stats){ .lost_events = fst->lost_events, .warnings = fst->warnings,
					 .skipped_packets = fst->skipped_pages,
					 .skipped_records = fst->skipped_records };
}

static void ftrace_limit(void *r, uint64_t bytes)
{
	hvt_ftrace_cpu_limit(r, bytes);
}

static void ftrace_close(void *r)
{
	hvt_ftrace_cpu_close(r);
}

static const struct hvt_reader_ops ftrace_ops = {
	.format = "ftrace",
	.next = ftrace_next,
	.print_fields = ftrace_print_fields,
	.json_fields = ftrace_json_fields,
	.field_u64 = ftrace_field_u64,
	.field_text = ftrace_field_text,
	.event_class = ftrace_event_class,
	.payload_size = ftrace_payload_size,
	.payload = ftrace_payload,
	.tsdl_fields = ftrace_tsdl_fields,
	.stats = ftrace_stats,
	.limit = ftrace_limit,
	.close = ftrace_close,
};

int hvt_reader_open_ftrace_cpu(struct hvt_reader *rd, struct hvt_ftrace *ft, const char *path,
			       const char *name, int cpu, unsigned long *warnings)
{
	rd->r = hvt_ftrace_cpu_open(ft, path, name, cpu, warnings);
	rd->ops = rd->r ? &ftrace_ops : NULL;
	return rd->r ? 0 : -1;
}

struct hvt_ftrace_cpu *hvt_reader_ftrace_cpu(const struct hvt_reader *rd)
{
	return rd->ops == &ftrace_ops ? rd->r : NULL;
}
