/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tmpdir.h - a directory of its own for a test, and its removal.
 */
#ifndef HVT_TESTS_TMPDIR_H
#define HVT_TESTS_TMPDIR_H

#define HVT_TEST_DIR_MAX	64

/* Makes /tmp/hvtrace-test-@tag-XXXXXX, its name in @dir: 0, or -1. */
int hvt_test_mkdtemp(char dir[HVT_TEST_DIR_MAX], const char *tag);
/* Removes @dir and everything below it (symbolic links are not followed): 0, or -1. */
int hvt_test_rm_rf(const char *dir);

/* cmocka setup and teardown: a fresh hvt_test_dir for the test (or group). */
extern char hvt_test_dir[HVT_TEST_DIR_MAX];
int hvt_test_dir_setup(void **state);
int hvt_test_dir_teardown(void **state);

#endif
