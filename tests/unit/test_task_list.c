// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_task_list.c - the host's threads as the collector lists them for
 * host/ftrace/tasks.tsv (host/task_list.c): on a /proc tree made by the
 * test, whose contents are known, and on this machine's /proc.
 */
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

#include "host/task_list.h"
#include "lib/fileio.h"
#include "tests/common/tmpdir.h"

/* PROC/@pid/task/@tid/comm holding @comm (NULL: the thread without its comm file). */
static void make_thread(const char *proc, int pid, int tid, const char *comm)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/task/%d", proc, pid, tid);
	assert_int_equal(hvt_mkdir_p(path), 0);
	if (!comm)
		return;
	snprintf(path, sizeof(path), "%s/%d/task/%d/comm", proc, pid, tid);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "%s\n", comm);
	fclose(f);
}

static char *read_all(const char *path)
{
	static char text[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	return text;
}

static void test_fake_proc(void **state)
{
	struct hvt_task_list l = { 0 };
	char proc[128], path[160];

	(void)state;
	snprintf(proc, sizeof(proc), "%s/proc", hvt_test_dir);
	make_thread(proc, 300, 300, "qemu-system-x86");
	make_thread(proc, 300, 302, "CPU 0/KVM");
	make_thread(proc, 300, 301, "bad\tname\\x");	/* a name any user can set */
	make_thread(proc, 40, 40, "bash");
	make_thread(proc, 40, 41, NULL);		/* gone between readdir and open */
	snprintf(path, sizeof(path), "%s/self", proc);	/* not a process: skipped */
	assert_int_equal(hvt_mkdir_p(path), 0);
	assert_int_equal(hvt_task_list_scan(&l, proc), 0);
	assert_int_equal(l.n, 4);
	/* the stop: 302 renamed (the start's name stays), 303 new, 40 gone (still listed) */
	make_thread(proc, 300, 302, "renamed");
	make_thread(proc, 300, 303, "CPU 1/KVM");
	snprintf(path, sizeof(path), "%s/40/task/40/comm", proc);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(hvt_task_list_scan(&l, proc), 0);
	assert_int_equal(l.n, 5);
	snprintf(path, sizeof(path), "%s/tasks.tsv", hvt_test_dir);
	assert_int_equal(hvt_task_list_write(&l, path), 0);
	assert_string_equal(read_all(path), "tid\tpid\tcomm\n"
			    "40\t40\tbash\n"
			    "300\t300\tqemu-system-x86\n"
			    "301\t300\tbad?name?x\n"
			    "302\t300\tCPU 0/KVM\n"
			    "303\t300\tCPU 1/KVM\n");
	hvt_task_list_free(&l);
	assert_int_equal(hvt_task_list_scan(&l, "/nonexistent-proc"), -1);
	hvt_task_list_free(&l);
}

/* This machine's /proc: the test's own thread is there, in its process, by its name. */
static void test_real_proc(void **state)
{
	struct hvt_task_list l = { 0 };
	size_t i;

	(void)state;
	assert_int_equal(hvt_task_list_scan(&l, "/proc"), 0);
	for (i = 0; i < l.n && l.v[i].tid != getpid(); i++)
		;
	assert_true(i < l.n);
	assert_int_equal(l.v[i].pid, getpid());
	assert_string_equal(l.v[i].comm, "test_task_list");
	for (i = 1; i < l.n; i++)
		assert_true(l.v[i - 1].tid < l.v[i].tid);	/* sorted, each once */
	hvt_task_list_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fake_proc, hvt_test_dir_setup,
						hvt_test_dir_teardown),
		cmocka_unit_test(test_real_proc),
	};

	return cmocka_run_group_tests_name("task_list", tests, NULL, NULL);
}
