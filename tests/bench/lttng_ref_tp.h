/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lttng_ref_tp.h - the LTTng-UST tracepoint provider of the reference that
 * bench_tracepoint compares its enabled event with: the same event, three
 * u64 fields, written with the classic lttng/tracepoint.h API of
 * LTTng-UST 2.13. A second event with one field is never enabled, for the
 * disabled call site.
 *
 * Included twice by lttng_ref.c (the usual provider pattern): once for the
 * declarations, once with TRACEPOINT_CREATE_PROBES for the probes.
 */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER bench_lttng

#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "tests/bench/lttng_ref_tp.h"

#if !defined(HVT_LTTNG_REF_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define HVT_LTTNG_REF_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

TRACEPOINT_EVENT(bench_lttng, three,
	TP_ARGS(uint64_t, a, uint64_t, b, uint64_t, c),
	TP_FIELDS(ctf_integer(uint64_t, a, a)
		  ctf_integer(uint64_t, b, b)
		  ctf_integer(uint64_t, c, c)))

TRACEPOINT_EVENT(bench_lttng, off,
	TP_ARGS(uint64_t, a),
	TP_FIELDS(ctf_integer(uint64_t, a, a)))

#endif

#include <lttng/tracepoint-event.h>
