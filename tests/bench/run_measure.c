// SPDX-License-Identifier: GPL-2.0-only
/*
 * run_measure.c - a benchmark's commands, timed and their peak memory
 * sampled (run_measure.h).
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/bench/bench.h"
#include "tests/bench/run_measure.h"

extern char **environ;

/* VmHWM of process @pid in KiB; -1 if it has none (gone, or a zombie). */
static long vm_hwm_kib(pid_t pid)
{
	char path[64], line[128];
	long kib = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

/*
 * Runs @argv with standard output and error on /dev/null; its exit status or
 * -1. Its peak resident set in *@max_rss_kib: VmHWM, sampled every
 * millisecond until it exits, so a lower bound (the high-water mark only
 * grows). Not ru_maxrss: a spawned child inherits its parent's.
 */
int bench_run_rss(char *const argv[], long *max_rss_kib)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status, ret;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	ret = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (ret)
		return -1;
	*max_rss_kib = 0;
	while ((ret = waitpid(pid, &status, WNOHANG)) == 0) {
		long kib = vm_hwm_kib(pid);

		if (kib > *max_rss_kib)
			*max_rss_kib = kib;
		usleep(1000);
	}
	if (ret != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* $(BUILD)/hvtrace, beside this program's directory $(BUILD)/bench. */
char *bench_hvtrace_path(void)
{
	static char path[4096];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 16);
	char *slash;

	if (n <= 0)
		return NULL;
	path[n] = '\0';
	slash = strrchr(path, '/');
	if (!slash)
		return NULL;
	strcpy(slash, "/../hvtrace");
	return access(path, X_OK) ? NULL : path;
}

struct bench_measure bench_measure(char *const argv[], int rounds, uint64_t events)
{
	struct bench_measure m = { 1e300, 0 };
	int r;

	for (r = 0; r < rounds; r++) {
		double t0 = bench_now(), ns;
		long kib;

		if (bench_run_rss(argv, &kib))
			return (struct bench_measure){ 0, 0 };
		ns = (bench_now() - t0) / (double)events;
		if (ns < m.ns)
			m.ns = ns;
		if (kib / 1024.0 > m.rss_mib)
			m.rss_mib = kib / 1024.0;
	}
	return m;
}

void bench_measure_row(const char *op, struct bench_measure m, const char *ref,
		       struct bench_measure r)
{
	if (m.ns > 0 && r.ns > 0)
		bench_row(op, m.ns, ref, r.ns);
	else
		printf("%-44s %10.2f  %-28s %10s %8s\n", op, m.ns, ref, "n/a", "n/a");
}

