// SPDX-License-Identifier: GPL-2.0-only
/*
 * drift_suite.c - the scenarios of the clock-drift test suite and how they
 * are measured (drift_suite.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clocksync/drift_suite.h"
#include "clocksync/estimator.h"
#include "clocksync/tsc_timeline.h"

#define MAX_EVAL	20000
#define MIN_EVAL	1000
#define RECOVERED_NS	1000.0

enum kind { ESTIMATE, EXACT_INTEL, EXACT_AMD, EXACT_CHANGES };

struct scenario {
	const char *name;
	const char *summary;
	enum kind kind;
	void (*setup)(struct hvt_sim_config *c);	/* events at fractions of the run */
	double duration_s;				/* its own length; 0: 120 s */
	int outside;		/* the truth breaks the guarantee's premises on purpose */
};

static void ev(struct hvt_sim_config *c, double frac, enum hvt_sim_event_kind k, double v)
{
	c->events[c->nr_events++] = (struct hvt_sim_event){ frac * c->duration_s, k, v };
}

static void s_constant(struct hvt_sim_config *c) { (void)c; }
static void s_drift1(struct hvt_sim_config *c) { c->drift_ppm = 1; }
static void s_drift50(struct hvt_sim_config *c) { c->drift_ppm = 50; }
static void s_drift100(struct hvt_sim_config *c) { c->drift_ppm = 100; }
static void s_drift500(struct hvt_sim_config *c) { c->drift_ppm = 500; }

static void s_drift_change(struct hvt_sim_config *c)
{
	ev(c, 0.4, HVT_SIM_RATE, 200);		/* an NTP slew starts */
	ev(c, 0.7, HVT_SIM_RATE, 0);		/* and ends */
}

static void s_temperature(struct hvt_sim_config *c)
{
	c->drift_ppm = 20;
	c->wobble_ppm = 0.5;
	c->wobble_period_s = 300;
}

static void s_migration(struct hvt_sim_config *c)
{
	ev(c, 0.5, HVT_SIM_JUMP, 0.05 * c->host_hz);	/* +50 ms */
}

static void s_small_jump(struct hvt_sim_config *c)
{
	ev(c, 0.5, HVT_SIM_JUMP, 10e-6 * c->host_hz);	/* 10 us, under the noise */
}

static void s_suspend(struct hvt_sim_config *c)
{
	ev(c, 0.5, HVT_SIM_JUMP, -0.002 * c->host_hz);	/* back 2 ms */
}

/*
 * The guest stopped 2 s (a VM pause): its TSC stops too, and an exchange
 * in flight is answered only after it resumes, with a 2 s round trip.
 */
static void s_pause(struct hvt_sim_config *c)
{
	ev(c, 0.5, HVT_SIM_PAUSE, 2.0);
}

static void s_scaling(struct hvt_sim_config *c)
{
	ev(c, 0.5, HVT_SIM_RATE, 2500);		/* a new TSC scaling ratio */
}

static void s_asymmetric(struct hvt_sim_config *c)
{
	c->h2g = (struct hvt_sim_delay){ 2000, 5000, 0 };
	c->g2h = (struct hvt_sim_delay){ 15000, 60000, 0 };
}

static void s_heavy(struct hvt_sim_config *c)
{
	c->h2g = (struct hvt_sim_delay){ 2000, 20000, 1.3 };
	c->g2h = (struct hvt_sim_delay){ 2000, 20000, 1.3 };
}

static void s_lossy(struct hvt_sim_config *c)
{
	c->loss = 0.3;
	c->dup = 0.05;
	c->reorder = 0.05;
}

static void s_vcpus(struct hvt_sim_config *c)
{
	c->nr_vcpus = 2;
	c->vcpu_skew_ns = 40000;
}

static void s_kvm_like(struct hvt_sim_config *c)
{
	c->drift_ppm = 100;
}

