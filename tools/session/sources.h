/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sources.h - opening the sources of a session, for session.c and its
 * inputs (sources.c: the archive's; tracedat_input.c, guest_traces.c,
 * vmm_traces.c: the files given beside it).
 */
#ifndef HVT_TOOLS_SESSION_SOURCES_H
#define HVT_TOOLS_SESSION_SOURCES_H

#include <stdbool.h>

#include "tools/session/session.h"

/*
 * Opens the host CPUs and every VM's streams (with @all, those that cannot
 * be aligned too), each VM aligned on the way; -1 if out of memory.
 */
int hvt_session_open_sources(struct hvt_session *ses, bool all);
/*
 * A new source of layer @layer (of VM number @vm_number, 0 and @vm NULL on
 * the host) named @name, or "@name#N" if another source has that name;
 * NULL if out of memory.
 */
struct hvt_source *hvt_session_add_source(struct hvt_session *ses, enum hvt_layer layer,
					  size_t vm_number, const char *vm, const char *name);
/* Keeps @ft for hvt_session_close(); -1 if out of memory (@ft closed, said). */
int hvt_session_keep_ftrace(struct hvt_session *ses, struct hvt_ftrace *ft);
void hvt_session_vm_free(struct hvt_session_vm *st);
/* Whether trace @t's events are read: on a clock that may be placed, or @all. */
bool hvt_session_readable(const struct hvt_trace_info *t, bool all);
/* Reads trace @i's registry (further: @growing, a file still appended to); -1 if out of memory. */
int hvt_session_read_registry(struct hvt_session_vm *st, size_t i, bool growing);
/*
 * Stream @i of @st, a VM (or the host applications: @host) as a new source,
 * placed if @aligned; -1 if out of memory (one that cannot be opened is a
 * source without a reader, said).
 */
int hvt_session_open_stream(struct hvt_session *ses, struct hvt_session_vm *st, size_t i,
			    bool aligned, bool host);

/* tracedat_input.c */
/* Whether @path is a file, not an archive's directory. */
bool hvt_session_is_file(const char *path);
/*
 * A trace-cmd trace.dat on its own (tracedat_archive.h): the host layer
 * alone, on the file's own trace clock. -1 after an error message.
 */
int hvt_session_open_tracedat(struct hvt_session *ses, const char *path,
			      const struct hvt_session_opts *o);
/* The host layer from a trace-cmd trace.dat instead of the archive's own; -1 after an error. */
int hvt_session_use_host_trace(struct hvt_session *ses, const char *path);
/* More trace.dat files beside the first, on its clock; -1 after an error message. */
int hvt_session_open_more_tracedat(struct hvt_session *ses, const char *root,
				   const struct hvt_session_opts *o);

/*
 * Each VM=TRACE.DAT of @specs, a trace-cmd recording made in that VM on its
 * TSC, as more kernel sources of the VM (guest_traces.c); -1 after an error
 * message.
 */
int hvt_session_open_guest_traces(struct hvt_session *ses, const char *const *specs, size_t n);
/*
 * Each of @paths, a file of QEMU's log trace backend, as a source of the
 * vmm layer placed through the host clock pairs (vmm_traces.c); -1 after
 * an error message.
 */
int hvt_session_open_qemu_traces(struct hvt_session *ses, const char *const *paths, size_t n);

#endif
