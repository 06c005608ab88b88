/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * clocksync.h - hvtrace's clock model (docs/clock-model.md). Plain C, no I/O.
 *
 * Domains: guest TSC -> host TSC -> host CLOCK_MONOTONIC / CLOCK_REALTIME ns.
 *
 * Guest TSC -> host TSC. With an unscaled TSC (QEMU TCG; KVM without TSC
 * scaling) guest = host + offset. Each message bounds the offset from one
 * side: a message the host sent at host TSC hs and the guest received at
 * guest TSC gr says hs <= gr - offset, so offset <= gr - hs; one the guest
 * sent at gs and the host received at hr says offset >= gs - hr. The offset
 * lies in the intersection of all these half-lines; hvt_offset_fit keeps that
 * interval and reports its midpoint, so every recorded message stays causal
 * after alignment and the error is at most half the interval's width. If the
 * interval becomes empty the constant-offset model is wrong (drift, a jump):
 * the fit says so instead of hiding it.
 *
 * Host TSC -> ns. hvt_linear_map is ns = base_ns + ((tsc - base) * mult) >> shift
 * in 128-bit arithmetic; hvt_linear_map_fit derives it from paired
 * (TSC, CLOCK_MONOTONIC, CLOCK_REALTIME) reads taken by the collector.
 */
#ifndef HVT_CLOCKSYNC_CLOCKSYNC_H
#define HVT_CLOCKSYNC_CLOCKSYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <hvtrace/clock_math.h>

/* A two-way exchange as recorded by the collector; TSC values. */
struct hvt_exchange {
	uint64_t host_send;
	uint64_t guest_recv;
	uint64_t guest_send;
	uint64_t host_recv;
};

struct hvt_offset_fit {
	int64_t lo;			/* offset >= lo (from guest->host messages) */
	int64_t hi;			/* offset <= hi (from host->guest messages) */
	size_t n_lo, n_hi;		/* constraints seen on each side */
	uint64_t best_rtt;		/* smallest round trip of a whole exchange */
	int64_t best_rtt_offset;	/* NTP-style offset of that exchange */
};

struct hvt_offset_estimate {
	int64_t offset;			/* guest TSC - host TSC */
	uint64_t bound;			/* |error| <= bound ticks, when consistent */
	int64_t lo, hi;
	bool consistent;		/* the interval is non-empty */
	bool bounded;			/* constraints on both sides */
};

void hvt_offset_fit_init(struct hvt_offset_fit *fit);
void hvt_offset_fit_host_to_guest(struct hvt_offset_fit *fit, uint64_t host_send,
				  uint64_t guest_recv);
void hvt_offset_fit_guest_to_host(struct hvt_offset_fit *fit, uint64_t guest_send,
				  uint64_t host_recv);
void hvt_offset_fit_exchange(struct hvt_offset_fit *fit, const struct hvt_exchange *ex);
/* 0, or -1 when there is no constraint at all. */
int hvt_offset_fit_result(const struct hvt_offset_fit *fit, struct hvt_offset_estimate *est);

/* ns = base_ns + ((x - base) * mult) >> shift; see hvt_clock_params in clock_page.h. */
struct hvt_linear_map {
	uint64_t base;
	int64_t base_ns;
	uint64_t mult;
	uint32_t shift;
};

/* A paired read: TSC and the host clocks read together; uncertainty in ticks. */
struct hvt_clock_pair {
	uint64_t tsc;
	int64_t mono_ns;
	int64_t real_ns;
	uint64_t uncertainty;
};

/* mult / 2^shift == num / den as closely as 64 bits allow; -1 if den == 0. */
int hvt_mult_shift(uint64_t num, uint64_t den, uint64_t *mult, uint32_t *shift);
static inline int64_t hvt_linear_map_apply(const struct hvt_linear_map *m, uint64_t x)
{
	return hvt_clock_scale(x, m->base, m->base_ns, m->mult, m->shift);
}
/* The line through (t0, ns0) and (t1, ns1); -1 unless t1 > t0 and ns1 >= ns0. */
int hvt_linear_map_through(uint64_t t0, int64_t ns0, uint64_t t1, int64_t ns1,
			   struct hvt_linear_map *m);
/* TSC -> CLOCK_MONOTONIC from the first and last pair; -1 if they cannot define it. */
int hvt_linear_map_fit(const struct hvt_clock_pair *pairs, size_t n,
		       struct hvt_linear_map *mono);
/* TSC frequency in Hz implied by a map, rounded. */
uint64_t hvt_linear_map_freq_hz(const struct hvt_linear_map *m);

#endif
