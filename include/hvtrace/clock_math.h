/* SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR MIT */
/*
 * clock_math.h - the conversion part of the clock model, header-only so that
 * the guest kernel module, libhvtrace, the collector and the merger all
 * convert with the very same arithmetic (docs/clock-model.md).
 */
#ifndef HVTRACE_CLOCK_MATH_H
#define HVTRACE_CLOCK_MATH_H

#include <linux/types.h>

/*
 * base_ns + ((x - base) * mult) >> shift, the product in 128 bits and the
 * shift applied to its magnitude: the result rounds toward base_ns on both
 * sides of base. mult < 2^63 and shift <= 63 keep every step in range.
 */
static inline __s64 hvt_clock_scale(__u64 x, __u64 base, __s64 base_ns,
				    __u64 mult, __u32 shift)
{
	unsigned __int128 prod;

	if (x >= base) {
		prod = (unsigned __int128)(x - base) * mult;
		return base_ns + (__s64)(__u64)(prod >> shift);
	}
	prod = (unsigned __int128)(base - x) * mult;
	return base_ns - (__s64)(__u64)(prod >> shift);
}

#endif /* HVTRACE_CLOCK_MATH_H */
