/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * events/sched.h - scheduler events, attached to the kernel's tracepoints.
 */
#include <linux/sched.h>
#include <trace/events/sched.h>

#include "../hvtrace_event.h"

/* prev_state is 0 (runnable) when prev was preempted, else its state bits. */
HVTRACE_TP_EVENT(sched_switch,
	HVT_PROTO(bool preempt, struct task_struct *prev,
		  struct task_struct *next, unsigned int prev_state),
	HVT_ARGS(preempt, prev, next, prev_state),
	HVT_FIELDS((text, prev_comm, TASK_COMM_LEN),
		   (int, s32, prev_tid),
		   (int, s32, prev_prio),
		   (hex, u32, prev_state),
		   (text, next_comm, TASK_COMM_LEN),
		   (int, s32, next_tid),
		   (int, s32, next_prio)),
	HVT_ASSIGN(memcpy(__entry->prev_comm, prev->comm, TASK_COMM_LEN);
		   __entry->prev_tid = prev->pid;
		   __entry->prev_prio = prev->prio;
		   __entry->prev_state = preempt ? 0 : prev_state;
		   memcpy(__entry->next_comm, next->comm, TASK_COMM_LEN);
		   __entry->next_tid = next->pid;
		   __entry->next_prio = next->prio;),
	HVT_PRINT("prev_comm=%s prev_tid=%d prev_prio=%d prev_state=%#x ==> next_comm=%s next_tid=%d next_prio=%d"));
