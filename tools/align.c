// SPDX-License-Identifier: GPL-2.0-only
/*
 * align.c - host clock mapping and guest offset fitting (align.h).
 */
#include "tools/align.h"

int hvt_sync_fit(const struct hvt_sync_rec *recs, size_t n, struct hvt_offset_estimate *est)
{
	struct hvt_offset_fit fit;
	size_t i;

	hvt_offset_fit_init(&fit);
	for (i = 0; i < n; i++)
		hvt_offset_fit_exchange(&fit, &recs[i].ex);
	return hvt_offset_fit_result(&fit, est);
}

uint64_t hvt_guest_to_host(uint64_t guest_tsc, int64_t offset)
{
	return guest_tsc - (uint64_t)offset;
}

const struct hvt_sync_rec *hvt_sync_first_violation(const struct hvt_sync_rec *recs,
						    size_t n, int64_t offset)
{
	size_t i;

	/* 128-bit: TSC values and offsets each use up to 64 bits. */
	for (i = 0; i < n; i++) {
		const struct hvt_exchange *ex = &recs[i].ex;
		__int128 recv = (__int128)ex->guest_recv - offset;
		__int128 send = (__int128)ex->guest_send - offset;

		if ((__int128)ex->host_send > recv || send > (__int128)ex->host_recv)
			return &recs[i];
	}
	return NULL;
}
