// SPDX-License-Identifier: GPL-2.0-only
/*
 * run_constraints.c - vCPU thread runs as clock constraints
 * (run_constraints.h).
 */
#include <stdlib.h>
#include <string.h>

#include "clocksync/run_bounds.h"
#include "lib/grow.h"
#include "lib/log.h"
#include "tools/align/host_runs.h"
#include "tools/align/run_constraints.h"
#include "tools/read/event_decoder.h"

#define SAMPLE_SEQ	(UINT64_C(1) << 62)	/* seqs of run samples, above any exchange's */

/* --- the host layer's sched_switch events ---------------------------------- */

static int add_loss(struct hvt_host_switches *hs, uint64_t start, uint64_t end)
{
	struct hvt_loss_window *grown = hvt_grow(hs->losses, hs->nr_losses, &hs->cap_losses,
						 sizeof(*grown));

	if (!grown)
		return -1;
	hs->losses = grown;
	hs->losses[hs->nr_losses++] = (struct hvt_loss_window){ start, end };
	return 0;
}

/* The event's record, if it is of a kind kept; 1 if kept, 0 if not. */
static int record_of(struct hvt_event_decoder *dec, struct hvt_ftrace_cpu *c,
		     const struct hvt_ftrace_event *ev, struct hvt_host_switch *e)
{
	struct hvt_typed_event te;

	*e = (struct hvt_host_switch){ .ts = ev->ts };
	switch (hvt_decode_ftrace(dec, c, ev, &te)) {
	case HVT_EV_SCHED_SWITCH:
		e->kind = HVT_HS_SCHED;
		e->prev = te.sw.prev;
		e->next = te.sw.next;
		e->runnable = te.sw.runnable;
		return 1;
	case HVT_EV_KVM_ENTRY:
	case HVT_EV_KVM_EXIT:
		e->kind = te.kind == HVT_EV_KVM_ENTRY ? HVT_HS_KVM_ENTRY : HVT_HS_KVM_EXIT;
		e->vcpu = te.kvm.vcpu;
		return 1;
	default:
		return 0;
	}
}

/* The vCPU threads of every VM of the archive, sorted: whose switches are kept. */
struct thread_set {
	int32_t *tid;
	size_t n;
};

