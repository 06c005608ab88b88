// SPDX-License-Identifier: GPL-2.0-only
/*
 * events.c - the events hvtrace.ko itself defines (events/ headers),
 * registered at load in this order, which gives them their ids (an event
 * whose tracepoint this kernel lacks takes none).
 */
#include <linux/kernel.h>
#include <linux/string.h>

#include "hvtrace_internal.h"

#include "events/sched.h"
#include "events/irq.h"
#include "events/power.h"
#include "events/syscalls.h"
#include "events/block.h"
#include "events/net.h"
#include "events/hvtrace.h"

static struct hvtrace_event *builtin_events[] = {
	&hvtrace_event_sched_switch,
	&hvtrace_event_sched_wakeup,
	&hvtrace_event_sched_process_fork,
	&hvtrace_event_sched_process_exec,
	&hvtrace_event_sched_process_exit,
	&hvtrace_event_irq_handler_entry,
	&hvtrace_event_irq_handler_exit,
	&hvtrace_event_softirq_entry,
	&hvtrace_event_softirq_exit,
	&hvtrace_event_sys_enter,
	&hvtrace_event_sys_exit,
	&hvtrace_event_cpu_idle,
	&hvtrace_event_hvtrace_sync_begin,
	&hvtrace_event_hvtrace_sync_end,
	&hvtrace_event_hvtrace_sync_unavailable,
	&hvtrace_event_hvtrace_clock_change,
	/* last: the ids of the events before them stay as they were */
	&hvtrace_event_block_rq_issue,
	&hvtrace_event_block_rq_complete,
	&hvtrace_event_net_dev_xmit,
	&hvtrace_event_netif_receive_skb,
};

static_assert(ARRAY_SIZE(builtin_events) <= HVTRACE_MAX_EVENTS);

/*
 * A tracepoint this kernel lacks leaves its event unavailable (not
 * registered), not the module unloadable.
 */
int hvtrace_builtin_events_register(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(builtin_events); i++) {
		ret = hvtrace_event_register(builtin_events[i]);
		if (ret == -ENOENT) {
			pr_warn("hvtrace: kernel tracepoint %s not found; event unavailable\n",
				builtin_events[i]->name);
			continue;
		}
		if (ret) {
			pr_err("hvtrace: event %s: registration failed: %d\n",
			       builtin_events[i]->name, ret);
			hvtrace_builtin_events_unregister();
			return ret;
		}
	}
	return 0;
}

/* One wait for writers for all of them: unloading stays quick under RT and TCG. */
void hvtrace_builtin_events_unregister(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(builtin_events); i++)
		if (builtin_events[i]->registered)
			hvtrace_event_remove(builtin_events[i]);
	tracepoint_synchronize_unregister();
}

/* The event whose recording keeps sync points going (sync.c). */
struct hvtrace_event *const hvtrace_sync_end_event = &hvtrace_event_hvtrace_sync_end;
