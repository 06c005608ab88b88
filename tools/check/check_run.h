/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * check_run.h - `hvtrace check`: is a recording sound, and does its
 * alignment hold? The time line is read through first (every stream's
 * problems are known after it), then the verdicts are printed: those on
 * what the recording holds (archive_checks.h), then those made along the
 * time line (timeline_checks.h), then the summary (check_report.h).
 * Messages about problems go to stderr as the readers find them.
 */
#ifndef HVT_TOOLS_CHECK_CHECK_RUN_H
#define HVT_TOOLS_CHECK_CHECK_RUN_H

#include <stddef.h>

#include "tools/check/check_report.h"
#include "tools/merge/timeline.h"

/*
 * Checks @ses through its time line @tl (just opened) and prints every
 * verdict and the summary. The checks that failed, or -1 after an error
 * message if memory ran out.
 */
int hvt_check_run(struct hvt_session *ses, struct hvt_timeline *tl);
/*
 * @root (with --guest-trace files @guest_traces[0..@n)) could not be
 * opened: its manifest line, naming the cause where it is found
 * (unopened.h), and the summary. Returns 1, the checks that failed.
 */
int hvt_check_unopened(const char *root, const char *const *guest_traces, size_t n);

#endif
