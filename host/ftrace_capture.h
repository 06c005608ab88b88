/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ftrace_capture.h - the host layer: hypervisor-side tracepoints recorded in
 * a tracefs instance of the collector's own, on the x86-tsc trace clock,
 * saved as raw ring-buffer pages (docs/format.md, "host/ftrace").
 */
#ifndef HVT_HOST_FTRACE_CAPTURE_H
#define HVT_HOST_FTRACE_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>
#include <jansson.h>

#include "host/task_list.h"

#define HVT_FTRACE_MAX_EVENTS 64

struct tracefs_instance;
struct tracefs_cpu;

struct hvt_capture_cpu {
	bool present;			/* online when tracing started: has a file */
	struct tracefs_cpu *tcpu;	/* NULL once stopped, or if not present */
	int fd;				/* cpuN.raw, -1 if none */
	uint64_t bytes;			/* saved in the file */
	int error;			/* errno of the failure that stopped saving, or 0 */
	int64_t saved_ns;		/* CLOCK_MONOTONIC of its last save, or last look */
};

struct hvt_capture {
	struct tracefs_instance *instance;
	char name[64];
	char dir[4096];			/* ARCHIVE/host/ftrace */
	int nr_cpus;
	struct hvt_capture_cpu *cpu;	/* nr_cpus entries */
	int page_size;
	char *events[HVT_FTRACE_MAX_EVENTS];	/* "system:event" */
	int nr_events;
	struct hvt_task_list tasks;	/* the host's threads at the start and the stop */
};

/* Removes instances left by collectors that died (hvtrace-PID, PID gone). */
void hvt_capture_remove_stale(void);
/* Says on @out which instances a collector that died left behind (record --list). */
void hvt_capture_list_stale(FILE *out);
#define HVT_CAPTURE_SYS_MAX	128	/* bytes of an event's system name, with its NUL */
/* Whether @spec names a host event as SYSTEM:EVENT: 0, or -1 with @err saying why not. */
int hvt_capture_event_ok(const char *spec, char *err, size_t errlen);
/*
 * Whether the host has event @spec (well formed), as far as tracefs can
 * tell now: -1 with @err if it has not; 0 if it has, or if tracefs cannot
 * be reached (the start then says why).
 */
int hvt_capture_event_exists(const char *spec, char *err, size_t errlen);
/*
 * Creates the instance, enables @events (SYSTEM:EVENT) filtered to @pids (if
 * any), saves their formats under @dir and starts tracing. On failure the
 * instance is gone again and @err says why.
 */
int hvt_capture_start(struct hvt_capture *ft, const char *dir, char *const *events,
		     int nr_events, const pid_t *pids, size_t nr_pids, char *err, size_t errlen);
/* Adds threads to the pid filter. */
int hvt_capture_add_pids(struct hvt_capture *ft, const pid_t *pids, size_t n);
/*
 * Moves every full page the kernel has to the files; never blocks. A CPU
 * whose file cannot be written (ENOSPC...) is warned about once and no longer
 * saved, so that its file stays a sequence of whole pages.
 */
void hvt_capture_pump(struct hvt_capture *ft);
/* Stops tracing, saves the last partial pages, removes the instance. */
void hvt_capture_stop(struct hvt_capture *ft);
/* The manifest's "ftrace" object; @pids are the threads events are filtered to. */
json_t *hvt_capture_manifest(const struct hvt_capture *ft, const pid_t *pids, size_t nr_pids);
void hvt_capture_free(struct hvt_capture *ft);

#endif
