// SPDX-License-Identifier: GPL-2.0-only
/*
 * vcpu_threads.c - guest events against their vCPU thread's host run
 * intervals (vcpu_threads.h).
 */
#include <string.h>

#include "tools/check/vcpu_threads.h"

/* Each run of a vCPU thread is a window of its vCPU. */
static void on_segment(void *ctx, const struct hvt_run_segment *seg, bool open)
{
	struct hvt_vcpu_threads *vt = ctx;

	if (seg->state != HVT_RUN_RUNNING)
		return;
	hvt_vcpu_windows_open(&vt->windows, seg->thread, seg->start);
	if (!open)
		hvt_vcpu_windows_close(&vt->windows, seg->thread, seg->end);
}

int hvt_vcpu_threads_init(struct hvt_vcpu_threads *vt, const int32_t *tids, size_t nr,
			  uint64_t start)
{
	memset(vt, 0, sizeof(*vt));
	hvt_vcpu_windows_init(&vt->windows);
	if (hvt_host_runs_init(&vt->runs, tids, nr, start, on_segment, vt))
		return -1;
	vt->on = true;
	return 0;
}

void hvt_vcpu_threads_free(struct hvt_vcpu_threads *vt)
{
	if (vt->on)
		hvt_host_runs_free(&vt->runs);
	hvt_vcpu_windows_free(&vt->windows);
	memset(vt, 0, sizeof(*vt));
}

void hvt_vcpu_threads_switch(struct hvt_vcpu_threads *vt, uint32_t cpu, uint64_t ts,
			     int32_t prev, bool runnable, int32_t next)
{
	hvt_host_runs_switch(&vt->runs, cpu, ts, prev, runnable, next, NULL);
}

void hvt_vcpu_threads_lost(struct hvt_vcpu_threads *vt, uint32_t cpu, uint64_t ts,
			   uint64_t until)
{
	hvt_host_runs_lost(&vt->runs, cpu, ts, until);
	hvt_vcpu_windows_host_lost(&vt->windows, until);
}

void hvt_vcpu_threads_guest(struct hvt_vcpu_threads *vt, uint32_t vcpu, uint64_t host,
			    uint64_t bound, const void *tag, uint64_t index)
{
	if (vcpu >= vt->runs.nr || vt->runs.tids[vcpu] <= 0) {
		vt->windows.unjudged++;	/* its thread is not known */
		return;
	}
	hvt_vcpu_windows_guest(&vt->windows, vcpu, host, bound, tag, index);
}

void hvt_vcpu_threads_finish(struct hvt_vcpu_threads *vt, uint64_t end)
{
	hvt_host_runs_finish(&vt->runs, end);
	hvt_vcpu_windows_finish(&vt->windows);
}
