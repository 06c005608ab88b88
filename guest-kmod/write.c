// SPDX-License-Identifier: GPL-2.0-only
/*
 * write.c - the write path every probe and emit takes, and its gates:
 *
 *   event enabled      the probe is connected (tracepoint) or users > 0 (own)
 *   global enable      hvtrace_enabled, the module parameter "enabled"
 *   buffer enable      per session: it is active and has the event enabled
 *   filter chain       no registered filter drops the event (run once, at
 *                      the first session that takes it)
 *   write              lock-free reservation in the CPU's buffer
 *
 * Writers run with preemption off and may nest (interrupts, NMIs): the
 * buffers are lock-free (include/hvtrace/lockless_rb.h), and nothing here
 * takes a lock or sleeps. Each session stamps the event at its own
 * reservation. A writer that delivers a packet queues an irq_work that
 * wakes the stream's pollers: one wakeup per packet, NMI-safe.
 */
#include <linux/moduleparam.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/smp.h>

#include "hvtrace_internal.h"

bool hvtrace_enabled = true;
module_param_named(enabled, hvtrace_enabled, bool, 0644);
MODULE_PARM_DESC(enabled, "global enable of every session's recording");

static_assert(sizeof(((struct hvtrace_write *)0)->ctx) >= sizeof(struct hvt_lrb_ctx));

static struct hvtrace_session *next_session(struct hvtrace_session *s)
{
	return list_entry_rcu(s->node.next, struct hvtrace_session, node);
}

/* Reserves in the next session, from w->session on, that takes the event. */
static void write_reserve(struct hvtrace_write *w)
{
	struct hvt_lrb_ctx *ctx = (struct hvt_lrb_ctx *)w->ctx;

	for (; &w->session->node != &hvtrace_sessions; w->session = next_session(w->session)) {
		struct hvtrace_session *s = w->session;

		if (!READ_ONCE(s->active) || !test_bit(w->event->id, s->enabled))
			continue;
		if (!w->admitted) {	/* the first session that takes it */
			if (hvtrace_filters_drop(w->event))
				break;
			w->admitted = true;
			w->cpu = smp_processor_id();
			w->tid = current->pid;
		}
		w->buffer = s->buffers[w->cpu];
		w->payload = hvt_lrb_reserve(&w->buffer->rb, ctx, w->event->id, w->cpu,
					     w->tid, w->size);
		if (w->payload)
			return;
		if (ctx->delivered)	/* the event was lost, but closed a packet */
			irq_work_queue(&w->buffer->wakeup);
	}
	w->payload = NULL;
}

void hvtrace_write_begin(struct hvtrace_write *w, struct hvtrace_event *event,
			 unsigned int size)
{
	w->payload = NULL;
	if (!READ_ONCE(hvtrace_enabled))
		return;
	w->event = event;
	w->size = size;
	w->admitted = false;
	w->session = list_entry_rcu(hvtrace_sessions.next, struct hvtrace_session, node);
	write_reserve(w);
}
EXPORT_SYMBOL_GPL(hvtrace_write_begin);

void hvtrace_write_next(struct hvtrace_write *w)
{
	if (hvt_lrb_commit(&w->buffer->rb, (struct hvt_lrb_ctx *)w->ctx))
		irq_work_queue(&w->buffer->wakeup);
	w->session = next_session(w->session);
	write_reserve(w);
}
EXPORT_SYMBOL_GPL(hvtrace_write_next);

/*
 * Whether the buffer enable lets @event into some session: a started session
 * has it enabled. Not on the write path: sync.c asks it.
 */
bool hvtrace_session_records(const struct hvtrace_event *event)
{
	struct hvtrace_session *s;
	bool ret = false;

	rcu_read_lock();
	list_for_each_entry_rcu(s, &hvtrace_sessions, node)
		if (READ_ONCE(s->active) && test_bit(event->id, s->enabled))
			ret = true;
	rcu_read_unlock();
	return ret;
}
