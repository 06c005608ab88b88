/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ftrace_capture.h - the host layer: hypervisor-side tracepoints recorded in
 * a tracefs instance of the collector's own, on the x86-tsc trace clock,
 * saved as raw ring-buffer pages (docs/format.md, "host/ftrace").
 */
#ifndef HVT_FTRACE_CAPTURE_H
#define HVT_FTRACE_CAPTURE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <jansson.h>

#define HVT_FTRACE_MAX_EVENTS 64

struct tracefs_instance;
struct tracefs_cpu;

struct hvt_ftrace {
	struct tracefs_instance *instance;
	char name[64];
	char dir[4096];			/* ARCHIVE/host/ftrace */
	int nr_cpus;
	struct tracefs_cpu **cpus;
	int *files;
	uint64_t *bytes;
	unsigned char *present;		/* CPU online when tracing started */
	int page_size;
	char *events[HVT_FTRACE_MAX_EVENTS];	/* "system:event" */
	int nr_events;
	pid_t pids[1024];
	size_t nr_pids;
};

/* Removes instances left by collectors that died (hvtrace-PID, PID gone). */
void hvt_ftrace_remove_stale(void);
/*
 * Creates the instance, enables @events (SYSTEM:EVENT) filtered to @pids (if
 * any), saves their formats under @dir and starts tracing. On failure the
 * instance is gone again and @err says why.
 */
int hvt_ftrace_start(struct hvt_ftrace *ft, const char *dir, char *const *events,
		     int nr_events, const pid_t *pids, size_t nr_pids, char *err, size_t errlen);
/* Adds threads to the pid filter. */
int hvt_ftrace_add_pids(struct hvt_ftrace *ft, const pid_t *pids, size_t n);
/* Moves every full page the kernel has to the files; never blocks. */
void hvt_ftrace_pump(struct hvt_ftrace *ft);
/* Stops tracing, saves the last partial pages, removes the instance. */
void hvt_ftrace_stop(struct hvt_ftrace *ft);
json_t *hvt_ftrace_manifest(const struct hvt_ftrace *ft);
void hvt_ftrace_free(struct hvt_ftrace *ft);

#endif
