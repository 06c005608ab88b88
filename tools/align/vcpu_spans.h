/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vcpu_spans.h - for each vCPU of a VM, the host spans where it may have
 * executed guest code, and those where nothing is known, from the host
 * layer's events (host_switches.h), as the run constraints take them
 * (clocksync/run_bounds.h):
 *   - its host thread's runs (host_runs.h: RUNNING), under KVM and TCG;
 *     UNKNOWN before the host saw the thread, after a CPU lost events, and
 *     after the host layer's last event;
 *   - or, under KVM, its kvm_entry -> kvm_exit windows, far shorter;
 *     unknown before its first entry, where an entry or an exit is
 *     missing, and after the host's last event.
 * Spans come in host order; where a host CPU lost events is the host
 * switches' loss windows, not a span.
 */
#ifndef HVT_TOOLS_ALIGN_VCPU_SPANS_H
#define HVT_TOOLS_ALIGN_VCPU_SPANS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clocksync/run_bounds.h"
#include "tools/align/host_switches.h"

struct hvt_vcpu_spans {
	struct hvt_run_span *v;
	size_t n, cap;
	bool failed;			/* out of memory: spans are missing */
};

/*
 * The runs of vCPU threads @tids[0..@nr) (vCPU n's at n, 0: unknown) in
 * @vcpus[0..@nr), zeroed by the caller. -1 if out of memory (then, or if a
 * vCPU's failed is set, spans are missing).
 */
int hvt_vcpu_spans_runs(const struct hvt_host_switches *hs, const int32_t *tids, size_t nr,
			struct hvt_vcpu_spans *vcpus);
/* The kvm_entry -> kvm_exit windows of vCPUs 0 to @nr - 1 instead; the same return. */
int hvt_vcpu_spans_windows(const struct hvt_host_switches *hs, size_t nr,
			   struct hvt_vcpu_spans *vcpus);
/* Frees @v[0..@nr) and @v. */
void hvt_vcpu_spans_free(struct hvt_vcpu_spans *v, size_t nr);

#endif
