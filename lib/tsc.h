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

#endif
