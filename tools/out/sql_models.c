// SPDX-License-Identifier: GPL-2.0-only
/*
 * sql_models.c - the SQL export's sched, thread_state and vcpu_state rows,
 * from each machine's scheduling model and each analysable VM's analysis,
 * fed the events the export takes (sql_private.h).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "tools/out/sql_private.h"

#define UNBOUNDED	(UINT64_MAX / 8)	/* a bound this large is none guaranteed */

static void bound_value(struct hvt_sql_out *o, uint64_t at, uint64_t ticks)
{
	hvt_sql_opt(o, ticks < UNBOUNDED ? hvt_sql_ticks_ns(o, at, ticks) : 0, ticks >= UNBOUNDED);
}

/* ts and dur of [@start, @end). */
static void span_values(struct hvt_sql_out *o, uint64_t start, uint64_t end)
{
	int64_t ts = hvt_sql_ns(o, start);

	hvt_sql_int(o, ts);
	hvt_sql_int(o, hvt_sql_ns(o, end) - ts);
}

/* The columns sched and thread_state open with: ts, dur, their bounds, the machine. */
static void interval_values(struct hvt_sql_out *o, uint64_t start, uint64_t end,
			    uint64_t start_bound, uint64_t end_bound, uint32_t machine)
{
	span_values(o, start, end);
	bound_value(o, start, start_bound);
	bound_value(o, end, end_bound);
	hvt_sql_int(o, machine);
}

static void text_value(struct hvt_sql_out *o, const char *s)
{
	hvt_sql_text(o, s, s ? strlen(s) : 0);
}

static void slice_row(void *ctx, const struct hvt_sched_slice *s)
{
	struct sql_machine *m = ctx;
	struct hvt_sql_out *o = m->owner;
	int64_t utid = hvt_sql_utid(o, m->id, s->tid, (int32_t)s->cpu, s->comm);
	int64_t ucpu = hvt_sql_ucpu(o, m->id, s->cpu);

	hvt_sql_row(o, SQL_SCHED);
	interval_values(o, s->start, s->end, s->start_bound, s->end_bound, m->id);
	hvt_sql_int(o, s->cpu);
	hvt_sql_opt(o, ucpu, ucpu < 0);
	hvt_sql_opt(o, utid, utid < 0);
	text_value(o, s->end_state);
	hvt_sql_row_end(o);
}

static void state_row(void *ctx, const struct hvt_thread_state *s)
{
	struct sql_machine *m = ctx;
	struct hvt_sql_out *o = m->owner;
	int64_t utid = hvt_sql_utid(o, m->id, s->tid, s->cpu, NULL);
	int64_t ucpu = s->cpu >= 0 ? hvt_sql_ucpu(o, m->id, (uint32_t)s->cpu) : -1;
	int64_t waker = s->waker >= 0 ? hvt_sql_utid(o, m->id, s->waker, s->waker_cpu, NULL) : -1;

	hvt_sql_row(o, SQL_STATE);
	interval_values(o, s->start, s->end, s->start_bound, s->end_bound, m->id);
	hvt_sql_opt(o, utid, utid < 0);
	text_value(o, s->state);
	hvt_sql_opt(o, s->cpu, s->cpu < 0);
	hvt_sql_opt(o, ucpu, ucpu < 0);
	hvt_sql_opt(o, waker, waker < 0);
	hvt_sql_row_end(o);
}

static const struct hvt_sched_model_ops model_ops = { .slice = slice_row, .state = state_row };

/* A vCPU state piece, as `hvtrace analyze` counts it. */
static void piece_row(void *ctx, const struct hvt_vcpu_piece *p)
{
	struct sql_machine *m = ctx;
	struct hvt_sql_out *o = m->owner;
	int64_t utid = p->tid >= 0 ? hvt_sql_utid(o, m->id, p->tid, p->vcpu, NULL) : -1, cause = -1;
	bool exit = p->state == HVT_VCPU_HYPERVISOR && p->cause;

	if (p->cause && !exit && p->cause->tid >= 0)	/* the host task then on its CPU */
		cause = hvt_sql_utid(o, 0, p->cause->tid, p->host_cpu, p->cause->comm);
	hvt_sql_row(o, SQL_VCPU);
	hvt_sql_int(o, m->id);
	hvt_sql_opt(o, p->vcpu, p->vcpu < 0);
	text_value(o, hvt_vcpu_state_name(p->state));
	span_values(o, p->start, p->end);
	bound_value(o, p->start, p->slack);
	hvt_sql_int(o, p->too_short);
	hvt_sql_int(o, p->guessed);
	hvt_sql_opt(o, utid, utid < 0);
	hvt_sql_opt(o, cause, cause < 0);
	hvt_sql_opt(o, exit ? p->cause->tid : 0, !exit);
	hvt_sql_row_end(o);
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
	for (i = 0; i < o->ses->archive.nr_vms + 1; i++) {
		hvt_sched_model_finish(&o->machines[i].sched, o->last_tsc);
		if (o->machines[i].sched.failed && !o->models_gap) {
			o->models_gap = "sched and thread_state lack rows: a sched_switch named a "
					"CPU past 2^20, or memory ran out";
			hvt_warn("%s: %s", o->path, o->models_gap);
		}
	}
}
