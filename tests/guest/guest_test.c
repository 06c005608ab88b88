// SPDX-License-Identifier: GPL-2.0-only
/*
 * guest_test.c - the guest tests' shared helpers and runner (guest_test.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <hvtrace/abi.h>

#include "tests/guest/guest_test.h"

#define TEST_TIMEOUT_S	300	/* per test; a whole suite takes a minute or two under TCG */
#define HVT_STR_(x)	#x
#define HVT_STR(x)	HVT_STR_(x)

static const char *module_dir;

/* In a test's child: the verdict, then the exit status that carries it. */
void finish(int ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("%s %s: ", ok ? "PASS" : "FAIL", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	exit(ok ? 0 : 1);
}

int load_named_module(const char *name, const char *params)
{
	char path[512];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/%s.ko", module_dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = (int)syscall(SYS_finit_module, fd, params, 0);
	close(fd);
	return ret;
}

int unload_named_module(const char *name)
{
	int i;

	for (i = 0; i < 10000; i++) {
		if (syscall(SYS_delete_module, name, O_NONBLOCK) == 0)
			return 0;
		if (errno != EWOULDBLOCK && errno != EBUSY)
			return -1;
		usleep(1000);
	}
	return -1;
}

int open_dev(void)
{
	return open(HVTRACE_DEVICE, O_RDONLY | O_CLOEXEC);
}

int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

int nr_online_cpus(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

long mem_free_kb(void)
{
	FILE *f;
	char line[128];
	long kb = -1;

	sync();
	f = fopen("/proc/sys/vm/drop_caches", "w");
	if (f) {
		fputs("3\n", f);
		fclose(f);
	}
	f = fopen("/proc/meminfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemFree: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

int kernel_log_problems(char *last, size_t len)
{
	static const char *const bad[] = { "Oops", "BUG:", "WARNING:", "general protection",
					   "Call Trace", "refcount_t", NULL };
	int n = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0), count = 0, i;
	char *buf, *line;

	if (n <= 0 || !(buf = calloc(1, (size_t)n + 1)))
		return -1;
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, n);
	for (line = strtok(n > 0 ? buf : NULL, "\n"); line; line = strtok(NULL, "\n"))
		for (i = 0; bad[i]; i++)
			if (strstr(line, bad[i])) {
				snprintf(last, len, "%s", line);
				count++;
			}
	free(buf);
	return count;
}

int read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -1;
	ret = write(fd, text, strlen(text)) == (ssize_t)strlen(text) ? 0 : -1;
	close(fd);
	return ret;
}

/* Runs the tests of @suite, or only the one named @only. */
static int run_suite(const char *suite, const struct guest_test *tests, unsigned int n,
		     const char *only)
{
	int passed = 0, failed = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		pid_t pid;
		int status;

		if (only && strcmp(only, tests[i].name))
			continue;
		pid = fork();

		if (pid == 0) {
			alarm(TEST_TIMEOUT_S);	/* a reader spinning on a stuck seq, say */
			tests[i].fn(tests[i].name);
			exit(1);
		}
		if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		    WEXITSTATUS(status) == 0) {
			passed++;
			continue;
		}
		if (pid > 0 && WIFSIGNALED(status))
			printf("FAIL %s: %s\n", tests[i].name, WTERMSIG(status) == SIGALRM ?
			       "timed out after " HVT_STR(TEST_TIMEOUT_S) " s" :
			       strsignal(WTERMSIG(status)));
		failed++;
	}
	printf("guest %s: %d passed, %d failed\n", suite, passed, failed);
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	int kmod = argc >= 3 && !strcmp(argv[1], "kmod");
	const char *only = argc == 4 ? argv[3] : NULL;

	if (argc < 3 || argc > 4 || (!kmod && strcmp(argv[1], "clock"))) {
		fprintf(argc == 2 && !strcmp(argv[1], "--help") ? stdout : stderr,
			"usage: %s clock|kmod DIR [TEST]\n"
			"  runs the guest module's tests (or only TEST); DIR holds hvtrace.ko\n"
			"  (and, for kmod, hvtrace_selftest.ko)\n", argv[0]);
		return argc == 2 && !strcmp(argv[1], "--help") ? 0 : 2;
	}
	module_dir = argv[2];
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (load_module("") && errno != EEXIST) {
		printf("FAIL load: %s/%s.ko: %s\nguest %s: 0 passed, 1 failed\n", module_dir,
		       MODULE_NAME, strerror(errno), argv[1]);
		return 1;
	}
	return kmod ? run_suite("kmod", kmod_tests, nr_kmod_tests, only) :
		      run_suite("clock", clock_tests, nr_clock_tests, only);
}
