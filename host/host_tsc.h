/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * host_tsc.h - the host TSC and paired reads of the host clocks (clocksync/host_clock.h
 * maps them offline).
 */
#ifndef HVT_HOST_HOST_TSC_H
#define HVT_HOST_HOST_TSC_H

#include <stdint.h>
#include <x86intrin.h>

#include "clocksync/clocksync.h"

/* The host TSC, the same counter as ftrace's x86-tsc trace clock. */
static inline uint64_t hvt_host_tsc(void)
{
	unsigned int aux;

	return __rdtscp(&aux);
}

/* TSC, CLOCK_MONOTONIC and CLOCK_REALTIME read together; best of a few tries. */
void hvt_host_clock_pair(struct hvt_clock_pair *pair);

#endif
