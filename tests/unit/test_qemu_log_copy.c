// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_qemu_log_copy.c - QEMU's trace log kept in the archive (host/qemu_log_copy.c,
 * record --qemu-log): only what was written after the recording started,
 * up to the last whole line; a log that is not there is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "host/qemu_log_copy.h"
#include "tests/common/tmpdir.h"

static void append(const char *path, const char *text)
{
	FILE *f = fopen(path, "a");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_kept_from_the_start_whole_lines(void **state)
{
	struct hvt_qemu_log l;
	char log[128], dst[128], err[256], got[128] = "";
	FILE *f;
	size_t n;

	(void)state;
	snprintf(log, sizeof(log), "%s/qemu.log", hvt_test_dir);
	snprintf(dst, sizeof(dst), "%s/qemu-trace.log", hvt_test_dir);
	append(log, "1@1.000001:before the recording\n");
	assert_int_equal(hvt_qemu_log_open(&l, log, err, sizeof(err)), 0);
	append(log, "2@2.000002:virtio_notify vdev 0x1 vq 0x2\n3@3.000003:virtio_pci_notify "
	       "\n4@4.000004:half a li");
	assert_int_equal(hvt_qemu_log_save(&l, dst), 71);
	f = fopen(dst, "r");
	assert_non_null(f);
	n = fread(got, 1, sizeof(got) - 1, f);
	got[n] = '\0';
	fclose(f);
	assert_string_equal(got, "2@2.000002:virtio_notify vdev 0x1 vq 0x2\n"
			    "3@3.000003:virtio_pci_notify \n");
	/* never over a file there */
	assert_int_equal(hvt_qemu_log_save(&l, dst), -1);
	hvt_qemu_log_close(&l);
	snprintf(log, sizeof(log), "%s/nosuch.log", hvt_test_dir);
	assert_int_equal(hvt_qemu_log_open(&l, log, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "nosuch.log: No such file or directory"));
	assert_int_equal(hvt_qemu_log_open(&l, hvt_test_dir, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a regular file"));
}

/* More than a read's worth: a line cut at the end goes, wherever the reads end. */
static void test_whole_lines_across_reads(void **state)
{
	struct hvt_qemu_log l;
	char log[128], dst[128], err[256], line[101];
	long size;
	FILE *f;
	int i;

	(void)state;
	snprintf(log, sizeof(log), "%s/qemu.log", hvt_test_dir);
	snprintf(dst, sizeof(dst), "%s/kept.log", hvt_test_dir);
	append(log, "");
	assert_int_equal(hvt_qemu_log_open(&l, log, err, sizeof(err)), 0);
	memset(line, 'x', 99);
	line[99] = '\n';
	line[100] = '\0';
	f = fopen(log, "a");
	assert_non_null(f);
	for (i = 0; i < 10485; i++)	/* 1,048,500 bytes of lines, then */
		fputs(line, f);
	line[99] = 'x';			/* 100 of a line without its '\n': the */
	fputs(line, f);			/* first read (1 MiB) ends inside it */
	fclose(f);
	assert_int_equal(hvt_qemu_log_save(&l, dst), 1048500);
	f = fopen(dst, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, -1, SEEK_END);
	assert_int_equal(getc(f), '\n');
	fclose(f);
	assert_int_equal(size, 1048500);
	hvt_qemu_log_close(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_kept_from_the_start_whole_lines,
						hvt_test_dir_setup, hvt_test_dir_teardown),
		cmocka_unit_test_setup_teardown(test_whole_lines_across_reads,
						hvt_test_dir_setup, hvt_test_dir_teardown),
	};

	return cmocka_run_group_tests_name("qemu_log_copy", tests, NULL, NULL);
}
