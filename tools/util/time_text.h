/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * time_text.h - the time column of merged events: since the recording's
 * first clock pair, the host TSC or CLOCK_REALTIME (time_text.c).
 */
#ifndef HVT_TOOLS_UTIL_TIME_TEXT_H
#define HVT_TOOLS_UTIL_TIME_TEXT_H

#include <stdint.h>

#include "clocksync/host_clock.h"

enum hvt_time_mode {
	HVT_TIME_NS,		/* seconds.nanoseconds since the first clock pair */
	HVT_TIME_HOST_TSC,	/* the host TSC */
	HVT_TIME_REALTIME,	/* host CLOCK_REALTIME, seconds.nanoseconds */
};

#define HVT_TIME_TEXT_MAX	32

/* @host_tsc as text, NUL-terminated; returns its length. */
unsigned int hvt_time_format(char buf[HVT_TIME_TEXT_MAX], enum hvt_time_mode mode,
			     struct hvt_host_clock *clock, uint64_t host_tsc);
/*
 * The time from @prev to @host_tsc, "+S.NNNNNNNNN" (seconds; TSC ticks in
 * mode host-tsc), NUL-terminated; returns its length.
 */
unsigned int hvt_time_format_delta(char buf[HVT_TIME_TEXT_MAX], enum hvt_time_mode mode,
				   struct hvt_host_clock *clock, uint64_t prev,
				   uint64_t host_tsc);

#endif
