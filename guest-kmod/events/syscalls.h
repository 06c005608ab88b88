/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * events/syscalls.h - system call entry and exit, attached to the kernel's
 * raw_syscalls tracepoints sys_enter and sys_exit.
 */
#include <linux/sched.h>
#include <linux/string.h>
#include <asm/syscall.h>
#include <trace/events/syscalls.h>

#include "../hvtrace_event.h"

/* args are the six argument registers, whatever the call's arity. */
HVTRACE_TP_EVENT(sys_enter,
	HVT_PROTO(struct pt_regs *regs, long id),
	HVT_ARGS(regs, id),
	HVT_FIELDS((int, s64, id),
		   (array, u64, args, 6)),
	HVT_ASSIGN(unsigned long __args[6];

		   syscall_get_arguments(current, regs, __args);
		   __entry->id = id;
		   memcpy(__entry->args, __args, sizeof(__entry->args));),
	HVT_PRINT("NR %lld (%llx, %llx, %llx, %llx, %llx, %llx)"));

static_assert(sizeof(unsigned long) == sizeof(u64));

/* id is the call's number (syscall_get_nr()), ret its return value. */
HVTRACE_TP_EVENT(sys_exit,
	HVT_PROTO(struct pt_regs *regs, long ret),
	HVT_ARGS(regs, ret),
	HVT_FIELDS((int, s64, id),
		   (int, s64, ret)),
	HVT_ASSIGN(__entry->id = syscall_get_nr(current, regs);
		   __entry->ret = ret;),
	HVT_PRINT("NR %lld = %lld"));
