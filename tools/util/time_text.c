// SPDX-License-Identifier: GPL-2.0-only
/*
 * time_text.c - host times as the text of merge's time column.
 */
#include "tools/util/text_buffer.h"
#include "tools/util/time_text.h"

/* [-]seconds.nanoseconds; returns the length. */
static unsigned int format_ns(char *buf, int64_t ns)
{
	uint64_t mag = ns < 0 ? -(uint64_t)ns : (uint64_t)ns, frac = mag % 1000000000u;
	char *p = buf;
	int i;

	if (ns < 0)
		*p++ = '-';
	p += hvt_u64_text(p, mag / 1000000000u);
	*p++ = '.';
	for (i = 8; i >= 0; i--, frac /= 10)
		p[i] = (char)('0' + frac % 10);
	p[9] = '\0';
	return (unsigned int)(p + 9 - buf);
}

unsigned int hvt_time_format(char buf[HVT_TIME_TEXT_MAX], enum hvt_time_mode mode,
			     struct hvt_host_clock *clock, uint64_t host_tsc)
{
	switch (mode) {
	case HVT_TIME_HOST_TSC:
		return hvt_u64_text(buf, host_tsc);
	case HVT_TIME_REALTIME:
		return format_ns(buf, hvt_host_clock_realtime(clock, host_tsc));
	default:
		return format_ns(buf, hvt_host_clock_since_start(clock, host_tsc));
	}
}

unsigned int hvt_time_format_delta(char buf[HVT_TIME_TEXT_MAX], enum hvt_time_mode mode,
				   struct hvt_host_clock *clock, uint64_t prev, uint64_t host_tsc)
{
	int64_t d;

	buf[0] = '+';
	if (mode == HVT_TIME_HOST_TSC)
		return 1 + hvt_u64_text(buf + 1, host_tsc >= prev ? host_tsc - prev : 0);
	d = hvt_host_clock_since_start(clock, host_tsc) - hvt_host_clock_since_start(clock, prev);
	return 1 + format_ns(buf + 1, d < 0 ? 0 : d);	/* the time line never steps back */
}
