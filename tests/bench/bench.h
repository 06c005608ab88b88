/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench.h - timing loops for `make bench`: ns per operation, best of a few
 * rounds (the machines are shared; the best round is the least disturbed),
 * printed next to a reference measured in the same run.
 */
#ifndef HVT_BENCH_H
#define HVT_BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define BENCH_ROUNDS 5

static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Keeps a computed value alive without costing more than a store. */
static volatile uint64_t bench_sink;

#define BENCH_NS_PER_OP(result, iterations, ...)				\
	do {									\
		double best_ = 1e300;						\
		int round_;							\
		for (round_ = 0; round_ < BENCH_ROUNDS; round_++) {		\
			double t0_ = bench_now();				\
			for (uint64_t i_ = 0; i_ < (iterations); i_++) {	\
				__VA_ARGS__;					\
			}							\
			double ns_ = (bench_now() - t0_) / (double)(iterations); \
			if (ns_ < best_)					\
				best_ = ns_;					\
		}								\
		(result) = best_;						\
	} while (0)

static inline void bench_header(const char *title)
{
	printf("\n%s\n%-44s %10s  %-28s %10s %8s\n", title, "operation", "ns", "reference",
	       "ref ns", "ratio");
}

static inline void bench_row(const char *op, double ns, const char *ref, double ref_ns)
{
	printf("%-44s %10.2f  %-28s %10.2f %8.2f\n", op, ns, ref, ref_ns, ns / ref_ns);
}

#endif
