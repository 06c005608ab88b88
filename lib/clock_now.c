// SPDX-License-Identifier: GPL-2.0-only
/*
 * clock_now.c - the system's clocks now (clock_now.h).
 */
#include <time.h>

#include "lib/clock_now.h"

static int64_t now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t hvt_monotonic_ns(void)
{
	return now(CLOCK_MONOTONIC);
}

int64_t hvt_realtime_ns(void)
{
	return now(CLOCK_REALTIME);
}
