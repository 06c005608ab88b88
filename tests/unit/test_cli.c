// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_cli.c - the command-line conventions (lib/cli.c): numbers taken
 * whole or not at all, and a usage error as one line with exit status 2.
 */
#include <getopt.h>
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

static void numbers_whole_or_not_at_all(void **state)
{
	uint64_t v = 7;

	(void)state;
	assert_int_equal(hvt_parse_u64("0", 0, 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(hvt_parse_u64("4096", 1, UINT32_MAX, &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(hvt_parse_u64("0x1000", 1, UINT32_MAX, &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(hvt_parse_u64("18446744073709551615", 0, UINT64_MAX, &v), 0);
	assert_true(v == UINT64_MAX);
	/* not numbers, or not only numbers */
	assert_int_equal(hvt_parse_u64("", 0, 10, &v), -1);
	assert_int_equal(hvt_parse_u64("abc", 0, 10, &v), -1);
	assert_int_equal(hvt_parse_u64("12x", 0, 100, &v), -1);
	assert_int_equal(hvt_parse_u64(" 1", 0, 10, &v), -1);
	assert_int_equal(hvt_parse_u64("1 ", 0, 10, &v), -1);
	assert_int_equal(hvt_parse_u64("-1", 0, UINT64_MAX, &v), -1);
	assert_int_equal(hvt_parse_u64("+1", 0, 10, &v), -1);
	assert_int_equal(hvt_parse_u64("0x", 0, 10, &v), -1);
	assert_int_equal(hvt_parse_u64("010x", 0, 100, &v), -1);
	/* out of range, or past 64 bits */
	assert_int_equal(hvt_parse_u64("0", 1, 10, &v), -1);
	assert_int_equal(hvt_parse_u64("11", 1, 10, &v), -1);
	assert_int_equal(hvt_parse_u64("18446744073709551616", 0, UINT64_MAX, &v), -1);
}

/* Runs @fn with standard error in a file; returns what it wrote. */
static char *stderr_of(int (*fn)(void), int *ret)
{
	static char buf[1024];
	FILE *f = tmpfile();
	int saved = dup(STDERR_FILENO);
	size_t n;

	assert_non_null(f);
	fflush(stderr);
	dup2(fileno(f), STDERR_FILENO);
	*ret = fn();
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int say_usage_error(void)
{
	return hvt_usage_error("merge", "invalid --format '%s'", "xml");
}

static int say_bad_long_option(void)
{
	char *argv[] = { "merge", "--no-such", "A", NULL };
	static const struct option opts[] = { { "help", no_argument, NULL, 'h' }, { 0 } };

	optind = 0;
	opterr = 0;
	assert_int_equal(getopt_long(3, argv, "h", opts, NULL), '?');
	return hvt_usage_bad_option("merge", argv);
}

static int say_bad_short_option(void)
{
	char *argv[] = { "merge", "-q", "A", NULL };
	static const struct option opts[] = { { "help", no_argument, NULL, 'h' }, { 0 } };

	optind = 0;
	opterr = 0;
	assert_int_equal(getopt_long(3, argv, "h", opts, NULL), '?');
	return hvt_usage_bad_option("merge", argv);
}

static void usage_errors_are_one_line(void **state)
{
	int ret;
	char *err;

	(void)state;
	hvt_log_set_prog("hvtrace merge");
	err = stderr_of(say_usage_error, &ret);
	assert_int_equal(ret, HVT_EXIT_USAGE);
	assert_string_equal(err, "hvtrace merge: error: invalid --format 'xml'; "
			    "see 'hvtrace merge --help'\n");
	err = stderr_of(say_bad_long_option, &ret);
	assert_int_equal(ret, HVT_EXIT_USAGE);
	assert_string_equal(err, "hvtrace merge: error: unknown option or missing value: "
			    "'--no-such'; see 'hvtrace merge --help'\n");
	err = stderr_of(say_bad_short_option, &ret);
	assert_int_equal(ret, HVT_EXIT_USAGE);
	assert_string_equal(err, "hvtrace merge: error: unknown option or missing value: "
			    "'-q'; see 'hvtrace merge --help'\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(numbers_whole_or_not_at_all),
		cmocka_unit_test(usage_errors_are_one_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
