// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stdio.h>

#include "lib/log.h"

static const char *prog = "hvtrace";
static int verbose;
static int muted;
static int quiet;

void hvt_log_set_prog(const char *p) { prog = p; }
void hvt_log_set_verbose(int v) { verbose = v; }
int hvt_log_verbose(void) { return verbose; }
void hvt_log_set_quiet(int q) { quiet = q; }
int hvt_log_quiet(void) { return quiet; }
void hvt_log_mute(void) { muted++; }
void hvt_log_unmute(void) { muted--; }

static void emit(const char *level, const char *fmt, va_list ap)
{
	char line[1024];

	vsnprintf(line, sizeof(line), fmt, ap);
	fprintf(stderr, "%s: %s%s\n", prog, level, line);
}

void hvt_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit("error: ", fmt, ap);
	va_end(ap);
}

void hvt_warn(const char *fmt, ...)
{
	va_list ap;

	if (muted)
		return;
	va_start(ap, fmt);
	emit("warning: ", fmt, ap);
	va_end(ap);
}

void hvt_info(const char *fmt, ...)
{
	va_list ap;

	if (muted || quiet)
		return;
	va_start(ap, fmt);
	emit("", fmt, ap);
	va_end(ap);
}

void hvt_detail(const char *fmt, ...)
{
	va_list ap;

	if (muted || quiet || !verbose)
		return;
	va_start(ap, fmt);
	emit("", fmt, ap);
	va_end(ap);
}

void hvt_debug(const char *fmt, ...)
{
	va_list ap;

	if (!verbose)
		return;
	va_start(ap, fmt);
	emit("debug: ", fmt, ap);
	va_end(ap);
}
