// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stdio.h>

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
