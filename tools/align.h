/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * align.h - putting every layer on the host's time line.
 *
 * Host TSC -> host CLOCK_MONOTONIC through the pairs of host/clock.tsv
 * (clocksync/host_clock.h); "time since trace start" is measured from the
 * first pair. Guest TSC -> host TSC with the constant offset fitted over
 * every exchange of sync.tsv: guest = host + offset.
 */
#ifndef HVT_TOOLS_ALIGN_H
#define HVT_TOOLS_ALIGN_H

#include <stddef.h>
#include <stdint.h>

#include "clocksync/clocksync.h"
#include "clocksync/host_clock.h"
#include "tools/archive.h"

/* Fits guest - host over every exchange; -1 if there are none. */
int hvt_sync_fit(const struct hvt_sync_rec *recs, size_t n, struct hvt_offset_estimate *est);
/* Host TSC of a guest TSC value: guest - offset (modulo 2^64 like the TSC). */
uint64_t hvt_guest_to_host(uint64_t guest_tsc, int64_t offset);
/*
 * The first exchange that is not causal once aligned with @offset:
 * host_send <= guest_recv - offset and guest_send - offset <= host_recv must
 * both hold. NULL if every exchange is causal.
 */
const struct hvt_sync_rec *hvt_sync_first_violation(const struct hvt_sync_rec *recs,
						    size_t n, int64_t offset);

#endif
