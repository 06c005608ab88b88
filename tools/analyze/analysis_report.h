/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * analysis_report.h - `hvtrace analyze`'s output: a text summary per VM
 * (vCPU states, the host tasks that preempted them, the guest threads that
 * lost most time to the host) or one TSV row per account, state and cause.
 */
#ifndef HVT_TOOLS_ANALYZE_ANALYSIS_REPORT_H
#define HVT_TOOLS_ANALYZE_ANALYSIS_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "clocksync/host_clock.h"
#include "tools/model/vm_analysis.h"

struct hvt_analysis_view {
	double ns_per_tick;		/* the host clock's, over the trace */
	bool tcg;			/* the hypervisor state is not seen */
	const char *unread_cpus;	/* host CPUs not read ("0, 3"); "" or NULL: none */
	unsigned int top;		/* causes and threads shown */
	const int32_t *tids;		/* guest threads to show, by tid ... */
	size_t nr_tids;
	char *const *comms;		/* ... or by name; neither: the top ones */
	size_t nr_comms;
	struct hvt_host_clock *clock;	/* for instants: seconds since the trace start */
};

/* The text summary of VM analysis @a on @out. */
void hvt_analysis_text(FILE *out, struct hvt_vm_analysis *a, const struct hvt_analysis_view *v);
/* The TSV header line, once. */
void hvt_analysis_tsv_header(FILE *out);
/* @a's rows. */
void hvt_analysis_tsv(FILE *out, struct hvt_vm_analysis *a, const struct hvt_analysis_view *v);
/* Ticks a guest thread lost to the host: its vCPU preempted, blocked or in the hypervisor. */
uint64_t hvt_account_lost(const struct hvt_account *acc);

/* For the report's parts: @ticks in ms. */
double hvt_analysis_ms(const struct hvt_analysis_view *v, uint64_t ticks);
/* A bound in ms, rounded up, as text in @text (returned). */
const char *hvt_analysis_bound_text(char text[32], const struct hvt_analysis_view *v,
				    uint64_t ticks);
/* "name[tid] 1.234 ms, ..." of the first v->top causes (exit reasons if @exits), and a newline. */
void hvt_analysis_causes_text(FILE *out, struct hvt_causes *c, const struct hvt_analysis_view *v,
			      bool exits);
/* One TSV row. */
void hvt_analysis_row(FILE *out, const struct hvt_vm_analysis *a, const char *kind, long long id,
		      const char *name, const char *state, long long cause_id, const char *cause,
		      const struct hvt_analysis_view *v, uint64_t ticks, uint64_t slack,
		      uint64_t pieces);

#endif
