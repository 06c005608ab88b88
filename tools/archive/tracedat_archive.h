/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tracedat_archive.h - a trace-cmd trace.dat on its own, read as an
 * archive that has a host layer only (tracedat_archive.c).
 */
#ifndef HVT_TOOLS_ARCHIVE_TRACEDAT_ARCHIVE_H
#define HVT_TOOLS_ARCHIVE_TRACEDAT_ARCHIVE_H

#include "tools/archive/archive.h"

/*
 * Fills *@a for the trace.dat at @path, recorded on trace clock @clock,
 * whose first timestamp is @first_ts: no VM, complete, and two clock pairs
 * that say how @clock counts (ns clocks: the identity; x86-tsc: this
 * machine's TSC rate). The caller adds the host CPUs. -1 after an error
 * message if @clock has no unit hvtrace converts.
 */
int hvt_archive_from_tracedat(struct hvt_archive *a, const char *path, const char *clock,
			      uint64_t first_ts);

#endif
