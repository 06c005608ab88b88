/* SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR MIT */
/*
 * tsc_watch.h - telling a jump of the guest TSC from its normal progress.
 *
 * The guest module samples the TSC and a reference clock that does not
 * follow it (the kernel's CLOCK_MONOTONIC_RAW: under KVM, kvm-clock, which
 * the host keeps continuous when it moves the guest's TSC offset, at
 * migration for instance) once a second on one CPU. Between two samples the
 * two must advance alike; when they differ by more than HVT_TSC_JUMP_NS plus
 * HVT_TSC_JUMP_PPM of the interval, the TSC jumped and no host transform
 * holds any more. When the kernel's clocksource is the TSC itself, the
 * reference follows it and no jump can be seen this way.
 */
#ifndef HVTRACE_TSC_WATCH_H
#define HVTRACE_TSC_WATCH_H

#include <hvtrace/compat.h>

#define HVT_TSC_JUMP_NS		1000000ull	/* 1 ms */
#define HVT_TSC_JUMP_PPM	1000ull
#define HVT_TSC_WATCH_MAX_NS	100000000000ull	/* longer intervals are not judged */

/*
 * Whether the TSC, at @khz, moved from @tsc0 to @tsc1 while the reference
 * moved @ref_ns: 1 if it jumped (backwards, or too far either way), 0 if
 * not or if the interval is too long to judge.
 */
static inline int hvt_tsc_jumped(__u64 tsc0, __u64 tsc1, __u64 khz, __u64 ref_ns)
{
	__u64 dtsc, tsc_ns, diff;

	if (ref_ns > HVT_TSC_WATCH_MAX_NS || !khz)
		return 0;
	if (tsc1 < tsc0)
		return 1;
	dtsc = tsc1 - tsc0;
	if (dtsc > ~0ull / 1000000u)
		return 1;	/* hours of ticks in at most 100 s */
	tsc_ns = dtsc * 1000000u / khz;
	diff = tsc_ns > ref_ns ? tsc_ns - ref_ns : ref_ns - tsc_ns;
	return diff > HVT_TSC_JUMP_NS + ref_ns / 1000000u * HVT_TSC_JUMP_PPM;
}

#endif /* HVTRACE_TSC_WATCH_H */
