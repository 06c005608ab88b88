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

#include <hvtrace/event.h>
#include "hvtrace_internal.h"

#define HVTRACE_TP_EVENT(_name, _proto, _args, _fields, _assign, _print)	\
	HVT_EVENT_RECORD(hvtrace_rec_##_name, _fields);				\
	HVT_EVENT_FIELD_TABLE(hvtrace_fields_##_name, _fields);			\
	static struct hvtrace_event hvtrace_event_##_name;			\
	static void hvtrace_probe_##_name(void *__data, _proto)			\
	{									\
		struct hvtrace_rec_##_name *__entry;				\
		struct hvtrace_write __w;					\
									\
		for (hvtrace_write_begin(&__w, __data, sizeof(*__entry));	\
		     (__entry = __w.payload) != NULL;				\
		     hvtrace_write_next(&__w)) {				\
			_assign							\
		}								\
	}									\
	static inline void hvtrace_typecheck_##_name(void)			\
	{									\
		(void)sizeof(register_trace_##_name(hvtrace_probe_##_name, NULL)); \
	}									\
	static struct hvtrace_event hvtrace_event_##_name = {			\
		.name = #_name,							\
		.probe = hvtrace_probe_##_name,					\
		.fields = hvtrace_fields_##_name,				\
		.nr_fields = ARRAY_SIZE(hvtrace_fields_##_name),		\
		.print_fmt = _print,						\
		.payload_size = sizeof(struct hvtrace_rec_##_name),		\
	}

#endif /* HVTRACE_EVENT_DEF_H */
