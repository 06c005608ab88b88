// SPDX-License-Identifier: GPL-2.0-only
#include <time.h>

#include "host/host_tsc.h"

#define TRIES 7

static int64_t ns_of(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

/*
 * Both clock_gettime() calls fall between the two TSC reads; the pair with
 * the narrowest window is kept, its TSC taken at the window's middle.
 */
void hvt_host_clock_pair(struct hvt_clock_pair *pair)
{
	int i;

	pair->uncertainty = UINT64_MAX;
	for (i = 0; i < TRIES; i++) {
		struct timespec mono, real;
		uint64_t t0, t1;

		t0 = hvt_host_tsc();
		clock_gettime(CLOCK_MONOTONIC, &mono);
		clock_gettime(CLOCK_REALTIME, &real);
		t1 = hvt_host_tsc();
		if ((t1 - t0) / 2 < pair->uncertainty) {
			pair->uncertainty = (t1 - t0) / 2;
			pair->tsc = t0 + (t1 - t0) / 2;
			pair->mono_ns = ns_of(&mono);
			pair->real_ns = ns_of(&real);
		}
	}
}
