// SPDX-License-Identifier: GPL-2.0-only
/*
 * sql_models.c - the SQL export's sched, thread_state and vcpu_state rows,
 * from each machine's scheduling model and each analysable VM's analysis,
 * fed the events the export takes (sql_private.h).
 */
#include <stdlib.h>
#include <string.h>

#include "tools/out/sql_private.h"

#define UNBOUNDED	(UINT64_MAX / 8)	/* a bound this large is none guaranteed */

static void bind_bound(struct hvt_sql_out *o, sqlite3_stmt *st, int i, uint64_t at,
		       uint64_t ticks)
{
	hvt_sql_bind(st, i, ticks < UNBOUNDED ? hvt_sql_ticks_ns(o, at, ticks) : 0,
		     ticks >= UNBOUNDED);
}

/* ts and dur of [@start, @end) into parameters @i and @i + 1. */
static void bind_span(struct hvt_sql_out *o, sqlite3_stmt *st, int i, uint64_t start,
		      uint64_t end)
{
	int64_t ts = hvt_sql_ns(o, start);

	sqlite3_bind_int64(st, i, ts);
	sqlite3_bind_int64(st, i + 1, hvt_sql_ns(o, end) - ts);
}

static void slice_row(void *ctx, const struct hvt_sched_slice *s)
{
	struct sql_machine *m = ctx;
	struct hvt_sql_out *o = m->owner;
	sqlite3_stmt *st = o->ins_sched;
	int64_t utid = hvt_sql_utid(o, m->id, s->tid, (int32_t)s->cpu, s->comm);
	int64_t ucpu = hvt_sql_ucpu(o, m->id, s->cpu);

	bind_span(o, st, 1, s->start, s->end);
	bind_bound(o, st, 3, s->start, s->start_bound);
	bind_bound(o, st, 4, s->end, s->end_bound);
	sqlite3_bind_int64(st, 5, m->id);
	sqlite3_bind_int64(st, 6, s->cpu);
	hvt_sql_bind(st, 7, ucpu, ucpu < 0);
	hvt_sql_bind(st, 8, utid, utid < 0);
	if (s->end_state)
		sqlite3_bind_text(st, 9, s->end_state, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 9);
	hvt_sql_step(o, st);
}

static void state_row(void *ctx, const struct hvt_thread_state *s)
{
	struct sql_machine *m = ctx;
	struct hvt_sql_out *o = m->owner;
	sqlite3_stmt *st = o->ins_state;
	int64_t utid = hvt_sql_utid(o, m->id, s->tid, s->cpu, NULL);
	int64_t ucpu = s->cpu >= 0 ? hvt_sql_ucpu(o, m->id, (uint32_t)s->cpu) : -1;
	int64_t waker = s->waker >= 0 ? hvt_sql_utid(o, m->id, s->waker, s->waker_cpu, NULL) : -1;

	bind_span(o, st, 1, s->start, s->end);
	bind_bound(o, st, 3, s->start, s->start_bound);
	bind_bound(o, st, 4, s->end, s->end_bound);
	sqlite3_bind_int64(st, 5, m->id);
	hvt_sql_bind(st, 6, utid, utid < 0);
	sqlite3_bind_text(st, 7, s->state, -1, SQLITE_STATIC);
	hvt_sql_bind(st, 8, s->cpu, s->cpu < 0);
	hvt_sql_bind(st, 9, ucpu, ucpu < 0);
	hvt_sql_bind(st, 10, waker, waker < 0);
	hvt_sql_step(o, st);
}

static const struct hvt_sched_model_ops model_ops = { .slice = slice_row, .state = state_row };

/* A vCPU state piece, as `hvtrace analyze` counts it. */
static void piece_row(void *ctx, const struct hvt_vcpu_piece *p)
{
	struct sql_machine *m = ctx;
	struct hvt_sql_out *o = m->owner;
	sqlite3_stmt *st = o->ins_vcpu;
	int64_t utid = p->tid >= 0 ? hvt_sql_utid(o, m->id, p->tid, p->vcpu, NULL) : -1, cause = -1;
	bool exit = p->state == HVT_VCPU_HYPERVISOR && p->cause;

	if (p->cause && !exit && p->cause->tid >= 0)	/* the host task then on its CPU */
		cause = hvt_sql_utid(o, 0, p->cause->tid, p->host_cpu, p->cause->comm);
	sqlite3_bind_int64(st, 1, m->id);
	hvt_sql_bind(st, 2, p->vcpu, p->vcpu < 0);
	sqlite3_bind_text(st, 3, hvt_vcpu_state_name(p->state), -1, SQLITE_STATIC);
	bind_span(o, st, 4, p->start, p->end);
	bind_bound(o, st, 6, p->start, p->slack);
	sqlite3_bind_int(st, 7, p->too_short);
	sqlite3_bind_int(st, 8, p->guessed);
	hvt_sql_bind(st, 9, utid, utid < 0);
	hvt_sql_bind(st, 10, cause, cause < 0);
	hvt_sql_bind(st, 11, exit ? p->cause->tid : 0, !exit);
	hvt_sql_step(o, st);
}

