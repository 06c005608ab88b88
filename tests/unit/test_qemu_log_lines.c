// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_qemu_log_lines.c - a QEMU log read as a stream (tools/read/
 * qemu_log_lines.c): lines in time order through the window, lines later
 * than it placed and counted, the window's bound on memory, and the lines
 * skipped (another shape, over-long, names past the limit), each counted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/common/tmpdir.h"
#include "tools/read/qemu_log_lines.h"

#define S	1000000000ull	/* ns */

static char path[HVT_TEST_DIR_MAX + 16];

static FILE *log_file(void)
{
	FILE *f;

	snprintf(path, sizeof(path), "%s/qemu.log", hvt_test_dir);
	f = fopen(path, "w");
	assert_non_null(f);
	return f;
}

/* A line of thread 100 at @sec s and @usec us, event @name. */
static void line(FILE *f, unsigned long sec, unsigned long usec, const char *name)
{
	fprintf(f, "100@%lu.%06lu:%s dev 0x1 n %lu\n", sec, usec, name, usec);
}

/* Every line of the log at @path: their times in @ts (at most @max), their count. */
static size_t read_all(struct hvt_qemu_lines *q, uint64_t *ts, size_t max)
{
	struct hvt_qemu_line *l;
	size_t n = 0;

	assert_int_equal(hvt_qemu_lines_open(q, path), 0);
	while ((l = hvt_qemu_lines_next(q))) {
		assert_true(q->nr_pending <= HVT_QEMU_LOG_PENDING_MAX);
		if (n < max)
			ts[n] = l->ts;
		n++;
		free(l);
	}
	return n;
}

/* Lines written out of order within the window come out in time order, ties in line order. */
static void test_in_time_order(void **state)
{
	struct hvt_qemu_lines q;
	struct hvt_qemu_line *l;
	size_t len;
	FILE *f = log_file();

	(void)state;
	line(f, 1700000000, 300, "b");
	line(f, 1700000000, 100, "a");
	fputs("not a line of the log\n", f);
	line(f, 1700000000, 300, "c");
	line(f, 1700000002, 200, "a");	/* 2 s later: within the window */
	line(f, 1700000001, 0, "d");
	fclose(f);
	assert_int_equal(hvt_qemu_lines_open(&q, path), 0);
	l = hvt_qemu_lines_next(&q);
	assert_true(l->ts == 1700000000 * S + 100500 && l->line == 2);
	assert_string_equal(hvt_qemu_lines_name(&q, l->name, &len), "a");
	assert_int_equal(l->args_len, strlen("dev 0x1 n 100"));
	assert_memory_equal(l->args, "dev 0x1 n 100", l->args_len);
	free(l);
	l = hvt_qemu_lines_next(&q);
	assert_true(l->line == 1 && l->ts == 1700000000 * S + 300500);
	free(l);
	l = hvt_qemu_lines_next(&q);
	assert_int_equal(l->line, 4);
	free(l);
	l = hvt_qemu_lines_next(&q);
	assert_int_equal(l->line, 6);
	free(l);
	l = hvt_qemu_lines_next(&q);
	assert_int_equal(l->line, 5);
	assert_string_equal(hvt_qemu_lines_name(&q, l->name, &len), "a");
	free(l);
	assert_null(hvt_qemu_lines_next(&q));
	assert_int_equal(q.nr_names, 4);
	assert_true(q.other == 1 && q.first_other == 3 && !q.late);
	hvt_qemu_lines_close(&q);
}

/*
 * A line that comes after one stamped more than the window later went out
 * goes out at that one's time, counted: the times never go back.
 */
static void test_later_than_the_window(void **state)
{
	struct hvt_qemu_lines q;
	uint64_t ts[8];
	size_t i;
	FILE *f = log_file();

	(void)state;
	line(f, 1700000006, 0, "a");
	line(f, 1700000000, 0, "a");
	line(f, 1700000012, 0, "a");	/* settles the first two */
	line(f, 1700000001, 0, "a");	/* 5 s after the last one out: late */
	line(f, 1700000013, 0, "a");
	fclose(f);
	assert_int_equal(read_all(&q, ts, 8), 5);
	for (i = 1; i < 5; i++)
		assert_true(ts[i] >= ts[i - 1]);
	assert_true(ts[0] == 1700000000 * S + 500 && ts[1] == 1700000006 * S + 500);
	assert_int_equal(ts[2], ts[1]);		/* the late one, placed */
	assert_true(q.late == 1 && q.late_max_ns == 5 * S);
	hvt_qemu_lines_close(&q);
}

/*
 * One line stamped a day ahead (damage, a clock set wrong) among lines
 * written slightly out of order: the window is flushed once, the lines
 * after it are sorted again; the line goes out last.
 */
