/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * events/hvtrace.h - the module's own events: sync points and clock changes
 * (sync.c, clock.c emit them through hvtrace_emit_NAME()).
 */
#include <linux/string.h>

#include "../hvtrace_event.h"
#include "../hvtrace_internal.h"

/* A sync point starts: the hypercall of the same seq follows on this CPU. */
HVTRACE_OWN_EVENT(hvtrace_sync_begin,
	HVT_PROTO(u64 seq),
	HVT_ARGS(seq),
	HVT_FIELDS((int, u64, seq)),
	HVT_ASSIGN(__entry->seq = seq;),
	HVT_PRINT("seq=%llu"));

/*
 * The hypercall returned. The host recorded it (kvm_hypercall with nr
 * HVTRACE_SYNC_HYPERCALL, a0 = seq, a1 = tsc_before, a2 = CPU) at a host
 * instant the guest TSC saw between tsc_before and tsc_after.
 */
HVTRACE_OWN_EVENT(hvtrace_sync_end,
	HVT_PROTO(u64 seq, u64 tsc_before, u64 tsc_after, s64 ret),
	HVT_ARGS(seq, tsc_before, tsc_after, ret),
	HVT_FIELDS((int, u64, seq), (int, u64, tsc_before), (int, u64, tsc_after),
		   (int, s64, ret)),
	HVT_ASSIGN(__entry->seq = seq;
		   __entry->tsc_before = tsc_before;
		   __entry->tsc_after = tsc_after;
		   __entry->ret = ret;),
	HVT_PRINT("seq=%llu tsc_before=%llu tsc_after=%llu ret=%lld"));

/* Sync points were asked for and cannot be issued here; the reason why. */
HVTRACE_OWN_EVENT(hvtrace_sync_unavailable,
	HVT_PROTO(const char *reason),
	HVT_ARGS(reason),
	HVT_FIELDS((text, reason, HVTRACE_SYNC_REASON_LEN)),
	HVT_ASSIGN(strscpy_pad(__entry->reason, reason, sizeof(__entry->reason));),
	HVT_PRINT("reason=%s"));

/* The clock page's generation changed: a new transform, or a discontinuity. */
HVTRACE_OWN_EVENT(hvtrace_clock_change,
	HVT_PROTO(u64 generation, u32 flags, const char *cause),
	HVT_ARGS(generation, flags, cause),
	HVT_FIELDS((int, u64, generation), (hex, u32, flags),
		   (text, cause, HVTRACE_CLOCK_CAUSE_LEN)),
	HVT_ASSIGN(__entry->generation = generation;
		   __entry->flags = flags;
		   strscpy_pad(__entry->cause, cause, sizeof(__entry->cause));),
	HVT_PRINT("generation=%llu flags=%#x cause=%s"));
