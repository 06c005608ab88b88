/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wait_report.h - `hvtrace analyze`'s lines on what a vCPU thread (on the
 * host) or a guest thread (in the guest) slept on: who woke it, what each
 * wake chain ended on, the wake latency, and the longest sleep's chain,
 * link by link (model/wait_account.h); as text, or as TSV rows.
 */
#ifndef HVT_TOOLS_ANALYZE_WAIT_REPORT_H
#define HVT_TOOLS_ANALYZE_WAIT_REPORT_H

#include <stdio.h>

#include "tools/analyze/analysis_report.h"
#include "tools/model/wait_account.h"

/*
 * The text lines of @w, each after @indent columns and @who ("vCPU 0",
 * "" for a guest thread), in @where ("on the host", "in the guest").
 */
void hvt_wait_text(FILE *out, int indent, const char *who, const char *where,
		   struct hvt_wait_account *w, const struct hvt_analysis_view *v);
/* The TSV rows of @w, of VM @a's account @kind @id @name. */
void hvt_wait_tsv(FILE *out, const struct hvt_vm_analysis *a, const char *kind, long long id,
		  const char *name, struct hvt_wait_account *w, const struct hvt_analysis_view *v);

#endif