/* TCG over virtio-serial: 200 us round trips, and the vCPU threads' runs. */
static void s_vcpu_runs(struct hvt_sim_config *c)
{
	c->h2g = (struct hvt_sim_delay){ 50000, 50000, 0 };
	c->g2h = c->h2g;
	c->drift_ppm = 20;
	c->nr_vcpus = 2;
	c->run_ms = 4;
	c->gap_ms = 2;
	c->edge_ns = 5000;
	c->event_hz = 500;
}

/* The same, and the guest's TSC set back 2 ms mid-run (a suspend, a restore). */
static void s_vcpu_runs_jump(struct hvt_sim_config *c)
{
	s_vcpu_runs(c);
	s_suspend(c);
}

static const struct scenario scenarios[] = {
	{ "constant-offset", "same rate, constant offset", ESTIMATE, s_constant, 0, 0 },
	{ "drift-1ppm", "guest 1 ppm fast", ESTIMATE, s_drift1, 0, 0 },
	{ "drift-50ppm", "guest 50 ppm fast", ESTIMATE, s_drift50, 0, 0 },
	{ "drift-100ppm", "guest 100 ppm fast", ESTIMATE, s_drift100, 0, 0 },
	{ "drift-500ppm", "guest 500 ppm fast", ESTIMATE, s_drift500, 0, 0 },
	{ "drift-change", "drift +200 ppm from 40% to 70% of the run", ESTIMATE, s_drift_change, 0, 0 },
	{ "temperature", "20 ppm wobbling +/-0.5 ppm over 5 min (not linear)", ESTIMATE,
	  s_temperature, 0, 1 },
	{ "migration", "offset jumps +50 ms mid-run", ESTIMATE, s_migration, 0, 0 },
	{ "suspend", "offset jumps back 2 ms mid-run", ESTIMATE, s_suspend, 0, 0 },
	{ "pause", "the guest stops 2 s mid-run, an exchange in flight across it", ESTIMATE,
	  s_pause, 0, 0 },
	{ "small-jump", "offset jumps 10 us, under the delay noise (unnoticeable)", ESTIMATE,
	  s_small_jump, 0, 1 },
	{ "scaling-change", "TSC scaling changes the rate by 2500 ppm mid-run", ESTIMATE, s_scaling, 0, 0 },
	{ "symmetric-delay", "2 us floor + exp 20 us both ways", ESTIMATE, s_constant, 0, 0 },
	{ "asymmetric-delay", "2+5 us to the guest, 15+60 us back", ESTIMATE, s_asymmetric, 0, 0 },
	{ "heavy-tail", "Pareto (alpha 1.3) delays, mean 20 us", ESTIMATE, s_heavy, 0, 0 },
	{ "lossy", "30% lost, 5% duplicated, 5% reordered", ESTIMATE, s_lossy, 0, 0 },
	{ "per-vcpu", "two vCPUs whose TSCs differ by 40 us", ESTIMATE, s_vcpus, 0, 0 },
	{ "kvm-like", "1 h, 10/s, 2 us + exp 20 us, 100 ppm", ESTIMATE, s_kvm_like, 3600, 0 },
	{ "vcpu-runs", "TCG-like 200 us round trips, bounded too by 2 vCPUs' host runs "
	  "(4 ms on, 2 ms off, events 5 us from their edges)", ESTIMATE, s_vcpu_runs, 60, 0 },
	{ "vcpu-runs-jump", "vcpu-runs, and the offset jumps back 2 ms mid-run (runs used "
	  "segment by segment)", ESTIMATE, s_vcpu_runs_jump, 60, 0 },
	{ "exact-intel", "KVM transforms, frac 48, ratios at the limits", EXACT_INTEL, NULL, 0, 0 },
	{ "exact-amd", "KVM transforms, frac 32, ratios at the limits", EXACT_AMD, NULL, 0, 0 },
	{ "exact-offset-changes", "offset jumps both ways, per-stream order", EXACT_CHANGES, NULL, 0, 0 },
};

