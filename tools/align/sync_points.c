// SPDX-License-Identifier: GPL-2.0-only
/*
 * sync_points.c - sync points from both sides (sync_points.h).
 */
#include <stdlib.h>
#include <string.h>
#include <hvtrace/abi.h>
#include <hvtrace/compat.h>

#include "lib/grow.h"
#include "lib/log.h"
#include "tools/align/sync_points.h"
#include "tools/align/host_scan.h"

static int cmp_call(const void *pa, const void *pb)
{
	const struct hvt_host_call *a = pa, *b = pb;

	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return (a->tsc_before > b->tsc_before) - (a->tsc_before < b->tsc_before);
}

/* One kvm_hypercall: kept if it is a sync point's. */
static int add_call(const struct hvt_ftrace_event *ev, const struct hvt_typed_event *e,
		    void *ctx)
{
	struct hvt_host_calls *calls = ctx;
	struct hvt_host_call call = { .host = ev->ts, .seq = e->hypercall.a[0],
		.tsc_before = e->hypercall.a[1] };

	if (e->hypercall.nr != HVTRACE_SYNC_HYPERCALL)
		return 0;
	calls->v = hvt_grow(calls->v, calls->n, &calls->cap, sizeof(*calls->v));
	if (!calls->v)
		return -1;
	calls->v[calls->n++] = call;
	return 0;
}

int hvt_host_calls_read(const struct hvt_archive *a, struct hvt_ftrace *ft,
			struct hvt_host_calls *calls)
{
	if (hvt_host_scan(a, ft, HVT_EV_KVM_HYPERCALL, add_call, calls))
		return -1;
	if (calls->n)
		qsort(calls->v, calls->n, sizeof(*calls->v), cmp_call);
	return 0;
}

void hvt_host_calls_free(struct hvt_host_calls *calls)
{
	free(calls->v);
	memset(calls, 0, sizeof(*calls));
}

/* hvtrace_sync_end as the module defines it: u64 seq, tsc_before, tsc_after first. */
static bool is_sync_end(const struct hvt_event_type *t)
{
	static const char *const names[] = { "seq", "tsc_before", "tsc_after" };
	unsigned int i;

	if (strcmp(t->name, "hvtrace_sync_end") || t->nr_fields < 3 || t->fixed_size < 24)
		return false;
	for (i = 0; i < 3; i++)
		if (strcmp(t->fields[i].name, names[i]) || t->fields[i].kind != HVT_FIELD_INT ||
		    t->fields[i].int_bits != 64)
			return false;
	return true;
}

/* The trace's hvtrace_sync_end type, found once; NULL if it has none. */
static const struct hvt_ctf_type *sync_end_type(const struct hvt_ctf_types *types)
{
	unsigned int id;

	for (id = 0; id < types->nr; id++)
		if (types->by_id[id] && is_sync_end(types->by_id[id]->reg))
			return types->by_id[id];
	return NULL;
}

struct point_list {
	struct hvt_sync_point *v;
	size_t n, cap;
};

/*
 * The sync points of one kernel stream whose sync-end type is @type; one
 * whose TSC went back between its two reads bounds nothing and is skipped.
 */
static int read_stream(struct point_list *l, const struct hvt_stream_info *si,
		       const struct hvt_trace_info *t, const struct hvt_ctf_types *types,
		       const struct hvt_ctf_type *type)
{
	unsigned long warnings = 0;	/* the merge's own pass reports them */
	struct hvt_ctf_stream *s = hvt_ctf_open(si->path, si->rel, t->uuid, types, &warnings);
	struct hvt_ctf_event ev;
	int ret = 0;

	if (!s)
		return 0;
	while (!ret && hvt_ctf_next(s, &ev) > 0) {
		struct hvt_sync_point p;

		if (ev.type != type || ev.payload_len < 24)
			continue;
		p = (struct hvt_sync_point){ 0, hvt_get_u64(ev.payload + 8),
					     hvt_get_u64(ev.payload + 16),
					     hvt_get_u64(ev.payload) };
		if (p.after < p.before)
			continue;
		l->v = hvt_grow(l->v, l->n, &l->cap, sizeof(*l->v));
		if (!l->v)
			ret = -1;
		else
			l->v[l->n++] = p;
	}
	hvt_ctf_close(s);
	return ret;
}

int hvt_vm_sync_ends(const struct hvt_vm_info *vm, const struct hvt_ctf_types *types,
		     struct hvt_sync_point **out, size_t *n)
{
	struct point_list l = { 0 };
	size_t i;
	int ret = 0;

	hvt_log_mute();
	for (i = 0; i < vm->nr_streams && !ret; i++) {
		const struct hvt_stream_info *si = &vm->streams[i];
		const struct hvt_trace_info *t = &vm->traces[si->trace];
		const struct hvt_ctf_type *type;

		if (t->layer != HVT_LAYER_KERNEL || t->domain != HVT_DOMAIN_GUEST_TSC)
			continue;
		type = sync_end_type(&types[si->trace]);
		if (type)	/* a trace without the event is not decoded at all */
			ret = read_stream(&l, si, t, &types[si->trace], type);
	}
	hvt_log_unmute();
	if (ret) {
		free(l.v);
		return -1;
	}
	*out = l.v;
	*n = l.n;
	return 0;
}

static int cmp_point(const void *pa, const void *pb)
{
	const struct hvt_sync_point *a = pa, *b = pb;

	return (a->host > b->host) - (a->host < b->host);
}

size_t hvt_sync_points_join(struct hvt_sync_point *points, size_t n,
			    const struct hvt_host_calls *calls)
{
	size_t i, kept = 0;

	for (i = 0; i < n; i++) {
		struct hvt_host_call key = { .seq = points[i].seq,
					     .tsc_before = points[i].before };
		const struct hvt_host_call *call = calls->n ?
			bsearch(&key, calls->v, calls->n, sizeof(key), cmp_call) : NULL;

		if (!call)
			continue;
		points[kept] = points[i];
		points[kept++].host = call->host;
	}
	if (kept)
		qsort(points, kept, sizeof(*points), cmp_point);
	return kept;
}
