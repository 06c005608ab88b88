/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * io_flows.h - each guest block request followed from the guest's issue
 * through QEMU's virtio-blk and its backend back to the guest's completion
 * and the issuing thread's wakeup, linked by written rules
 * (docs/analysis.md, "Following a request"), from a time line's events.
 *
 * The points of a request, each an event of one layer:
 *   ISSUE         guest block_rq_issue (dev, sector, nr_sector, rwbs R/W)
 *   PICKUP        QEMU virtio_blk_handle_read/_write: the same kind, sector
 *                 and size, on the VM's QEMU; a guest disk is one QEMU
 *                 device (vdev) once a pair linked them; not more than
 *                 HVT_IO_CLAIM_NS before ISSUE, nor after COMPLETE
 *   SUBMIT        QEMU thread_pool_submit by PICKUP's thread, to the oldest
 *                 request that thread took up and has not submitted yet
 *   BACKEND_DONE  thread_pool_complete of SUBMIT's pool request
 *   REQ_DONE      virtio_blk_req_complete of PICKUP's (vdev, req)
 *   NOTIFY        the next virtio_notify(_irqfd) of that vdev, unless the
 *                 guest's completion came before it (a coalesced interrupt)
 *   IRQ           (KVM, the host's) the first kvm_msi_set_irq or kvm_set_irq
 *                 by NOTIFY's thread after it, within HVT_IO_CLAIM_NS: the
 *                 MSI's vector and destination, or (a GSI) those of the
 *                 kvm_apic_accept_irq by that thread after it
 *   INJECT        (KVM) the first kvm_inj_virq of that vector by the thread
 *                 of that vCPU (the manifest's vcpu_threads) after IRQ
 *   COMPLETE      guest block_rq_complete: ISSUE's dev, sector and kind
 *   WAKEUP        guest sched_wakeup of ISSUE's thread from COMPLETE's context
 *                 (its CPU, its current task), if that thread
 *                 blocked (switched out not runnable) between ISSUE and
 *                 COMPLETE and had not run since; within HVT_IO_CLAIM_NS
 *   RUN           its next switch-in
 * Two guest requests that fit one PICKUP (the same sector and size in
 * flight twice) make it ambiguous: the older is taken, and counted so.
 * What cannot be linked is counted by reason, never dropped unsaid.
 *
 * Each point has its host TSC and the error bound of its event (ns; a
 * guest's from its alignment, QEMU's from the host clock pairs and its
 * microsecond stamps). A stage between two points of one clock is measured
 * on that clock, its bound the clock's resolution (QEMU's log: 1 us, a
 * guest's TSC: none); a stage across clocks has the two events' bounds
 * added. A request is settled (counted, its figures kept) once nothing
 * more can come to it, or HVT_IO_GRACE_NS after its last point once the
 * guest completed it (a late interrupt, wakeup or switch-in; QEMU's alone:
 * HVT_IO_CLAIM_NS after it took it up). Memory: the requests in flight (at
 * most HVT_IO_MAX_INFLIGHT per VM, beyond which the oldest is given up,
 * counted) and, per disk, its stages' figures (exact up to HVT_IO_EXACT
 * requests, then histograms: fixed either way) and its slowest requests
 * kept whole (keep_slowest, at most HVT_IO_SLOWEST_MAX).
 */
#ifndef HVT_TOOLS_MODEL_IO_FLOWS_H
#define HVT_TOOLS_MODEL_IO_FLOWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/merge/event_feed.h"
#include "tools/model/span_hist.h"
#include "tools/session/thread_names.h"

#define HVT_IO_MAX_INFLIGHT	4096	/* virtio-blk: 256 a queue, a queue a vCPU */
#define HVT_IO_SLOWEST		5	/* requests kept whole, per disk, unless set */
#define HVT_IO_SLOWEST_MAX	1000	/* ... at most (analyze --io --top) */
#define HVT_IO_EXACT		4096	/* a stage's durations kept exactly, per disk: up
					 * to so many, percentiles carry only the events'
					 * bounds; beyond, histograms (span_hist.h) */
#define HVT_IO_MAX_DISKS	256	/* per VM; a request of another is not counted */
#define HVT_IO_GRACE_NS		100000000	/* a completed request is settled this long
						 * after its last point (100 ms) */
#define HVT_IO_CLAIM_NS		1000000		/* a QEMU request and a guest issue (or
						 * completion) that far apart are not linked */

enum hvt_io_point {
	HVT_IO_ISSUE,
	HVT_IO_PICKUP,
	HVT_IO_SUBMIT,
	HVT_IO_BACKEND_DONE,
	HVT_IO_REQ_DONE,
	HVT_IO_NOTIFY,
	HVT_IO_IRQ,
	HVT_IO_INJECT,
	HVT_IO_COMPLETE,
	HVT_IO_WAKEUP,
	HVT_IO_RUN,
	HVT_IO_NR_POINTS
};

