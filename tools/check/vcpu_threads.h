/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vcpu_threads.h - `hvtrace check`'s vcpu-threads[VM]: every guest event of
 * a VM inside a run interval of its vCPU's host thread, up to its error
 * bound.
 *
 * A vCPU executes only while its host thread runs on a host CPU, under KVM
 * and TCG alike; the manifest names each vCPU's thread (vcpu_threads) and
 * the host layer records their sched_switch events. The run intervals are
 * host_runs.h's, lenient where the host missed a switch-in (wider, never
 * narrower), and judged as vcpu_windows.h judges windows. Independent of
 * the clock exchanges the estimate was fitted to, so it tests the
 * alignment where the exchanges alone cannot; not of the runs where they
 * fed the fit (run_constraints.h), which its report says.
 */
#ifndef HVT_TOOLS_CHECK_VCPU_THREADS_H
#define HVT_TOOLS_CHECK_VCPU_THREADS_H

#include "tools/check/vcpu_windows.h"
#include "tools/align/host_runs.h"

struct hvt_vcpu_threads {
	struct hvt_host_runs runs;
	struct hvt_vcpu_windows windows;
	bool on;			/* initialised */
};

/* Threads @tids[0..@nr) (vCPU n's at n) from host TSC @start; -1 if out of memory. */
int hvt_vcpu_threads_init(struct hvt_vcpu_threads *vt, const int32_t *tids, size_t nr,
			  uint64_t start);
void hvt_vcpu_threads_free(struct hvt_vcpu_threads *vt);
/* A host sched_switch, as hvt_host_runs_switch() takes it. */
void hvt_vcpu_threads_switch(struct hvt_vcpu_threads *vt, uint32_t cpu, uint64_t ts,
			     int32_t prev, bool runnable, int32_t next);
/* Host CPU @cpu lost events after its event at @ts, until host TSC @until. */
void hvt_vcpu_threads_lost(struct hvt_vcpu_threads *vt, uint32_t cpu, uint64_t ts,
			   uint64_t until);
/* A guest event, as hvt_vcpu_windows_guest() takes it. */
void hvt_vcpu_threads_guest(struct hvt_vcpu_threads *vt, uint32_t vcpu, uint64_t host,
			    uint64_t bound, const void *tag, uint64_t index);
/* The trace ended at host TSC @end. */
void hvt_vcpu_threads_finish(struct hvt_vcpu_threads *vt, uint64_t end);

#endif
