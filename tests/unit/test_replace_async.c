// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_replace_async.c - files replaced on a thread of their own
 * (host/replace_async.c): the latest text queued is the one on disk, a
 * failed write is said once taken and kept until then, and two slots do
 * not wait for each other's texts.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "host/replace_async.h"
#include "lib/fileio.h"
#include "tests/common/tmpdir.h"

static char *text_of(int n)
{
	char *t = NULL;

	assert_true(asprintf(&t, "{\"n\": %d}\n", n) > 0);
	return t;
}

static void assert_file_is(const char *path, const char *want)
{
	char *got;
	size_t len;

	assert_int_equal(hvt_read_file(path, 1 << 20, &got, &len), 0);
	assert_string_equal(got, want);
	free(got);
}

/* Texts queued faster than they are written: the last one stays, whole. */
static void latest_text_wins(void **state)
{
	struct hvt_replace_slot a = { 0 }, b = { 0 };
	char pa[256], pb[256], *last;
	int i;

	(void)state;
	snprintf(pa, sizeof(pa), "%s/a.json", hvt_test_dir);
	snprintf(pb, sizeof(pb), "%s/b.json", hvt_test_dir);
	assert_int_equal(hvt_replace_wait(&a), 0);	/* nothing queued: at once */
	for (i = 0; i < 500; i++) {
		char *ta = text_of(i), *tb = text_of(-i);

		assert_int_equal(hvt_replace_async(&a, pa, ta, strlen(ta)), 0);
		assert_int_equal(hvt_replace_async(&b, pb, tb, strlen(tb)), 0);
	}
	assert_int_equal(hvt_replace_wait(&a), 0);
	assert_int_equal(hvt_replace_wait(&b), 0);
	last = text_of(499);
	assert_file_is(pa, last);
	free(last);
	last = text_of(-499);
	assert_file_is(pb, last);
	free(last);
	assert_int_equal(hvt_replace_error(&a), 0);
}

/* A write that fails is kept for the caller until it takes it, once. */
static void failure_kept_until_taken(void **state)
{
	struct hvt_replace_slot s = { 0 };
	char path[256];
	char *t = text_of(1);

	(void)state;
	snprintf(path, sizeof(path), "%s/no/such/dir/x.json", hvt_test_dir);
	assert_int_equal(hvt_replace_async(&s, path, t, strlen(t)), 0);
	errno = 0;
	assert_int_equal(hvt_replace_wait(&s), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(hvt_replace_wait(&s), -1);	/* not taken yet */
	assert_int_equal(hvt_replace_error(&s), ENOENT);
	assert_int_equal(hvt_replace_error(&s), 0);
	assert_int_equal(hvt_replace_wait(&s), 0);
	snprintf(path, sizeof(path), "%s/ok.json", hvt_test_dir);
	t = text_of(2);
	assert_int_equal(hvt_replace_async(&s, path, t, strlen(t)), 0);
	assert_int_equal(hvt_replace_wait(&s), 0);
	assert_file_is(path, "{\"n\": 2}\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(latest_text_wins, hvt_test_dir_setup,
						hvt_test_dir_teardown),
		cmocka_unit_test_setup_teardown(failure_kept_until_taken, hvt_test_dir_setup,
						hvt_test_dir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
