/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * guest_test.h - what the guest tests share (tests/guest/): verdict lines,
 * loading modules, the kernel log and free memory, and the runner.
 *
 * usage: hvtrace-guest-test clock|kmod DIR   (DIR holds hvtrace.ko and
 * hvtrace_selftest.ko; scripts/guest-init runs it with hvtrace.test=SUITE)
 *
 * Each test runs in a child process of its own and prints "PASS name:
 * detail" or "FAIL name: why"; the last line is "guest SUITE: N passed, M
 * failed", and the exit status says the same.
 */
#ifndef HVT_GUEST_TEST_H
#define HVT_GUEST_TEST_H

#include <stddef.h>

#define MODULE_NAME	"hvtrace"
#define SELFTEST_NAME	"hvtrace_selftest"

struct guest_test {
	const char *name;
	void (*fn)(const char *name);
};

extern const struct guest_test clock_tests[], kmod_tests[];
extern const unsigned int nr_clock_tests, nr_kmod_tests;

/* In a test's child: the verdict, then the exit status that carries it. */
__attribute__((format(printf, 3, 4), noreturn)) void finish(int ok, const char *name,
							     const char *fmt, ...);
#define fail(name, ...) finish(0, name, __VA_ARGS__)
#define pass(name, ...) finish(1, name, __VA_ARGS__)

/* Loads DIR/NAME.ko with @params; 0, or -1 with errno. */
int load_named_module(const char *name, const char *params);
/* Unloads, retrying while a reader still holds the module (up to 10 s). */
int unload_named_module(const char *name);
#define load_module(params)	load_named_module(MODULE_NAME, params)
#define unload_module()		unload_named_module(MODULE_NAME)

int open_dev(void);
int pin(int cpu);
int nr_online_cpus(void);
long mem_free_kb(void);
/* Lines of the kernel log that say the kernel went wrong; the last in @last. */
int kernel_log_problems(char *last, size_t len);
int read_file(const char *path, char *buf, size_t len);
int write_file(const char *path, const char *text);

#endif