static int cmp_tid(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

static int thread_set_init(struct thread_set *ts, const struct hvt_archive *a)
{
	size_t i, k, n = 0;

	for (i = 0; i < a->nr_vms; i++)
		n += a->vms[i].nr_vcpu_tids;
	ts->tid = calloc(n + 1, sizeof(*ts->tid));
	ts->n = 0;
	if (!ts->tid)
		return -1;
	for (i = 0; i < a->nr_vms; i++)
		for (k = 0; k < a->vms[i].nr_vcpu_tids; k++)
			if (a->vms[i].vcpu_tids[k] > 0)
				ts->tid[ts->n++] = a->vms[i].vcpu_tids[k];
	qsort(ts->tid, ts->n, sizeof(*ts->tid), cmp_tid);
	return 0;
}

static bool thread_set_has(const struct thread_set *ts, int32_t tid)
{
	return ts->n && bsearch(&tid, ts->tid, ts->n, sizeof(*ts->tid), cmp_tid);
}

/* One CPU's switches as they are read, and which of them to keep. */
struct cpu_reader {
	struct hvt_cpu_switches *out;
	const struct thread_set *threads;
	struct hvt_host_switch held;	/* the last switch not kept: kept if the next one is */
	bool have_held, keep_next;
};

static int push(struct hvt_cpu_switches *out, const struct hvt_host_switch *e)
{
	struct hvt_host_switch *grown = hvt_grow(out->v, out->n, &out->cap, sizeof(*out->v));

	if (!grown)
		return -1;
	out->v = grown;
	out->v[out->n++] = *e;
	return 0;
}

/*
 * Keeps @e if it is a KVM event, involves a vCPU thread, is next to one
 * that does, or follows a loss (which the runs must hear of).
 */
static int keep(struct cpu_reader *r, const struct hvt_host_switch *e)
{
	bool hot;

	if (e->kind != HVT_HS_SCHED)	/* the runs pair sched_switch events only */
		return push(r->out, e);
	hot = e->lost_before || thread_set_has(r->threads, e->prev) ||
	      thread_set_has(r->threads, e->next);
	if (!hot && !r->keep_next) {
		r->held = *e;
		r->have_held = true;
		return 0;
	}
	if (hot && r->have_held && push(r->out, &r->held))
		return -1;
	r->have_held = false;
	r->keep_next = hot;
	return push(r->out, e);
}

static int read_cpu(struct hvt_ftrace *ft, const struct hvt_ftrace_cpu_info *info,
		    const struct thread_set *threads, struct hvt_event_decoder *dec,
		    struct hvt_cpu_switches *out, struct hvt_host_switches *hs)
{
	unsigned long warnings = 0;
	struct hvt_ftrace_cpu *c = hvt_ftrace_cpu_open(ft, info->path, info->path, info->cpu,
						       &warnings);
	struct cpu_reader r = { .out = out, .threads = threads };
	struct hvt_ftrace_event ev;
	uint64_t damage = 0, now, last = 0, last_switch = 0;
	bool lost = false;
	int ret = 0;

	out->cpu = info->cpu;
	if (!c)
		return add_loss(hs, 0, UINT64_MAX);	/* nothing known of this CPU */
	while (!ret && hvt_ftrace_cpu_next(c, &ev) > 0) {
		const struct hvt_ftrace_stats *st = hvt_ftrace_cpu_stats(c);
		struct hvt_host_switch e;

		now = st->lost_events + st->warnings + warnings;
		if (now != damage) {	/* lost since the previous event of any kind */
			lost = true;
			ret = add_loss(hs, last, ev.ts);
		}
		damage = now;
		last = ev.ts;
		if (ret || !record_of(dec, c, &ev, &e))
			continue;
		e.lost_before = lost;
		e.lost_since = lost ? last_switch : 0;
		hs->kvm |= e.kind != HVT_HS_SCHED;
		ret = keep(&r, &e);
		last_switch = out->last = e.ts;
		lost = false;
	}
	/* a page lost or damaged after the last event: the rest is unknown */
	if (!ret && hvt_ftrace_cpu_stats(c)->lost_events + hvt_ftrace_cpu_stats(c)->warnings +
		    warnings != damage)
		ret = add_loss(hs, last, UINT64_MAX);
	hvt_ftrace_cpu_close(c);
	return ret;
}

static int by_start(const void *a, const void *b)
{
	const struct hvt_loss_window *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/* Sorts the loss windows and merges those that overlap. */
static void merge_losses(struct hvt_host_switches *hs)
{
	size_t i, k = 0;

	if (!hs->nr_losses)
		return;
	qsort(hs->losses, hs->nr_losses, sizeof(*hs->losses), by_start);
	for (i = 1; i < hs->nr_losses; i++) {
		if (hs->losses[i].start <= hs->losses[k].end) {
			if (hs->losses[i].end > hs->losses[k].end)
				hs->losses[k].end = hs->losses[i].end;
		} else {
			hs->losses[++k] = hs->losses[i];
		}
	}
	hs->nr_losses = k + 1;
}

/* Whether [@lo, @hi] meets a host CPU's loss window (@ctx: the host switches). */
static bool meets_loss(const void *ctx, uint64_t lo, uint64_t hi)
{
	const struct hvt_host_switches *hs = ctx;
	size_t a = 0, b = hs->nr_losses;

	while (a < b) {		/* the first window ending at or after lo */
		size_t mid = a + (b - a) / 2;

		if (hs->losses[mid].end < lo)
			a = mid + 1;
		else
			b = mid;
	}
	return a < hs->nr_losses && hs->losses[a].start <= hi;
}

int hvt_host_switches_read(const struct hvt_archive *a, struct hvt_ftrace *ft,
			   struct hvt_host_switches *hs)
{
	struct hvt_event_decoder dec;
	struct thread_set threads;
	size_t i;
	int ret = 0;

	memset(hs, 0, sizeof(*hs));
	hs->cpus = calloc(a->nr_cpus + 1, sizeof(*hs->cpus));
	if (!hs->cpus)
		return -1;
	hs->nr_cpus = a->nr_cpus;
	if (hvt_event_decoder_init(&dec, HVT_EV_BIT(HVT_EV_SCHED_SWITCH) |
				   HVT_EV_BIT(HVT_EV_KVM_ENTRY) | HVT_EV_BIT(HVT_EV_KVM_EXIT), false)) {
		hvt_host_switches_free(hs);
		return -1;
	}
	if (thread_set_init(&threads, a)) {
		hvt_event_decoder_free(&dec);
		hvt_host_switches_free(hs);
		return -1;
	}
	hvt_log_mute();		/* the merge's own pass reports the damage */
	for (i = 0; i < a->nr_cpus && !ret; i++)
		ret = read_cpu(ft, &a->cpus[i], &threads, &dec, &hs->cpus[i], hs);
	hvt_log_unmute();
	hvt_event_decoder_free(&dec);
	free(threads.tid);
	if (ret)
		hvt_host_switches_free(hs);
	else
		merge_losses(hs);
	return ret;
}

void hvt_host_switches_free(struct hvt_host_switches *hs)
{
	size_t i;

	for (i = 0; hs->cpus && i < hs->nr_cpus; i++)
		free(hs->cpus[i].v);
	free(hs->cpus);
	free(hs->losses);
	memset(hs, 0, sizeof(*hs));
}

/* --- each vCPU thread's runs ----------------------------------------------- */

/* A vCPU's runs (or windows) and unknown spans, and its candidate events. */
struct vcpu_runs {
	const struct hvt_host_switches *hs;	/* its loss windows */
	struct hvt_run_span *v;
	size_t n, cap;
	uint64_t *gmin, *gmax;		/* per span: its unambiguous events */
	uint64_t *events;		/* candidate guest TSC values, sorted */
	size_t nr_events, cap_events;
	size_t contradictions;
	size_t outside;			/* events far from every run and unknown span */
	bool unused;
	bool failed;
};

/* @v as the core's view of it (clocksync/run_bounds.h). */
static struct hvt_run_vcpu view(struct vcpu_runs *v)
{
	return (struct hvt_run_vcpu){ .spans = v->v, .nr_spans = v->n, .events = v->events,
		.nr_events = v->nr_events, .gmin = v->gmin, .gmax = v->gmax,
		.unknown = meets_loss, .unknown_ctx = v->hs };
}

static void add_span(struct vcpu_runs *v, uint64_t start, uint64_t end, bool running)
{
	struct hvt_run_span *grown;

	if (v->n && v->v[v->n - 1].running == running && v->v[v->n - 1].end == start) {
		v->v[v->n - 1].end = end;	/* an open run seen again, closed */
		return;
	}
	grown = hvt_grow(v->v, v->n, &v->cap, sizeof(*v->v));
	if (!grown) {
		v->failed = true;
		return;
	}
	v->v = grown;
	v->v[v->n++] = (struct hvt_run_span){ start, end, running };
}

static void on_segment(void *ctx, const struct hvt_run_segment *seg, bool open)
{
	struct vcpu_runs *vcpus = ctx;

	if (!open && (seg->state == HVT_RUN_RUNNING || seg->state == HVT_RUN_UNKNOWN))
		add_span(&vcpus[seg->thread], seg->start, seg->end,
			 seg->state == HVT_RUN_RUNNING);
}

/*
 * Calls @fn with every CPU's events in host time order (one cursor per CPU);
 * returns the last one's time, or UINT64_MAX if out of memory.
 */
static uint64_t replay(const struct hvt_host_switches *hs,
		       void (*fn)(void *ctx, int cpu, const struct hvt_host_switch *e), void *ctx)
{
	size_t *at = calloc(hs->nr_cpus + 1, sizeof(*at)), i;
	uint64_t end = 0;

	if (!at)
		return UINT64_MAX;
	for (;;) {
		const struct hvt_cpu_switches *c;
		size_t best = hs->nr_cpus;

		for (i = 0; i < hs->nr_cpus; i++)
			if (at[i] < hs->cpus[i].n && (best == hs->nr_cpus ||
			    hs->cpus[i].v[at[i]].ts < hs->cpus[best].v[at[best]].ts))
				best = i;
		if (best == hs->nr_cpus)
			break;
		c = &hs->cpus[best];
		fn(ctx, c->cpu, &c->v[at[best]++]);
	}
	for (i = 0; i < hs->nr_cpus; i++)	/* the last, kept or not */
		if (hs->cpus[i].last > end)
			end = hs->cpus[i].last;
	free(at);
	return end;
}

static void runs_event(void *ctx, int cpu, const struct hvt_host_switch *e)
{
	struct hvt_host_runs *runs = ctx;

	if (e->kind != HVT_HS_SCHED)
		return;
	if (e->lost_before)
		hvt_host_runs_lost(runs, (uint32_t)cpu, e->lost_since);
	hvt_host_runs_switch(runs, (uint32_t)cpu, e->ts, e->prev, e->runnable, e->next, NULL);
}

/* Each vCPU thread's runs, from every CPU's sched_switch through host_runs. */
static int build_runs(const struct hvt_host_switches *hs, const int32_t *tids, size_t nr,
		      struct vcpu_runs *vcpus)
{
	struct hvt_host_runs runs;
	uint64_t end;
	size_t i;

	if (hvt_host_runs_init(&runs, tids, nr, 0, on_segment, vcpus))
		return -1;
	end = replay(hs, runs_event, &runs);
	if (end != UINT64_MAX)
		hvt_host_runs_finish(&runs, end);
	hvt_host_runs_free(&runs);
	if (end == UINT64_MAX)
		return -1;
	/* after the host's last event, nothing is known */
	for (i = 0; i < nr; i++)
		if (tids[i] > 0)
			add_span(&vcpus[i], end, UINT64_MAX, false);
	return 0;
}

/* A vCPU between its kvm_entry and kvm_exit events. */
enum window_mode { WINDOW_UNKNOWN, WINDOW_IN, WINDOW_OUT };

struct window_state {
	enum window_mode mode;
	uint64_t since;			/* UNKNOWN, IN: since when; OUT: the last exit */
};

struct windows {
	struct vcpu_runs *vcpus;
	struct window_state *st;
	size_t nr;
};

static void windows_event(void *ctx, int cpu, const struct hvt_host_switch *e)
{
	struct windows *w = ctx;
	struct window_state *st;
	struct vcpu_runs *v;

	(void)cpu;	/* losses: the loss windows, for every vCPU */
	if (e->kind == HVT_HS_SCHED || e->vcpu >= w->nr)
		return;
	st = &w->st[e->vcpu];
	v = &w->vcpus[e->vcpu];
	if (e->kind == HVT_HS_KVM_ENTRY) {
		if (st->mode != WINDOW_OUT && e->ts > st->since)	/* no exit seen: unknown */
			add_span(v, st->since, e->ts, false);
		*st = (struct window_state){ WINDOW_IN, e->ts };
		return;
	}
	if (e->ts > st->since)	/* IN: the window; else unknown (its entry not seen) */
		add_span(v, st->since, e->ts, st->mode == WINDOW_IN);
	*st = (struct window_state){ WINDOW_OUT, e->ts };
}

/*
 * Each vCPU's windows in guest mode, from kvm_entry to kvm_exit; unknown
 * before its first entry, where an entry or an exit is missing, and after
 * the host's last event.
 */
static int build_windows(const struct hvt_host_switches *hs, size_t nr,
			 struct vcpu_runs *vcpus)
{
	struct windows w = { vcpus, calloc(nr + 1, sizeof(*w.st)), nr };
	uint64_t end;
	size_t i;

	if (!w.st)
		return -1;
	end = replay(hs, windows_event, &w);
	for (i = 0; end != UINT64_MAX && i < nr; i++) {
		uint64_t from = w.st[i].mode == WINDOW_OUT && end > w.st[i].since ? end :
				w.st[i].since;

		add_span(&vcpus[i], from, UINT64_MAX, false);
	}
	free(w.st);
	return end == UINT64_MAX ? -1 : 0;
}

/*
 * Where [@lo, @hi] lies: 1 near a run's start or end (the
 * event may bound the clock), 0 elsewhere in a run or unknown span, -1 in
 * none at all (the event contradicts the host data).
 */
static int near_edge(struct vcpu_runs *v, uint64_t lo, uint64_t hi)
{
	struct hvt_run_vcpu rv = view(v);
	bool met = false;
	size_t i;

	for (i = hvt_run_first_after(&rv, lo); i < v->n && v->v[i].start <= hi; i++) {
		met = true;
		if (v->v[i].running &&
		    ((v->v[i].start >= lo && v->v[i].start <= hi) ||
		     (v->v[i].end >= lo && v->v[i].end <= hi)))
			return 1;
	}
	/* where a host CPU lost events, a run may have been */
	return met || meets_loss(v->hs, lo, hi) ? 0 : -1;
}

/* --- the guest's events near a run's edge ----------------------------------- */

/* Whether [@lo, @hi] lies inside one run, away from its edges. */
static bool deep_inside(struct vcpu_runs *v, uint64_t lo, uint64_t hi, size_t *hint)
{
	struct hvt_run_vcpu rv = view(v);
	size_t k = hvt_run_first_after_from(&rv, lo, hint);

	return k < v->n && v->v[k].running && v->v[k].start < lo && v->v[k].end > hi;
}

static int keep_event(struct vcpu_runs *v, uint64_t g)
{
	uint64_t *grown = hvt_grow(v->events, v->nr_events, &v->cap_events, sizeof(*grown));

	if (!grown)
		return -1;
	v->events = grown;
	v->events[v->nr_events++] = g;
	return 0;
}

static int read_stream(const struct hvt_run_clock *rc, const struct hvt_stream_info *si,
		       const struct hvt_trace_info *t, const struct hvt_ctf_types *types,
		       struct vcpu_runs *vcpus, size_t nr, size_t *kept)
{
	unsigned long warnings = 0;
	struct hvt_ctf_stream *s = hvt_ctf_open(si->path, si->rel, t->uuid, types, &warnings);
	struct hvt_ctf_event ev;
	size_t hint = 0;
	int ret = 0;

	if (!s)
		return 0;
	while (!ret && *kept < HVT_RUN_MAX_EVENTS && hvt_ctf_next(s, &ev) > 0) {
		uint32_t cpu = (uint32_t)si->cpu;
		uint64_t lo, hi;
		size_t seg;
		int where;

		if (cpu >= nr || !vcpus[cpu].n)
			continue;
		/* most events lie deep inside a run: neither near an edge nor outside */
		if (!hvt_run_window_wide(rc, ev.ts, &lo, &hi) &&
		    deep_inside(&vcpus[cpu], lo, hi, &hint))
			continue;
		if (hvt_run_window(rc, ev.ts, &seg, &lo, &hi))
			continue;
		where = near_edge(&vcpus[cpu], lo, hi);
		if (where < 0)
			vcpus[cpu].outside++;
		if (where <= 0)
			continue;
		ret = keep_event(&vcpus[cpu], ev.ts);
		++*kept;
	}
	hvt_ctf_close(s);
	return ret;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int read_events(struct hvt_vm_clock *c, const struct hvt_vm_info *vm,
		       const struct hvt_ctf_types *types, struct vcpu_runs *vcpus, size_t nr,
		       size_t *kept)
{
	struct hvt_run_clock rc;
	size_t i;
	int ret = 0;

	if (hvt_run_clock_init(&rc, c->est, &c->tl))
		return -1;

	hvt_log_mute();
	for (i = 0; i < vm->nr_streams && !ret; i++) {
		const struct hvt_stream_info *si = &vm->streams[i];
		const struct hvt_trace_info *t = &vm->traces[si->trace];

		/*
		 * The kernel's per-CPU streams only: the module reads the TSC
		 * with preemption off, on the stream's CPU. A user event's CPU
		 * is read apart from its TSC, and a migration between the two
		 * would tie it to the wrong vCPU's runs.
		 */
		if (t->domain == HVT_DOMAIN_GUEST_TSC && t->layer == HVT_LAYER_KERNEL &&
		    si->cpu >= 0 && (size_t)si->cpu < nr && vcpus[si->cpu].n)
			ret = read_stream(&rc, si, t, &types[si->trace], vcpus, nr, kept);
	}
	hvt_log_unmute();
	hvt_run_clock_free(&rc);
	for (i = 0; i < nr; i++)
		if (vcpus[i].nr_events)
			qsort(vcpus[i].events, vcpus[i].nr_events, sizeof(uint64_t), cmp_u64);
	return ret;
}

/* --- samples, and the fit ---------------------------------------------------- */

/* The longest round trip of the VM's exchanges: how far a bound's stamp may be. */
static uint64_t max_round_trip(const struct hvt_vm_info *vm)
{
	uint64_t max = 0;
	size_t i;

	for (i = 0; i < vm->nr_sync; i++)
		if (vm->sync[i].ex.host_recv > vm->sync[i].ex.host_send &&
		    vm->sync[i].ex.host_recv - vm->sync[i].ex.host_send > max)
			max = vm->sync[i].ex.host_recv - vm->sync[i].ex.host_send;
	return max;
}

/*
 * The one-way bounds of every used vCPU's runs on clock @c, each within
 * @max ticks of its edge (clocksync/run_bounds.h), in host order in *@out;
 * their number, or SIZE_MAX if out of memory.
 */
static size_t bounds(struct hvt_vm_clock *c, struct vcpu_runs *vcpus, size_t nr, uint64_t max,
		     struct hvt_one_way **out)
{
	struct hvt_run_bound_list l = { NULL, 0, 0, false };
	struct hvt_run_clock rc;
	struct hvt_one_way *ow;
	size_t i;

	if (hvt_run_clock_init(&rc, c->est, &c->tl))
		return SIZE_MAX;
	for (i = 0; i < nr; i++) {
		struct hvt_run_vcpu rv = view(&vcpus[i]);

		if (!vcpus[i].unused)
			hvt_run_bounds(&rc, &rv, max, hvt_run_bound_add, &l);
	}
	hvt_run_clock_free(&rc);
	ow = l.failed ? NULL : calloc(l.n ? l.n : 1, sizeof(*ow));
	if (!ow) {
		free(l.v);
		return SIZE_MAX;
	}
	hvt_run_bound_sort(&l);
	for (i = 0; i < l.n; i++)
		ow[i] = (struct hvt_one_way){ l.v[i].host, l.v[i].guest, l.v[i].upper,
					      SAMPLE_SEQ + i };
	free(l.v);
	*out = ow;
	return l.n;
}

/* Whether @next keeps every exchange causal and has no more segments than @prev. */
static const char *refit_wrong(struct hvt_vm_clock *next, const struct hvt_vm_clock *prev,
			       const struct hvt_vm_info *vm)
{
	size_t exempt;

	if (hvt_vm_clock_segments(next) > hvt_vm_clock_segments(prev) ||
	    (next->glitch && !prev->glitch))
		return "the runs split the clock where the exchanges do not";
	if (hvt_vm_clock_first_violation(next, vm->sync, vm->nr_sync, &exempt))
		return "a clock exchange is not causal against the fit with the runs";
	return NULL;
}

static void free_vcpus(struct vcpu_runs *vcpus, size_t nr)
{
	size_t i;

	for (i = 0; vcpus && i < nr; i++) {
		free(vcpus[i].v);
		free(vcpus[i].gmin);
		free(vcpus[i].gmax);
		free(vcpus[i].events);
	}
	free(vcpus);
}

/* One round on @c: the bounds, a refit, its verdict. 1: accepted into @c, 0: stop, -1. */
static int round_on(struct hvt_vm_clock *c, const struct hvt_vm_info *vm,
		    struct vcpu_runs *vcpus, size_t nr, const struct hvt_sync_point *points,
		    size_t nr_points, struct hvt_run_fit *r)
{
	struct hvt_vm_clock next;
	struct hvt_run_clock rc;
	struct hvt_one_way *ow;
	size_t i, n, events = 0;
	const char *wrong;

	if (hvt_run_clock_init(&rc, c->est, &c->tl))
		return -1;
	for (i = 0; i < nr; i++) {
		struct hvt_run_vcpu rv;

		if (vcpus[i].unused)
			continue;
		rv = view(&vcpus[i]);
		hvt_run_assign(&rc, &rv);
		vcpus[i].contradictions = rv.contradictions;
		events += rv.assigned;
		if (!r->rounds)		/* on the exchanges' own clock: every event counts */
			vcpus[i].contradictions += vcpus[i].outside;
		if (!vcpus[i].contradictions)
			continue;
		if (r->rounds) {	/* the last refit put events outside every run */
			r->rejected = "a refit put guest events outside every run of their vCPU";
			hvt_run_clock_free(&rc);
			return 0;
		}
		r->contradictions += vcpus[i].contradictions;
		r->vcpus_unused++;
		vcpus[i].unused = true;
	}
	hvt_run_clock_free(&rc);
	n = bounds(c, vcpus, nr, max_round_trip(vm), &ow);
	if (n == SIZE_MAX)
		return -1;
	if (!n || n == r->samples) {	/* nothing (new) to fit */
		free(ow);
		return 0;
	}
	/* a build fails without memory, or on bounds no timeline can follow */
	wrong = hvt_vm_clock_build_more(&next, vm->sync, vm->nr_sync, points, nr_points, ow, n) ?
		"the runs and the exchanges fit no clock" : refit_wrong(&next, c, vm);
	free(ow);
	if (wrong) {
		r->rejected = wrong;
		hvt_vm_clock_free(&next);	/* safe after a failed build */
		return 0;
	}
	hvt_vm_clock_free(c);
	*c = next;
	r->samples = n;
	r->events = events;
	r->rounds++;
	return 1;
}

/* Whether one-way bound @w contradicts @c's guaranteed interval. */
static bool bound_contradicts(struct hvt_vm_clock *c, const struct hvt_one_way *w)
{
	struct hvt_est_value v;

	if (hvt_est_eval(c->est, w->host, &v) || !v.bounded)
		return false;
	return w->upper ? v.lo > w->guest : v.hi < w->guest;
}

/*
 * Every other bound held out of a fit of the exchanges and the rest,
 * judged against it: the number that contradict it, or -1 if it cannot be
 * made. The bounds are those of clock @c.
 */
static long held_out(struct hvt_vm_clock *c, const struct hvt_vm_info *vm,
		     struct vcpu_runs *vcpus, size_t nr, const struct hvt_sync_point *points,
		     size_t nr_points, size_t *judged)
{
	struct hvt_one_way *ow;
	size_t n = bounds(c, vcpus, nr, max_round_trip(vm), &ow), i, fit = 0;
	struct hvt_vm_clock half;
	long bad = 0;

	*judged = 0;
	if (n == SIZE_MAX)
		return -1;
	for (i = 0; i < n; i++)		/* even ones fitted (in place), odd ones judged */
		if (!(i % 2))
			ow[fit++] = ow[i];
	if (hvt_vm_clock_build_more(&half, vm->sync, vm->nr_sync, points, nr_points, ow, fit)) {
		free(ow);
		return -1;
	}
	free(ow);
	n = bounds(c, vcpus, nr, max_round_trip(vm), &ow);	/* again, whole */
	if (n == SIZE_MAX) {
		hvt_vm_clock_free(&half);
		return -1;
	}
	for (i = 1; i < n; i += 2) {
		bad += bound_contradicts(&half, &ow[i]);
		++*judged;
	}
	free(ow);
	hvt_vm_clock_free(&half);
	return bad;
}

/* vCPUs of @vm: one more than its kernel's highest per-CPU stream. */
static size_t guest_vcpus(const struct hvt_vm_info *vm)
{
	size_t i, n = 0;

	for (i = 0; i < vm->nr_streams; i++)
		if (vm->streams[i].cpu >= 0 && (size_t)vm->streams[i].cpu >= n &&
		    vm->traces[vm->streams[i].trace].layer == HVT_LAYER_KERNEL)
			n = (size_t)vm->streams[i].cpu + 1;
	return n;
}

int hvt_run_constraints_fit(struct hvt_vm_clock *clock, const struct hvt_vm_info *vm,
			    const struct hvt_ctf_types *types, const struct hvt_host_switches *hs,
			    const int32_t *tids, size_t nr, bool kvm_windows,
			    const struct hvt_sync_point *points, size_t nr_points,
			    struct hvt_run_fit *r)
{
	struct vcpu_runs *vcpus;
	size_t i;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	r->windows = kvm_windows;
	if (kvm_windows)
		nr = guest_vcpus(vm);
	vcpus = calloc(nr + 1, sizeof(*vcpus));
	if (!vcpus || (kvm_windows ? build_windows(hs, nr, vcpus) :
				     build_runs(hs, tids, nr, vcpus)))
		goto out;
	for (i = 0; i < nr; i++) {
		vcpus[i].hs = hs;
		if (vcpus[i].failed)
			goto out;
		vcpus[i].gmin = malloc((vcpus[i].n + 1) * sizeof(uint64_t));
		vcpus[i].gmax = malloc((vcpus[i].n + 1) * sizeof(uint64_t));
		if (!vcpus[i].gmin || !vcpus[i].gmax)
			goto out;
	}
	if (read_events(clock, vm, types, vcpus, nr, &r->candidates))
		goto out;
	while (r->rounds < HVT_RUN_ROUNDS &&
	       (ret = round_on(clock, vm, vcpus, nr, points, nr_points, r)) > 0)
		;
	if (ret >= 0 && r->samples) {
		long bad = held_out(clock, vm, vcpus, nr, points, nr_points, &r->held_out);

		if (bad) {	/* back to the exchanges alone */
			r->rejected = bad > 0 ? "runs held out of the fit contradict it" :
					       "the fit without half of the runs cannot be made";
			r->samples = r->events = r->rounds = 0;
			hvt_vm_clock_free(clock);
			ret = hvt_vm_clock_build(clock, vm->sync, vm->nr_sync, points, nr_points);
		}
	}
	ret = ret < 0 ? -1 : 0;
out:
	free_vcpus(vcpus, nr);
	return ret;
}
