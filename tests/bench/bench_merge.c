// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_merge.c - `hvtrace merge` per event, against babeltrace2 reading the
 * same CTF streams in the same run.
 *
 * The archive is the standard synthetic one (tests/unit/archive_fixture.c)
 * with its guest streams replaced by many events: two kernel streams of
 * sched_switch (fixed-size payloads with text arrays) and test:far, one user
 * stream of hvdemo:send and test:kinds (a string and a blob: variable size).
 * No host layer, so that both programs read exactly the same streams.
 *
 *   merge --format=null      decode, align, merge: the loop of every command
 *   merge text               the same, printed to /dev/null
 *   merge --format=json      the same as Chrome trace-event JSON
 *
 * against `babeltrace2 -o dummy` (decode and mux only) and `babeltrace2`'s
 * text output to /dev/null. Both are timed as whole commands, best of a few
 * rounds; the archive stays in the page cache. Then the peak RSS of both
 * programs, run as commands ($(BUILD)/hvtrace beside this program's
 * directory). With BENCH_MERGE_KEEP set in
 * the environment the archive is kept and its path printed, for comparing
 * outputs or profiling.
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hvtrace/ctf.h>

#include "tests/bench/bench.h"
#include "tests/unit/archive_fixture.h"
#include "tools/commands.h"

#define KERNEL_EVENTS	250000u		/* per kernel stream */
#define USER_EVENTS	100000u
#define TOTAL_EVENTS	(2 * KERNEL_EVENTS + USER_EVENTS)
#define SPAN_NS		350000000ull	/* within the fixture's exchanges */

static const uint8_t kernel_uuid[16] = { 0x5c, 0x0f, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14 };
static const uint8_t user_uuid[16] = { 0xaa, 0xbb, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15 };

extern char **environ;

static void die(const char *what)
{
	fprintf(stderr, "bench_merge: %s\n", what);
	exit(1);
}

/* Guest TSC of event @i of @n spread over the span, a stream-specific phase added. */
static uint64_t when(size_t i, size_t n, uint64_t phase)
{
	return FX_GUEST_TSC(1000000ull + SPAN_NS * i / n) + phase;
}

static void write_kernel(const char *root, const char *rel, uint32_t cpu, uint64_t phase)
{
	static struct fx_event ev[KERNEL_EVENTS];
	static struct fx_sched_switch sw[2];
	static uint32_t far = 42;
	size_t i;

	sw[0] = fx_sched("hvdemo", 77, 1, "swapper/0", 0);
	sw[1] = fx_sched("swapper/0", 0, 0, "hvdemo", 77);
	for (i = 0; i < KERNEL_EVENTS; i++) {
		ev[i] = (struct fx_event){ FX_ID_SCHED_SWITCH, when(i, KERNEL_EVENTS, phase), cpu,
					   i % 2 ? 0 : 77, &sw[i % 2], sizeof(sw[0]) };
		if (i % 10 == 9)
			ev[i] = (struct fx_event){ FX_ID_FAR, ev[i].ts, cpu, 77, &far, sizeof(far) };
	}
	if (fx_write_stream(root, rel, kernel_uuid, 65536, cpu, cpu, ev, KERNEL_EVENTS))
		die("cannot write a kernel stream");
}

static void write_user(const char *root)
{
	static struct fx_event ev[USER_EVENTS];
	static struct fx_send send;
	unsigned char *kinds;
	uint32_t kinds_len;
	size_t i;

	send = fx_send(3, 77);
	kinds = fx_kinds("a string of some length", "blob", 4, &kinds_len);
	for (i = 0; i < USER_EVENTS; i++)
		ev[i] = i % 4 == 3 ?
			(struct fx_event){ FX_ID_KINDS, when(i, USER_EVENTS, 7), 1, 78, kinds,
					   kinds_len } :
			(struct fx_event){ FX_ID_SEND, when(i, USER_EVENTS, 7), 1, 78, &send,
					   sizeof(send) };
	if (fx_write_stream(root, "vm/demo/user-1/stream-0", user_uuid, 65536, HVT_CTF_NO_CPU,
			    78, ev, USER_EVENTS))
		die("cannot write the user stream");
	free(kinds);
}

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
static int run_rss(char *const argv[], long *max_rss_kib)
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

static int run(char *const argv[])
{
	long rss;

	return run_rss(argv, &rss);
}

/* $(BUILD)/hvtrace, beside this program's directory $(BUILD)/bench. */
static char *hvtrace_path(void)
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

