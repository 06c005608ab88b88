// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_clocksync.c - the clock model's hot paths: converting one
 * timestamp (merge does it for every event) and feeding one sample to the
 * estimator (merge and check feed it every exchange of sync.tsv).
 */
#include <stdlib.h>
#include <x86intrin.h>
#include <hvtrace/clock_math.h>

#include "clocksync/estimator.h"
#include "clocksync/host_clock.h"
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
	return 0;
}
