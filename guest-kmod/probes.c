// SPDX-License-Identifier: GPL-2.0-only
/*
 * probes.c - connect event probes to kernel tracepoints found by name.
 *
 * Tracepoints such as sched_switch are not exported to modules, so the module
 * walks the kernel's tracepoint table once at load (for_each_kernel_tracepoint)
 * and registers its probes with tracepoint_probe_register(), passing the
 * event as the probe's private data. A probe stays registered while at least
 * one session has its event enabled (users, under hvtrace_lock). The
 * module's own events (HVTRACE_OWN_EVENT) have no tracepoint: users alone
 * gates them.
 */
#include <linux/module.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "hvtrace_internal.h"

static void resolve_one(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < hvtrace_nr_events; i++)
		if (!hvtrace_events[i]->own && !hvtrace_events[i]->tp &&
		    !strcmp(tp->name, hvtrace_events[i]->name))
			hvtrace_events[i]->tp = tp;
}

/*
 * Numbers the events and finds the tracepoints of those that are not the
 * module's own. Cannot fail: an event whose
 * tracepoint is missing is only unavailable (ENOENT when a session enables it).
 */
void hvtrace_probes_resolve(void)
{
	unsigned int i;

	for (i = 0; i < hvtrace_nr_events; i++)
		hvtrace_events[i]->id = i;
	for_each_kernel_tracepoint(resolve_one, NULL);
	for (i = 0; i < hvtrace_nr_events; i++)
		if (!hvtrace_events[i]->own && !hvtrace_events[i]->tp)
			pr_warn("hvtrace: kernel tracepoint %s not found; event unavailable\n",
				hvtrace_events[i]->name);
}

int hvtrace_probe_get(struct hvtrace_event *event)
{
	int ret;

	lockdep_assert_held(&hvtrace_lock);
	if (event->own) {
		WRITE_ONCE(event->users, event->users + 1);
		hvtrace_sync_update();
		return 0;
	}
	if (!event->tp)
		return -ENOENT;
	if (event->users++)
		return 0;
	ret = tracepoint_probe_register(event->tp, event->probe, event);
	if (ret)
		event->users = 0;
	return ret;
}

void hvtrace_probe_put(struct hvtrace_event *event)
{
	lockdep_assert_held(&hvtrace_lock);
	if (WARN_ON(!event->users))
		return;
	if (event->own) {
		WRITE_ONCE(event->users, event->users - 1);
		return;
	}
	if (--event->users)
		return;
	tracepoint_probe_unregister(event->tp, event->probe, event);
}