enum hvt_io_stage {
	HVT_IO_TO_HOST,		/* ISSUE -> PICKUP: kick, exit, QEMU's wakeup */
	HVT_IO_HOST_SERVICE,	/* PICKUP -> REQ_DONE */
	HVT_IO_BACKEND,		/* ... of which SUBMIT -> BACKEND_DONE */
	HVT_IO_QEMU_OWN,	/* ... and the rest, QEMU's own */
	HVT_IO_TO_NOTIFY,	/* REQ_DONE -> NOTIFY */
	HVT_IO_TO_GUEST,	/* NOTIFY (or REQ_DONE) -> COMPLETE */
	HVT_IO_TO_KVM,		/* ... of which NOTIFY -> IRQ */
	HVT_IO_TO_VCPU,		/* ... IRQ -> INJECT */
	HVT_IO_IN_GUEST,	/* ... INJECT -> COMPLETE */
	HVT_IO_TO_WAKEUP,	/* COMPLETE -> WAKEUP */
	HVT_IO_TO_RUN,		/* WAKEUP -> RUN */
	HVT_IO_LATENCY,		/* ISSUE -> COMPLETE: the guest's request */
	HVT_IO_THREAD_WAIT,	/* ISSUE -> RUN: the issuing thread's */
	HVT_IO_NR_STAGES
};

/* Why a request is not linked end to end. */
enum hvt_io_outcome {
	HVT_IO_LINKED,		/* ISSUE, PICKUP, REQ_DONE, COMPLETE */
	HVT_IO_AMBIGUOUS,	/* ... with another candidate for PICKUP */
	HVT_IO_NO_QEMU,		/* completed in the guest; QEMU's log never took it up */
	HVT_IO_QEMU_CUT,	/* QEMU took it up; its log does not hand it back */
	HVT_IO_UNCOMPLETED,	/* no guest completion before the trace ended */
	HVT_IO_GIVEN_UP,	/* in flight, beyond HVT_IO_MAX_INFLIGHT */
	HVT_IO_NR_OUTCOMES
};

struct hvt_io_mark {
	uint64_t ts;			/* host TSC (0 with !set) */
	int64_t bound_ns;		/* the event's error bound; INT64_MAX / 4: none */
	int32_t tid;			/* the thread current at it (QEMU: its log's) */
	uint32_t cpu;			/* guest CPU, HVT_NO_CPU for QEMU's */
	bool set, qemu, host;		/* seen; an event of QEMU's log, of the host's
					 * kernel (neither: the guest's) */
	char name[16];			/* the thread's, if known */
};

struct hvt_io_request {
	uint32_t dev, nr_sector;	/* the guest's disk; 0 before ISSUE */
	uint64_t sector;
	char kind;			/* 'R' or 'W' */
	bool ambiguous, blocked;	/* the issuer slept between ISSUE and COMPLETE */
	bool no_wakeup;			/* ... and ran again with no wakeup recorded */
	bool given_up;			/* evicted: too many in flight */
	uint64_t vdev, qreq, pool_req;	/* QEMU's device and request; its pool's */
	int32_t irq_vector, irq_apic;	/* IRQ's vector and vCPU (-1: not known yet) */
	uint64_t last;			/* the latest point's host TSC */
	struct hvt_io_mark at[HVT_IO_NR_POINTS];
};

/*
 * A stage's figures: of the finished requests, the durations, and the same
 * less and plus their bounds (ns). The first HVT_IO_EXACT exactly; past
 * them (coarse), each in a histogram (span_hist.h) instead, whose buckets
 * widen a percentile's bound by up to 1/64 of it: fixed memory however
 * many requests.
 */
struct hvt_io_figures {
	uint64_t n;			/* durations added */
	int64_t *exact;			/* (d, lo, hi) of each, while not coarse */
	size_t cap_exact;
	bool coarse;			/* more than HVT_IO_EXACT: in the histograms */
	struct hvt_span_hist d, lo, hi;
};

/* The requests of one guest disk. */
struct hvt_io_disk {
	uint32_t dev;
	uint64_t vdev;			/* the QEMU device linked (0: none yet) */
	uint64_t outcomes[HVT_IO_NR_OUTCOMES];
	struct hvt_io_figures stage[HVT_IO_NR_STAGES];
	uint64_t negative[HVT_IO_NR_STAGES];	/* below 0 by more than its bound */
	/*
	 * The slowest requests (by thread wait, else latency), kept whole: a
	 * heap, the least slow first (hvt_io_slowest_sorted() lists them).
	 */
	struct hvt_io_request *slowest;
	double *slowness;		/* each one's figure, ns */
	size_t nr_slowest, cap_slowest;
};

/* Cause-and-effect pairs across clocks (check's io-causal). */
struct hvt_io_causal {
	uint64_t pairs, late;		/* judged; effect before cause beyond the bounds */
	int64_t tightest_ns;		/* the least (effect - cause + bounds) */
	struct hvt_io_request first_late;	/* the first late pair's request */
	enum hvt_io_point late_cause, late_effect;
};

