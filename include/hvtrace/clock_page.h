/* SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR MIT */
/*
 * clock_page.h - the guest's trace clock as user space sees it
 * (docs/format.md, "Clock page").
 *
 * The guest module publishes one read-only page, mapped through /dev/hvtrace
 * at offset 0. It describes the raw timestamp (the guest TSC) and how to turn
 * a raw timestamp into host-referenced nanoseconds (host CLOCK_MONOTONIC),
 * with the transform the host collector computed and its error bound.
 *
 * Updates follow the vDSO's seqcount protocol: the single writer makes seq
 * odd, writes, makes it even again; a reader that saw an odd value, or a
 * value that changed while it read, retries. hvt_clock_page_read_params() is
 * the one reader, used by the kernel module, libhvtrace and the tests.
 */
#ifndef HVTRACE_CLOCK_PAGE_H
#define HVTRACE_CLOCK_PAGE_H

#include <hvtrace/clock_math.h>
#include <hvtrace/compat.h>

#ifdef __KERNEL__
#include <asm/processor.h>
#define hvt_clock_page_relax()		cpu_relax()
#else
#define hvt_clock_page_relax()		__builtin_ia32_pause()
#endif

#define HVT_CLOCK_PAGE_MAGIC		0x43545648u	/* "HVTC" */
#define HVT_CLOCK_PAGE_VERSION		1u
#define HVT_CLOCK_PAGE_SIZE		4096u
#define HVT_CLOCK_PAGE_MAX_CPUS		48u
#define HVT_CLOCK_PAGE_HEADER_SIZE	72u	/* offsetof(struct hvt_clock_page, global) */

/* Page flags. */
#define HVT_CLOCK_F_SYNCED		0x01u	/* the host published a transform */
#define HVT_CLOCK_F_PER_CPU		0x02u	/* use cpu[] entries, not global */
#define HVT_CLOCK_F_TSC_UNSTABLE	0x04u	/* the guest kernel distrusts its TSC */

/* Transform flags (hvt_clock_params.flags). */
#define HVT_CLOCK_P_EXACT		0x01u	/* from the hypervisor's own values */
#define HVT_CLOCK_P_ESTIMATED		0x02u	/* from message exchanges */

/*
 * host_mono_ns = hvt_clock_scale(guest_tsc, guest_tsc_base, host_ns_base,
 *                                mult, shift)   (clock_math.h)
 */
struct hvt_clock_params {
	__u64 guest_tsc_base;
	__s64 host_ns_base;		/* host CLOCK_MONOTONIC ns at guest_tsc_base */
	__u64 mult;
	__u32 shift;			/* at most 63 */
	__u32 flags;			/* HVT_CLOCK_P_* */
	__u64 error_ns;			/* guaranteed bound; ~0 if unknown */
	__s64 realtime_offset_ns;	/* host CLOCK_REALTIME - CLOCK_MONOTONIC */
	__u64 reserved[2];
};

struct hvt_clock_page {
	__u32 magic;
	__u16 version;
	__u16 header_size;		/* offsetof(global): HVT_CLOCK_PAGE_HEADER_SIZE */
	__u32 seq;			/* odd while the writer updates */
	__u32 flags;			/* HVT_CLOCK_F_* */
	__u64 tsc_khz;			/* guest TSC frequency as the guest kernel knows it */
	__u64 generation;		/* incremented by every update (SET_CLOCK, resume) */
	__u32 nr_cpus;			/* entries valid in cpu[] */
	__u32 reserved0;
	__u64 reserved[4];
	struct hvt_clock_params global;
	struct hvt_clock_params cpu[HVT_CLOCK_PAGE_MAX_CPUS];
};

/* Reads a consistent copy of the transform for @cpu; returns the generation. */
static inline __u64 hvt_clock_page_read_params(const struct hvt_clock_page *page,
					       unsigned int cpu,
					       struct hvt_clock_params *out,
					       __u32 *flags)
{
	__u32 seq, f;
	__u64 gen;

	for (;;) {
		seq = hvt_load_acquire(&page->seq);
		if (hvt_unlikely(seq & 1)) {
			hvt_clock_page_relax();
			continue;
		}
		f = hvt_read_once(page->flags);
		gen = hvt_read_once(page->generation);
		if ((f & HVT_CLOCK_F_PER_CPU) && cpu < hvt_read_once(page->nr_cpus) &&
		    cpu < HVT_CLOCK_PAGE_MAX_CPUS)
			memcpy(out, (const void *)&page->cpu[cpu], sizeof(*out));
		else
			memcpy(out, (const void *)&page->global, sizeof(*out));
		hvt_smp_rmb();
		if (hvt_likely(hvt_read_once(page->seq) == seq))
			break;
	}
	*flags = f;
	return gen;
}

/*
 * Whether @p, read together with the page flags @flags, holds a host
 * transform: the page says so, and the entry was written (an entry never
 * set, such as a CPU the host sent no transform for, has mult 0).
 */
static inline int hvt_clock_params_synced(__u32 flags, const struct hvt_clock_params *p)
{
	return (flags & HVT_CLOCK_F_SYNCED) && p->mult != 0;
}

/* The guaranteed error of hvt_clock_params_apply() with @p; ~0 if unknown. */
static inline __u64 hvt_clock_params_error_ns(__u32 flags, const struct hvt_clock_params *p)
{
	return hvt_clock_params_synced(flags, p) ? p->error_ns : ~(__u64)0;
}

/* Applies a transform; see struct hvt_clock_params. */
static inline __s64 hvt_clock_params_apply(const struct hvt_clock_params *p, __u64 tsc)
{
	return hvt_clock_scale(tsc, p->guest_tsc_base, p->host_ns_base, p->mult, p->shift);
}

/*
 * Whether a mapped page is one this reader understands: the magic (read
 * first, with acquire), the version, and a TSC frequency to scale with.
 * libhvtrace and the agent check it once, after mapping the page.
 */
static inline int hvt_clock_page_ok(const struct hvt_clock_page *page)
{
	return hvt_load_acquire(&page->magic) == HVT_CLOCK_PAGE_MAGIC &&
	       page->version == HVT_CLOCK_PAGE_VERSION && page->tsc_khz != 0;
}

#endif /* HVTRACE_CLOCK_PAGE_H */
