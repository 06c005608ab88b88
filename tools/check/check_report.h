/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * check_report.h - `hvtrace check`'s output: one line per check, "PASS
 * name", "FAIL name: reason", "SKIP name: why" (it cannot be made on this
 * archive) or "INFO name: ..." (a report, counted neither way), then
 * exactly "N passed, M failed" (", K skipped" if any). Quiet (-q): the
 * FAIL lines and the last line only.
 */
#ifndef HVT_TOOLS_CHECK_CHECK_REPORT_H
#define HVT_TOOLS_CHECK_CHECK_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "tools/session/session.h"

enum hvt_verdict { HVT_FAIL, HVT_PASS, HVT_SKIP, HVT_INFO };

struct hvt_tally {
	unsigned int passed, failed, skipped;
};

/* One line; @fmt is NULL for a bare verdict (a PASS may still carry a detail). */
void hvt_check_report(struct hvt_tally *t, enum hvt_verdict v, const char *name,
		      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The last line. */
void hvt_check_summary(const struct hvt_tally *t);
/* "CHECK[ITEM]" in @buf. */
void hvt_check_named(char *buf, size_t len, const char *check, const char *item);
/* @ticks host ticks in µs of @ses's host clock, at the trace start. */
double hvt_check_us(struct hvt_session *ses, uint64_t ticks);

#endif