struct hvt_io_flows;
/* A request finished (streamed output): @r of disk @d of VM @vm. */
typedef void (*hvt_io_done_fn)(void *ctx, const struct hvt_io_flows *f, size_t vm,
			       const struct hvt_io_disk *d, const struct hvt_io_request *r);

struct hvt_io_vm {
	struct hvt_io_request *flight;	/* in flight, in ISSUE (or PICKUP) order */
	size_t nr_flight, cap_flight;
	struct hvt_io_disk *disks;
	size_t nr_disks;
	uint64_t not_rw;		/* guest requests neither read nor write: not followed */
	uint64_t orphan_completes;	/* guest completions of no request issued */
	uint64_t orphan_qemu;		/* QEMU requests no guest issue fits */
	uint64_t unknown_qemu;		/* QEMU completions of no request taken up */
	uint64_t given_up;		/* in flight beyond HVT_IO_MAX_INFLIGHT */
	uint64_t disks_over;		/* requests of disks beyond HVT_IO_MAX_DISKS */
	size_t cap_disks;
	uint64_t guest_events, qemu_events;	/* block and QEMU I/O events decoded */
	uint64_t kvm_events;		/* KVM interrupt events linked to a request */
	uint64_t next_sweep;		/* host TSC: settle what is ripe from then */
	struct hvt_io_causal causal;
};

struct hvt_io_flows {
	struct hvt_session *ses;
	struct hvt_io_vm *vms;		/* one per VM of the archive */
	uint64_t grace, claim;		/* HVT_IO_GRACE_NS, HVT_IO_CLAIM_NS in host ticks */
	double ns_per_tick;
	const struct hvt_thread_names *names;	/* optional: threads' names at the points */
	/* an event's error bound, ns (-1: none); NULL: hvt_session_event_bound_ns() */
	int64_t (*bound_of)(struct hvt_session *ses, const struct hvt_source *s);
	uint64_t from, to;		/* host TSC: requests issued in [from, to) count */
	size_t keep_slowest;		/* per disk (HVT_IO_SLOWEST; at most _MAX) */
	hvt_io_done_fn done;		/* optional */
	void *done_ctx;
	bool failed;			/* out of memory: figures are missing */
};

int hvt_io_flows_init(struct hvt_io_flows *f, struct hvt_session *ses);
void hvt_io_flows_free(struct hvt_io_flows *f);
/* One event of the feed, of any kind (others are ignored). */
void hvt_io_flows_event(struct hvt_io_flows *f, const struct hvt_fed_event *e);
/*
 * Whether the current event of @s can be of no use (a guest's scheduling
 * event while none of its VM's requests is in flight): not worth decoding.
 */
bool hvt_io_flows_skip(void *flows, const struct hvt_source *s);
/* The kinds it follows, as one listener (ctx: the flows). */
extern const struct hvt_event_listener hvt_io_flows_listener;
/* The trace ended: every request still in flight is settled. */
void hvt_io_flows_finish(struct hvt_io_flows *f);

/* A request's stage @s in ns and its bound; false if a point it needs is missing. */
bool hvt_io_stage_of(const struct hvt_io_flows *f, const struct hvt_io_request *r,
		     enum hvt_io_stage s, double *ns, double *bound_ns);
/* The point stage @s of @r starts at (its from). */
enum hvt_io_point hvt_io_stage_start(const struct hvt_io_request *r, enum hvt_io_stage s);
/* Stage @s's name, as reports print it ("guest issue -> QEMU pickup"). */
const char *hvt_io_stage_name(enum hvt_io_stage s);
/* Its one-word name, for TSV ("to_host"). */
const char *hvt_io_stage_key(enum hvt_io_stage s);
const char *hvt_io_point_name(enum hvt_io_point p);
const char *hvt_io_outcome_name(enum hvt_io_outcome o);
/* How far request @r got (settled or not). */
enum hvt_io_outcome hvt_io_outcome_of(const struct hvt_io_request *r);
/*
 * The error bound of a step from point mark @a to @b (ns): within one
 * clock its resolution (QEMU's log: 1 us; a guest's or the host's TSC:
 * none), across clocks the two events' bounds added (an event with none:
 * 1e15 or more).
 */
double hvt_io_step_bound(const struct hvt_io_mark *a, const struct hvt_io_mark *b);
/* Adds a duration @ns with its bound to @fig: 0, or -1 if out of memory. */
int hvt_io_figures_add(struct hvt_io_figures *fig, double ns, double bound_ns);
void hvt_io_figures_free(struct hvt_io_figures *fig);
/*
 * The @pct-th percentile of @fig (0 < pct <= 100, nearest rank), and how
 * far the true one may be from it: the same rank of the durations less
 * and plus their bounds; once coarse, widened by the histograms' buckets
 * (at most 1/64 of the value; none for the least and the greatest).
 */
void hvt_io_percentile(const struct hvt_io_figures *fig, double pct, double *v, double *pm);
/* Disk @d's slowest requests, the slowest first, in @out (d->nr_slowest of them). */
void hvt_io_slowest_sorted(const struct hvt_io_disk *d, const struct hvt_io_request **out);

#endif
