/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * events/power.h - idle events, attached to the kernel's tracepoints.
 */
#include <trace/events/power.h>

#include "../hvtrace_event.h"

/*
 * state is the idle state entered, or -1 (PWR_EVENT_EXIT, which the kernel
 * passes as an unsigned int) when the CPU leaves it: recorded signed, so
 * that readers print -1, as the kernel's source names it; cpu_id is the CPU. Entry is the vCPU's last event before
 * it halts, exit its first after it wakes but for those of the interrupt
 * that woke it, so the pair also pins the guest clock to the host's runs
 * of its vCPU thread (docs/clock-model.md, "Run intervals").
 */
HVTRACE_TP_EVENT(cpu_idle,
	HVT_PROTO(unsigned int state, unsigned int cpu_id),
	HVT_ARGS(state, cpu_id),
	HVT_FIELDS((int, s32, state),
		   (int, u32, cpu_id)),
	HVT_ASSIGN(__entry->state = state;
		   __entry->cpu_id = cpu_id;),
	HVT_PRINT("state=%d cpu_id=%u"));
