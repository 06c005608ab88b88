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
/*
 * A new source of layer @layer (of VM @vm, NULL on the host) named @name,
 * or "@name#N" if another source has that name; NULL if out of memory.
 */
struct hvt_source *hvt_timeline_add_source(struct hvt_timeline *tl, enum hvt_layer layer,
					   const char *vm, const char *name);
/* Keeps @ft for hvt_timeline_close(); -1 if out of memory (@ft closed, said). */
int hvt_timeline_keep_ftrace(struct hvt_timeline *tl, struct hvt_ftrace *ft);
/*
 * Each VM=TRACE.DAT of @specs, a trace-cmd recording made in that VM on its
 * TSC, as more kernel sources of the VM (guest_traces.c); -1 after an error
 * message.
 */
int hvt_timeline_open_guest_traces(struct hvt_timeline *tl, const char *const *specs, size_t n);
/*
 * Each of @paths, a file of QEMU's log trace backend, as a source of the
 * vmm layer placed through the host clock pairs (vmm_traces.c); -1 after
 * an error message.
 */
int hvt_timeline_open_qemu_traces(struct hvt_timeline *tl, const char *const *paths, size_t n);
void hvt_timeline_vm_free(struct hvt_timeline_vm *st);

#endif
