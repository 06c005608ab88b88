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

/*
 * KVM's guest TSC (docs/clock-model.md, "Exact transforms"):
 *
 *   guest = ((host * ratio) >> frac) + offset        modulo 2^64
 *
 * frac is 48 on Intel VMX and 32 on AMD SVM; ratio == 1 << frac means no
 * scaling. The product is taken in 128 bits and its low 64 bits kept after
 * the shift, exactly as KVM's mul_u64_u64_shr() and the hardware do.
 */
struct hvt_tsc_xform {
	__u64 offset;		/* two's complement: a "negative" offset wraps */
	__u64 ratio;		/* fixed point, frac fractional bits; never 0 */
	__u32 frac;		/* at most 63 */
	__u32 reserved;
};

static inline int hvt_tsc_xform_ok(const struct hvt_tsc_xform *x)
{
	return x->ratio != 0 && x->frac <= 63;
}

static inline __u64 hvt_tsc_to_guest(const struct hvt_tsc_xform *x, __u64 host)
{
	return (__u64)(((unsigned __int128)host * x->ratio) >> x->frac) + x->offset;
}

#ifndef __KERNEL__	/* 128-bit division: user space only */
/*
 * The inverse: the first host TSC value at which the guest TSC reads at
 * least @guest,
 *
 *   host = ceil(((guest - offset) << frac) / ratio)  in 128 bits,
 *
 * saturated at 2^64 - 1. Rounding rule: up, to the first host tick of the
 * guest tick. So host -> guest -> host gives the host value back exactly
 * when the guest TSC runs at least as fast as the host's (ratio >= 2^frac)
 * and otherwise the first host tick showing the same guest value, at most
 * ceil(2^frac / ratio) - 1 ticks earlier (one host tick while the guest runs
 * at least half as fast). Valid while (host * ratio) >> frac stays below
 * 2^64: centuries of uptime for ratios near 1, but 2^48 host ticks (about
 * 31 hours at 2.5 GHz) at the largest 16.48 ratio.
 */
static inline __u64 hvt_tsc_to_host(const struct hvt_tsc_xform *x, __u64 guest)
{
	unsigned __int128 scaled, host;

	if (x->ratio == 1ull << x->frac)	/* no scaling: no division */
		return guest - x->offset;
	scaled = (unsigned __int128)(__u64)(guest - x->offset) << x->frac;
	host = (scaled + x->ratio - 1) / x->ratio;

	return host > (unsigned __int128)~0ull ? ~0ull : (__u64)host;
}
#endif

#endif /* HVTRACE_CLOCK_MATH_H */
