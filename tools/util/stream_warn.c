// SPDX-License-Identifier: GPL-2.0-only
/*
 * stream_warn.c - warnings about one stream, counted, and opening a stream's
 * file (stream_warn.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "lib/fileio.h"
#include "lib/log.h"
#include "tools/util/stream_warn.h"

void hvt_stream_warn(unsigned long *count, const char *name, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	if (++*count > HVT_STREAM_WARN_SHOWN)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	hvt_warn("%s: %s%s", name, msg, *count == HVT_STREAM_WARN_SHOWN ?
		 " (further warnings about this stream are only counted)" : "");
}

int hvt_stream_open(const char *path, const char *name, const char *skipped, uint64_t *size,
		    unsigned long *warnings)
{
	int fd = hvt_open_regular(path, UINT64_MAX, size);

	if (fd < 0) {
		hvt_warn("%s: cannot open: %s; skipping %s", name, hvt_file_strerror(errno),
			 skipped);
		(*warnings)++;
	}
	return fd;
}
