// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_drift.c - the clock-drift test suite held to its targets:
 *
 *   - exact paths: 0 ticks of error in every scenario;
 *   - the estimator: 0 violations over 10,000 randomized scenarios;
 *   - kvm-like (1 h, 10 exchanges/s, 2 us + exp 20 us, 100 ppm): p99 <= 100 ns;
 *   - vcpu-runs: the vCPU threads' host runs narrow a 200 us round trip's
 *     interval below 1 us, still containing the truth;
 *   - a drift change or an offset jump is detected, and the error is back
 *     under 1 us within 10 s of simulated time.
 */
#include <getopt.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "clocksync/drift_suite.h"
#include "clocksync/run_bounds.h"
#include "clocksync/sim.h"
#include "tests/unit/cmd_capture.h"
#include "tools/commands.h"

static struct hvt_drift_result run(const char *name)
{
	const struct hvt_drift_options o = { 1, 0, 0 };
	struct hvt_drift_result r;
	long i = hvt_drift_find(name);

	assert_true(i >= 0);
	assert_int_equal(hvt_drift_run((size_t)i, &o, &r), 0);
	return r;
}

static void test_exact_paths_are_exact(void **state)
{
	const char *names[] = { "exact-intel", "exact-amd", "exact-offset-changes" };
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		struct hvt_drift_result r = run(names[i]);

		assert_true(r.samples >= 10000);
		assert_int_equal(r.violations, 0);
		assert_true(r.err_max_ns == 0);
	}
}

static void test_kvm_like(void **state)
{
	struct hvt_drift_result r = run("kvm-like");

	(void)state;
	assert_true(r.samples >= 70000);	/* a simulated hour at 10/s */
	assert_int_equal(r.violations, 0);
	if (r.err_p99_ns > 100)
		fail_msg("kvm-like p99 error %.1f ns > 100 ns", r.err_p99_ns);
}

/*
 * TCG-like exchanges bound the clock to about +/-100 us; with the vCPUs'
 * host runs, under 1 us, the truth inside, no event outside every run.
 */
static void test_vcpu_runs(void **state)
{
	struct hvt_drift_result r = run("vcpu-runs");

	(void)state;
	assert_int_equal(r.violations, 0);
	assert_int_equal(r.run_contradictions, 0);
	assert_true(r.run_bounds > 1000);
	if (r.bound_p50_ns > 1000)
		fail_msg("vcpu-runs: median half-width %.1f ns > 1 us", r.bound_p50_ns);
}

/*
 * The same with the guest TSC set back 2 ms mid-run: two segments, values
 * shown twice around the jump; runs still bound both segments, the truth
 * inside.
 */
static void test_vcpu_runs_jump(void **state)
{
	struct hvt_drift_result r = run("vcpu-runs-jump");

	(void)state;
	assert_int_equal(r.violations, 0);
	assert_int_equal(r.run_contradictions, 0);
	assert_int_equal(r.segments, 2);
	assert_true(r.run_bounds > 1000);
	if (r.bound_p50_ns > 1000)
		fail_msg("vcpu-runs-jump: median half-width %.1f ns > 1 us", r.bound_p50_ns);
}

struct guest_values {
	uint64_t *v;
	size_t n, cap;
};

static void feed_vcpu0(void *ctx, const struct hvt_sim_message *m)
{
	if (m->vcpu == 0)
		hvt_est_exchange(ctx, &m->ex);
}

static void no_run(void *ctx, uint64_t start, uint64_t end)
{
	(void)ctx;
	(void)start;
	(void)end;
}

static void keep_value(void *ctx, uint64_t g)
{
	struct guest_values *gv = ctx;

	if (gv->n == gv->cap) {
		gv->cap = gv->cap ? 2 * gv->cap : 4096;
		gv->v = realloc(gv->v, gv->cap * sizeof(*gv->v));
		assert_non_null(gv->v);
	}
	gv->v[gv->n++] = g;
}

/*
 * The cheap window merge uses to skip events deep inside a run holds the
 * exact one, for every event of the random clocks with runs (changes
 * included), and is the cheap one for most.
 */
