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
 * sides of base, and saturates at the ends of the s64 range.
 */
static inline __s64 hvt_clock_scale(__u64 x, __u64 base, __s64 base_ns,
				    __u64 mult, __u32 shift)
{
	const __int128 max = (__s64)(~0ull >> 1), min = -max - 1;
	unsigned __int128 d;
	__int128 r;

	d = ((unsigned __int128)(x >= base ? x - base : base - x) * mult) >> shift;
	if (d > (unsigned __int128)1 << 64)	/* beyond any s64 already */
		d = (unsigned __int128)1 << 64;
	r = x >= base ? (__int128)base_ns + (__int128)d : (__int128)base_ns - (__int128)d;
	/* A damaged timestamp can lie anywhere: saturate, never wrap. */
	return (__s64)(r > max ? max : r < min ? min : r);
}

#endif /* HVTRACE_CLOCK_MATH_H */
