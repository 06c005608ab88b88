// SPDX-License-Identifier: LGPL-2.1-only OR MIT
/*
 * debug.c - the only thing libhvtrace ever says: why tracing is off, on
 * stderr, when HVTRACE_DEBUG is set to anything but empty or 0
 * (docs/user-tracepoints.md). Any file of the library may call it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vdso/internal.h"

void hvt_debug_msg(const char *fmt, ...)
{
	static int debug = -1;
	va_list ap;

	if (debug < 0) {
		const char *v = getenv("HVTRACE_DEBUG");

		debug = v && *v && strcmp(v, "0");	/* unset, empty and 0 are off */
	}
	if (!debug)
		return;
	fputs("libhvtrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
