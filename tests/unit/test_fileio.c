// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_fileio.c - lib/fileio.c's rules for what may be read and written:
 * only regular files are opened to read (a FIFO would block forever), size
 * bounds hold, the kernel's pseudo-files (whose sizes mean nothing) are
 * still read whole, and an output never lands on an input.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/fileio.h"
#include "tests/common/tmpdir.h"

static const char *const dir = hvt_test_dir;

static char *path_of(const char *rel)
{
	static char bufs[4][128];
	static int i;
	char *p = bufs[i++ % 4];

	snprintf(p, 128, "%s/%s", dir, rel);
	return p;
}

static void write_text(const char *rel, const char *text)
{
	FILE *f = fopen(path_of(rel), "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void regular_files_only(void **state)
{
	uint64_t size = 0;
	char *data;
	size_t len;
	int fd;

	(void)state;
	write_text("ten", "0123456789");
	fd = hvt_open_regular(path_of("ten"), 10, &size);
	assert_true(fd >= 0);
	assert_int_equal(size, 10);
	close(fd);
	errno = 0;
	assert_int_equal(hvt_open_regular(path_of("ten"), 9, &size), -1);
	assert_int_equal(errno, EFBIG);
	assert_int_equal(mkfifo(path_of("fifo"), 0600), 0);
	assert_int_equal(hvt_open_regular(path_of("fifo"), 100, &size), -1);	/* at once */
	assert_int_equal(errno, EINVAL);
	assert_string_equal(hvt_file_strerror(errno), "not a regular file");
	assert_int_equal(hvt_read_file(path_of("fifo"), 100, &data, &len), -1);
	assert_int_equal(hvt_open_regular("/dev/zero", 100, &size), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(hvt_open_regular(dir, 100, &size), -1);
	assert_int_equal(errno, EISDIR);
	assert_int_equal(hvt_open_regular(path_of("none"), 100, &size), -1);
	assert_int_equal(errno, ENOENT);
	/* the bound also holds for what a read brings */
	assert_int_equal(hvt_read_file(path_of("ten"), 9, &data, &len), -1);
	assert_int_equal(errno, EFBIG);
	assert_int_equal(hvt_read_file(path_of("ten"), 10, &data, &len), 0);
	assert_int_equal(len, 10);
	free(data);
}

/* sysfs says 4096 bytes, procfs 0: neither may keep a small file from being read. */
static void kernel_pseudo_files(void **state)
{
	char *data;
	size_t len;

	(void)state;
	assert_int_equal(hvt_read_file("/sys/devices/system/cpu/online", 256, &data,
				       &len), 0);
	assert_true(len > 0 && len < 256);
	free(data);
	assert_int_equal(hvt_read_file("/proc/self/stat", 4096, &data, &len), 0);
	assert_true(len > 0);
	free(data);
}

static void outputs_never_land_on_inputs(void **state)
{
	(void)state;
	assert_int_equal(mkdir(path_of("archive"), 0755), 0);
	assert_int_equal(mkdir(path_of("archive/vm"), 0755), 0);
	write_text("archive/hvtrace.json", "{}");
	write_text("archive/vm/stream", "x");
	assert_int_equal(link(path_of("archive/vm/stream"), path_of("hard")), 0);
	assert_int_equal(symlink(path_of("archive"), path_of("alias")), 0);
	assert_true(hvt_path_touches(path_of("archive/hvtrace.json"), path_of("archive")));
	assert_true(hvt_path_touches(path_of("archive/vm/../hvtrace.json"), path_of("archive")));
	assert_true(hvt_path_touches(path_of("alias/vm/stream"), path_of("archive")));
	assert_true(hvt_path_touches(path_of("hard"), path_of("archive")));
	assert_true(hvt_path_touches(path_of("archive"), path_of("archive")));
	assert_true(hvt_path_touches(path_of("alias"), path_of("archive")));
	/* a new file, or an existing directory below, is not an input file */
	assert_false(hvt_path_touches(path_of("archive/new.txt"), path_of("archive")));
	assert_false(hvt_path_touches(path_of("archive/vm"), path_of("archive")));
	write_text("other", "y");
	assert_false(hvt_path_touches(path_of("other"), path_of("archive")));
	assert_false(hvt_path_touches(path_of("other"), path_of("no-such-input")));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(regular_files_only, hvt_test_dir_setup, hvt_test_dir_teardown),
		cmocka_unit_test(kernel_pseudo_files),
		cmocka_unit_test_setup_teardown(outputs_never_land_on_inputs, hvt_test_dir_setup, hvt_test_dir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
