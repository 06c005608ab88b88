// SPDX-License-Identifier: GPL-2.0-only
/*
 * check_report.c - `hvtrace check`'s lines (check_report.h).
 */
#include <stdarg.h>
#include <stdio.h>

#include "lib/log.h"
#include "tools/check/check_report.h"

void hvt_check_report(struct hvt_tally *t, enum hvt_verdict v, const char *name,
		      const char *fmt, ...)
{
	static const char *const word[] = { "FAIL", "PASS", "SKIP", "INFO" };
	va_list ap;

	if (v == HVT_FAIL || !hvt_log_quiet()) {	/* -q: the failures only */
		printf("%s %s", word[v], name);
		if (fmt) {
			fputs(": ", stdout);
			va_start(ap, fmt);
			vprintf(fmt, ap);
			va_end(ap);
		}
		putchar('\n');
	}
	if (v == HVT_PASS)
		t->passed++;
	else if (v == HVT_FAIL)
		t->failed++;
	else if (v == HVT_SKIP)
		t->skipped++;
}

void hvt_check_summary(const struct hvt_tally *t)
{
	printf("%u passed, %u failed", t->passed, t->failed);
	if (t->skipped)
		printf(", %u skipped", t->skipped);
	putchar('\n');
	fflush(stdout);
}

void hvt_check_named(char *buf, size_t len, const char *check, const char *item)
{
	snprintf(buf, len, "%s[%s]", check, item);
}

double hvt_check_us(struct hvt_session *ses, uint64_t ticks)
{
	return hvt_host_clock_ticks_us(&ses->clock, ses->archive.pairs[0].tsc, ticks);
}
