// SPDX-License-Identifier: GPL-2.0-only
/*
 * sim.c - simulated clocks and messages (sim.h).
 */
#include <math.h>

#include "clocksync/sim.h"

#define MAX_TAIL_NS	50e6	/* cap a heavy tail at 50 ms */

void hvt_sim_defaults(struct hvt_sim_config *c)
{
	*c = (struct hvt_sim_config){
		.seed = 1,
		.duration_s = 120,
		.rate_hz = 10,
		.host_hz = 2.5e9,
		.offset_ticks = -3.9e12,	/* the guest booted long after the host */
		.h2g = { 2000, 20000, 0 },
		.g2h = { 2000, 20000, 0 },
		.process_ns = 3000,
		.nr_vcpus = 1,
	};
}

/* splitmix64: small, fast, and good enough to draw delays. */
uint64_t hvt_sim_rand(struct hvt_sim_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

double hvt_sim_uniform(struct hvt_sim_rng *r)
{
	return (double)(hvt_sim_rand(r) >> 11) * 0x1.0p-53;
}

uint64_t hvt_sim_start(const struct hvt_sim_config *c)
{
	(void)c;
	return 4000000000000ull;	/* ~27 minutes of host uptime at 2.5 GHz */
}

uint64_t hvt_sim_truth(const struct hvt_sim_config *c, int vcpu, uint64_t host)
{
	long double t = (long double)host - (long double)hvt_sim_start(c);
	long double tk = 0, rate = 1.0L + (long double)c->drift_ppm / 1e6L;
	long double g = (long double)hvt_sim_start(c) + (long double)c->offset_ticks +
			(long double)vcpu * (long double)c->vcpu_skew_ns * (long double)c->host_hz / 1e9L;
	int i;

	for (i = 0; i < c->nr_events; i++) {
		long double te = (long double)c->events[i].at_s * (long double)c->host_hz;

		if (t < te)
			break;
		g += rate * (te - tk);
		tk = te;
		if (c->events[i].kind == HVT_SIM_PAUSE) {
			long double end = te + (long double)c->events[i].value *
					       (long double)c->host_hz;

			if (t < end) {	/* stopped: the TSC reads what it read then */
				tk = t;
				break;
			}
			tk = end;
		} else if (c->events[i].kind == HVT_SIM_JUMP) {
			g += (long double)c->events[i].value;
		} else {
			rate = 1.0L + (long double)c->events[i].value / 1e6L;
		}
	}
	g += rate * (t - tk);
	if (c->wobble_ppm != 0 && c->wobble_period_s > 0) {
		long double period = (long double)c->wobble_period_s * (long double)c->host_hz;
		long double amp = (long double)c->wobble_ppm / 1e6L * period / (2 * 3.14159265358979323846L);

		g += amp * sinl(2 * 3.14159265358979323846L * t / period);
	}
	return (uint64_t)floorl(g);
}

static double delay_ns(struct hvt_sim_rng *r, const struct hvt_sim_delay *d)
{
	double u = hvt_sim_uniform(r), tail;

	if (d->pareto_alpha > 0) {
		double xm = d->mean_ns * (d->pareto_alpha > 1 ? d->pareto_alpha - 1 : 1);

		tail = xm * (pow(1 - u, -1 / d->pareto_alpha) - 1);
	} else {
		tail = -d->mean_ns * log(1 - u);
	}
	return d->floor_ns + (tail > MAX_TAIL_NS ? MAX_TAIL_NS : tail);
}

static uint64_t ticks(const struct hvt_sim_config *c, double ns)
{
	return (uint64_t)llround(ns * c->host_hz / 1e9);
}

/* Host instant @t, or the end of the pause it falls in: when a stopped guest acts. */
static uint64_t unless_paused(const struct hvt_sim_config *c, uint64_t t)
{
	int i;

	for (i = 0; i < c->nr_events; i++) {
		uint64_t from, to;

		if (c->events[i].kind != HVT_SIM_PAUSE)
			continue;
		from = hvt_sim_start(c) + (uint64_t)(c->events[i].at_s * c->host_hz);
		to = from + (uint64_t)(c->events[i].value * c->host_hz);
		if (t >= from && t < to)
			t = to;
	}
	return t;
}

size_t hvt_sim_run(const struct hvt_sim_config *c,
		   void (*emit)(void *ctx, const struct hvt_sim_message *m), void *ctx)
{
	struct hvt_sim_rng r = { c->seed * 0x2545f4914f6cdd1dull + 1 };
	const double period = c->host_hz / c->rate_hz;
	const uint64_t n = (uint64_t)(c->duration_s * c->rate_hz);
	struct hvt_sim_message held;
	int have_held = 0;
	size_t emitted = 0;
	uint64_t k;

	for (k = 0; k < n; k++) {
		struct hvt_sim_message m;
		uint64_t hs = hvt_sim_start(c) + (uint64_t)((double)k * period +
							  (hvt_sim_uniform(&r) * 0.5) * period);
		uint64_t d1 = ticks(c, delay_ns(&r, &c->h2g)), d2 = ticks(c, delay_ns(&r, &c->g2h));
		uint64_t p = ticks(c, c->process_ns);

		m.vcpu = c->nr_vcpus > 1 ? (int)(hvt_sim_rand(&r) % (uint64_t)c->nr_vcpus) : 0;
		uint64_t recv = unless_paused(c, hs + d1), reply = unless_paused(c, recv + p);

		m.ex.host_send = hs;
		m.ex.guest_recv = hvt_sim_truth(c, m.vcpu, recv);
		m.ex.guest_send = hvt_sim_truth(c, m.vcpu, reply);
		m.ex.host_recv = reply + d2;
		if (hvt_sim_uniform(&r) < c->loss)
			continue;
		if (!have_held && hvt_sim_uniform(&r) < c->reorder) {
			held = m;		/* delivered after the next one */
			have_held = 1;
			continue;
		}
		emit(ctx, &m);
		emitted++;
		if (hvt_sim_uniform(&r) < c->dup) {
			emit(ctx, &m);
			emitted++;
		}
		if (have_held) {
			emit(ctx, &held);
			emitted++;
			have_held = 0;
		}
	}
	if (have_held) {
		emit(ctx, &held);
		emitted++;
	}
	return emitted;
}

/* An exponential draw of mean @mean. */
static double exp_draw(struct hvt_sim_rng *r, double mean)
{
	return -mean * log(1.0 - hvt_sim_uniform(r));
}

void hvt_sim_runs(const struct hvt_sim_config *c, int vcpu,
		  void (*run)(void *ctx, uint64_t start, uint64_t end),
		  void (*event)(void *ctx, uint64_t guest), void *ctx)
{
	struct hvt_sim_rng r = { (c->seed + 7919u * (uint64_t)(vcpu + 1)) * 0x9e3779b97f4a7c15ull };
	const uint64_t start = hvt_sim_start(c);
	const uint64_t stop = start + (uint64_t)(c->duration_s * c->host_hz);
	uint64_t t = start + ticks(c, exp_draw(&r, c->gap_ms * 1e6));

	if (c->run_ms <= 0)
		return;
	while (t < stop) {
		uint64_t end = t + 1 + ticks(c, exp_draw(&r, c->run_ms * 1e6));
		uint64_t first = t + ticks(c, exp_draw(&r, c->edge_ns));
		uint64_t last = end - 1 - ticks(c, exp_draw(&r, c->edge_ns));
		uint64_t h = first, done = 0;

		if (end > stop)
			end = stop;
		run(ctx, t, end);
		/* the first event, events in between, the last one */
		while (h < end && h <= last) {
			event(ctx, hvt_sim_truth(c, vcpu, h));
			done = h;
			h += 1 + ticks(c, c->event_hz > 0 ? exp_draw(&r, 1e9 / c->event_hz) : 1e18);
		}
		if (last < end && last > done && last >= t)
			event(ctx, hvt_sim_truth(c, vcpu, last));
		t = end + 1 + ticks(c, exp_draw(&r, c->gap_ms * 1e6));
	}
}
