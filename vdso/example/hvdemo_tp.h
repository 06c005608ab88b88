/* SPDX-License-Identifier: MIT */
/*
 * hvdemo_tp.h - the demo application's events, defined once each.
 */
#ifndef HVDEMO_TP_H
#define HVDEMO_TP_H

#include <stdint.h>
#include <hvtrace/hvtrace.h>

/* One round trip between the two threads. */
HVT_TRACEPOINT_EVENT(hvdemo, round_trip,
	HVT_PROTO(uint64_t round, uint64_t spins, uint64_t checksum),
	HVT_ARGS(round, spins, checksum),
	HVT_FIELDS((int, uint64_t, round), (int, uint64_t, spins),
		   (hex, uint64_t, checksum)),
	HVT_ASSIGN(__entry->round = round; __entry->spins = spins;
		   __entry->checksum = checksum;),
	HVT_PRINT("round=%lu spins=%lu checksum=%#lx"))

/* A message handed to the other thread through a pipe. */
HVT_TRACEPOINT_EVENT(hvdemo, send,
	HVT_PROTO(uint64_t round, int32_t to_tid),
	HVT_ARGS(round, to_tid),
	HVT_FIELDS((int, uint64_t, round), (int, int32_t, to_tid)),
	HVT_ASSIGN(__entry->round = round; __entry->to_tid = to_tid;),
	HVT_PRINT("round=%lu to_tid=%d"))

/* Start and end of the run. */
HVT_TRACEPOINT_EVENT(hvdemo, phase,
	HVT_PROTO(const char *name),
	HVT_ARGS(name),
	HVT_FIELDS((text, name, 16)),
	HVT_ASSIGN(hvt_text_copy(__entry->name, name, sizeof(__entry->name));),
	HVT_PRINT("name=%s"))

#endif