/* Peak RSS in MiB of `hvtrace merge` and of babeltrace2, each run as a command. */
static void peak_rss(char *root, char *const bt_argv[])
{
	char *hvtrace = hvtrace_path();
	char *merge_argv[] = { hvtrace, "merge", root, "--format=null", NULL };
	long ours = 0, theirs = 0;

	if (!hvtrace || run_rss(merge_argv, &ours)) {
		printf("peak RSS: %s not found or failed; not measured\n", hvtrace ? hvtrace :
		       "hvtrace");
		return;
	}
	if (run_rss(bt_argv, &theirs))
		theirs = 0;
	printf("peak RSS (VmHWM, sampled): hvtrace merge --format=null %.1f MiB, "
	       "babeltrace2 -o dummy %.1f MiB\n", ours / 1024.0, theirs / 1024.0);
}

/* Best ns per event of @argv run as a command; 0 if it fails. */
static double time_command(char *const argv[])
{
	double best = 1e300;
	int r;

	for (r = 0; r < BENCH_ROUNDS; r++) {
		double t0 = bench_now();

		if (run(argv))
			return 0;
		t0 = (bench_now() - t0) / TOTAL_EVENTS;
		if (t0 < best)
			best = t0;
	}
	return best;
}

/* Best ns per event of `hvtrace merge` run in this process; stderr silenced. */
static double time_merge(int argc, char **argv)
{
	int saved = dup(2), devnull = open("/dev/null", O_WRONLY);
	double best = 1e300;
	int r, failed = 0;

	if (saved < 0 || devnull < 0)
		die("cannot open /dev/null");
	dup2(devnull, 2);
	for (r = 0; r < BENCH_ROUNDS && !failed; r++) {
		double t0 = bench_now();

		failed = hvt_cmd_merge(argc, argv) != 0;
		t0 = (bench_now() - t0) / TOTAL_EVENTS;
		if (t0 < best)
			best = t0;
	}
	dup2(saved, 2);
	close(saved);
	close(devnull);
	if (failed)
		die("hvtrace merge failed on the benchmark archive");
	return best;
}

static void row(const char *op, double ns, const char *ref, double ref_ns)
{
	if (ref_ns > 0)
		bench_row(op, ns, ref, ref_ns);
	else
		printf("%-44s %10.2f  %-28s %10s %8s\n", op, ns, ref, "n/a", "n/a");
}

int main(void)
{
	const struct fx_options o = { .ftrace = false };
	char root[64], kdir[96], udir[96];
	char *null_argv[] = { "merge", root, "--format=null", NULL };
	char *text_argv[] = { "merge", root, "--output", "/dev/null", NULL };
	char *json_argv[] = { "merge", root, "--format=json", "--output", "/dev/null", NULL };
	char *bt_dummy[] = { "babeltrace2", kdir, udir, "-o", "dummy", NULL };
	char *bt_text[] = { "babeltrace2", kdir, udir, NULL };
	double null_ns, text_ns, json_ns, bt_dummy_ns, bt_text_ns;

	if (fx_mkdtemp(root, sizeof(root)) || fx_standard_archive(root, &o))
		die("cannot create the archive");
	write_kernel(root, "vm/demo/kernel/stream-0", 0, 0);
	write_kernel(root, "vm/demo/kernel/stream-1", 1, 3);
	write_user(root);
	snprintf(kdir, sizeof(kdir), "%s/vm/demo/kernel", root);
	snprintf(udir, sizeof(udir), "%s/vm/demo/user-1", root);

	null_ns = time_merge(3, null_argv);
	text_ns = time_merge(4, text_argv);
	json_ns = time_merge(5, json_argv);
	bt_dummy_ns = time_command(bt_dummy);
	bt_text_ns = time_command(bt_text);

	printf("\nmerge: %u guest events (2 kernel streams, 1 user stream), ns per event\n",
	       TOTAL_EVENTS);
	bench_header("merge: one event");
	row("merge --format=null (decode, align, merge)", null_ns, "babeltrace2 -o dummy",
	    bt_dummy_ns);
	row("merge, text to /dev/null", text_ns, "babeltrace2 text", bt_text_ns);
	row("merge --format=json to /dev/null", json_ns, "babeltrace2 text", bt_text_ns);
	if (bt_dummy_ns <= 0 || bt_text_ns <= 0)
		printf("(babeltrace2 did not run: no reference)\n");
	peak_rss(root, bt_dummy);
	if (getenv("BENCH_MERGE_KEEP"))
		printf("archive kept in %s\n", root);
	else
		fx_rm_rf(root);
	return 0;
}
