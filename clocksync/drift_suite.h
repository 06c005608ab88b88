/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * drift_suite.h - the clock-drift test suite: named scenarios with known
 * truth, run through the estimator (or the exact transforms), measured
 * against the truth. `hvtrace drift` prints it; tests/unit/test_drift.c
 * holds it to its targets.
 *
 * For each scenario: the estimate's error at evenly spaced host instants
 * (p50, p99, max, in ns), the half-width of the guaranteed interval (p50),
 * and violations: instants where the interval excluded the truth.
 *
 * The guarantee (estimator.h) holds when the guest clock is linear in host
 * time between changes and every change is large enough to be noticed and
 * apart from the next; hvt_drift_random_config() draws from exactly that.
 */
#ifndef HVT_CLOCKSYNC_DRIFT_SUITE_H
#define HVT_CLOCKSYNC_DRIFT_SUITE_H

#include <stddef.h>
#include <stdint.h>

#include "clocksync/sim.h"

struct hvt_estimator;

struct hvt_drift_options {
	uint64_t seed;		/* 0: 1 */
	double duration_s;	/* 0: the scenario's own */
	double rate_hz;		/* 0: the scenario's own */
};

struct hvt_drift_result {
	const char *scenario;
	uint64_t samples;	/* one-way samples fed (conversions, for exact paths) */
	uint64_t evaluated;	/* instants measured */
	double err_p50_ns, err_p99_ns, err_max_ns;
	double bound_p50_ns;
	uint64_t violations;
	uint64_t central_outside;	/* instants outside change windows where the line
					   merge uses left the interval by more than the
					   tick its fixed-point transform may round (0 if
					   it holds) */
	size_t segments;	/* the estimator's, most of any vCPU */
	size_t changes;		/* clock changes the scenario made */
	double recovery_s;	/* after the last change, until the error stays < 1 us;
				   -1: no change in the scenario; HUGE_VAL: never */
	uint64_t in_window;	/* instants in a change window (the union of two segments) */
	uint64_t run_bounds;	/* one-way bounds from vCPU runs (run_ms > 0) */
	uint64_t run_contradictions;	/* events outside every run: must be 0 */
};

size_t hvt_drift_nr_scenarios(void);
const char *hvt_drift_scenario_name(size_t i);
const char *hvt_drift_scenario_summary(size_t i);
/*
 * 0 for the scenarios whose truth breaks the guarantee's premises on
 * purpose (a clock that is not piecewise linear, a change smaller than the
 * delay noise): they show where the guarantee ends.
 */
int hvt_drift_scenario_guaranteed(size_t i);
/* -1 if no scenario has that name. */
long hvt_drift_find(const char *name);
/* Runs scenario @i; 0, or -1 on allocation failure. */
int hvt_drift_run(size_t i, const struct hvt_drift_options *o, struct hvt_drift_result *r);
/* Runs any configuration through the estimator. */
int hvt_drift_run_config(const struct hvt_sim_config *c, const char *name,
			 struct hvt_drift_result *r);
/*
 * A random configuration from the families the estimator's guarantee
 * covers: any offset, constant drift up to 500 ppm, symmetric, asymmetric
 * or heavy-tailed delays, loss, duplicates, reordering, offset jumps and
 * drift changes.
 */
void hvt_drift_random_config(uint64_t seed, struct hvt_sim_config *c);
/*
 * Refits vCPU @vcpu's finished estimator *@est, fed with exchanges @ex, with
 * bounds from its simulated host runs (sim.h: run_ms), in rounds as the
 * alignment does; counts them and any contradiction in @r. -1 if out of
 * memory.
 */
int hvt_drift_runs_refit(const struct hvt_sim_config *c, int vcpu, struct hvt_estimator **est,
			 const struct hvt_exchange *ex, size_t nr_ex, struct hvt_drift_result *r);

#endif
