/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cli.h - the command-line conventions every hvtrace command follows
 * (docs/architecture.md, "Errors: one convention"): a usage error is one
 * line that names the problem and points to the command's --help, and the
 * exit status is HVT_EXIT_USAGE; numbers are taken whole or not at all.
 */
#ifndef HVT_LIB_CLI_H
#define HVT_LIB_CLI_H

#include <stdbool.h>
#include <stdint.h>

#define HVT_EXIT_USAGE	2

/*
 * Says "@fmt...; see 'hvtrace @cmd --help'" as an error (one line);
 * returns HVT_EXIT_USAGE.
 */
int hvt_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
struct option;
/*
 * getopt_long() returned '?' or ':' (with opterr = 0) on its options
 * @shortopts and @opts:
 * says in one line what was wrong with argv[optind - 1] (an unknown option,
 * with the nearest known one if a typo is likely; a value missing, or
 * given to an option that takes none); returns HVT_EXIT_USAGE.
 */
int hvt_usage_bad_option(const char *cmd, char **argv, const char *shortopts,
			 const struct option *opts);
/* The edit distance of two short names (32 characters or more: "far"). */
size_t hvt_edit_distance(const char *a, const char *b);
/*
 * @s as an integer from @min to @max: decimal, or hexadecimal after 0x;
 * no sign, blanks or trailing characters. 0, or -1 if it is not one.
 */
int hvt_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *v);
/*
 * @value of option @opt of command @cmd as seconds (a decimal fraction)
 * from @min to @max: 0, or -1 after a usage error naming the range.
 */
int hvt_parse_seconds(const char *cmd, const char *opt, const char *value, double min,
		      double max, double *v);

/*
 * -v/--verbose and -q/--quiet, the same in every offline command: put
 * HVT_CLI_VERBOSITY_OPTIONS in the getopt_long() table, "vq" in its short
 * options, and pass each option to hvt_cli_verbosity() first: true when it
 * was one of them (the log level is set), after hvt_cli_verbosity_reset()
 * before the loop (a command may run more than once in a process).
 * HVT_CLI_VERBOSITY_HELP is their
 * lines of --help.
 */
#define HVT_CLI_VERBOSITY_OPTIONS \
	{ "verbose", no_argument, NULL, 'v' }, { "quiet", no_argument, NULL, 'q' }
#define HVT_CLI_VERBOSITY_HELP \
	"  -v, --verbose     also say how each VM's clock was aligned, in detail\n" \
	"  -q, --quiet       print no summary or information: warnings, errors and\n" \
	"                    the results only (of -v and -q, the last given counts)\n"
bool hvt_cli_verbosity(int c);
/* Back to the default level, before a command parses its options. */
void hvt_cli_verbosity_reset(void);

#endif
