// SPDX-License-Identifier: GPL-2.0-only
/*
 * probes.c - connect event probes to kernel tracepoints found by name.
 *
 * Tracepoints such as sched_switch are not exported to modules, so an event
 * finds its tracepoint by name in the kernel's table when it is registered
 * (for_each_kernel_tracepoint) and its probe is connected with
 * tracepoint_probe_register(), the event as the probe's private data. A probe stays registered while at least
 * one session has its event enabled (users, under hvtrace_lock). The
 * module's own events (HVTRACE_OWN_EVENT) have no tracepoint: users alone
 * gates them.
 */
#include <linux/module.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "hvtrace_internal.h"

struct tracepoint_lookup {
	const char *name;
	struct tracepoint *tp;
};

static void match_one(struct tracepoint *tp, void *priv)
{
	struct tracepoint_lookup *l = priv;

	if (!l->tp && !strcmp(tp->name, l->name))
		l->tp = tp;
}

/* The kernel (built-in) tracepoint named @name, or NULL. */
struct tracepoint *hvtrace_tracepoint_find(const char *name)
{
	struct tracepoint_lookup l = { name, NULL };

	for_each_kernel_tracepoint(match_one, &l);
	return l.tp;
}

int hvtrace_probe_get(struct hvtrace_event *event)
{
	int ret;

	lockdep_assert_held(&hvtrace_lock);
	if (event->own) {
		WRITE_ONCE(event->users, event->users + 1);
		return 0;
	}
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
