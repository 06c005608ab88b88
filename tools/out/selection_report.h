/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * selection_report.h - what `merge` says when its selection (--from, --to,
 * --cpu, --event, ...) misses the archive: a --from or --to outside the
 * trace's span, or no event selected at all, is a warning that shows what
 * the archive holds instead, so that a unit mistake (--time=realtime with
 * seconds since the start) or a typo is not a silent empty result.
 */
#ifndef HVT_TOOLS_OUT_SELECTION_REPORT_H
#define HVT_TOOLS_OUT_SELECTION_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "tools/merge/select_span.h"
#include "tools/session/session.h"

/*
 * After a merge of @ses that selected no event: reads the session's
 * archive again, every event, and says in one warning what it holds (its
 * events per layer, each machine's CPUs, the span and the most frequent
 * event names) beside what @sel asked for.
 */
void hvt_selection_empty_report(const struct hvt_session *ses, const struct hvt_session_opts *so,
				const struct hvt_select *sel);

#endif
