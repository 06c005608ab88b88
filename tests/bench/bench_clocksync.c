// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_clocksync.c - the clock model's hot paths: converting one
 * timestamp (merge does it for every event), feeding one sample to the
 * estimator (merge and check feed it every exchange of sync.tsv), and
 * placing one guest kernel event among its vCPU's host runs (the alignment
 * does it for the events near a run's edge, per refit: run_bounds.h).
 */
#include <stdlib.h>
#include <x86intrin.h>
#include <hvtrace/clock_math.h>

#include "clocksync/estimator.h"
#include "clocksync/host_clock.h"
#include "clocksync/run_bounds.h"
#include "clocksync/sim.h"
#include "clocksync/tsc_timeline.h"
#include "tests/bench/bench.h"

#define N 20000000ull

struct msgs {
	struct hvt_exchange *ex;
	size_t n, cap;
};

static void collect(void *ctx, const struct hvt_sim_message *m)
{
	struct msgs *s = ctx;

	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4096;
		s->ex = realloc(s->ex, s->cap * sizeof(*s->ex));
		if (!s->ex)
			exit(1);
	}
	s->ex[s->n++] = m->ex;
}

struct runs {
	struct hvt_run_span *spans;
	size_t n, cap;
	uint64_t *events;
	size_t nr_events, cap_events;
};

static void *grown(void *v, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return v;
	*cap = *cap ? 2 * *cap : 4096;
	v = realloc(v, *cap * size);
	if (!v)
		exit(1);
	return v;
}

static void add_run(void *ctx, uint64_t start, uint64_t end)
{
	struct runs *r = ctx;

	r->spans = grown(r->spans, r->n, &r->cap, sizeof(*r->spans));
	r->spans[r->n++] = (struct hvt_run_span){ start, end, true };
}

static void add_event(void *ctx, uint64_t guest)
{
	struct runs *r = ctx;

	r->events = grown(r->events, r->nr_events, &r->cap_events, sizeof(*r->events));
	r->events[r->nr_events++] = guest;
}

/*
 * The drift suite's vcpu-runs clock (200 us round trips; runs of 4 ms every
 * 6, events at their edges and 500/s): one event placed among the runs, on
 * the exchanges' fit, against what merge pays to convert it.
 */
static void bench_run_bounds(double convert_ns)
{
	struct hvt_sim_config c;
	struct msgs m = { NULL, 0, 0 };
	struct runs r = { NULL, 0, 0, NULL, 0, 0 };
	struct hvt_estimator *e = hvt_est_new();
	struct hvt_tsc_timeline tl;
	struct hvt_run_clock rc;
	struct hvt_run_vcpu v;
	double best = 1e300, ns;
	size_t i;
	int round;

	hvt_sim_defaults(&c);
	c.duration_s = 600;
	c.h2g = (struct hvt_sim_delay){ 50000, 50000, 0 };
	c.g2h = c.h2g;
	c.run_ms = 4;
	c.gap_ms = 2;
	c.edge_ns = 5000;
	c.event_hz = 500;
	hvt_sim_run(&c, collect, &m);
	hvt_sim_runs(&c, 0, add_run, add_event, &r);
	for (i = 0; i < m.n; i++)
		hvt_est_exchange(e, &m.ex[i]);
	hvt_est_finish(e);
	hvt_tsc_timeline_init(&tl);
	if (hvt_est_timeline(e, &tl) || hvt_run_clock_init(&rc, e, &tl))
		exit(1);
	v = (struct hvt_run_vcpu){ .spans = r.spans, .nr_spans = r.n, .events = r.events,
		.nr_events = r.nr_events, .gmin = malloc(r.n * sizeof(uint64_t)),
		.gmax = malloc(r.n * sizeof(uint64_t)) };
	if (!v.gmin || !v.gmax)
		exit(1);
	for (round = 0; round < BENCH_ROUNDS; round++) {
		double t0 = bench_now();

		hvt_run_assign(&rc, &v);
		ns = (bench_now() - t0) / (double)r.nr_events;
		if (ns < best)
			best = ns;
	}
	bench_sink += v.assigned;
	bench_header("clocksync: vCPU runs as clock bounds");
	printf("(%zu events among %zu runs, %zu placed in one run)\n", r.nr_events, r.n,
	       v.assigned);
	bench_row("place one guest event among the runs", best,
		  "timeline guest -> host (merge)", convert_ns);
	hvt_run_clock_free(&rc);
	free(v.gmin);
	free(v.gmax);
	free(r.spans);
	free(r.events);
	free(m.ex);
	hvt_tsc_timeline_free(&tl);
	hvt_est_free(e);
}

