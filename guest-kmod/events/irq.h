/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * events/irq.h - hard and soft interrupt events, attached to the kernel's
 * tracepoints.
 */
#include <linux/interrupt.h>
#include <linux/string.h>
#include <trace/events/irq.h>

#include "../hvtrace_event.h"

/* name is action->name, truncated to 31 characters; "(null)" if unset. */
HVTRACE_TP_EVENT(irq_handler_entry,
	HVT_PROTO(int irq, struct irqaction *action),
	HVT_ARGS(irq, action),
	HVT_FIELDS((int, s32, irq),
		   (text, name, 32)),
	HVT_ASSIGN(__entry->irq = irq;
		   strscpy_pad(__entry->name, action->name ?: "(null)",
			       sizeof(__entry->name));),
	HVT_PRINT("irq=%d name=%s"));

/* ret is the handler's irqreturn_t: 0 none, 1 handled, 2 wake thread. */
HVTRACE_TP_EVENT(irq_handler_exit,
	HVT_PROTO(int irq, struct irqaction *action, int ret),
	HVT_ARGS(irq, action, ret),
	HVT_FIELDS((int, s32, irq),
		   (int, s32, ret)),
	HVT_ASSIGN(__entry->irq = irq;
		   __entry->ret = ret;),
	HVT_PRINT("irq=%d ret=%d"));

/* vec is the softirq number (HI_SOFTIRQ ... RCU_SOFTIRQ). */
HVTRACE_TP_EVENT(softirq_entry,
	HVT_PROTO(unsigned int vec_nr),
	HVT_ARGS(vec_nr),
	HVT_FIELDS((int, u32, vec)),
	HVT_ASSIGN(__entry->vec = vec_nr;),
	HVT_PRINT("vec=%u"));

HVTRACE_TP_EVENT(softirq_exit,
	HVT_PROTO(unsigned int vec_nr),
	HVT_ARGS(vec_nr),
	HVT_FIELDS((int, u32, vec)),
	HVT_ASSIGN(__entry->vec = vec_nr;),
	HVT_PRINT("vec=%u"));
