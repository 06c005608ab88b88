/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * check_events.h - what `hvtrace check` learns event by event during the
 * merge: each VM's distribution of per-event error bounds, the vCPU
 * window check (vcpu_windows.h) of the archive's KVM VM, each VM's
 * vCPU thread check (vcpu_threads.h), and each VM's guest block requests
 * followed through QEMU (model/io_flows.h) for io-causal[VM].
 *
 * A guest event's error bound is how far its true host instant may be from
 * the one merge gives it, in host ticks: the guaranteed interval's
 * half-width at that instant for an estimated clock (align.h), the rounding
 * of KVM's exact transform for an exactly aligned one (0 unless the guest
 * TSC is slower than the host's).
 */
#ifndef HVT_TOOLS_CHECK_CHECK_EVENTS_H
#define HVT_TOOLS_CHECK_CHECK_EVENTS_H

#include <stdint.h>

#include "tools/check/bound_hist.h"
#include "tools/merge/event_feed.h"
#include "tools/model/io_flows.h"
#include "tools/check/vcpu_threads.h"
#include "tools/check/vcpu_windows.h"

struct hvt_event_bounds {
	struct hvt_bound_hist hist;	/* the merged guest events with a bound */
	uint64_t unbounded;		/* ... and those without one */
	struct hvt_vcpu_threads threads;	/* vcpu-threads[VM] */
	const char *threads_why;	/* it cannot be judged: why (NULL: it can) */
};

struct hvt_check_events {
	struct hvt_session *ses;
	struct hvt_event_bounds *vms;		/* one per VM of the archive */
	struct hvt_session_vm *windows_vm;	/* the KVM VM whose windows are judged */
	const char *windows_why;		/* it cannot be: why (NULL: it can) */
	struct hvt_vcpu_windows windows;
	struct hvt_io_flows io;		/* io-causal[VM] */
	struct hvt_event_feed feed;	/* the host's scheduling and KVM events, the
					 * guests' and QEMU's I/O */
	uint64_t last_tsc;		/* of the event returned last */
	bool sched_switch;		/* the host layer had one */
};

/*
 * For session @ses, once its time line is open, before the merge; -1 if
 * out of memory.
 */
int hvt_check_events_init(struct hvt_check_events *ce, struct hvt_session *ses);
void hvt_check_events_free(struct hvt_check_events *ce);
/* Each source hvt_timeline_next() returns, in turn. */
void hvt_check_events_next(struct hvt_check_events *ce, struct hvt_source *s);
/* After the last one. */
void hvt_check_events_finish(struct hvt_check_events *ce);

#endif
