// SPDX-License-Identifier: GPL-2.0-only
/*
 * offset_fit.c - constant-offset fit with a guaranteed interval
 * (clocksync.h explains the constraints).
 */
#include "clocksync/clocksync.h"

void hvt_offset_fit_init(struct hvt_offset_fit *fit)
{
	fit->lo = INT64_MIN;
	fit->hi = INT64_MAX;
	fit->n_lo = fit->n_hi = 0;
	fit->best_rtt = UINT64_MAX;
	fit->best_rtt_offset = 0;
}

void hvt_offset_fit_host_to_guest(struct hvt_offset_fit *fit, uint64_t host_send,
				  uint64_t guest_recv)
{
	int64_t bound = (int64_t)(guest_recv - host_send);

	if (bound < fit->hi)
		fit->hi = bound;
	fit->n_hi++;
}

void hvt_offset_fit_guest_to_host(struct hvt_offset_fit *fit, uint64_t guest_send,
				  uint64_t host_recv)
{
	int64_t bound = (int64_t)(guest_send - host_recv);

	if (bound > fit->lo)
		fit->lo = bound;
	fit->n_lo++;
}

void hvt_offset_fit_exchange(struct hvt_offset_fit *fit, const struct hvt_exchange *ex)
{
	uint64_t rtt;

	hvt_offset_fit_host_to_guest(fit, ex->host_send, ex->guest_recv);
	hvt_offset_fit_guest_to_host(fit, ex->guest_send, ex->host_recv);
	if (ex->host_recv < ex->host_send || ex->guest_send < ex->guest_recv)
		return;
	rtt = (ex->host_recv - ex->host_send) - (ex->guest_send - ex->guest_recv);
	if (rtt < fit->best_rtt) {
		fit->best_rtt = rtt;
		/* midpoint of [gs - hr, gr - hs], without overflow */
		fit->best_rtt_offset = (int64_t)(ex->guest_send - ex->host_recv) +
				       (int64_t)(rtt / 2);
	}
}

int hvt_offset_fit_result(const struct hvt_offset_fit *fit, struct hvt_offset_estimate *est)
{
	est->lo = fit->lo;
	est->hi = fit->hi;
	est->bounded = fit->n_lo && fit->n_hi;
	est->consistent = !est->bounded || fit->lo <= fit->hi;
	if (!fit->n_lo && !fit->n_hi)
		return -1;
	if (!est->bounded) {
		est->offset = fit->n_lo ? fit->lo : fit->hi;
		est->bound = UINT64_MAX;
	} else if (est->consistent) {
		uint64_t width = (uint64_t)fit->hi - (uint64_t)fit->lo;

		est->offset = fit->lo + (int64_t)(width / 2);
		est->bound = width - width / 2;
	} else {
		/* No constant offset explains every message: best single exchange. */
		/* lo > hi here: the midpoint, computed without overflow */
		est->offset = fit->best_rtt != UINT64_MAX ? fit->best_rtt_offset :
			      fit->hi + (int64_t)(((uint64_t)fit->lo - (uint64_t)fit->hi) / 2);
		est->bound = UINT64_MAX;
	}
	return 0;
}
