// SPDX-License-Identifier: GPL-2.0-only
/*
 * registry.c - the registered events, by id, and the filter chain.
 *
 * hvtrace.ko registers its own events at load; other modules register theirs
 * through hvtrace_event_register() (hvtrace_api.h). Everything here changes
 * under hvtrace_lock. Ids are handed out in order and never reused while the
 * module is loaded, so a packet written before an event went away still
 * decodes with the registry the reader has. hvtrace_registry_gen tells
 * readers (the agent) to fetch the registry again.
 */
#include <linux/module.h>
#include <linux/rculist.h>
#include <linux/string.h>

#include "hvtrace_internal.h"

struct hvtrace_event *hvtrace_events[HVTRACE_MAX_EVENTS];
unsigned int hvtrace_nr_ids;
unsigned long hvtrace_registry_gen;
static LIST_HEAD(filters);

struct hvtrace_event *hvtrace_event_find(const char *name)
{
	unsigned int i;

	lockdep_assert_held(&hvtrace_lock);
	for (i = 0; i < hvtrace_nr_ids; i++)
		if (hvtrace_events[i] && !strcmp(hvtrace_events[i]->name, name))
			return hvtrace_events[i];
	return NULL;
}

static int event_check(const struct hvtrace_event *event)
{
	if (!event->name || strlen(event->name) >= HVT_NAME_MAX || !event->probe ||
	    event->nr_fields > HVT_REG_MAX_FIELDS || !event->print_fmt)
		return -EINVAL;
	if (event->registered)
		return -EBUSY;
	return 0;
}

/*
 * Adds @event with the next id. A tracepoint event attaches to the kernel
 * tracepoint of its name, which must exist (-ENOENT otherwise); an event of
 * an existing name is refused (-EEXIST). Sessions that asked for the name
 * enable it at once.
 */
int hvtrace_event_register(struct hvtrace_event *event)
{
	int ret = event_check(event);

	if (ret)
		return ret;
	mutex_lock(&hvtrace_lock);
	if (hvtrace_event_find(event->name)) {
		ret = -EEXIST;
		goto out;
	}
	if (hvtrace_nr_ids == HVTRACE_MAX_EVENTS) {
		ret = -ENOSPC;
		goto out;
	}
	event->tp = NULL;
	if (!event->own) {
		event->tp = hvtrace_tracepoint_find(event->name);
		if (!event->tp) {
			ret = -ENOENT;
			goto out;
		}
	}
	event->users = 0;
	event->id = hvtrace_nr_ids++;
	event->registered = true;
	hvtrace_events[event->id] = event;
	WRITE_ONCE(hvtrace_registry_gen, hvtrace_registry_gen + 1);
	hvtrace_sessions_event_added(event);
out:
	mutex_unlock(&hvtrace_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(hvtrace_event_register);

/* Removes @event from every session and the table; the caller waits for writers. */
void hvtrace_event_remove(struct hvtrace_event *event)
{
	mutex_lock(&hvtrace_lock);
	if (!WARN_ON(!event->registered || hvtrace_events[event->id] != event)) {
		hvtrace_sessions_event_removed(event);
		hvtrace_events[event->id] = NULL;
		event->registered = false;
		WRITE_ONCE(hvtrace_registry_gen, hvtrace_registry_gen + 1);
	}
	mutex_unlock(&hvtrace_lock);
}

/*
 * Removes @event from every session and the table. On return no probe or
 * emit of it runs any more, so its module may go.
 */
void hvtrace_event_unregister(struct hvtrace_event *event)
{
	hvtrace_event_remove(event);
	/* probes and emits run with preemption off */
	tracepoint_synchronize_unregister();
}
EXPORT_SYMBOL_GPL(hvtrace_event_unregister);

int hvtrace_filter_register(struct hvtrace_filter *filter)
{
	if (!filter->drop)
		return -EINVAL;
	mutex_lock(&hvtrace_lock);
	list_add_tail_rcu(&filter->node, &filters);
	mutex_unlock(&hvtrace_lock);
	return 0;
}
EXPORT_SYMBOL_GPL(hvtrace_filter_register);

void hvtrace_filter_unregister(struct hvtrace_filter *filter)
{
	mutex_lock(&hvtrace_lock);
	list_del_rcu(&filter->node);
	mutex_unlock(&hvtrace_lock);
	synchronize_rcu();	/* writers run the chain with preemption off */
}
EXPORT_SYMBOL_GPL(hvtrace_filter_unregister);

/* Whether some filter drops @event; the writer's context, preemption off. */
bool hvtrace_filters_drop(const struct hvtrace_event *event)
{
	struct hvtrace_filter *f;

	list_for_each_entry_rcu(f, &filters, node, true)
		if (f->drop(f, event))
			return true;
	return false;
}

/* /sys/class/misc/hvtrace/available_events: "ID NAME KIND" per line. */
static ssize_t available_events_show(struct device *dev, struct device_attribute *attr,
				     char *buf)
{
	ssize_t len = 0;
	unsigned int i;

	mutex_lock(&hvtrace_lock);
	for (i = 0; i < hvtrace_nr_ids; i++)
		if (hvtrace_events[i])
			len += sysfs_emit_at(buf, len, "%u %s %s\n", i, hvtrace_events[i]->name,
					     hvtrace_events[i]->own ? "own" : "tracepoint");
	mutex_unlock(&hvtrace_lock);
	return len;
}
static DEVICE_ATTR_RO(available_events);

/* /sys/class/misc/hvtrace/enabled_events: "SESSION STATE NAME" per line. */
static ssize_t enabled_events_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return hvtrace_sessions_show_enabled(buf);
}
static DEVICE_ATTR_RO(enabled_events);

static struct attribute *hvtrace_attrs[] = {
	&dev_attr_available_events.attr,
	&dev_attr_enabled_events.attr,
	NULL,
};

static const struct attribute_group hvtrace_attr_group = {
	.attrs = hvtrace_attrs,
};

const struct attribute_group *hvtrace_attr_groups[] = {
	&hvtrace_attr_group,
	NULL,
};
