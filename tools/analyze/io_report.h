/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * io_report.h - `hvtrace analyze --io`: each selected VM's guest block
 * requests followed through QEMU and back (model/io_flows.h), per disk:
 * how many were linked end to end and why the others were not, each
 * stage's p50, p90, p99 and max with the bound of each figure, and the
 * slowest requests step by step; or, as TSV, one row per request and stage.
 */
#ifndef HVT_TOOLS_ANALYZE_IO_REPORT_H
#define HVT_TOOLS_ANALYZE_IO_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "tools/merge/select.h"
#include "tools/merge/timeline.h"

struct hvt_io_report_opts {
	const struct hvt_select *sel;	/* --vm; --from, --to: requests issued then */
	unsigned int top;		/* the slowest requests shown, per disk */
	bool tsv;
};

/*
 * Follows the requests of @ses over its time line @tl (just opened) and
 * prints the report on @out. 0, or 1 after an error message if no VM has
 * block events to follow or memory ran out.
 */
int hvt_io_report_run(struct hvt_session *ses, struct hvt_timeline *tl,
		      const struct hvt_io_report_opts *o, FILE *out);

#endif