static void test_wide_window_holds_exact(void **state)
{
	uint64_t seed, checked = 0, cheap = 0;

	(void)state;
	for (seed = 1; seed <= 1000; seed++) {
		struct guest_values gv = { NULL, 0, 0 };
		struct hvt_estimator *e;
		struct hvt_tsc_timeline tl;
		struct hvt_run_clock rc;
		struct hvt_sim_config c;
		size_t i, seg;

		hvt_drift_random_config(seed, &c);
		if (c.run_ms <= 0)
			continue;
		e = hvt_est_new();
		assert_non_null(e);
		hvt_sim_run(&c, feed_vcpu0, e);
		hvt_est_finish(e);
		hvt_tsc_timeline_init(&tl);
		assert_int_equal(hvt_est_timeline(e, &tl), 0);
		assert_int_equal(hvt_run_clock_init(&rc, e, &tl), 0);
		hvt_sim_runs(&c, 0, no_run, keep_value, &gv);
		for (i = 0; i < gv.n; i++) {
			uint64_t lo, hi, wlo, whi;

			if (hvt_run_window(&rc, gv.v[i], &seg, &lo, &hi))
				continue;
			assert_int_equal(hvt_run_window_wide(&rc, gv.v[i], &wlo, &whi), 0);
			if (wlo > lo || whi < hi)
				fail_msg("seed %llu: event %zu: wide [%llu, %llu] misses [%llu, %llu]",
					 (unsigned long long)seed, i, (unsigned long long)wlo,
					 (unsigned long long)whi, (unsigned long long)lo,
					 (unsigned long long)hi);
			checked++;
			cheap += wlo != lo || whi != hi;
		}
		hvt_run_clock_free(&rc);
		hvt_tsc_timeline_free(&tl);
		hvt_est_free(e);
		free(gv.v);
	}
	print_message("%llu windows checked, %llu of them found the cheap way\n",
		      (unsigned long long)checked, (unsigned long long)cheap);
	assert_true(checked > 100000);
	assert_true(cheap > checked / 2);
}

/*
 * A VM paused 2 s: each exchange judged by its own round trip, so only
 * the pause itself (and a round trip or so) is left to a change window,
 * not two of the longest round trips (the ones in flight across the pause,
 * 2 s) on each side; and the events after it resumes are placed on the new
 * line at once, though the guest clock goes on with no step back.
 */
static void test_pause(void **state)
{
	struct hvt_drift_result r = run("pause");
	double window_s;

	(void)state;
	assert_int_equal(r.violations, 0);
	assert_int_equal(r.segments, 2);
	window_s = (double)r.in_window / (double)r.evaluated * 120;	/* a 120 s run */
	if (window_s > 2.5)
		fail_msg("pause: %.2f s in a change window (> 2.5)", window_s);
	if (r.recovery_s > 2.1)
		fail_msg("pause: the error is back under 1 us %.1f s after the pause began (> 2.1)",
			 r.recovery_s);
}

/* Every named scenario within the guarantee: no violation. */
static void test_guaranteed_scenarios(void **state)
{
	const struct hvt_drift_options o = { 1, 0, 0 };
	size_t i;

	(void)state;
	for (i = 0; i < hvt_drift_nr_scenarios(); i++) {
		struct hvt_drift_result r;

		if (!hvt_drift_scenario_guaranteed(i))
			continue;
		assert_int_equal(hvt_drift_run(i, &o, &r), 0);
		if (r.violations)
			fail_msg("%s: %llu violations", r.scenario, (unsigned long long)r.violations);
		/* the line merge converts with lies within the interval */
		if (r.central_outside)
			fail_msg("%s: central line outside the interval at %llu instants", r.scenario,
				 (unsigned long long)r.central_outside);
	}
}

static void test_ten_thousand_random_scenarios(void **state)
{
	uint64_t seed, violations = 0, outside = 0, split = 0, evaluated = 0, runs = 0;
	uint64_t contradictions = 0, split_runs = 0;

	(void)state;
	for (seed = 1; seed <= 10000; seed++) {
		struct hvt_sim_config c;
		struct hvt_drift_result r;

		hvt_drift_random_config(seed, &c);
		assert_int_equal(hvt_drift_run_config(&c, "random", &r), 0);
		if (r.violations && violations == 0)
			print_message("seed %llu: %llu violations\n", (unsigned long long)seed,
				      (unsigned long long)r.violations);
		violations += r.violations;
		outside += r.central_outside;
		split += r.segments > 1;
		runs += r.run_bounds > 0;
		split_runs += r.segments > 1 && r.run_bounds > 0;
		contradictions += r.run_contradictions;
		evaluated += r.evaluated;
	}
	assert_int_equal(violations, 0);
	assert_int_equal(outside, 0);
	/* the draw covers changes, not only the easy constant case */
	assert_true(split > 2000);
	/* and clocks bounded by vCPU runs too, whose events are all in a run */
	print_message("%llu clocks with runs, %llu of them with changes\n",
		      (unsigned long long)runs, (unsigned long long)split_runs);
	assert_true(runs > 2000);
	/* runs bound changed clocks too, segment by segment */
	assert_true(split_runs > 500);
	assert_int_equal(contradictions, 0);
	assert_true(evaluated > 10000000);
}

