/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * partial_file.h - a file written under a temporary name beside its own,
 * DIR/.NAME.hvtrace-partial-PID, and renamed to NAME only when complete:
 * readers of NAME never see half a file. A SIGINT, SIGTERM or SIGHUP while
 * it is written removes the temporary file before the process ends as the
 * signal would have ended it; what a SIGKILL or a crash leaves, the next
 * writer of NAME removes once its process is gone.
 */
#ifndef HVT_TOOLS_UTIL_PARTIAL_FILE_H
#define HVT_TOOLS_UTIL_PARTIAL_FILE_H

/* The temporary name of @path for this process; NULL if out of memory. */
char *hvt_partial_name(const char *path);
/*
 * Removes the temporary files of @path whose process is gone (and which
 * have not changed for @quiet_s seconds: a process of another PID
 * namespace is not seen gone while it writes).
 */
void hvt_partial_sweep(const char *path, int quiet_s);
/* @tmp is being written: the signals above remove it (one file at a time). */
void hvt_partial_guard(const char *tmp);
/* It is renamed or removed: the signals' actions as they were. */
void hvt_partial_unguard(void);

#endif
