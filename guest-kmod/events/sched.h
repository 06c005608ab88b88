/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * events/sched.h - scheduler events, attached to the kernel's tracepoints.
 */
#include <linux/binfmts.h>
#include <linux/sched.h>
#include <linux/string.h>
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

/* target_cpu is the CPU p will run on (task_cpu()). */
HVTRACE_TP_EVENT(sched_wakeup,
	HVT_PROTO(struct task_struct *p),
	HVT_ARGS(p),
	HVT_FIELDS((text, comm, TASK_COMM_LEN),
		   (int, s32, tid),
		   (int, s32, prio),
		   (int, s32, target_cpu)),
	HVT_ASSIGN(memcpy(__entry->comm, p->comm, TASK_COMM_LEN);
		   __entry->tid = p->pid;
		   __entry->prio = p->prio;
		   __entry->target_cpu = task_cpu(p);),
	HVT_PRINT("comm=%s tid=%d prio=%d target_cpu=%03d"));

/* The child's comm is the parent's, copied before the tracepoint. */
HVTRACE_TP_EVENT(sched_process_fork,
	HVT_PROTO(struct task_struct *parent, struct task_struct *child),
	HVT_ARGS(parent, child),
	HVT_FIELDS((text, parent_comm, TASK_COMM_LEN),
		   (int, s32, parent_tid),
		   (text, child_comm, TASK_COMM_LEN),
		   (int, s32, child_tid)),
	HVT_ASSIGN(memcpy(__entry->parent_comm, parent->comm, TASK_COMM_LEN);
		   __entry->parent_tid = parent->pid;
		   memcpy(__entry->child_comm, child->comm, TASK_COMM_LEN);
		   __entry->child_tid = child->pid;),
	HVT_PRINT("parent_comm=%s parent_tid=%d child_comm=%s child_tid=%d"));

/*
 * filename is truncated to 127 characters. old_tid differs from tid when a
 * thread other than the leader called exec.
 */
HVTRACE_TP_EVENT(sched_process_exec,
	HVT_PROTO(struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm),
	HVT_ARGS(p, old_pid, bprm),
	HVT_FIELDS((text, filename, 128),
		   (int, s32, tid),
		   (int, s32, old_tid)),
	HVT_ASSIGN(strscpy_pad(__entry->filename, bprm->filename,
			       sizeof(__entry->filename));
		   __entry->tid = p->pid;
		   __entry->old_tid = old_pid;),
	HVT_PRINT("filename=%s tid=%d old_tid=%d"));

HVTRACE_TP_EVENT(sched_process_exit,
	HVT_PROTO(struct task_struct *p),
	HVT_ARGS(p),
	HVT_FIELDS((text, comm, TASK_COMM_LEN),
		   (int, s32, tid),
		   (int, s32, prio)),
	HVT_ASSIGN(memcpy(__entry->comm, p->comm, TASK_COMM_LEN);
		   __entry->tid = p->pid;
		   __entry->prio = p->prio;),
	HVT_PRINT("comm=%s tid=%d prio=%d"));