#define NR_SCENARIOS (sizeof(scenarios) / sizeof(scenarios[0]))

size_t hvt_drift_nr_scenarios(void)
{
	return NR_SCENARIOS;
}

const char *hvt_drift_scenario_name(size_t i)
{
	return i < NR_SCENARIOS ? scenarios[i].name : NULL;
}

const char *hvt_drift_scenario_summary(size_t i)
{
	return i < NR_SCENARIOS ? scenarios[i].summary : NULL;
}

int hvt_drift_scenario_guaranteed(size_t i)
{
	return i < NR_SCENARIOS && !scenarios[i].outside;
}

long hvt_drift_find(const char *name)
{
	size_t i;

	for (i = 0; i < NR_SCENARIOS; i++)
		if (!strcmp(scenarios[i].name, name))
			return (long)i;
	return -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double pct(double *v, size_t n, double p)
{
	size_t i = (size_t)(p * (double)(n - 1) + 0.5);

	return n ? v[i < n ? i : n - 1] : 0;
}

/* Fills the percentiles; sorts @err and @bound. */
static void summarize(struct hvt_drift_result *r, double *err, double *bound, size_t n)
{
	qsort(err, n, sizeof(*err), cmp_double);
	qsort(bound, n, sizeof(*bound), cmp_double);
	r->evaluated = n;
	r->err_p50_ns = pct(err, n, 0.50);
	r->err_p99_ns = pct(err, n, 0.99);
	r->err_max_ns = n ? err[n - 1] : 0;
	r->bound_p50_ns = pct(bound, n, 0.50);
}

struct feed {
	struct hvt_estimator *est[HVT_SIM_MAX_VCPUS];
	uint64_t samples;
	int keep;			/* keep the exchanges, for a refit with runs */
	struct hvt_exchange *ex[HVT_SIM_MAX_VCPUS];
	size_t nr_ex[HVT_SIM_MAX_VCPUS], cap_ex[HVT_SIM_MAX_VCPUS];
	int failed;
};

static void feed_one(void *ctx, const struct hvt_sim_message *m)
{
	struct feed *f = ctx;
	int v = m->vcpu;

	hvt_est_exchange(f->est[v], &m->ex);
	f->samples += 2;
	if (!f->keep)
		return;
	if (f->nr_ex[v] == f->cap_ex[v]) {
		size_t cap = f->cap_ex[v] ? 2 * f->cap_ex[v] : 256;
		struct hvt_exchange *grown = realloc(f->ex[v], cap * sizeof(*grown));

		if (!grown) {
			f->failed = 1;
			return;
		}
		f->ex[v] = grown;
		f->cap_ex[v] = cap;
	}
	f->ex[v][f->nr_ex[v]++] = m->ex;
}

static size_t eval_count(const struct hvt_sim_config *c)
{
	double n = 4 * c->duration_s * c->rate_hz;

	return n > MAX_EVAL ? MAX_EVAL : n < MIN_EVAL ? MIN_EVAL : (size_t)n;
}

static double last_change_s(const struct hvt_sim_config *c)
{
	double t = -1;
	int i;

	for (i = 0; i < c->nr_events; i++)
		if (c->events[i].at_s > t)
			t = c->events[i].at_s;
	return t;
}

/*
 * Measures the finished estimators at evenly spaced instants: the interval
 * against the truth (violations), and the error of what merge does - the
 * true guest value at instant h taken back to host time through the
 * estimator's timeline (one cursor per vCPU, values in stream order) - in
 * host ns from h.
 */
static int measure(const struct hvt_sim_config *c, struct feed *f, struct hvt_drift_result *r)
{
	const size_t n = eval_count(c), nv = (size_t)c->nr_vcpus;
	const double to_ns = 1e9 / c->host_hz, change = last_change_s(c);
	double *err = malloc(n * nv * sizeof(*err)), *bound = malloc(n * nv * sizeof(*bound));
	struct hvt_tsc_timeline tl[HVT_SIM_MAX_VCPUS];
	struct hvt_tsc_cursor cur[HVT_SIM_MAX_VCPUS];
	const uint64_t start = hvt_sim_start(c);
	double last_bad = -1;
	size_t i, k = 0;
	int v, ret = -1;

	memset(cur, 0, sizeof(cur));
	for (v = 0; v < c->nr_vcpus; v++)
		hvt_tsc_timeline_init(&tl[v]);
	for (v = 0; v < c->nr_vcpus; v++)
		if (hvt_est_timeline(f->est[v], &tl[v]))
			goto out;
	if (!err || !bound)
		goto out;
	for (i = 0; i < n; i++) {
		double t = ((double)i + 0.5) * c->duration_s / (double)n;
		uint64_t h = start + (uint64_t)(t * c->host_hz);

		for (v = 0; v < c->nr_vcpus; v++, k++) {
			uint64_t truth = hvt_sim_truth(c, v, h), central;
			uint64_t merged = hvt_tsc_timeline_to_host(&tl[v], &cur[v], truth);
			struct hvt_est_value e;

			hvt_est_eval(f->est[v], h, &e);
			err[k] = fabs((double)(int64_t)(merged - h)) * to_ns;
			bound[k] = e.bounded ? (double)(e.hi - e.lo) / 2 * to_ns : HUGE_VAL;
			if (e.bounded && (truth < e.lo || truth > e.hi))
				r->violations++;
			r->in_window += e.in_window != 0;
			central = hvt_tsc_timeline_to_guest(&tl[v], h);
			/* the transform is fixed-point: one tick of rounding either way */
			if (e.bounded && !e.in_window && (central + 1 < e.lo || central > e.hi + 1))
				r->central_outside++;
			if (change >= 0 && t >= change && err[k] >= RECOVERED_NS)
				last_bad = t;
		}
	}
	r->recovery_s = change < 0 ? -1 : last_bad < 0 ? 0 :
			last_bad >= c->duration_s * (1 - 1.0 / (double)n) - 1e-9 ? HUGE_VAL :
			last_bad - change;
	summarize(r, err, bound, k);
	ret = 0;
out:
	for (v = 0; v < c->nr_vcpus; v++)
		hvt_tsc_timeline_free(&tl[v]);
	free(err);
	free(bound);
	return ret;
}

int hvt_drift_run_config(const struct hvt_sim_config *c, const char *name,
			 struct hvt_drift_result *r)
{
	struct feed f;
	int v, ret = -1;

	memset(r, 0, sizeof(*r));
	memset(&f, 0, sizeof(f));
	r->scenario = name;
	f.keep = c->run_ms > 0;
	for (v = 0; v < c->nr_vcpus; v++)
		if (!(f.est[v] = hvt_est_new()))
			goto out;
	hvt_sim_run(c, feed_one, &f);
	if (f.failed)
		goto out;
	for (v = 0; v < c->nr_vcpus; v++) {
		hvt_est_finish(f.est[v]);
		if (hvt_est_nr_segments(f.est[v]) > r->segments)
			r->segments = hvt_est_nr_segments(f.est[v]);
		/* as the alignment: segment by segment (run_bounds.h) */
		if (f.keep && hvt_drift_runs_refit(c, v, &f.est[v], f.ex[v], f.nr_ex[v], r))
			goto out;
	}
	r->samples = f.samples;
	r->changes = (size_t)c->nr_events;
	ret = measure(c, &f, r);
out:
	for (v = 0; v < c->nr_vcpus; v++) {
		hvt_est_free(f.est[v]);
		free(f.ex[v]);
	}
	return ret;
}

/* ---- exact paths: KVM's transforms, no estimation ---- */

static uint64_t pick_ratio(struct hvt_sim_rng *rng, uint32_t frac)
{
	const uint64_t one = 1ull << frac;
	/* AMD: 8.32 fixed point; Intel: 16.48, KVM's whole range */
	const uint64_t max = frac == 32 ? (0xffull << 32) | 0xffffffffull : ~0ull;

	switch (hvt_sim_rand(rng) % 6) {
	case 0: return one;
	case 1: return one - 1 - hvt_sim_rand(rng) % 1000;
	case 2: return one + 1 + hvt_sim_rand(rng) % 1000;
	case 3: return max - hvt_sim_rand(rng) % 1000;
	case 4: return one / 2 + hvt_sim_rand(rng) % (one / 2);	/* a slower guest */
	default: return one + hvt_sim_rand(rng) % (8 * one);
	}
}

/* Is @back the first host tick of segment @s showing @g, and not after @h? */
static int exact_ok(const struct hvt_tsc_segment *s, uint64_t h, uint64_t g, uint64_t back)
{
	return back <= h && hvt_tsc_to_guest(&s->x, back) == g &&
	       (back == s->host_start || hvt_tsc_to_guest(&s->x, back - 1) != g);
}

static int run_exact(enum kind kind, const struct hvt_drift_options *o,
		     const struct hvt_sim_config *c, struct hvt_drift_result *r)
{
	struct hvt_sim_rng rng = { (o->seed ? o->seed : 1) * 0x9e3779b97f4a7c15ull + (uint64_t)kind };
	const uint32_t frac = kind == EXACT_AMD ? 32 : 48;
	const double hz = c->host_hz;
	const uint64_t start = hvt_sim_start(c), span = (uint64_t)(c->duration_s * hz);
	struct hvt_tsc_timeline tl;
	struct hvt_tsc_cursor cur = { 0, 0, 0 };
	double *err, *bound;
	size_t i, n = MAX_EVAL, nseg = 12;

	memset(r, 0, sizeof(*r));
	r->recovery_s = -1;
	hvt_tsc_timeline_init(&tl);
	for (i = 0; i < nseg; i++) {
		struct hvt_tsc_segment s = { start + span / nseg * i, { 0, 1ull << frac, frac, 0 },
					     HVT_TSC_SRC_TRACEPOINT };

		if (kind != EXACT_CHANGES)
			s.x.ratio = pick_ratio(&rng, frac);
		/* offsets of every kind: 0, negative, huge */
		s.x.offset = i == 0 ? 0 : (uint64_t)((int64_t)(hvt_sim_rand(&rng) % 2000000001) -
						     1000000000) * (i % 3 == 0 ? 1000 : 1);
		if (hvt_tsc_timeline_add(&tl, &s))
			return -1;
	}
	err = calloc(n, sizeof(*err));
	bound = calloc(n, sizeof(*bound));
	if (!err || !bound) {
		free(err);
		free(bound);
		hvt_tsc_timeline_free(&tl);
		return -1;
	}
	for (i = 0; i < n; i++) {
		uint64_t h = start + (uint64_t)((double)span * ((double)i + 0.5) / (double)n);
		const struct hvt_tsc_segment *s = hvt_tsc_timeline_at(&tl, h);
		uint64_t g = hvt_tsc_to_guest(&s->x, h);
		uint64_t back = hvt_tsc_timeline_to_host(&tl, &cur, g);

		/* the error: guest ticks between g and what the host instant reads */
		err[i] = fabs((double)(int64_t)(hvt_tsc_to_guest(&s->x, back) - g)) * 1e9 / hz;
		if (!exact_ok(s, h, g, back))
			r->violations++;
	}
	r->samples = n;
	r->segments = nseg;
	summarize(r, err, bound, n);
	free(err);
	free(bound);
	hvt_tsc_timeline_free(&tl);
	return 0;
}

int hvt_drift_run(size_t i, const struct hvt_drift_options *o, struct hvt_drift_result *r)
{
	const struct scenario *sc;
	struct hvt_sim_config c;
	int ret;

	if (i >= NR_SCENARIOS)
		return -1;
	sc = &scenarios[i];
	hvt_sim_defaults(&c);
	c.duration_s = o->duration_s > 0 ? o->duration_s : sc->duration_s > 0 ? sc->duration_s : 120;
	if (sc->kind != ESTIMATE) {
		ret = run_exact(sc->kind, o, &c, r);
		r->scenario = sc->name;
		return ret;
	}
	if (o->rate_hz > 0)
		c.rate_hz = o->rate_hz;
	c.seed = (o->seed ? o->seed : 1) * 1000003u + i;
	sc->setup(&c);
	return hvt_drift_run_config(&c, sc->name, r);
}

static double between(struct hvt_sim_rng *r, double lo, double hi)
{
	return lo + (hi - lo) * hvt_sim_uniform(r);
}

void hvt_drift_random_config(uint64_t seed, struct hvt_sim_config *c)
{
	struct hvt_sim_rng r = { seed * 0xd1b54a32d192ed03ull + 7 };

	hvt_sim_defaults(c);
	c->seed = seed;
	c->duration_s = between(&r, 10, 40);
	c->rate_hz = between(&r, 5, 40);
	c->drift_ppm = between(&r, -500, 500);
	c->offset_ticks = between(&r, -3.99e12, 1e15);
	c->h2g = (struct hvt_sim_delay){ between(&r, 500, 10000), between(&r, 1000, 80000),
					 hvt_sim_uniform(&r) < 0.2 ? between(&r, 1.1, 3) : 0 };
	c->g2h = hvt_sim_uniform(&r) < 0.5 ? c->h2g :
		 (struct hvt_sim_delay){ between(&r, 500, 10000), between(&r, 1000, 80000), 0 };
	c->process_ns = between(&r, 500, 20000);
	c->loss = hvt_sim_uniform(&r) < 0.3 ? between(&r, 0, 0.4) : 0;
	c->dup = hvt_sim_uniform(&r) < 0.2 ? between(&r, 0, 0.1) : 0;
	c->reorder = hvt_sim_uniform(&r) < 0.2 ? between(&r, 0, 0.1) : 0;
	/*
	 * Changes the guarantee covers: large enough to be noticed (a jump of 1 to
	 * 10 ms, a drift change of 100 to 500 ppm) and 10 s or more apart.
	 */
	if (hvt_sim_uniform(&r) < 0.4) {
		int two = hvt_sim_uniform(&r) < 0.3, k;
		double rate = c->drift_ppm;	/* each change is relative to the rate in force */

		if (two && c->duration_s < 20)
			c->duration_s = 20 + 20 * hvt_sim_uniform(&r);
		for (k = 0; k <= two; k++) {
			double at = two ? (k ? between(&r, 0.7, 0.8) : between(&r, 0.2, 0.3)) :
				    between(&r, 0.2, 0.8);
			double sign = hvt_sim_uniform(&r) < 0.5 ? -1 : 1;

			if (hvt_sim_uniform(&r) < 0.5)
				ev(c, at, HVT_SIM_JUMP, sign * between(&r, 1, 10) * 1e-3 * c->host_hz);
			else
				ev(c, at, HVT_SIM_RATE, rate += sign * between(&r, 100, 500));
		}
	}
	/*
	 * The vCPU threads' host runs, for clocks with changes too; drawn
	 * after the rest, so that the other draws stay what they were for
	 * each seed.
	 */
	if (hvt_sim_uniform(&r) < 0.25) {
		c->run_ms = between(&r, 0.2, 20);
		c->gap_ms = between(&r, 0.05, 10);
		c->edge_ns = between(&r, 500, 50000);
		c->event_hz = hvt_sim_uniform(&r) < 0.5 ? 0 : between(&r, 10, 2000);
		c->nr_vcpus = 1 + (int)(hvt_sim_rand(&r) % 2);
	}
}
