/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim.h - a host and a guest clock with known truth, and the messages
 * between them, for the clock-drift test suite (drift_suite.h).
 *
 * The guest TSC is a piecewise-linear function of the host TSC - offset
 * jumps and rate changes at given instants - plus an optional sinusoidal
 * wobble (temperature), per vCPU. Exchanges happen at a fixed rate with
 * jitter; each message's delay is a floor plus an exponential or Pareto
 * tail; messages can be lost, duplicated or reordered. Everything is drawn
 * from one seeded generator, so a run is reproducible bit for bit.
 */
#ifndef HVT_CLOCKSYNC_SIM_H
#define HVT_CLOCKSYNC_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "clocksync/clocksync.h"

#define HVT_SIM_MAX_EVENTS	8
#define HVT_SIM_MAX_VCPUS	4

enum hvt_sim_event_kind {
	HVT_SIM_JUMP = 1,	/* guest TSC jumps by @value ticks */
	HVT_SIM_RATE = 2,	/* guest rate becomes nominal * (1 + @value ppm / 1e6) */
	HVT_SIM_PAUSE = 3,	/* the guest stops for @value seconds, its TSC with it, and
				   takes in and answers nothing until it resumes */
};

struct hvt_sim_event {
	double at_s;		/* seconds after the start */
	enum hvt_sim_event_kind kind;
	double value;
};

struct hvt_sim_delay {
	double floor_ns;
	double mean_ns;		/* of the tail above the floor */
	double pareto_alpha;	/* > 0: Pareto tail with this shape instead of exponential */
};

struct hvt_sim_config {
	uint64_t seed;
	double duration_s;
	double rate_hz;		/* exchanges per second */
	double host_hz;		/* host TSC frequency */
	double drift_ppm;	/* initial guest rate vs host, ppm */
	double offset_ticks;	/* guest TSC - host TSC at the start */
	double wobble_ppm;	/* sinusoidal drift amplitude (temperature) */
	double wobble_period_s;
	struct hvt_sim_event events[HVT_SIM_MAX_EVENTS];
	int nr_events;
	struct hvt_sim_delay h2g, g2h;
	double process_ns;	/* guest time between receiving and replying */
	double loss, dup, reorder;	/* probabilities per exchange */
	int nr_vcpus;		/* 1 by default */
	double vcpu_skew_ns;	/* vCPU c's offset differs by c * skew */
	/*
	 * > 0: each vCPU's host thread runs for about run_ms, then is off for
	 * about gap_ms (exponential), and the guest stamps events only while it
	 * runs: one about edge_ns (exponential) after a run starts, one about
	 * as long before it ends, and event_hz more in between (Poisson).
	 */
	double run_ms, gap_ms, edge_ns, event_hz;
};

struct hvt_sim_rng {
	uint64_t s;
};

struct hvt_sim_message {
	struct hvt_exchange ex;
	int vcpu;		/* which vCPU's TSC the guest read */
};

/* A ready-to-run configuration: 120 s at 10 Hz, 2.5 GHz, no drift, kvm-like delays. */
void hvt_sim_defaults(struct hvt_sim_config *c);

uint64_t hvt_sim_rand(struct hvt_sim_rng *r);
double hvt_sim_uniform(struct hvt_sim_rng *r);	/* [0, 1) */

/* The host TSC at the start of the simulated run. */
uint64_t hvt_sim_start(const struct hvt_sim_config *c);
/* The true guest TSC of @vcpu at host TSC @host. */
uint64_t hvt_sim_truth(const struct hvt_sim_config *c, int vcpu, uint64_t host);

/*
 * Generates every message in delivery order; @emit is called once per
 * delivered exchange (twice for a duplicate). Returns the number emitted.
 */
size_t hvt_sim_run(const struct hvt_sim_config *c,
		   void (*emit)(void *ctx, const struct hvt_sim_message *m), void *ctx);
/*
 * With run_ms > 0: vCPU @vcpu's runs over the whole run, each as @run(start,
 * end) in host TSC, and the guest TSC values of the events stamped in them
 * as @event(guest), in time order.
 */
void hvt_sim_runs(const struct hvt_sim_config *c, int vcpu,
		  void (*run)(void *ctx, uint64_t start, uint64_t end),
		  void (*event)(void *ctx, uint64_t guest), void *ctx);

#endif
