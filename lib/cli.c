// SPDX-License-Identifier: GPL-2.0-only
/*
 * cli.c - the command-line conventions of every hvtrace command (cli.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/cli.h"
#include "lib/log.h"

int hvt_usage_error(const char *cmd, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	hvt_err("%s; see 'hvtrace %s --help'", msg, cmd);
	return HVT_EXIT_USAGE;
}

int hvt_usage_bad_option(const char *cmd, char **argv)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "?";

	if (optopt && arg[0] == '-' && arg[1] != '-')
		return hvt_usage_error(cmd, "unknown option or missing value: '-%c'", optopt);
	return hvt_usage_error(cmd, "unknown option or missing value: '%s'", arg);
}

int hvt_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10);
	if (errno || *end || *v < min || *v > max)
		return -1;
	return 0;
}

bool hvt_cli_verbosity(int c)
{
	if (c == 'v')
		hvt_log_set_verbose(1);
	else if (c == 'q')
		hvt_log_set_quiet(1);
	return c == 'v' || c == 'q';
}

void hvt_cli_verbosity_reset(void)
{
	hvt_log_set_verbose(0);
	hvt_log_set_quiet(0);
}
