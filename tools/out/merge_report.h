/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * merge_report.h - what `hvtrace merge` says on standard error after the
 * events: a summary (events per layer, streams, lost events, warnings, each
 * estimated VM's alignment), or with --stats a table per stream and a line
 * per VM.
 */
#ifndef HVT_TOOLS_OUT_MERGE_REPORT_H
#define HVT_TOOLS_OUT_MERGE_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/session/session.h"

/*
 * The summary, through hvt_info(); @shown as for hvt_merge_stats(). With
 * @selecting, the streams the shown events came from are counted apart.
 */
void hvt_merge_summary(struct hvt_session *ses, const uint64_t *shown, bool selecting);
/* A warning for each VM (and the host's applications) where processes or threads went untraced. */
void hvt_merge_untraced_warn(const struct hvt_session *ses);
/*
 * Per stream (@shown[source index]: events written out after selection)
 * its layer, VM, events read, shown and lost, warnings and whether it was
 * merged; per VM how its clock was aligned and how precisely. To @out.
 */
void hvt_merge_stats(struct hvt_session *ses, const uint64_t *shown, FILE *out);

/* How precisely VM @st sits on the host's time line, in words, in @buf. */
const char *hvt_vm_alignment_text(struct hvt_session *ses, struct hvt_session_vm *st, char *buf,
				  size_t len);

#endif
