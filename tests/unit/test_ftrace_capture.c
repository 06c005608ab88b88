// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_ftrace_capture.c - the host layer's tracefs instance
 * (host/ftrace_capture.c) against the real tracefs: skipped unless root
 * with tracefs mounted. The pid filter must take every thread it is given,
 * however many: a host with thousands of QEMU threads is not cut short.
 * A quiet CPU's few events reach its file while recording, within the
 * partial-page period, not only when its page fills or at the stop: a
 * follower of the recording (merge --follow) sees them live.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <tracefs.h>

#include "host/ftrace_capture.h"
#include "tests/common/tmpdir.h"

#define FIRST_PIDS	5000	/* given at the start: 23 KiB as text */
#define ADDED_PIDS	3000	/* added while tracing */

static const char *const workdir = hvt_test_dir;

/* The pids set_event_pid lists, each checked against 1..@max; -1 if unreadable. */
static long filtered_pids(struct hvt_capture *ft, long max)
{
	char *text = tracefs_instance_file_read(ft->instance, "set_event_pid", NULL);
	char *tok, *save = NULL;
	long n = 0;

	if (!text)
		return -1;
	for (tok = strtok_r(text, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
		long pid = strtol(tok, NULL, 10);

		assert_in_range(pid, 1, max);
		n++;
	}
	free(text);
	return n;
}

static bool tracefs_usable(void)
{
	return geteuid() == 0 && tracefs_tracing_dir() && !access(tracefs_tracing_dir(), W_OK);
}

static long long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long long)st.st_size;
}

/*
 * This thread, pinned to CPU 0, switches out a few times (two sched_switch
 * every 20 ms: 40 at most, not a page's 60); the capture is pumped as the
 * recorder does, every 20 ms, for 400 ms: cpu0.raw has them before the stop.
 */
static void test_quiet_cpu_saved_while_recording(void **state)
{
	char *events[] = { "sched:sched_switch" };
	pid_t self = getpid();
	struct hvt_capture ft;
	char err[512], dir[128], path[160];
	cpu_set_t cpus, was;
	long long size = 0;
	int i;

	(void)state;
	if (!tracefs_usable()) {
		printf("skipped: needs root and tracefs\n");
		skip();
	}
	assert_int_equal(sched_getaffinity(0, sizeof(was), &was), 0);
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	assert_int_equal(sched_setaffinity(0, sizeof(cpus), &cpus), 0);
	snprintf(dir, sizeof(dir), "%s/ftrace", workdir);
	snprintf(path, sizeof(path), "%s/cpu0.raw", dir);
	if (hvt_capture_start(&ft, dir, events, 1, &self, 1, err, sizeof(err)))
		fail_msg("hvt_capture_start: %s", err);
	for (i = 0; i < 20 && size <= 0; i++) {
		usleep(20000);	/* a switch out and back: the events */
		hvt_capture_pump(&ft);
		size = file_size(path);
	}
	hvt_capture_stop(&ft);
	hvt_capture_free(&ft);
	sched_setaffinity(0, sizeof(was), &was);
	assert_true(size > 0);
	assert_int_equal(size % 4096, 0);	/* whole pages, partial ones too */
}

static void test_pid_filter_takes_every_pid(void **state)
{
	char *events[] = { "sched:sched_switch" };
	static pid_t pids[FIRST_PIDS + ADDED_PIDS];
	struct hvt_capture ft;
	char err[512], dir[128];
	size_t i;

	(void)state;
	if (!tracefs_usable()) {
		printf("skipped: needs root and tracefs\n");
		skip();
	}
	for (i = 0; i < FIRST_PIDS + ADDED_PIDS; i++)
		pids[i] = (pid_t)(i + 1);	/* need not run: the filter takes any pid */
	snprintf(dir, sizeof(dir), "%s/ftrace", workdir);
	if (hvt_capture_start(&ft, dir, events, 1, pids, FIRST_PIDS, err, sizeof(err)))
		fail_msg("hvt_capture_start: %s", err);
	assert_int_equal(filtered_pids(&ft, FIRST_PIDS), FIRST_PIDS);
	assert_int_equal(hvt_capture_add_pids(&ft, pids + FIRST_PIDS, ADDED_PIDS), 0);
	assert_int_equal(filtered_pids(&ft, FIRST_PIDS + ADDED_PIDS), FIRST_PIDS + ADDED_PIDS);
	hvt_capture_stop(&ft);
	hvt_capture_free(&ft);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pid_filter_takes_every_pid, hvt_test_dir_setup, hvt_test_dir_teardown),
		cmocka_unit_test_setup_teardown(test_quiet_cpu_saved_while_recording,
						hvt_test_dir_setup, hvt_test_dir_teardown),
	};

	return cmocka_run_group_tests_name("ftrace_capture", tests, NULL, NULL);
}
