// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;

	if (fd < 0 || fstat(fd, &st)) {
		hvt_warn("%s: cannot open: %s; skipping %s", name, strerror(errno), skipped);
		(*warnings)++;
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*size = (uint64_t)st.st_size;
	return fd;
}
