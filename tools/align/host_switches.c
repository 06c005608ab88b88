// SPDX-License-Identifier: GPL-2.0-only
/*
 * host_switches.c - the host layer's scheduling and KVM events for the run
 * constraints, read once (host_switches.h).
 */
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/log.h"
#include "tools/align/host_switches.h"
#include "tools/read/event_decoder.h"

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

/* Whether the file of @info is shorter than the manifest says the collector wrote. */
static bool short_file(const struct hvt_ftrace_cpu_info *info)
{
	struct stat st;

	return info->bytes >= 0 && !stat(info->path, &st) && st.st_size < info->bytes;
}

static int read_cpu(struct hvt_ftrace *ft, const struct hvt_ftrace_cpu_info *info, bool complete,
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
	if (complete && info->bytes >= 0)	/* what the collector wrote, no more */
		hvt_ftrace_cpu_limit(c, (uint64_t)info->bytes);
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
	/*
	 * A page lost or damaged after the last event, or the file shorter
	 * than a complete recording's manifest says: the rest is unknown.
	 */
	if (!ret && (hvt_ftrace_cpu_stats(c)->lost_events + hvt_ftrace_cpu_stats(c)->warnings +
		     warnings != damage || (complete && short_file(info))))
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

bool hvt_host_switches_lost_in(const void *ctx, uint64_t lo, uint64_t hi)
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
		ret = read_cpu(ft, &a->cpus[i], a->complete, &threads, &dec, &hs->cpus[i], hs);
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

uint64_t hvt_host_switches_replay(const struct hvt_host_switches *hs,
				  void (*fn)(void *ctx, int cpu, const struct hvt_host_switch *e),
				  void *ctx)
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