int main(void)
{
	struct hvt_tsc_xform x = { (uint64_t)-123456789, (1ull << 48) + 12345, 48, 0 };
	struct hvt_clock_pair pairs[3600];
	struct hvt_tsc_timeline tl;
	struct hvt_host_clock hc;
	struct hvt_sim_config c;
	struct msgs m = { NULL, 0, 0 };
	double rdtsc_ns, gettime_ns, ns;
	size_t i;

	BENCH_NS_PER_OP(rdtsc_ns, N, bench_sink += __rdtsc());
	BENCH_NS_PER_OP(gettime_ns, N / 4, {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		bench_sink += (uint64_t)ts.tv_nsec;
	});
	bench_header("clocksync: converting one timestamp");
	BENCH_NS_PER_OP(ns, N, bench_sink += hvt_tsc_to_guest(&x, i_ * 1000));
	bench_row("KVM transform host -> guest (scaled)", ns, "rdtsc", rdtsc_ns);
	BENCH_NS_PER_OP(ns, N, bench_sink += hvt_tsc_to_host(&x, i_ * 1000 + (1ull << 40)));
	bench_row("KVM transform guest -> host (128-bit div)", ns, "rdtsc", rdtsc_ns);

	hvt_tsc_timeline_init(&tl);
	for (i = 0; i < 16; i++) {
		struct hvt_tsc_segment s = { i * 1000000000ull, { i * 777, 1ull << 48, 48, 0 },
					     HVT_TSC_SRC_TRACEPOINT };

		hvt_tsc_timeline_add(&tl, &s);
	}
	BENCH_NS_PER_OP(ns, N, {
		static struct hvt_tsc_cursor cur;

		if (i_ == 0)
			cur = (struct hvt_tsc_cursor){ 0, 0, 0 };
		bench_sink += hvt_tsc_timeline_to_host(&tl, &cur, i_ * 500);
	});
	bench_row("timeline guest -> host, unscaled, in order", ns, "rdtsc", rdtsc_ns);
	hvt_tsc_timeline_free(&tl);

	for (i = 0; i < 3600; i++)
		pairs[i] = (struct hvt_clock_pair){ 1000000 + i * 2445000000ull,
						    (int64_t)(i * 1000000000ull + (i % 7) * 13),
						    (int64_t)(i * 1000000000ull), 10 };
	hvt_host_clock_init(&hc, pairs, 3600, 0);
	BENCH_NS_PER_OP(ns, N, bench_sink += (uint64_t)hvt_host_clock_since_start(
					&hc, 1000000 + i_ * 400000));
	bench_row("host TSC -> ns since start, in order", ns, "clock_gettime(MONOTONIC)",
		  gettime_ns);
	hvt_host_clock_free(&hc);

	/* the estimator, fed a simulated hour of kvm-like exchanges */
	hvt_sim_defaults(&c);
	c.duration_s = 3600;
	c.drift_ppm = 100;
	hvt_sim_run(&c, collect, &m);
	bench_header("clocksync: estimator");
	{
		double best = 1e300;
		int r;

		for (r = 0; r < BENCH_ROUNDS; r++) {
			struct hvt_estimator *e = hvt_est_new();
			double t0 = bench_now();

			for (i = 0; i < m.n; i++)
				hvt_est_exchange(e, &m.ex[i]);
			ns = (bench_now() - t0) / (double)(2 * m.n);
			if (ns < best)
				best = ns;
			hvt_est_free(e);
		}
		bench_row("update: one sample (kvm-like hour)", best, "clock_gettime(MONOTONIC)",
			  gettime_ns);
	}
	{
		struct hvt_estimator *e = hvt_est_new();
		struct hvt_est_value v;
		uint64_t start = hvt_sim_start(&c), span = (uint64_t)(3600 * c.host_hz);

		for (i = 0; i < m.n; i++)
			hvt_est_exchange(e, &m.ex[i]);
		hvt_est_finish(e);
		BENCH_NS_PER_OP(ns, N / 10, {
			hvt_est_eval(e, start + i_ * (span / (N / 10)), &v);
			bench_sink += v.guest;
		});
		bench_row("interval at one instant, in order", ns, "clock_gettime(MONOTONIC)",
			  gettime_ns);

		/* what merge pays per guest event: an estimated line is never unscaled */
		hvt_tsc_timeline_init(&tl);
		if (hvt_est_timeline(e, &tl))
			return 1;
		{
			uint64_t g0 = hvt_tsc_timeline_to_guest(&tl, start);

			BENCH_NS_PER_OP(ns, N, {
				static struct hvt_tsc_cursor cur;

				if (i_ == 0)
					cur = (struct hvt_tsc_cursor){ 0, 0, 0 };
				bench_sink += hvt_tsc_timeline_to_host(&tl, &cur,
								       g0 + i_ * (span / N));
			});
		}
		bench_row("timeline guest -> host, estimated line", ns, "rdtsc", rdtsc_ns);
		hvt_tsc_timeline_free(&tl);
		hvt_est_free(e);
	}
	free(m.ex);
	bench_run_bounds(ns);
	return 0;
}
