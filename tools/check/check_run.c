// SPDX-License-Identifier: GPL-2.0-only
/*
 * check_run.c - `hvtrace check`'s checks in their order (check_run.h).
 */
#include "lib/log.h"
#include "tools/check/archive_checks.h"
#include "tools/check/check_run.h"
#include "tools/check/timeline_checks.h"

int hvt_check_run(struct hvt_session *ses, struct hvt_timeline *tl)
{
	struct hvt_tally t = { 0, 0, 0 };
	struct hvt_timeline_checks c;

	if (hvt_timeline_checks_run(&c, ses, tl)) {
		hvt_err("out of memory");
		return -1;
	}
	hvt_check_archive(&t, ses);
	hvt_timeline_checks_report(&t, &c, ses, tl);
	hvt_check_summary(&t);
	hvt_timeline_checks_free(&c);
	return (int)t.failed;
}
