/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * timeline_checks.h - `hvtrace check`'s verdicts made along the time line
 * (check_events.h gathers what they need while it is read):
 *
 *   timeline-ordered          merged times never go backwards
 *   layers-present            the events each layer put on the time line;
 *                             fails if there are none, or a layer recorded
 *                             put none there (a VM that cannot be read or
 *                             aligned named, with why)
 *   error-bound[VM]           a report, INFO: the distribution of the merged
 *                             guest events' error bounds
 *   vcpu-windows[VM]          a KVM VM's guest events fall inside their
 *                             vCPU's kvm_entry -> kvm_exit windows, up to
 *                             their error bound (vcpu_windows.h); SKIP for
 *                             any other VM, with why
 *   host-sched[VM]            a report, INFO: whether the host's sched_switch
 *                             events of the VM's vCPU threads are complete
 *                             (align/host_runs.h)
 *   vcpu-threads[VM]          the VM's guest events fall inside the run
 *                             intervals of their vCPU's host thread, up to
 *                             their error bound (vcpu_threads.h); KVM and TCG.
 *                             Both SKIP when more than half of the events
 *                             were not judged, and say what the clock fit
 *                             took from the runs (or windows), with the
 *                             held-out test of those bounds
 *   io-causal[VM]             each guest block request linked to QEMU's
 *                             handling of it (model/io_flows.h): QEMU never
 *                             takes it up before the guest issued it, the
 *                             guest never completes it before QEMU handed it
 *                             back, by more than the two events' bounds;
 *                             said of a VM that recorded I/O events only
 */
#ifndef HVT_TOOLS_CHECK_TIMELINE_CHECKS_H
#define HVT_TOOLS_CHECK_TIMELINE_CHECKS_H

#include <stdint.h>

#include "tools/check/check_events.h"
#include "tools/check/check_report.h"
#include "tools/merge/timeline.h"

struct hvt_timeline_checks {
	struct hvt_check_events ce;
	uint64_t events;
	uint64_t backwards;		/* events printed before an earlier one */
	uint64_t first_backwards;	/* its index in the merged output */
};

/*
 * Reads time line @tl of @ses (just opened) through, without printing,
 * watching the times merge would print and each event. -1 if out of memory.
 */
int hvt_timeline_checks_run(struct hvt_timeline_checks *c, struct hvt_session *ses,
			    struct hvt_timeline *tl);
/* The verdicts above, in that order. */
void hvt_timeline_checks_report(struct hvt_tally *t, struct hvt_timeline_checks *c,
				struct hvt_session *ses, const struct hvt_timeline *tl);
void hvt_timeline_checks_free(struct hvt_timeline_checks *c);

#endif
