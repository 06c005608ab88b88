/* SPDX-License-Identifier: LGPL-2.1-only OR MIT */
/*
 * clock.h - libhvtrace's trace clock (clock.c): its set-up, what it is, and
 * the inline readers of the write path.
 */
#ifndef HVT_VDSO_CLOCK_H
#define HVT_VDSO_CLOCK_H

#include <stdint.h>
#include <sys/rseq.h>
#include <hvtrace/hvtrace.h>

#include "lib/tsc.h"
#include "vdso/internal.h"

HVT_HIDDEN void hvt_clock_setup(void);
extern HVT_HIDDEN int hvt_clock_rdtscp;		/* the clock is the TSC and RDTSCP exists */
HVT_HIDDEN uint64_t hvt_clock_read_cpu_slow(uint32_t *cpu);
HVT_HIDDEN enum hvt_clock_source hvt_clock_source(void);
HVT_HIDDEN uint64_t hvt_clock_freq(void);

/* The trace clock and the CPU it was read on, in one instruction where it can. */
static inline uint64_t hvt_clock_read_cpu(uint32_t *cpu)
{
	if (hvt_likely(hvt_clock_rdtscp))	/* set before any buffer exists */
		return hvt_tsc_read_cpu(cpu);
	return hvt_clock_read_cpu_slow(cpu);
}

extern HVT_HIDDEN int hvt_clock_rseq;	/* the clock is the TSC and glibc registers rseq */

/*
 * The trace clock and CPU of an event, inline for the write path: RDTSC
 * between two reads of the cpu_id the kernel keeps in the thread's rseq
 * area (registered by glibc), again if they differ. Half the cost of RDTSCP
 * on a VM. The timestamp is exact; the CPU is the one the thread ran on
 * before and after it, unless the thread was migrated away and back
 * between two loads a few instructions apart (two preemptions): then the
 * CPU is the one it returned to, as LTTng-UST's would be. hvt_clock_host_ns()
 * keeps RDTSCP, whose CPU is exact.
 */
static inline uint64_t hvt_clock_read_event(uint32_t *cpu)
{
	const volatile struct rseq *rs;
	uint32_t before;
	uint64_t t;

	if (hvt_unlikely(!hvt_clock_rseq))
		return hvt_clock_read_cpu(cpu);
	rs = (const volatile struct rseq *)((char *)__builtin_thread_pointer() + __rseq_offset);
	do {
		before = rs->cpu_id;
		t = __rdtsc();
	} while (hvt_unlikely(rs->cpu_id != before));
	*cpu = before;
	return t;
}

#endif
