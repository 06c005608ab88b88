// SPDX-License-Identifier: GPL-2.0-only
/*
 * vcpu_spans.c - when each vCPU may have run, and where that is not known
 * (vcpu_spans.h).
 */
#include <stdlib.h>

#include "lib/grow.h"
#include "tools/align/host_runs.h"
#include "tools/align/vcpu_spans.h"

static void add_span(struct hvt_vcpu_spans *v, uint64_t start, uint64_t end, bool running)
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
	struct hvt_vcpu_spans *vcpus = ctx;

	if (!open && (seg->state == HVT_RUN_RUNNING || seg->state == HVT_RUN_UNKNOWN))
		add_span(&vcpus[seg->thread], seg->start, seg->end,
			 seg->state == HVT_RUN_RUNNING);
}

static void runs_event(void *ctx, int cpu, const struct hvt_host_switch *e)
{
	struct hvt_host_runs *runs = ctx;

	if (e->kind != HVT_HS_SCHED)
		return;
	if (e->lost_before)
		hvt_host_runs_lost(runs, (uint32_t)cpu, e->lost_since, e->ts);
	hvt_host_runs_switch(runs, (uint32_t)cpu, e->ts, e->prev, e->runnable, e->next, NULL);
}

int hvt_vcpu_spans_runs(const struct hvt_host_switches *hs, const int32_t *tids, size_t nr,
			struct hvt_vcpu_spans *vcpus)
{
	struct hvt_host_runs runs;
	uint64_t end;
	size_t i;

	if (hvt_host_runs_init(&runs, tids, nr, 0, on_segment, vcpus))
		return -1;
	end = hvt_host_switches_replay(hs, runs_event, &runs);
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
	struct hvt_vcpu_spans *vcpus;
	struct window_state *st;
	size_t nr;
};

static void windows_event(void *ctx, int cpu, const struct hvt_host_switch *e)
{
	struct windows *w = ctx;
	struct window_state *st;
	struct hvt_vcpu_spans *v;

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

int hvt_vcpu_spans_windows(const struct hvt_host_switches *hs, size_t nr,
			   struct hvt_vcpu_spans *vcpus)
{
	struct windows w = { vcpus, calloc(nr + 1, sizeof(*w.st)), nr };
	uint64_t end;
	size_t i;

	if (!w.st)
		return -1;
	end = hvt_host_switches_replay(hs, windows_event, &w);
	for (i = 0; end != UINT64_MAX && i < nr; i++) {
		uint64_t from = w.st[i].mode == WINDOW_OUT && end > w.st[i].since ? end :
				w.st[i].since;

		add_span(&vcpus[i], from, UINT64_MAX, false);
	}
	free(w.st);
	return end == UINT64_MAX ? -1 : 0;
}

void hvt_vcpu_spans_free(struct hvt_vcpu_spans *v, size_t nr)
{
	size_t i;

	for (i = 0; v && i < nr; i++)
		free(v[i].v);
	free(v);
}
