// SPDX-License-Identifier: GPL-2.0-only
/*
 * check_run.c - `hvtrace check`'s checks in their order (check_run.h).
 */
#include "lib/log.h"
#include "tools/check/archive_checks.h"
#include "tools/check/check_run.h"
#include "tools/check/timeline_checks.h"
#include "tools/check/unopened.h"

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

int hvt_check_unopened(const char *root, const char *const *guest_traces, size_t n)
{
	struct hvt_tally t = { 0, 0, 0 };
	char why[1024];

	if (hvt_check_unopened_why(root, guest_traces, n, why, sizeof(why)))
		hvt_check_report(&t, HVT_FAIL, "manifest", "%s; nothing can be checked", why);
	else
		hvt_check_report(&t, HVT_FAIL, "manifest", "the archive%s cannot be read (see the "
				 "errors)", n ? ", or a --guest-trace file," : "");
	hvt_check_summary(&t);
	return 1;
}
