// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_priority.c - the consumer side's nice value (lib/priority.c): taken
 * when the process may, never lowered, and --nice's argument checked.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/priority.h"

static void nice_values_checked(void **state)
{
	static const char *const refused[] = { "", "x", "-21", "20", "1x", " 1", "--1", "99999999999" };
	int nice = 42;
	size_t i;

	(void)state;
	assert_int_equal(hvt_nice_parse("-20", &nice), 0);
	assert_int_equal(nice, -20);
	assert_int_equal(hvt_nice_parse("19", &nice), 0);
	assert_int_equal(nice, 19);
	assert_int_equal(hvt_nice_parse("0", &nice), 0);
	assert_int_equal(nice, 0);
	assert_int_equal(hvt_nice_parse(HVT_CONSUMER_NICE_STR, &nice), 0);
	assert_int_equal(nice, HVT_CONSUMER_NICE);
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		nice = 42;
		assert_int_equal(hvt_nice_parse(refused[i], &nice), -1);
		assert_int_equal(nice, 42);
	}
}

static int current_nice(void)
{
	int n;

	errno = 0;
	n = getpriority(PRIO_PROCESS, 0);
	assert_false(n == -1 && errno);
	return n;
}

/*
 * In a child (the test runner keeps its own): a lower nice value is taken
 * where the process may raise its priority, else nothing changes; a value
 * at or above the current one never lowers it.
 */
static void priority_raised_never_lowered(void **state)
{
	pid_t pid;
	int status;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int start = current_nice(), want = start > -20 ? start - 1 : -20;
		/* may we? ask the kernel directly, then put it back */
		int may = start > -20 && setpriority(PRIO_PROCESS, 0, want) == 0;

		if (may && setpriority(PRIO_PROCESS, 0, start))
			_exit(10);	/* raising back is always allowed: cannot happen */
		hvt_consumer_priority(start + 1 <= 19 ? start + 1 : 19, "test");
		if (current_nice() != start)
			_exit(1);	/* lowered */
		hvt_consumer_priority(want, "test");
		if (current_nice() != (may ? want : start))
			_exit(2);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nice_values_checked),
		cmocka_unit_test(priority_raised_never_lowered),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
