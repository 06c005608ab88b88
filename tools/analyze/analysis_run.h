/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * analysis_run.h - `hvtrace analyze`'s one pass: each analysable VM of a
 * session set up (vm_analysis.h), fed the time line's scheduling and KVM
 * events (merge/event_feed.h), then reported (analysis_report.h).
 *
 * A VM is analysed if it is selected, its guest events can be aligned, the
 * manifest names its vCPU threads and the host layer is the recording's
 * own; the others are listed with the reason. The host's kvm_exit and
 * kvm_entry name no VM, so they are used only where the archive has one
 * KVM VM.
 */
#ifndef HVT_TOOLS_ANALYZE_ANALYSIS_RUN_H
#define HVT_TOOLS_ANALYZE_ANALYSIS_RUN_H

#include <stdbool.h>
#include <stdio.h>

#include "tools/analyze/analysis_report.h"
#include "tools/merge/select.h"
#include "tools/merge/timeline.h"

struct hvt_analyze_opts {
	const struct hvt_select *sel;	/* --vm; --from, --to in ns since the start */
	struct hvt_analysis_view view;	/* what the report shows (ns_per_tick, tcg: set here) */
	bool tsv;			/* TSV rows instead of the text summary */
};

/*
 * Analyses the VMs of @ses over its time line @tl (just opened) and prints
 * the report on @out. 0, or 1 after an error message if no VM could be
 * analysed or memory ran out.
 */
int hvt_analyze_run(struct hvt_session *ses, struct hvt_timeline *tl,
		    const struct hvt_analyze_opts *o, FILE *out);

/* The first host TSC at or after @ns since the trace start (--from, --to). */
uint64_t hvt_analyze_tsc_at(struct hvt_host_clock *clock, int64_t ns);

#endif
