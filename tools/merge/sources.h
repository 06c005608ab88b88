/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sources.h - opening the sources of a time line (sources.c), for
 * timeline.c alone.
 */
#ifndef HVT_TOOLS_MERGE_SOURCES_H
#define HVT_TOOLS_MERGE_SOURCES_H

#include <stdbool.h>

#include "tools/merge/timeline.h"

/*
 * The host layer from a trace-cmd trace.dat instead of the archive's own;
 * -1 after an error message.
 */
int hvt_timeline_use_host_trace(struct hvt_timeline *tl, const char *path);
/* The trace.dat at @path, open in tl->ftrace, as the host layer; -1 after an error message. */
int hvt_timeline_adopt_tracedat(struct hvt_timeline *tl, const char *path);
/*
 * Opens the host CPUs and every VM's streams (with @all, those that cannot
 * be aligned too), each VM aligned on the way; -1 if out of memory.
 */
int hvt_timeline_open_sources(struct hvt_timeline *tl, bool all);
void hvt_timeline_vm_free(struct hvt_timeline_vm *st);

#endif
