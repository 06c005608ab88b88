// SPDX-License-Identifier: GPL-2.0-only
/*
 * sql_clock.c - what the SQL export's VMs were aligned with: their clock
 * exchanges and the segments of their clock, per vCPU where KVM's own
 * parameters placed them (sql_private.h).
 */
#include <stdlib.h>

#include "tools/out/sql_private.h"

static const char *source_name(enum hvt_tsc_source s)
{
	switch (s) {
	case HVT_TSC_SRC_TRACEPOINT: return "kvm_write_tsc_offset";
	case HVT_TSC_SRC_DEBUGFS: return "debugfs";
	case HVT_TSC_SRC_VCPU_IOCTL: return "vcpu_ioctl";
	case HVT_TSC_SRC_ESTIMATE: return "estimate";
	}
	return "?";
}

static int exchanges(struct hvt_sql_out *o, sqlite3_stmt *st, uint32_t id,
		     const struct hvt_vm_info *vm)
{
	size_t i;

	for (i = 0; i < vm->nr_sync; i++) {
		const struct hvt_sync_rec *r = &vm->sync[i];

		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, (int64_t)r->seq);
		sqlite3_bind_int64(st, 3, hvt_sql_ns(o, r->ex.host_send));
		sqlite3_bind_int64(st, 4, hvt_sql_ns(o, r->ex.host_recv));
		sqlite3_bind_int64(st, 5, (int64_t)r->ex.guest_recv);
		sqlite3_bind_int64(st, 6, (int64_t)r->ex.guest_send);
		hvt_sql_bind(st, 7, hvt_sql_ns(o, r->ex.host_recv) - hvt_sql_ns(o, r->ex.host_send),
			     r->ex.host_recv < r->ex.host_send);
		sqlite3_bind_int64(st, 8, r->cpu_recv);
		sqlite3_bind_int64(st, 9, r->cpu_send);
		if (!hvt_sql_step(o, st))
			return -1;
	}
	return 0;
}

/* The bound of @c at host TSC @at, into parameter @i (NULL: open there, or exact @c NULL). */
static void bind_half(struct hvt_sql_out *o, sqlite3_stmt *st, int i, struct hvt_vm_clock *c,
		      uint64_t at)
{
	uint64_t ticks = 0;

	if (c && hvt_vm_clock_half_width(c, at, &ticks))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, hvt_sql_ticks_ns(o, at, ticks));
}

/* The segments of timeline @tl (of vCPU @vcpu, -1: every one); @c the estimate, if one. */
static int segments(struct hvt_sql_out *o, sqlite3_stmt *st, uint32_t id, int32_t vcpu,
		    const struct hvt_tsc_timeline *tl, struct hvt_vm_clock *c, uint64_t end)
{
	size_t i;

	for (i = 0; tl && i < tl->n; i++) {
		const struct hvt_tsc_segment *s = &tl->seg[i];
		uint64_t to = i + 1 < tl->n ? tl->seg[i + 1].host_start : end;

		sqlite3_bind_int64(st, 1, id);
		hvt_sql_bind(st, 2, vcpu, vcpu < 0);
		sqlite3_bind_int64(st, 3, (int64_t)i);
		sqlite3_bind_text(st, 4, source_name(s->source), -1, SQLITE_STATIC);
		/* the first segment holds from the start: no instant of its own */
		hvt_sql_bind(st, 5, hvt_sql_ns(o, s->host_start), !s->host_start);
		hvt_sql_bind(st, 6, hvt_sql_ns(o, to), i + 1 == tl->n && !end);
		hvt_sql_bind(st, 7, (int64_t)tl->first[i], !s->host_start);
		hvt_sql_bind(st, 8, (int64_t)tl->last[i], tl->last[i] == UINT64_MAX);
		sqlite3_bind_int64(st, 9, (int64_t)s->x.offset);
		sqlite3_bind_int64(st, 10, (int64_t)s->x.ratio);
		sqlite3_bind_int64(st, 11, s->x.frac);
		if (s->host_start)
			bind_half(o, st, 12, c, s->host_start);
		else
			sqlite3_bind_null(st, 12);
		bind_half(o, st, 13, c, (s->host_start ? s->host_start : o->ses->archive.pairs[0].tsc) / 2 +
			  to / 2);
		bind_half(o, st, 14, c, to);
		if (!hvt_sql_step(o, st))
			return -1;
	}
	return 0;
}

static int vm_clock(struct hvt_sql_out *o, sqlite3_stmt *ex, sqlite3_stmt *seg, uint32_t id)
{
	struct hvt_session_vm *vm = &o->ses->vms[id - 1];
	size_t v;

	if (!vm->loaded || exchanges(o, ex, id, &vm->vm))
		return vm->loaded ? -1 : 0;
	if (vm->al.exact) {
		for (v = 0; v < vm->al.kvm.nr_vcpus; v++)
			if (segments(o, seg, id, (int32_t)vm->al.kvm.vcpus[v].id,
				     &vm->al.kvm.vcpus[v].tl, NULL, o->last_tsc))
				return -1;
		return 0;
	}
	return vm->al.aligned ? segments(o, seg, id, -1, &vm->al.clock.tl, &vm->al.clock,
					 o->last_tsc) : 0;
}

int hvt_sql_clock_write(struct hvt_sql_out *o)
{
	sqlite3_stmt *ex = NULL, *seg = NULL;
	uint32_t i;
	int ret = -1;

	if (sqlite3_prepare_v2(o->db, "INSERT INTO clock_exchange VALUES(?,?,?,?,?,?,?,?,?)", -1,
			       &ex, NULL) ||
	    sqlite3_prepare_v2(o->db, "INSERT INTO clock_segment VALUES(?,?,?,?,?,?,?,?,?,?,?,?,"
			       "?,?)", -1, &seg, NULL))
		goto out;
	for (i = 1; i <= o->ses->archive.nr_vms; i++)
		if (vm_clock(o, ex, seg, i))
			goto out;
	ret = 0;
out:
	sqlite3_finalize(ex);
	sqlite3_finalize(seg);
	return ret;
}
