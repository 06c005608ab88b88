/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tsc_timeline.h - one vCPU's guest TSC as a piecewise function of the host
 * TSC: segments, each valid from a host TSC instant, each with its exact
 * KVM transform (hvt_tsc_xform) and where that transform came from.
 *
 * An offset change applies from the host instant it happened (the
 * kvm_write_tsc_offset tracepoint carries it), not from the next poll.
 *
 * Guest -> host is ambiguous after a backwards jump: guest values the vCPU
 * showed just before the jump show again just after it. A guest stream is
 * in order, so hvt_tsc_cursor resolves it by stream order: a stream moves to
 * the next segment when its value is beyond what the current segment ever
 * showed, or when it steps backwards into the next segment's range (only a
 * backwards jump explains a step back in one vCPU's stream). Without
 * history the earliest segment that shows the value wins.
 */
#ifndef HVT_CLOCKSYNC_TSC_TIMELINE_H
#define HVT_CLOCKSYNC_TSC_TIMELINE_H

#include <stddef.h>
#include <stdint.h>
#include <hvtrace/clock_math.h>

enum hvt_tsc_source {
	HVT_TSC_SRC_TRACEPOINT = 1,	/* kvm:kvm_write_tsc_offset */
	HVT_TSC_SRC_DEBUGFS = 2,	/* /sys/kernel/debug/kvm/.../tsc-offset */
	HVT_TSC_SRC_VCPU_IOCTL = 3,	/* KVM_VCPU_TSC_OFFSET */
	HVT_TSC_SRC_ESTIMATE = 4,	/* message exchanges (estimator.h) */
};

struct hvt_tsc_segment {
	uint64_t host_start;		/* valid from this host TSC value on */
	struct hvt_tsc_xform x;
	enum hvt_tsc_source source;
};

struct hvt_tsc_timeline {
	struct hvt_tsc_segment *seg;
	uint64_t *first;	/* guest value segment i shows first */
	uint64_t *last;		/* ... and last (UINT64_MAX for the last segment) */
	size_t n, cap;
};

struct hvt_tsc_cursor {
	size_t i;
	uint64_t last_guest;
	int started;
};

void hvt_tsc_timeline_init(struct hvt_tsc_timeline *tl);
void hvt_tsc_timeline_free(struct hvt_tsc_timeline *tl);
/*
 * Appends a segment; host_start must not precede the last one's. A segment
 * at the same instant replaces the last (a later report of the same change).
 * -1 (errno EINVAL or ENOMEM) if not.
 */
int hvt_tsc_timeline_add(struct hvt_tsc_timeline *tl, const struct hvt_tsc_segment *s);
/* The segment in effect at @host (the first one before it starts). */
const struct hvt_tsc_segment *hvt_tsc_timeline_at(const struct hvt_tsc_timeline *tl,
						  uint64_t host);
uint64_t hvt_tsc_timeline_to_guest(const struct hvt_tsc_timeline *tl, uint64_t host);
/* Guest -> host for a stream of guest values in order (see above). */
uint64_t hvt_tsc_timeline_to_host(const struct hvt_tsc_timeline *tl, struct hvt_tsc_cursor *c,
				  uint64_t guest);

#endif
