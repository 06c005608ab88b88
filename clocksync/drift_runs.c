// SPDX-License-Identifier: GPL-2.0-only
/*
 * drift_runs.c - the drift suite's scheduling: a vCPU's simulated host runs
 * as bounds on its clock (run_bounds.h), refitted as the alignment does
 * (tools/align/run_constraints.c), so that the guarantee with runs is
 * measured over thousands of seeds.
 */
#include <stdlib.h>
#include <string.h>

#include "clocksync/drift_suite.h"
#include "clocksync/run_bounds.h"

#define ROUNDS	4

struct runs {
	struct hvt_run_span *spans;
	size_t n, cap;
	uint64_t *events;
	size_t nr_events, cap_events;
	int failed;
};

static void *grow(void *v, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return v;
	*cap = *cap ? 2 * *cap : 256;
	return realloc(v, *cap * size);
}

static void add_run(void *ctx, uint64_t start, uint64_t end)
{
	struct runs *r = ctx;
	struct hvt_run_span *s = grow(r->spans, r->n, &r->cap, sizeof(*s));

	if (!s) {
		r->failed = 1;
		return;
	}
	r->spans = s;
	r->spans[r->n++] = (struct hvt_run_span){ start, end, true };
}

static void add_event(void *ctx, uint64_t guest)
{
	struct runs *r = ctx;
	uint64_t *e = grow(r->events, r->nr_events, &r->cap_events, sizeof(*e));

	if (!e) {
		r->failed = 1;
		return;
	}
	r->events = e;
	r->events[r->nr_events++] = guest;
}

/* A new estimator from the exchanges and the bounds, merged in host order. */
static struct hvt_estimator *refit(const struct hvt_exchange *ex, size_t nr_ex,
				   const struct hvt_run_bound_list *b)
{
	struct hvt_estimator *e = hvt_est_new();
	size_t i = 0, k = 0;

	if (!e)
		return NULL;
	while (i < nr_ex || k < b->n) {
		if (k == b->n || (i < nr_ex && ex[i].host_send <= b->v[k].host)) {
			hvt_est_exchange(e, &ex[i++]);
			continue;
		}
		if (b->v[k].upper)
			hvt_est_h2g_within(e, b->v[k].host, b->v[k].guest, b->v[k].delay);
		else
			hvt_est_g2h_within(e, b->v[k].guest, b->v[k].host, b->v[k].delay);
		k++;
	}
	hvt_est_finish(e);
	return e;
}

static uint64_t max_round_trip(const struct hvt_exchange *ex, size_t n)
{
	uint64_t max = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (ex[i].host_recv > ex[i].host_send && ex[i].host_recv - ex[i].host_send > max)
			max = ex[i].host_recv - ex[i].host_send;
	return max;
}

/* One round on *@est: 1 refitted, 0 nothing new, -1 out of memory. */
static int round_on(struct hvt_estimator **est, struct hvt_run_vcpu *v,
		    const struct hvt_exchange *ex, size_t nr_ex, struct hvt_drift_result *r,
		    size_t *last)
{
	struct hvt_tsc_timeline tl;
	struct hvt_run_bound_list b = { NULL, 0, 0, false };
	struct hvt_run_clock rc;
	struct hvt_estimator *next;

	hvt_tsc_timeline_init(&tl);
	if (hvt_est_timeline(*est, &tl) || hvt_run_clock_init(&rc, *est, &tl)) {
		hvt_tsc_timeline_free(&tl);
		return -1;
	}
	hvt_run_assign(&rc, v);
	r->run_contradictions += v->contradictions;
	if (!v->contradictions)
		hvt_run_bounds(&rc, v, max_round_trip(ex, nr_ex), hvt_run_bound_add, &b);
	hvt_run_clock_free(&rc);
	hvt_tsc_timeline_free(&tl);
	if (b.failed) {
		free(b.v);
		return -1;
	}
	if (!b.n || b.n == *last) {
		free(b.v);
		return 0;
	}
	hvt_run_bound_sort(&b);
	next = refit(ex, nr_ex, &b);
	free(b.v);
	if (!next)
		return -1;
	hvt_est_free(*est);
	*est = next;
	*last = b.n;
	return 1;
}

int hvt_drift_runs_refit(const struct hvt_sim_config *c, int vcpu, struct hvt_estimator **est,
			 const struct hvt_exchange *ex, size_t nr_ex, struct hvt_drift_result *r)
{
	struct runs runs = { NULL, 0, 0, NULL, 0, 0, 0 };
	struct hvt_run_vcpu v;
	size_t rounds, last = 0;
	int ret = 0;

	hvt_sim_runs(c, vcpu, add_run, add_event, &runs);
	memset(&v, 0, sizeof(v));
	v.spans = runs.spans;
	v.nr_spans = runs.n;
	v.events = runs.events;
	v.nr_events = runs.nr_events;
	v.gmin = malloc((runs.n + 1) * sizeof(uint64_t));
	v.gmax = malloc((runs.n + 1) * sizeof(uint64_t));
	if (runs.failed || !v.gmin || !v.gmax)
		ret = -1;
	for (rounds = 0; !ret && rounds < ROUNDS; rounds++) {
		ret = round_on(est, &v, ex, nr_ex, r, &last);
		if (ret <= 0)
			break;
	}
	r->run_bounds += last;
	free(v.gmin);
	free(v.gmax);
	free(runs.spans);
	free(runs.events);
	return ret < 0 ? -1 : 0;
}
