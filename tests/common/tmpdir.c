// SPDX-License-Identifier: GPL-2.0-only
/*
 * tmpdir.c - a directory of its own for a test (tmpdir.h).
 */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/common/tmpdir.h"

int hvt_test_mkdtemp(char dir[HVT_TEST_DIR_MAX], const char *tag)
{
	int n = snprintf(dir, HVT_TEST_DIR_MAX, "/tmp/hvtrace-test-%s-XXXXXX", tag);

	return n > 0 && n < HVT_TEST_DIR_MAX && mkdtemp(dir) ? 0 : -1;
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)type, (void)ftw;
	return remove(path);
}

int hvt_test_rm_rf(const char *dir)
{
	return nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) ? -1 : 0;
}

char hvt_test_dir[HVT_TEST_DIR_MAX];

int hvt_test_dir_setup(void **state)
{
	(void)state;
	return hvt_test_mkdtemp(hvt_test_dir, "dir");
}

int hvt_test_dir_teardown(void **state)
{
	(void)state;
	return hvt_test_rm_rf(hvt_test_dir);
}
