/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stream_warn.h - warnings about the contents of one stream (or .tsv file),
 * and opening a stream's file.
 *
 * A damaged file can produce a warning per packet, event or line; after the
 * first HVT_STREAM_WARN_SHOWN about one file the rest are only counted, so
 * that the messages that matter stay readable.
 */
#ifndef HVT_TOOLS_UTIL_STREAM_WARN_H
#define HVT_TOOLS_UTIL_STREAM_WARN_H

#include <stdint.h>

#define HVT_STREAM_WARN_SHOWN	10

/* Counts a warning in *@count and prints it (prefixed with @name) if among the first. */
void hvt_stream_warn(unsigned long *count, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * Opens a stream's file @path (@name in messages) to read: its descriptor
 * and *@size, or -1 after a warning counted in *@warnings that says the
 * stream is skipped (@skipped: "the stream", "that CPU").
 */
int hvt_stream_open(const char *path, const char *name, const char *skipped, uint64_t *size,
		    unsigned long *warnings);

#endif
