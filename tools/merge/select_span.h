/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * select_span.h - the span of the events a pass read, and a --from or
 * --to outside it: a warning that shows the span, so that a time in the
 * wrong unit (--time=realtime with seconds since the start) or past the
 * end is not a silent empty or whole result. merge and analyze say it.
 */
#ifndef HVT_TOOLS_MERGE_SELECT_SPAN_H
#define HVT_TOOLS_MERGE_SELECT_SPAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/merge/select.h"

/* The host TSC of the first and last event a merge pulled, selected or not. */
struct hvt_span {
	uint64_t first, last;
	bool any;
};

static inline void hvt_span_add(struct hvt_span *sp, uint64_t host_tsc)
{
	if (!sp->any)
		sp->first = host_tsc;
	sp->last = host_tsc;
	sp->any = true;
}

/*
 * Warns when @sel's --from or --to lies outside @seen (in @sel's time
 * unit): after the end or before the start, or, in CLOCK_REALTIME or TSC
 * units, where a time from the wrong unit would fall. Shows the span.
 */
void hvt_select_span_warn(const struct hvt_select *sel, struct hvt_host_clock *clock,
			  const struct hvt_span *seen);
/* Which of --from and --to misses @seen, said in @buf; NULL if neither does. */
const char *hvt_select_span_miss(const struct hvt_select *sel, struct hvt_host_clock *clock,
				 const struct hvt_span *seen, char *buf, size_t len);
/* What a time given to --from or --to is in @mode: "; times are ...". */
const char *hvt_select_unit_hint(enum hvt_time_mode mode);

#endif
