/* SPDX-License-Identifier: LGPL-2.1-only OR MIT */
/*
 * tsc.h - the guest TSC with the CPU it was read on, one instruction: how
 * libhvtrace stamps events and the agent stamps clock exchanges. Header
 * only and LGPL-2.1 or MIT, so that libhvtrace may include it (README,
 * "Licence").
 */
#ifndef HVT_LIB_TSC_H
#define HVT_LIB_TSC_H

#include <cpuid.h>
#include <stdint.h>
#include <time.h>
#include <x86intrin.h>

/* Whether the CPU has RDTSCP (CPUID 0x80000001, EDX bit 27); QEMU's qemu64 has not. */
static inline int hvt_tsc_have_rdtscp(void)
{
	unsigned int a, b, c, d;

	return __get_cpuid(0x80000001, &a, &b, &c, &d) && (d & (1u << 27));
}

/* RDTSCP; the caller knows the CPU has it (hvt_tsc_have_rdtscp()). */
static inline uint64_t hvt_tsc_read_cpu(uint32_t *cpu)
{
	unsigned int aux;
	uint64_t t = __rdtscp(&aux);

	*cpu = aux & 0xfff;	/* Linux: TSC_AUX = node << 12 | cpu */
	return t;
}

/*
 * One read of CLOCK_MONOTONIC_RAW between two TSC reads, the narrowest of
 * three: the TSC at its middle in *tsc, the clock in *ns.
 */
static inline void hvt_tsc_bracket_raw(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;
	int i;

	for (i = 0; i < 3; i++) {
		struct timespec ts;
		uint64_t t0 = __rdtsc(), t1;

		clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
		t1 = __rdtsc();
		if (t1 - t0 < best) {
			best = t1 - t0;
			*tsc = t0 + (t1 - t0) / 2;
			*ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
		}
	}
}

/*
 * The TSC's rate, where nothing states it (no module's clock page): its
 * ticks over @span_ns of CLOCK_MONOTONIC_RAW, a few parts per million with
 * 10 ms. 0 if the clock did not move. Sleeps @span_ns.
 */
static inline uint64_t hvt_tsc_measure_hz(long span_ns)
{
	struct timespec pause = { span_ns / 1000000000, span_ns % 1000000000 };
	uint64_t t0 = 0, n0 = 0, t1 = 0, n1 = 0;

	hvt_tsc_bracket_raw(&t0, &n0);
	while (nanosleep(&pause, &pause))
		;
	hvt_tsc_bracket_raw(&t1, &n1);
	return n1 > n0 ? (uint64_t)((unsigned __int128)(t1 - t0) * 1000000000u / (n1 - n0)) : 0;
}

#endif
