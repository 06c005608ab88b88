// SPDX-License-Identifier: GPL-2.0-only
/*
 * select_span.c - a --from or --to outside the events, said with their
 * span (select_span.h).
 */
#include <stdbool.h>
#include <stdio.h>

#include "lib/log.h"
#include "tools/merge/select_span.h"

/* @tsc in @sel's unit as a signed number comparable with its --from/--to. */
static int64_t time_value(const struct hvt_select *sel, struct hvt_host_clock *clock, uint64_t tsc)
{
	if (sel->mode == HVT_TIME_HOST_TSC)
		return tsc > INT64_MAX ? INT64_MAX : (int64_t)tsc;
	return sel->mode == HVT_TIME_REALTIME ? hvt_host_clock_realtime(clock, tsc) :
	       hvt_host_clock_since_start(clock, tsc);
}

static int64_t from_value(const struct hvt_select *sel)
{
	return sel->mode == HVT_TIME_HOST_TSC ? (int64_t)(sel->from_tsc > INT64_MAX ? INT64_MAX :
							   sel->from_tsc) : sel->from_ns;
}

static int64_t to_value(const struct hvt_select *sel)
{
	return sel->mode == HVT_TIME_HOST_TSC ? (int64_t)(sel->to_tsc > INT64_MAX ? INT64_MAX :
							   sel->to_tsc) : sel->to_ns;
}

const char *hvt_select_unit_hint(enum hvt_time_mode mode)
{
	switch (mode) {
	case HVT_TIME_REALTIME:
		return "; with --time=realtime a time is seconds since the epoch, as merge "
		       "--time=realtime prints them";
	case HVT_TIME_HOST_TSC:
		return "; with --time=host-tsc a time is host TSC ticks";
	default:
		return "; times are seconds since the trace's start";
	}
}

const char *hvt_select_span_miss(const struct hvt_select *sel, struct hvt_host_clock *clock,
				 const struct hvt_span *seen, char *buf, size_t len)
{
	int64_t first = time_value(sel, clock, seen->first), last = time_value(sel, clock, seen->last);
	/*
	 * Seconds since the start: --from 0 (anything from 0 up to the first
	 * event) and a --to past the end mean the start and the end; a
	 * negative --from is before the trace.
	 */
	bool ns = sel->mode == HVT_TIME_NS;
	int64_t from_floor = ns && first > 0 ? 0 : first;
	const char *opt = NULL, *text = NULL, *where = NULL;

	if (sel->from_text && from_value(sel) > last)
		opt = "--from", text = sel->from_text, where = "after the end";
	else if (sel->to_text && to_value(sel) < first)
		opt = "--to", text = sel->to_text, where = "before the start";
	else if (sel->from_text && from_value(sel) < from_floor)
		opt = "--from", text = sel->from_text, where = "before the start";
	else if (!ns && sel->to_text && to_value(sel) > last)
		opt = "--to", text = sel->to_text, where = "after the end";
	if (!opt)
		return NULL;
	snprintf(buf, len, "%s %s lies %s of the events", opt, text, where);
	return buf;
}

void hvt_select_span_warn(const struct hvt_select *sel, struct hvt_host_clock *clock,
			  const struct hvt_span *seen)
{
	char a[HVT_TIME_TEXT_MAX], b[HVT_TIME_TEXT_MAX], why_buf[160];
	const char *why;

	if (!seen->any || (!sel->from_text && !sel->to_text))
		return;
	why = hvt_select_span_miss(sel, clock, seen, why_buf, sizeof(why_buf));
	if (!why)
		return;
	hvt_time_format(a, sel->mode, clock, seen->first);
	hvt_time_format(b, sel->mode, clock, seen->last);
	hvt_warn("%s read, which span %s to %s%s", why, a, b, hvt_select_unit_hint(sel->mode));
}