static void test_changes_detected_and_recovered(void **state)
{
	const char *names[] = { "drift-change", "migration", "suspend", "scaling-change" };
	size_t i;

	(void)state;
	for (i = 0; i < 4; i++) {
		struct hvt_drift_result r = run(names[i]);

		/* every change starts a segment of its own */
		assert_true(r.changes >= 1);
		if (r.segments < r.changes + 1)
			fail_msg("%s: %zu changes, %zu segments", names[i], r.changes, r.segments);
		if (!(r.recovery_s >= 0 && r.recovery_s <= 10))
			fail_msg("%s: error not under 1 us within 10 s (%g s)", names[i], r.recovery_s);
	}
}

static void test_reproducible(void **state)
{
	const struct hvt_drift_options a = { 7, 30, 20 }, b = { 8, 30, 20 };
	struct hvt_drift_result r1, r2, r3;
	long i = hvt_drift_find("lossy");

	(void)state;
	assert_int_equal(hvt_drift_run((size_t)i, &a, &r1), 0);
	assert_int_equal(hvt_drift_run((size_t)i, &a, &r2), 0);
	assert_int_equal(hvt_drift_run((size_t)i, &b, &r3), 0);
	assert_int_equal(r1.samples, r2.samples);
	assert_true(r1.err_p99_ns == r2.err_p99_ns && r1.err_max_ns == r2.err_max_ns);
	assert_true(r1.samples != r3.samples || r1.err_max_ns != r3.err_max_ns);
	/* --duration and --rate are obeyed: 30 s at 20/s, 30% lost, 2 samples each */
	assert_true(r1.samples > 700 && r1.samples < 1000);
}

static void test_tsv_output(void **state)
{
	char a0[] = "drift", a1[] = "--format", a2[] = "tsv", a3[] = "--duration", a4[] = "20",
	     a5[] = "drift-1ppm", a6[] = "exact-amd";
	char *argv[] = { a0, a1, a2, a3, a4, a5, a6, NULL }, *out, *line;
	int rows = 0;

	(void)state;
	optind = 1;
	assert_int_equal(capture_cmd(hvt_cmd_drift, 7, argv, "/tmp/hvtrace-test-drift.tsv", &out), 0);
	assert_non_null(out);
	line = strtok(out, "\n");
	assert_string_equal(line, "scenario\tsamples\terr_p50_ns\terr_p99_ns\terr_max_ns"
				  "\tbound_p50_ns\tviolations");
	while ((line = strtok(NULL, "\n"))) {
		int tabs = 0;
		char *p;

		for (p = line; *p; p++)
			tabs += *p == '\t';
		assert_int_equal(tabs, 6);
		rows++;
	}
	assert_int_equal(rows, 2);
	free(out);
	remove("/tmp/hvtrace-test-drift.tsv");
}

static void test_bad_arguments(void **state)
{
	char a0[] = "drift", a1[] = "no-such-scenario", b1[] = "--format", b2[] = "json",
	     c1[] = "--rate", c2[] = "-3";
	char *bad1[] = { a0, a1, NULL }, *bad2[] = { a0, b1, b2, NULL }, *bad3[] = { a0, c1, c2, NULL };

	(void)state;
	optind = 1;
	assert_int_equal(hvt_cmd_drift(2, bad1), 2);
	optind = 1;
	assert_int_equal(hvt_cmd_drift(3, bad2), 2);
	optind = 1;
	assert_int_equal(hvt_cmd_drift(3, bad3), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_paths_are_exact),
		cmocka_unit_test(test_kvm_like),
		cmocka_unit_test(test_vcpu_runs),
		cmocka_unit_test(test_vcpu_runs_jump),
		cmocka_unit_test(test_pause),
		cmocka_unit_test(test_wide_window_holds_exact),
		cmocka_unit_test(test_guaranteed_scenarios),
		cmocka_unit_test(test_ten_thousand_random_scenarios),
		cmocka_unit_test(test_changes_detected_and_recovered),
		cmocka_unit_test(test_reproducible),
		cmocka_unit_test(test_tsv_output),
		cmocka_unit_test(test_bad_arguments),
	};

	return cmocka_run_group_tests_name("drift", tests, NULL, NULL);
}
