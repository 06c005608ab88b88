// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_cli.c - the command-line conventions (lib/cli.c): numbers taken
 * whole or not at all, and a usage error as one line with exit status 2.
 */
#include <getopt.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/cli.h"
#include "lib/log.h"

/* @s parsed within [@min, @max]: it must be taken. */
static uint64_t taken(const char *s, uint64_t min, uint64_t max)
{
	uint64_t v = 7;

	if (hvt_parse_u64(s, min, max, &v))
		fail_msg("\"%s\" refused", s);
	return v;
}

static void numbers_whole_or_not_at_all(void **state)
{
	/* not numbers, not only numbers, or past 64 bits */
	static const char *const refused[] = {
		"", "abc", "12x", " 1", "1 ", "-1", "+1", "0x", "010x", "18446744073709551616",
	};
	uint64_t v;
	size_t i;

	(void)state;
	assert_int_equal(taken("0", 0, 10), 0);
	assert_int_equal(taken("4096", 1, UINT32_MAX), 4096);
	assert_int_equal(taken("0x1000", 1, UINT32_MAX), 4096);
	assert_true(taken("18446744073709551615", 0, UINT64_MAX) == UINT64_MAX);
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (!hvt_parse_u64(refused[i], 0, UINT64_MAX, &v))
			fail_msg("\"%s\" taken as %" PRIu64, refused[i], v);
	/* out of range */
	assert_int_equal(hvt_parse_u64("0", 1, 10, &v), -1);
	assert_int_equal(hvt_parse_u64("11", 1, 10, &v), -1);
}

/* Runs @fn(@arg) with standard error in a file; returns what it wrote. */
static char *stderr_of(int (*fn)(char *), char *arg, int *ret)
{
	static char buf[1024];
	FILE *f = tmpfile();
	int saved = dup(STDERR_FILENO);
	size_t n;

	assert_non_null(f);
	fflush(stderr);
	dup2(fileno(f), STDERR_FILENO);
	*ret = fn(arg);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int say_usage_error(char *format)
{
	return hvt_usage_error("merge", "invalid --format '%s'", format);
}

/* getopt_long() on "merge OPTION A", then the usage error for what it refused. */
static int say_bad_option(char *option)
{
	int r;
	char *argv[] = { "merge", option, "A", NULL };
	static const struct option opts[] = { { "help", no_argument, NULL, 'h' },
					      { "format", required_argument, NULL, 'f' },
					      { "output", required_argument, NULL, 'o' }, { 0 } };

	optind = 0;
	opterr = 0;
	argv[2] = strcmp(option, "--format") && strcmp(option, "-o") ? "A" : NULL;
	while ((r = getopt_long(argv[2] ? 3 : 2, argv, "ho:", opts, NULL)) == 'h')
		;	/* a group: -h taken, then the letter refused */
	assert_int_equal(r, '?');
	return hvt_usage_bad_option("merge", argv, "ho:", opts);
}

static void usage_errors_are_one_line(void **state)
{
	int ret;
	char *err;

	(void)state;
	hvt_log_set_prog("hvtrace merge");
	err = stderr_of(say_usage_error, "xml", &ret);
	assert_int_equal(ret, HVT_EXIT_USAGE);
	assert_string_equal(err, "hvtrace merge: error: invalid --format 'xml'; "
			    "see 'hvtrace merge --help'\n");
	err = stderr_of(say_bad_option, "--no-such", &ret);
	assert_int_equal(ret, HVT_EXIT_USAGE);
	assert_string_equal(err, "hvtrace merge: error: unknown option '--no-such'; "
			    "see 'hvtrace merge --help'\n");
	err = stderr_of(say_bad_option, "-q", &ret);
	assert_int_equal(ret, HVT_EXIT_USAGE);
	assert_string_equal(err, "hvtrace merge: error: unknown option '-q'; "
			    "see 'hvtrace merge --help'\n");
	/* a typo gets the nearest option; a missing value or an unwanted one is said so */
	err = stderr_of(say_bad_option, "--fromat=json", &ret);
	assert_string_equal(err, "hvtrace merge: error: unknown option '--fromat' (did you mean "
			    "'--format'?); see 'hvtrace merge --help'\n");
	err = stderr_of(say_bad_option, "--format", &ret);
	assert_string_equal(err, "hvtrace merge: error: --format needs a value; "
			    "see 'hvtrace merge --help'\n");
	err = stderr_of(say_bad_option, "-o", &ret);
	assert_string_equal(err, "hvtrace merge: error: -o needs a value (--output); "
			    "see 'hvtrace merge --help'\n");
	/* an unknown letter in a group of short options is named, not the word before */
	err = stderr_of(say_bad_option, "-hZ", &ret);
	assert_string_equal(err, "hvtrace merge: error: unknown option '-Z'; "
			    "see 'hvtrace merge --help'\n");
	/* the letter of a long option that is no short one: unknown, not "needs a value" */
	err = stderr_of(say_bad_option, "-f", &ret);
	assert_string_equal(err, "hvtrace merge: error: unknown option '-f'; "
			    "see 'hvtrace merge --help'\n");
	err = stderr_of(say_bad_option, "--help=1", &ret);
	assert_string_equal(err, "hvtrace merge: error: --help takes no value: '--help=1'; "
			    "see 'hvtrace merge --help'\n");
}

/* -v and -q: the last given counts, never both at once. */
static void verbosity_last_counts(void **state)
{
	(void)state;
	hvt_cli_verbosity_reset();
	assert_true(hvt_cli_verbosity('q'));
	assert_true(hvt_cli_verbosity('v'));
	assert_int_equal(hvt_log_verbose(), 1);
	assert_int_equal(hvt_log_quiet(), 0);
	assert_true(hvt_cli_verbosity('q'));
	assert_int_equal(hvt_log_verbose(), 0);
	assert_int_equal(hvt_log_quiet(), 1);
	assert_false(hvt_cli_verbosity('x'));
	assert_int_equal(hvt_log_quiet(), 1);
	hvt_cli_verbosity_reset();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(numbers_whole_or_not_at_all),
		cmocka_unit_test(usage_errors_are_one_line),
		cmocka_unit_test(verbosity_last_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
