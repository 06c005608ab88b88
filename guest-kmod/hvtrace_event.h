/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hvtrace_event.h - HVTRACE_TP_EVENT(): define a kernel event once.
 *
 *   HVTRACE_TP_EVENT(sched_switch,
 *	HVT_PROTO(bool preempt, struct task_struct *prev, ...),
 *	HVT_ARGS(preempt, prev, ...),
 *	HVT_FIELDS((text, prev_comm, TASK_COMM_LEN), (int, s32, prev_tid), ...),
 *	HVT_ASSIGN(memcpy(__entry->prev_comm, prev->comm, TASK_COMM_LEN); ...),
 *	HVT_PRINT("prev_comm=%s prev_tid=%d ..."))
 *
 * generates the packed record, its registry field table, the probe that
 * writes it into every session that enabled the event, and the event
 * descriptor. The probe attaches by name to the kernel tracepoint of the same
 * name; the compiler still checks its prototype against the kernel's
 * declaration through register_trace_NAME(), used in an unevaluated sizeof so
 * that the unexported tracepoint symbol is never referenced.
 */
#ifndef HVTRACE_EVENT_DEF_H
#define HVTRACE_EVENT_DEF_H

#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <hvtrace/event.h>
#include "hvtrace_api.h"

/*
 * The record, its field table and the writer every kind of event shares;
 * the prototype and the assignment come in parentheses.
 */
#define HVTRACE_EVENT_WRITER(_name, _pproto, _fields, _extra, _passign)	\
	HVT_EVENT_RECORD(hvtrace_rec_##_name, _fields);				\
	HVT_EVENT_FIELD_TABLE(hvtrace_fields_##_name, _fields);			\
	static struct hvtrace_event hvtrace_event_##_name;			\
	static void hvtrace_probe_##_name(void *__data, HVT_UNPACK _pproto)	\
	{									\
		struct hvtrace_rec_##_name *__entry;				\
		struct hvtrace_write __w;					\
									\
		for (hvtrace_write_begin(&__w, __data, sizeof(*__entry) + (_extra)); \
		     (__entry = __w.payload) != NULL;				\
		     hvtrace_write_next(&__w)) {				\
			HVT_UNPACK _passign					\
		}								\
	}

#define HVTRACE_EVENT_DESC(_name, _print, _own)				\
	static struct hvtrace_event hvtrace_event_##_name = {			\
		.name = #_name,							\
		.probe = hvtrace_probe_##_name,					\
		.fields = hvtrace_fields_##_name,				\
		.nr_fields = ARRAY_SIZE(hvtrace_fields_##_name),		\
		.print_fmt = _print,						\
		.own = _own,							\
	}

#define HVTRACE_TP_EVENT(_name, _proto, _args, _fields, _assign, _print)	\
	HVTRACE_EVENT_WRITER(_name, (_proto), _fields, 0, (_assign))	\
	static inline void hvtrace_typecheck_##_name(void)			\
	{									\
		(void)sizeof(register_trace_##_name(hvtrace_probe_##_name, NULL)); \
	}									\
	HVTRACE_EVENT_DESC(_name, _print, false)

/*
 * HVTRACE_OWN_EVENT(): an event a module emits itself, with no kernel
 * tracepoint behind it (hvtrace.ko's own, or another module's through
 * hvtrace_api.h). It also defines hvtrace_emit_NAME(PROTO), callable in any
 * context, NMI included; it writes into every started session that enabled
 * the event, and costs one load and a branch while none does.
 */
#define HVTRACE_OWN_EVENT(_name, _proto, _args, _fields, _assign, _print)	\
	HVTRACE_OWN_EVENT_DYN(_name, HVT_PROTO(_proto), HVT_ARGS(_args), _fields, 0, \
			      HVT_ASSIGN(_assign), _print)

/*
 * HVTRACE_OWN_EVENT_DYN(): the same with a last field of no fixed size
 * ((string, NAME) or (blob, NAME, DECODER)); _size, an expression of the
 * arguments, is how many bytes it takes after the fixed part, e.g.
 * strlen(path) + 1, or len for a blob (its __u32 length is in the fixed part).
 */
#define HVTRACE_OWN_EVENT_DYN(_name, _proto, _args, _fields, _size, _assign, _print) \
	HVTRACE_EVENT_WRITER(_name, (_proto), _fields, _size, (_assign))	\
	void hvtrace_emit_##_name(_proto);	/* for -Wmissing-prototypes (6.8+) */ \
	void hvtrace_emit_##_name(_proto)					\
	{									\
		if (!READ_ONCE(hvtrace_event_##_name.users))			\
			return;							\
		rcu_read_lock_sched_notrace();					\
		hvtrace_probe_##_name(&hvtrace_event_##_name, _args);		\
		rcu_read_unlock_sched_notrace();				\
	}									\
	HVTRACE_EVENT_DESC(_name, _print, true)

#endif /* HVTRACE_EVENT_DEF_H */
