/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * qmp.h - asking a QEMU's monitor (QMP) for its vCPU threads, and turning
 * its trace events on and off.
 */
#ifndef HVT_HOST_QMP_H
#define HVT_HOST_QMP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <jansson.h>

/*
 * A query-cpus-fast reply ({"return": [{"cpu-index": N, "thread-id": T},
 * ...]}, from our own QMP connection or libvirt's): each vCPU's host thread
 * at @tids[cpu-index] (below @max; others stay as they were); the vCPUs
 * named in *@nr.
 */
void hvt_qmp_cpus_parse(const json_t *reply, pid_t *tids, unsigned int max, unsigned int *nr);

/*
 * Connects to the QMP socket @spec (unix:PATH or tcp:HOST:PORT), runs
 * query-cpus-fast and stores each vCPU's host thread at @tids[cpu-index]
 * (below @max); their number in *@nr. -1 with @err.
 */
int hvt_qmp_vcpu_threads(const char *spec, pid_t *tids, unsigned int max, unsigned int *nr,
			 char *err, size_t errlen);

/*
 * Turns QEMU's trace events named by @patterns (like "virtio_blk_*") on or
 * off over the QMP socket @spec (trace-event-set-state): how many patterns
 * named events this QEMU has, or -1 with @err if QMP could not be used.
 */
int hvt_qmp_trace_events(const char *spec, const char *const *patterns, size_t n, bool enable,
			 char *err, size_t errlen);

#endif