static void test_one_line_far_ahead(void **state)
{
	struct hvt_qemu_lines q;
	uint64_t ts[500];
	unsigned long k;
	size_t i, n;
	FILE *f = log_file();

	(void)state;
	for (k = 0; k < 400; k += 2) {		/* pairs written later first */
		line(f, 1700000000, k + 1, "a");
		line(f, 1700000000, k, "a");
		if (k == 200)
			line(f, 1700086400, 0, "ahead");
	}
	fclose(f);
	n = read_all(&q, ts, 500);
	assert_int_equal(n, 401);
	assert_true(q.late <= 1);
	assert_int_equal(ts[400], 1700086400 * S + 500);
	for (i = 1; i < n; i++)
		assert_true(ts[i] >= ts[i - 1]);
	hvt_qemu_lines_close(&q);
}

/*
 * More lines within the window than it holds: no more than
 * HVT_QEMU_LOG_PENDING_MAX wait (checked at each line), all come out, in
 * order; memory is bounded by the window, not the file.
 */
static void test_window_bounded(void **state)
{
	size_t n = HVT_QEMU_LOG_PENDING_MAX + 1000, i, max = 0;
	struct hvt_qemu_lines q;
	struct hvt_qemu_line *l;
	uint64_t prev = 0;
	FILE *f = log_file();

	(void)state;
	for (i = 0; i < n; i++)
		line(f, 1700000000, i % 1000000, "a");
	fclose(f);
	assert_int_equal(hvt_qemu_lines_open(&q, path), 0);
	for (i = 0; (l = hvt_qemu_lines_next(&q)); i++) {
		if (q.nr_pending > max)
			max = q.nr_pending;
		assert_true(l->ts >= prev);
		prev = l->ts;
		free(l);
	}
	assert_int_equal(i, n);
	assert_int_equal(max, HVT_QEMU_LOG_PENDING_MAX - 1);
	hvt_qemu_lines_close(&q);
}

/* An over-long line, and names past the limit: skipped, counted; the lines around them read. */
static void test_skipped_lines(void **state)
{
	struct hvt_qemu_lines q;
	uint64_t ts[4];
	char name[32];
	unsigned int i;
	FILE *f = log_file();

	(void)state;
	line(f, 1700000000, 1, "first");
	fprintf(f, "100@1700000000.000002:long ");
	for (i = 0; i < HVT_QEMU_LOG_MAX_LINE + 10; i++)
		fputc('x', f);
	fputc('\n', f);
	line(f, 1700000000, 3, "after");
	/* longer than the read buffer itself */
	fprintf(f, "100@1700000000.000004:longer ");
	for (i = 0; i < 3 * HVT_QEMU_LOG_MAX_LINE; i++)
		fputc('y', f);
	fputc('\n', f);
	fprintf(f, "100@1700000000.000005:last dev 0x1");	/* no newline at the end */
	fclose(f);
	assert_int_equal(read_all(&q, ts, 4), 3);
	assert_true(q.too_long == 2 && q.line == 5);
	assert_int_equal(ts[1], 1700000000 * S + 3500);
	assert_int_equal(ts[2], 1700000000 * S + 5500);
	hvt_qemu_lines_close(&q);

	f = log_file();
	for (i = 0; i < HVT_QEMU_LOG_MAX_NAMES + 2; i++) {
		snprintf(name, sizeof(name), "e%u", i);
		line(f, 1700000000, 5, name);
	}
	line(f, 1700000000, 6, "e1");		/* a known name still counts */
	fclose(f);
	assert_int_equal(read_all(&q, ts, 4), HVT_QEMU_LOG_MAX_NAMES + 1);
	assert_int_equal(q.unnamed, 2);
	hvt_qemu_lines_close(&q);
}

/* A file that cannot be read as a log: refused at the open. */
static void test_not_a_file(void **state)
{
	struct hvt_qemu_lines q;

	(void)state;
	assert_int_equal(hvt_qemu_lines_open(&q, hvt_test_dir), -1);	/* a directory */
	snprintf(path, sizeof(path), "%s/nosuch", hvt_test_dir);
	assert_int_equal(hvt_qemu_lines_open(&q, path), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_in_time_order, hvt_test_dir_setup,
						hvt_test_dir_teardown),
		cmocka_unit_test_setup_teardown(test_later_than_the_window, hvt_test_dir_setup,
						hvt_test_dir_teardown),
		cmocka_unit_test_setup_teardown(test_one_line_far_ahead, hvt_test_dir_setup,
						hvt_test_dir_teardown),
		cmocka_unit_test_setup_teardown(test_window_bounded, hvt_test_dir_setup,
						hvt_test_dir_teardown),
		cmocka_unit_test_setup_teardown(test_skipped_lines, hvt_test_dir_setup,
						hvt_test_dir_teardown),
		cmocka_unit_test_setup_teardown(test_not_a_file, hvt_test_dir_setup,
						hvt_test_dir_teardown),
	};

	return cmocka_run_group_tests_name("qemu_log_lines", tests, NULL, NULL);
}
