// SPDX-License-Identifier: GPL-2.0-only
/*
 * events.c - the table of events this module can record. An event's id in
 * the registry and in packets is its index here.
 */
#include <linux/kernel.h>
#include <linux/string.h>

#include "events/sched.h"
#include "events/hvtrace.h"

struct hvtrace_event *hvtrace_events[] = {
	&hvtrace_event_sched_switch,
	&hvtrace_event_hvtrace_sync_begin,
	&hvtrace_event_hvtrace_sync_end,
	&hvtrace_event_hvtrace_sync_unavailable,
	&hvtrace_event_hvtrace_clock_change,
};
const unsigned int hvtrace_nr_events = ARRAY_SIZE(hvtrace_events);

static_assert(ARRAY_SIZE(hvtrace_events) <= HVTRACE_MAX_EVENTS);

/* Whether some started session records sync points (sync.c). */
bool hvtrace_sync_recording(void)
{
	return hvtrace_session_records(&hvtrace_event_hvtrace_sync_end);
}

struct hvtrace_event *hvtrace_event_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < hvtrace_nr_events; i++)
		if (!strcmp(hvtrace_events[i]->name, name))
			return hvtrace_events[i];
	return NULL;
}