static struct sql_machine *guest_machine(struct hvt_sql_out *o, const struct hvt_fed_event *e)
{
	return &o->machines[e->src->vm_number];
}

static void host_switch(void *ctx, const struct hvt_fed_event *e)
{
	struct hvt_sql_out *o = ctx;

	hvt_sched_model_switch(&o->machines[0].sched, e->cpu, e->ts, 0, &e->ev.sw);
	hvt_vm_analyses_host_switch(&o->analyses, e);
}

static void host_wakeup(void *ctx, const struct hvt_fed_event *e)
{
	struct hvt_sql_out *o = ctx;

	hvt_sched_model_wakeup(&o->machines[0].sched, e->ts, 0, e->ev.wakeup.tid, e->tid,
			       (int32_t)e->cpu);
}

static void kvm_entry(void *ctx, const struct hvt_fed_event *e)
{
	hvt_vm_analyses_kvm_entry(&((struct hvt_sql_out *)ctx)->analyses, e);
}

static void kvm_exit(void *ctx, const struct hvt_fed_event *e)
{
	hvt_vm_analyses_kvm_exit(&((struct hvt_sql_out *)ctx)->analyses, e);
}

static void host_lost(void *ctx, uint32_t cpu, uint64_t from, uint64_t until)
{
	struct hvt_sql_out *o = ctx;

	hvt_sched_model_lost(&o->machines[0].sched, cpu, from);
	hvt_vm_analyses_host_lost(&o->analyses, cpu, from, until);
}

static void guest_switch(void *ctx, const struct hvt_fed_event *e)
{
	struct hvt_sql_out *o = ctx;

	if (e->cpu != HVT_NO_CPU)
		hvt_sched_model_switch(&guest_machine(o, e)->sched, e->cpu, e->ts,
				       hvt_vm_analyses_bound(&o->analyses, e), &e->ev.sw);
	hvt_vm_analyses_guest_switch(&o->analyses, e);
}

static void guest_wakeup(void *ctx, const struct hvt_fed_event *e)
{
	struct hvt_sql_out *o = ctx;

	hvt_sched_model_wakeup(&guest_machine(o, e)->sched, e->ts,
			       hvt_vm_analyses_bound(&o->analyses, e), e->ev.wakeup.tid, e->tid,
			       e->cpu == HVT_NO_CPU ? -1 : (int32_t)e->cpu);
	hvt_vm_analyses_guest_wakeup(&o->analyses, e);
}

static const struct hvt_event_listener listener = {
	.host = { [HVT_EV_SCHED_SWITCH] = host_switch, [HVT_EV_SCHED_WAKEUP] = host_wakeup,
		  [HVT_EV_KVM_ENTRY] = kvm_entry, [HVT_EV_KVM_EXIT] = kvm_exit },
	.guest = { [HVT_EV_SCHED_SWITCH] = guest_switch, [HVT_EV_SCHED_WAKEUP] = guest_wakeup },
	.host_lost = host_lost,
	.comms = true,
};

int hvt_sql_models_init(struct hvt_sql_out *o)
{
	const struct hvt_vm_analyses_opts every = { .from = 0, .to = UINT64_MAX };
	size_t i, n = o->ses->archive.nr_vms + 1;

	o->machines = calloc(n, sizeof(*o->machines));
	if (!o->machines || hvt_vm_analyses_init(&o->analyses, o->ses, &every))
		return -1;
	for (i = 0; i < n; i++) {
		o->machines[i].owner = o;
		o->machines[i].id = (uint32_t)i;
		hvt_sched_model_init(&o->machines[i].sched, &model_ops, &o->machines[i]);
		if (i && !o->analyses.why[i - 1]) {
			o->analyses.vms[i - 1].on_piece = piece_row;
			o->analyses.vms[i - 1].piece_ctx = &o->machines[i];
		}
	}
	return hvt_event_feed_init(&o->feed, o->ses, &listener, o);
}

void hvt_sql_models_free(struct hvt_sql_out *o)
{
	size_t i;

	for (i = 0; o->machines && i < o->ses->archive.nr_vms + 1; i++)
		hvt_sched_model_free(&o->machines[i].sched);
	free(o->machines);
	o->machines = NULL;
	if (o->analyses.ses)
		hvt_vm_analyses_free(&o->analyses);
	if (o->feed.l)
		hvt_event_feed_free(&o->feed);
}

void hvt_sql_models_event(struct hvt_sql_out *o, struct hvt_source *s)
{
	hvt_event_feed(&o->feed, s);
}

void hvt_sql_models_finish(struct hvt_sql_out *o)
{
	size_t i;

	hvt_vm_analyses_finish(&o->analyses, o->last_tsc);
	for (i = 0; i < o->ses->archive.nr_vms + 1; i++)
		hvt_sched_model_finish(&o->machines[i].sched, o->last_tsc);
}
