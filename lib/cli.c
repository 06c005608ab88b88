// SPDX-License-Identifier: GPL-2.0-only
/*
 * cli.c - the command-line conventions of every hvtrace command (cli.h).
 */
#include <errno.h>
#include <math.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

size_t hvt_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, row[32], diag, up;

	if (la >= 32 || lb >= 32)
		return 32;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		diag = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			up = row[j];
			row[j] = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < row[j])
				row[j] = up + 1;
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			diag = up;
		}
	}
	return row[lb];
}

/* The option of @opts getopt matched (its val @val), or NULL. */
static const struct option *matched(const struct option *opts, int val, const char *name,
				    size_t len)
{
	for (; opts && opts->name; opts++)
		if (name ? !strncmp(opts->name, name, len) && opts->val == val : opts->val == val)
			return opts;
	return NULL;
}

/* An unknown --NAME: said with the nearest known name, if near. */
static int unknown_long(const char *cmd, const char *arg, const struct option *opts)
{
	char name[64];
	size_t n = strcspn(arg + 2, "="), best_d = 99, d;
	const char *best = NULL;

	snprintf(name, sizeof(name), "%.*s", (int)(n < sizeof(name) ? n : sizeof(name) - 1),
		 arg + 2);
	for (; opts && opts->name; opts++) {
		d = hvt_edit_distance(name, opts->name);
		if (d < best_d || (!strncmp(opts->name, name, strlen(name)) && d == best_d)) {
			best_d = d;
			best = opts->name;
		}
	}
	if (best && best_d <= 2 && n >= 3)
		return hvt_usage_error(cmd, "unknown option '--%s' (did you mean '--%s'?)", name,
				       best);
	return hvt_usage_error(cmd, "unknown option '%s'", arg);
}

int hvt_usage_bad_option(const char *cmd, char **argv, const char *shortopts,
			 const struct option *opts)
{
	const char *at;
	const char *arg = optind > 0 ? argv[optind - 1] : "?";
	const struct option *o;

	if (arg[0] == '-' && arg[1] == '-') {
		size_t n = strcspn(arg + 2, "=");

		if (optopt && !(o = matched(opts, optopt, arg + 2, n)))	/* -Z in a group */
			return hvt_usage_error(cmd, "unknown option '-%c'", optopt);
		if (!optopt)
			return unknown_long(cmd, arg, opts);
		if (o->has_arg == no_argument && arg[2 + n] == '=')
			return hvt_usage_error(cmd, "--%s takes no value: '%s'", o->name, arg);
		return hvt_usage_error(cmd, "--%s needs a value", o->name);
	}
	if (!optopt)
		return hvt_usage_error(cmd, "unknown option '%s'", arg);
	/* a short option of @shortopts that takes a value, given none */
	if ((at = strchr(shortopts, optopt)) && at[1] == ':') {
		for (o = opts; o && o->name && !(o->val == optopt && o->has_arg != no_argument); o++)
			;
		if (o && o->name)
			return hvt_usage_error(cmd, "-%c needs a value (--%s)", optopt, o->name);
		return hvt_usage_error(cmd, "-%c needs a value", optopt);
	}
	return hvt_usage_error(cmd, "unknown option '-%c'", optopt);
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

int hvt_parse_seconds(const char *cmd, const char *opt, const char *value, double min,
		      double max, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(value, &end);
	if (errno || end == value || *end || !isfinite(*v) || *v < min || *v > max) {
		hvt_usage_error(cmd, "%s is seconds from %g to %g, not '%s'", opt, min, max, value);
		return -1;
	}
	return 0;
}

bool hvt_cli_verbosity(int c)
{
	if (c != 'v' && c != 'q')
		return false;
	/* the last of the two counts: -q -v is verbose, -v -q quiet */
	hvt_log_set_verbose(c == 'v');
	hvt_log_set_quiet(c == 'q');
	return true;
}

void hvt_cli_verbosity_reset(void)
{
	hvt_log_set_verbose(0);
	hvt_log_set_quiet(0);
}
