// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_merge.c - `hvtrace merge` on the standard synthetic archive: the exact
 * text of every line (format, order, tie-break), the three time modes,
 * --format=null (silent, yet decoding everything), --format=json, --output,
 * the selection options, --stats, and the exit statuses for usage errors (2),
 * unreadable archives (1) and damaged but mergeable ones (0).
 */
#include <fcntl.h>
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
#include <jansson.h>
#include <math.h>
#include <stdbool.h>

#include "tests/unit/archive_fixture.h"
#include "tests/unit/cmd_capture.h"
#include "tests/unit/open_timeline.h"
#include "tools/commands.h"
#include "tools/out/text_out.h"
#include "tools/util/text_buffer.h"
#include "tools/out/progress.h"

struct ctx {
	char root[64];
	char out[96];		/* --output file */
	char stdout_path[96];	/* captured standard output */
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));
	const struct fx_options o = { .ftrace = true };

	assert_int_equal(fx_mkdtemp(c->root, sizeof(c->root)), 0);
	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	snprintf(c->out, sizeof(c->out), "%s/merged.txt", c->root);
	snprintf(c->stdout_path, sizeof(c->stdout_path), "%s/stdout.txt", c->root);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	fx_rm_rf(c->root);
	free(c);
	return 0;
}

#define ARGV(...) ((char *[]){ "merge", __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((char *[]){ "merge", __VA_ARGS__ }) / sizeof(char *)))
#define MERGE(c, text, ...) capture_cmd(hvt_cmd_merge, ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), \
					(c)->stdout_path, text)

static const char expected[] =
	"     0.001234567 host   -     cpu1  qemu-system-x86-4321  sched_switch prev_comm=qemu-system-x86 "
	"prev_pid=4321 prev_prio=120 prev_state=S next_comm=swapper/1 next_pid=0 "
	"next_prio=120\n"
	"     0.001240000 kernel demo  vcpu0 hvdemo-77             sched_switch prev_comm=hvdemo prev_tid=77 "
	"prev_prio=120 prev_state=S next_comm=swapper/0 next_tid=0 next_prio=120\n"
	"     0.001300000 host   -     cpu1  <idle>-0              sched_switch prev_comm=swapper/1 prev_pid=0 "
	"prev_prio=120 prev_state=R next_comm=qemu-system-x86 next_pid=4321 next_prio=120\n"
	"     0.001300000 kernel demo  vcpu0 <idle>-0              sched_switch prev_comm=swapper/0 prev_tid=0 "
	"prev_prio=120 prev_state=R next_comm=hvdemo next_tid=77 next_prio=120\n"
	"     0.001300000 kernel demo  vcpu1 <idle>-0              sched_switch prev_comm=swapper/1 prev_tid=0 "
	"prev_prio=120 prev_state=R next_comm=swapper/1 next_tid=0 next_prio=120\n"
	"     0.001300000 user   demo  vcpu1 hvdemo-78             hvdemo:send round=3 to_tid=77\n"
	"     0.100000000 kernel demo  vcpu0 hvdemo-77             test:far value=42\n"
	"     0.200000000 host   -     cpu1  qemu-system-x86-4321  sched_switch prev_comm=qemu-system-x86 "
	"prev_pid=4321 prev_prio=120 prev_state=D next_comm=swapper/1 next_pid=0 "
	"next_prio=120\n";

static void test_text_to_stdout(void **state)
{
	struct ctx *c = *state;
	char *text;

	assert_int_equal(MERGE(c, &text, c->root), 0);
	assert_string_equal(text, expected);
	free(text);
}

static void test_output_file_and_null(void **state)
{
	struct ctx *c = *state;
	char *text, *file;
	size_t len;

	assert_int_equal(MERGE(c, &text, "--output", c->out, "--format=text", c->root), 0);
	assert_string_equal(text, "");
	assert_int_equal(hvt_read_file(c->out, 1 << 20, &file, &len), 0);
	assert_string_equal(file, expected);
	free(file);
	free(text);
	assert_int_equal(MERGE(c, &text, c->root, "--format=null"), 0);
	assert_string_equal(text, "");
	free(text);
}

/* Runs merge with @argv; its standard output in *@out, its standard error in *@err. */
static int run_err(struct ctx *c, int argc, char **argv, char **out, char **err)
{
	char path[128];
	int saved = dup(2), fd, ret;
	size_t len;

	snprintf(path, sizeof(path), "%s/stderr.txt", c->root);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(saved >= 0 && fd >= 0);
	fflush(stderr);
	dup2(fd, 2);
	close(fd);
	ret = capture_cmd(hvt_cmd_merge, argc, argv, c->stdout_path, out);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	assert_int_equal(hvt_read_file(path, 1 << 20, err, &len), 0);
	return ret;
}

#define MERGE_ERR(c, out, err, ...) run_err(c, ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), out, err)

/* Runs merge on c->root with @format; its standard error in *@err. */
static int merge_err(struct ctx *c, char *format, char **err)
{
	char *text;
	int ret = MERGE_ERR(c, &text, err, c->root, format, "--output", c->out);

	free(text);
	return ret;
}

/* The file --output names is still @was (or is not, !@kept). */
static void assert_output(struct ctx *c, const char *was, bool kept)
{
	char *file;
	size_t len;

	assert_int_equal(hvt_read_file(c->out, 1 << 26, &file, &len), 0);
	assert_true(!strcmp(file, was) == kept);
	free(file);
}

/*
 * One rule for every format (util/output_path.h): an existing --output is
 * kept, and merge exits 1 naming it and --force, before reading the
 * archive; --force replaces it; a device is written as it is; ctf replaces
 * with --force a directory that holds a CTF trace, never anything else.
 */
static void test_output_exists(void **state)
{
	static char *const formats[] = { "--format=text", "--format=json", "--format=sqlite" };
	struct ctx *c = *state;
	char dir[128], *text, *err, force[] = "--force";
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		assert_int_equal(fx_printf(c->root, "merged.txt", "mine"), 0);
		assert_int_equal(MERGE_ERR(c, &text, &err, c->root, formats[i], "-o", c->out), 1);
		assert_non_null(strstr(err, "merged.txt exists: name a new file, or replace it "
				       "with --force\n"));
		assert_null(strstr(err, " events (host "));	/* nothing was merged */
		assert_output(c, "mine", true);
		free(text);
		free(err);
		assert_int_equal(MERGE(c, &text, c->root, formats[i], "-o", c->out, force), 0);
		assert_output(c, "mine", false);
		free(text);
		unlink(c->out);
	}
	assert_int_equal(MERGE(c, &text, c->root, "-o", "/dev/null"), 0);
	free(text);
	/* /dev/stdout, here a regular file: what the shell opened, written */
	assert_int_equal(MERGE(c, &text, c->root, "-o", "/dev/stdout"), 0);
	assert_string_equal(text, expected);
	free(text);
	/* ctf: a directory with a file of the user's is kept, even with --force */
	snprintf(dir, sizeof(dir), "%s/ctf", c->root);
	assert_int_equal(fx_printf(c->root, "ctf/notes", "mine"), 0);
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root, "--format=ctf", "-o", dir), 1);
	assert_non_null(strstr(err, "/ctf is not empty: name a new or empty directory, or "
			       "replace the CTF trace in it with --force\n"));
	free(text);
	free(err);
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root, "--format=ctf", "-o", dir, force), 1);
	assert_non_null(strstr(err, "/ctf holds more than a CTF trace (no metadata file)"));
	free(text);
	free(err);
	fx_rm_rf(dir);
	assert_int_equal(MERGE(c, &text, c->root, "--format=ctf", "-o", dir), 0);
	free(text);
	assert_int_equal(MERGE(c, &text, c->root, "--format=ctf", "-o", dir), 1);
	free(text);
	assert_int_equal(MERGE(c, &text, c->root, "--format=ctf", "-o", dir, force), 0);
	free(text);
	/* --force without an --output to replace */
	assert_int_equal(MERGE(c, &text, c->root, force), 2);
	free(text);
}

/*
 * Processes and threads that went untraced are warned of, with the numbers,
 * whatever the format (--format=null too: only problems), the exit status 0.
 */
static void test_untraced_warned(void **state)
{
	struct ctx *c = *state;
	char *err;

	assert_int_equal(fx_mark_untraced(c->root, 37, 96), 0);
	assert_int_equal(merge_err(c, "--format=null", &err), 0);
	assert_non_null(strstr(err, "warning: vm demo: 37 processes and 96 threads went "
				    "untraced: their events are in no stream"));
	free(err);
	assert_int_equal(merge_err(c, "--format=text", &err), 0);
	assert_non_null(strstr(err, "warning: vm demo: 37 processes and 96 threads went "));
	free(err);
}

/*
 * --format=null prints nothing, not even the summary: that it decoded every
 * stream to its end shows in its warnings, which are the text format's, and
 * in their absence on a sound archive.
 */
static void test_null_decodes_everything(void **state)
{
	struct ctx *c = *state;
	static const uint8_t kernel_uuid[16] = { 0x5c, 0x0f, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
						 12, 13, 14 };
	/* stream-1's event as the standard archive has it, then an unknown one */
	struct fx_sched_switch sw = fx_sched("swapper/1", 0, 0, "swapper/1", 0);
	const struct fx_event ev[] = {
		{ FX_ID_SCHED_SWITCH, FX_GUEST_TSC(1300000), 1, 0, &sw, sizeof(sw) },
		{ 7, FX_GUEST_TSC(1400000), 1, 0, &sw, sizeof(sw) },	/* not in the registry */
	};
	char *err, *text_err, *file;
	size_t len;

	assert_int_equal(merge_err(c, "--format=null", &err), 0);
	assert_string_equal(err, "");
	free(err);
	/* the last event of a stream is one the registry does not describe */
	assert_int_equal(fx_write_stream(c->root, "vm/demo/kernel/stream-1", kernel_uuid, 4096, 1, 1,
					 ev, 2), 0);
	assert_int_equal(fx_refresh_info(c->root), 0);
	/* the rest of the packet, skipped: events lacking, status 1 */
	assert_int_equal(merge_err(c, "--format=null", &err), 1);
	assert_non_null(strstr(err, "vm/demo/kernel/stream-1: event at offset "));
	assert_non_null(strstr(err, " (id 7): unknown event id; skipping the rest of the packet\n"));
	assert_null(strstr(err, " events (host "));	/* no summary */
	assert_int_equal(merge_err(c, "--format=text", &text_err), 1);
	/* the same warning, then the summary, then what the output lacks */
	assert_non_null(strstr(text_err, " (id 7): unknown event id; skipping the rest of the "
				 "packet\n"));
	assert_non_null(strstr(err, "error: 1 stream of the archive is missing, cut short or "
			       "damaged"));
	assert_non_null(strstr(text_err, "error: 1 stream of the archive is missing, cut short or "
				    "damaged"));
	assert_non_null(strstr(text_err, "hvtrace: 8 events (host 3, kernel 4, user 1) from 5 "
			       "streams, 1 warning\n"));
	assert_int_equal(hvt_read_file(c->out, 1 << 20, &file, &len), 0);
	assert_string_equal(file, expected);
	free(file);
	free(text_err);
	free(err);
}

static void test_time_modes(void **state)
{
	struct ctx *c = *state;
	char *text;

	assert_int_equal(MERGE(c, &text, "--time=host-tsc", c->root), 0);
	assert_true(!strncmp(text, "      1002469134 host   -     cpu1  qemu-system-x86-4321  sched_switch ", 71));
	free(text);
	assert_int_equal(MERGE(c, &text, "--time=realtime", c->root), 0);
	assert_true(!strncmp(text, "1700000000.001234567 host   -     cpu1  qemu-system-x86-4321  ", 62));
	assert_non_null(strstr(text, "\n1700000000.200000000 host "));
	free(text);
	assert_int_equal(MERGE(c, &text, "--time=ns", c->root), 0);
	assert_string_equal(text, expected);
	free(text);
}

/* --print-fmt: host events as ftrace prints them; guest ones unchanged. */
static void test_print_fmt(void **state)
{
	struct ctx *c = *state;
	char *text;

	assert_int_equal(MERGE(c, &text, "--print-fmt", c->root), 0);
	assert_true(!strncmp(text, "     0.001234567 host   -     cpu1  qemu-system-x86-4321  sched_switch "
			     "prev_comm=qemu-system-x86 prev_pid=4321 prev_prio=120 prev_state=S "
			     "==> next_comm=swapper/1 next_pid=0 next_prio=120\n", 163));
	assert_non_null(strstr(text, " prev_state=R ==> next_comm=qemu-system-x86 "));
	assert_non_null(strstr(text, "\n     0.001240000 kernel demo  vcpu0 hvdemo-77             sched_switch "
			       "prev_comm=hvdemo prev_tid=77 prev_prio=120 prev_state=S "));
	free(text);
	assert_int_equal(MERGE(c, &text, "--print-fmt", "--format=json", c->root), 2);
	free(text);
}

static void test_usage_errors(void **state)
{
	struct ctx *c = *state;
	char *text;

	assert_int_equal(capture_cmd(hvt_cmd_merge, 1, ARGV(NULL), c->stdout_path, &text), 2);
	free(text);
	assert_int_equal(MERGE(c, &text, "--format=xml", c->root), 2);
	free(text);
	assert_int_equal(MERGE(c, &text, "--time=tai", c->root), 2);
	free(text);
	assert_int_equal(MERGE(c, &text, "--bogus", c->root), 2);
	free(text);
	assert_int_equal(MERGE(c, &text, c->root, c->root), 2);
	free(text);
	assert_int_equal(MERGE(c, &text, c->root, "--output"), 2);
	free(text);
	assert_int_equal(MERGE(c, &text, "--help"), 0);
	assert_non_null(strstr(text, "usage: hvtrace merge ARCHIVE"));
	free(text);
}

static void test_unreadable_and_damaged(void **state)
{
	struct ctx *c = *state;
	char *text, path[128];

	assert_int_equal(MERGE(c, &text, "/nonexistent/archive"), 1);
	free(text);
	assert_int_equal(MERGE(c, &text, "--output", "/nonexistent/dir/out", c->root), 1);
	free(text);
	/* Damage: a stream missing, a garbage stream: still merged, exit 1 (events lacking). */
	snprintf(path, sizeof(path), "%s/vm/demo/kernel/stream-1", c->root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(fx_write(c->root, "vm/demo/user-1/stream-0", "garbage", 7), 0);
	assert_int_equal(MERGE(c, &text, c->root), 1);
	assert_non_null(strstr(text, "0.100000000 kernel demo  vcpu0 hvdemo-77             test:far value=42\n"));
	assert_null(strstr(text, " user "));
	free(text);
	/* A manifest that is not JSON. */
	assert_int_equal(fx_write(c->root, "hvtrace.json", "{", 1), 0);
	assert_int_equal(MERGE(c, &text, c->root), 1);
	free(text);
}

static void test_monotonic_raw_is_skipped(void **state)
{
	struct ctx *c = *state;
	const struct fx_options o = { .ftrace = true, .monotonic_user = true };
	char *text;

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	assert_int_equal(MERGE(c, &text, c->root), 0);
	assert_string_equal(text, expected);
	free(text);
}

/* The lines of `babeltrace2 ARGS DIR`, and its exit status in *@status. */
static char *bt2_run(const char *args, const char *dir, int *status)
{
	char cmd[512], *out = NULL;
	size_t len = 0;
	FILE *p, *mem = open_memstream(&out, &len);
	int ch;

	snprintf(cmd, sizeof(cmd), "babeltrace2 %s %s 2>&1", args, dir);
	p = popen(cmd, "r");
	assert_true(p && mem);
	while ((ch = fgetc(p)) != EOF)
		fputc(ch, mem);
	*status = pclose(p);
	fclose(mem);
	return out;
}

/* Guest timestamps near 2^64 (a damaged but monotonic stream) still print, saturated. */
static void test_wild_timestamps(void **state)
{
	struct ctx *c = *state;
	static const uint8_t kernel_uuid[16] = { 0x5c, 0x0f, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
						 12, 13, 14 };
	uint32_t v = 1;
	const struct fx_event ev[] = {
		{ FX_ID_FAR, 1ull << 63, 1, 0, &v, 4 },
		{ FX_ID_FAR, UINT64_MAX - 1, 1, 0, &v, 4 },
	};
	char *text;

	assert_int_equal(fx_write_stream(c->root, "vm/demo/kernel/stream-1", kernel_uuid, 4096,
					 1, 1, ev, 2), 0);
	assert_int_equal(fx_refresh_info(c->root), 0);
	assert_int_equal(MERGE(c, &text, c->root), 0);
	/*
	 * 2^63 ticks at 0.5 ns: about 2^62 ns (the fitted slope extrapolated over
	 * 146 years); UINT64_MAX - 1 saturates. Both print, in order.
	 */
	{
		const char *a = strstr(text, "\n4611686014."), *b;

		assert_non_null(a);
		assert_non_null(strstr(a, " kernel demo  vcpu1 <idle>-0              test:far value=1\n"));
		b = strstr(a + 1, "\n9223372036.854775807 kernel demo  vcpu1 <idle>-0              test:far value=1");
		assert_non_null(b);
	}
	free(text);
	assert_int_equal(MERGE(c, &text, "--time=realtime", c->root), 0);
	free(text);
	assert_int_equal(MERGE(c, &text, "--time=host-tsc", c->root), 0);
	/* the raw host TSC of a value near 2^64: printed, near 2^64 itself */
	assert_non_null(strstr(text, "\n184467440"));
	assert_non_null(strstr(strstr(text, "\n184467440"), " kernel demo  vcpu1 <idle>-0              test:far "));
	free(text);
	/*
	 * CTF: babeltrace2 refuses a whole trace with a time past 2^63 ns since
	 * 1970; the event near 2^64 ticks is left out with a warning, the rest
	 * (2^63 ticks: the year 2116) reads.
	 */
	{
		char dir[160], *err, *bt;
		int status;

		snprintf(dir, sizeof(dir), "%s/ctf-wild", c->root);
		assert_int_equal(MERGE_ERR(c, &text, &err, "--format=ctf", "--output", dir,
					   c->root), 0);
		assert_non_null(strstr(err, "1 event at host times past the year 2262"));
		bt = bt2_run("", dir, &status);
		assert_int_equal(status, 0);
		assert_non_null(strstr(bt, "test:far"));
		free(bt);
		free(err);
		free(text);
	}
}

/* The lines of `expected` numbered in @pick (0-based, ascending, -1 ends), joined. */
static char *expected_lines(const int *pick)
{
	char *out = calloc(1, sizeof(expected)), *o = out;
	const char *line = expected;
	int n = 0;

	for (; *pick >= 0; pick++) {
		for (; n < *pick; n++)
			line = strchr(line, '\n') + 1;
		memcpy(o, line, (size_t)(strchr(line, '\n') + 1 - line));
		o += strchr(line, '\n') + 1 - line;
	}
	return out;
}

#define LINES(...) expected_lines((const int[]){ __VA_ARGS__, -1 })
#define ASSERT_SELECTS(c, want, ...) do {					\
	char *text_, *want_ = (want);						\
	assert_int_equal(MERGE(c, &text_, (c)->root, __VA_ARGS__), 0);		\
	assert_string_equal(text_, want_);					\
	free(text_);								\
	free(want_);								\
} while (0)

/*
 * Each selection keeps exactly the lines of the full merge that it names:
 * the lines are 0 host cpu1, 1 kernel cpu0, 2 host cpu1, 3 kernel cpu0,
 * 4 kernel cpu1, 5 user cpu1 (hvdemo:send), 6 kernel cpu0 (test:far) at
 * 0.1 s, 7 host cpu1 at 0.2 s.
 */
static void test_select(void **state)
{
	struct ctx *c = *state;
	char *text;

	ASSERT_SELECTS(c, LINES(1, 3, 4, 6), "--layer", "kernel");
	ASSERT_SELECTS(c, LINES(0, 2, 5, 7), "--layer", "host", "--layer", "user");
	ASSERT_SELECTS(c, LINES(1, 3, 6), "--cpu", "0");
	ASSERT_SELECTS(c, LINES(0, 2, 4, 5, 7), "--cpu", "1");
	ASSERT_SELECTS(c, LINES(0, 1, 2, 3, 4, 5, 6, 7), "--cpu", "0-1");
	ASSERT_SELECTS(c, LINES(6), "--event", "test:*");
	ASSERT_SELECTS(c, LINES(5, 6), "--event", "hvdemo:send,test:far");
	ASSERT_SELECTS(c, LINES(0, 1, 2, 3, 4, 7), "--event", "sched_switch");
	ASSERT_SELECTS(c, LINES(0, 1, 2, 3, 4, 7), "-e", "sched_switch");
	ASSERT_SELECTS(c, LINES(1, 6), "--tid", "77");
	ASSERT_SELECTS(c, LINES(1, 6), "--tid", "tid=77");	/* as the text printed it */
	ASSERT_SELECTS(c, LINES(1, 6), "--tid", "hvdemo-77");	/* as the text prints it */
	ASSERT_SELECTS(c, LINES(1, 3, 6), "--cpu", "vcpu0");
	/* as the CPU column prints them: vcpuN a VM's vCPU only, cpuN the host's only */
	ASSERT_SELECTS(c, LINES(4, 5), "--cpu", "vcpu1");
	ASSERT_SELECTS(c, LINES(0, 2, 7), "--cpu", "cpu1");
	ASSERT_SELECTS(c, LINES(0, 2, 4, 5, 7), "--cpu", "cpu1,vcpu1");
	ASSERT_SELECTS(c, LINES(0, 1, 5, 6, 7), "--tid", "4321,77", "--tid", "78");
	ASSERT_SELECTS(c, LINES(1), "--tid", "77", "-e", "sched_*");
	/* threads by name: as a switch named them, or a user event's process */
	ASSERT_SELECTS(c, LINES(1, 5, 6), "--comm", "hvdemo");
	ASSERT_SELECTS(c, LINES(0, 7), "--comm", "qemu*");
	ASSERT_SELECTS(c, LINES(1, 6), "--comm", "hvdemo", "--layer", "kernel");
	ASSERT_SELECTS(c, LINES(0, 1, 5, 6, 7), "--comm", "hvdemo,qemu-system-x86");
	ASSERT_SELECTS(c, LINES(2, 3, 4, 5, 6), "--from", "0.0013", "--to", "0.1");
	ASSERT_SELECTS(c, LINES(2, 3, 4, 5), "--from", "0.001300000", "--to", "0.0013");
	ASSERT_SELECTS(c, LINES(0, 1), "--to", "0.00124");
	ASSERT_SELECTS(c, LINES(1, 3, 4, 5, 6), "--vm", "demo", "--layer", "kernel,user");
	ASSERT_SELECTS(c, LINES(3), "--layer", "kernel", "--cpu", "0", "--event", "sched_switch",
		       "--from", "0.00125");
	/* times in the unit of --time */
	assert_int_equal(MERGE(c, &text, c->root, "--time=host-tsc", "--from", "1002469134",
			       "--to", "1002469134"), 0);
	assert_true(!strncmp(text, "      1002469134 host   -     cpu1  qemu-system-x86-4321  sched_switch ", 71));
	assert_int_equal(strchr(text, '\n')[1], '\0');
	free(text);
	assert_int_equal(MERGE(c, &text, c->root, "--time=realtime", "--from", "1700000000.1"), 0);
	assert_true(!strncmp(text, "1700000000.100000000 kernel demo  vcpu0 hvdemo-77             test:far ", 71));
	assert_non_null(strstr(text, "\n1700000000.200000000 host "));
	free(text);
}

static void test_select_errors(void **state)
{
	struct ctx *c = *state;
	char *text, *err;
	size_t i;
	static const struct {
		const char *opt, *value, *message;
	} bad[] = {
		{ "--layer", "guest", "--layer: unknown layer 'guest' (host, kernel, user or vmm)" },
		{ "--cpu", "x", "--cpu: 'x' is not a CPU number or range" },
		{ "--cpu", "3-1", "--cpu: '3-1' is not a CPU number or range" },
		{ "--cpu", "1,,2", "--cpu: an empty item in the list" },
		{ "--tid", "-3", "--tid: '-3' is not a thread id" },
		{ "--tid", "2147483648", "--tid: '2147483648' is not a thread id" },
		{ "--tid", "3-7", "--tid: '3-7' is not a thread id" },
		{ "--tid", "<...>--1", "--tid: '-1' is not a thread id" },
		{ "--from", "abc", "--from: 'abc' is not a time in seconds" },
		{ "--to", "0.0000000001", "--to: '0.0000000001' is not a time in seconds" },
		{ "--from", "99999999999", "--from: '99999999999' is not a time in seconds" },
		{ "--event", "", "--event: an empty item in the list" },
		{ "--vm", "nope", "--vm nope: " },
	};

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(MERGE_ERR(c, &text, &err, c->root, (char *)bad[i].opt,
					   (char *)bad[i].value), 2);
		assert_string_equal(text, "");
		assert_non_null(strstr(err, bad[i].message));
		free(text);
		free(err);
	}
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root, "--vm", "nope"), 2);
	assert_non_null(strstr(err, " has no VM of that name (its VMs: demo)\n"));
	free(text);
	free(err);
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root, "--from", "1", "--from", "2"), 2);
	assert_non_null(strstr(err, "--from is given twice (1, then 2): give it once"));
	free(text);
	free(err);
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root, "--to", "1", "--from", "2"), 2);
	assert_non_null(strstr(err, "--to 1 is before --from 2; see 'hvtrace merge --help'\n"));
	free(text);
	free(err);
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root, "--time=host-tsc", "--from", "1.5"), 2);
	assert_non_null(strstr(err, "--from: '1.5' is not a host TSC value"));
	free(text);
	free(err);
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root, "--format=json", "--time=realtime"), 2);
	assert_non_null(strstr(err, "--format=json has its own time"));
	free(text);
	free(err);
}

static size_t count_lines(const char *text)
{
	size_t n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

#define ASSERT_ERR_HAS(err, s) do { if (!strstr(err, s)) fail_msg("no '%s' in:\n%s", s, err); \
} while (0)

/*
 * A selection that misses is said, with what the archive holds: 8 events
 * from 0.001234567 to 0.2 s (realtime 1700000000.001234567 on), host CPU
 * 1, vCPUs 0 and 1, sched_switch 6 times.
 */
static void test_selection_said(void **state)
{
	static const char holds[] = "; the archive holds 8 events (host 3, kernel 4, user 1) from "
		"0.001234567 to 0.200000000 s since its start (realtime 1700000000.001234567 to "
		"1700000000.200000000); CPUs: host 1, vm demo 0-1; 3 event names, most frequent: "
		"sched_switch (6), hvdemo:send (1), test:far (1)\n";
	struct ctx *c = *state;
	char *text, *err;

	assert_int_equal(MERGE_ERR(c, &text, &err, c->root, "--event", "nosuch"), 0);
	assert_string_equal(text, "");
	ASSERT_ERR_HAS(err, "warning: no event was selected by --event nosuch; the archive holds");
	ASSERT_ERR_HAS(err, holds);
	free(text);
	free(err);
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root, "-e", "hvdemo:*"), 0);
	ASSERT_ERR_HAS(err, "hvtrace: 1 event (host 0, kernel 0, user 1) from 1 of 5 streams, ");
	free(text);
	free(err);
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root, "--cpu", "7", "-q"), 0);
	ASSERT_ERR_HAS(err, "warning: no event was selected by --cpu 7; the archive holds 8 ");
	assert_null(strstr(err, "0 events"));		/* -q: no summary */
	free(text);
	free(err);
	/* the largest CPU number there is (the range loop must not wrap) */
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root, "--cpu", "4294967290-4294967295"), 0);
	ASSERT_ERR_HAS(err, "no event was selected by --cpu 4294967290,");
	free(text);
	free(err);
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root, "-e", "sched:sched_switch"), 0);
	ASSERT_ERR_HAS(err, "; host events are named without their system: --event sched_switch, "
		       "not sched:sched_switch");
	free(text);
	free(err);
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root, "--from", "100"), 0);
	ASSERT_ERR_HAS(err, "selected by --from 100 (--from 100 lies after the end of the events; "
		       "times are seconds since the trace's start)");
	free(text);
	free(err);
	/* seconds since the start given as realtime: everything, and said */
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root, "--time=realtime", "--from", "7.6"), 0);
	assert_int_equal(count_lines(text), 8);
	ASSERT_ERR_HAS(err, "warning: --from 7.6 lies before the start of the events read, which "
		       "span 1700000000.001234567 to 1700000000.200000000; with --time=realtime");
	free(text);
	free(err);
	/* seconds since the start, before it: said */
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root, "--from", "-5"), 0);
	ASSERT_ERR_HAS(err, "warning: --from -5 lies before the start of the events read");
	free(text);
	free(err);
	/* inside the span, or from 0 to past the end: nothing to say */
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root, "--from", "0.1", "--to", "7"), 0);
	if (strstr(err, "warning:"))
		fail_msg("a warning in:\n%s", err);
	free(text);
	free(err);
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root, "--from", "0"), 0);
	if (strstr(err, "warning:"))
		fail_msg("a warning in:\n%s", err);
	free(text);
	free(err);
}

/*
 * --bounds: a host event's is 0, a guest event's the fixture's estimate
 * (some 50 ns), in us rounded up to the ns; JSON carries it as bound_ns.
 */
static void test_bounds(void **state)
{
	struct ctx *c = *state;
	char *text, *err, *line;
	unsigned int ns;

	assert_int_equal(MERGE_ERR(c, &text, &err, c->root, "--bounds"), 0);
	assert_non_null(strstr(text, "     0.001234567 +/-0.000     host   -     cpu1  qemu-system-x86-4321  "
				     "sched_switch "));
	line = strstr(text, "\n     0.001240000 +/-");
	assert_non_null(line);
	assert_int_equal(sscanf(line, "\n     0.001240000 +/-0.%u ", &ns), 1);
	assert_true(ns > 0 && ns < 100);
	assert_non_null(strstr(line, "     kernel demo  vcpu0 hvdemo-77             sched_switch "));
	free(text);
	free(err);
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root, "--bounds", "--format=json"), 2);
	ASSERT_ERR_HAS(err, "--bounds is for --format=text");
	free(text);
	free(err);
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root, "--format=json"), 0);
	assert_non_null(strstr(text, "\"tid\":77,\"bound_ns\":"));
	assert_null(strstr(text, "\"tid\":4321,\"bound_ns\":"));	/* host: exact */
	free(text);
	free(err);
}

/* A host CPU file gone: the summary says why the vCPU threads' runs gave no edge. */
static void test_runs_unused_said(void **state)
{
	struct ctx *c = *state;
	const struct fx_options o = { .ftrace = true, .vcpu_tids = "[0, 4321]" };
	char *text, *err, path[128];

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	snprintf(path, sizeof(path), "%s/host/ftrace/cpu0.raw", c->root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root, "--format=null", "--stats"), 1);
	ASSERT_ERR_HAS(err, "between the first and last exchange (no vCPU run edge: host CPU 0 "
		       "could not be read, and a vCPU thread may have run there unseen)\n");
	free(text);
	free(err);
}

/* --delta: each line's time since the line before, in the unit of --time. */
static void test_delta(void **state)
{
	struct ctx *c = *state;
	char *text;

	assert_int_equal(MERGE(c, &text, c->root, "--delta", "--layer", "host"), 0);
	assert_true(!strncmp(text, "    +0.000000000 host   -     cpu1  qemu-system-x86-4321  sched_switch ", 71));
	assert_non_null(strstr(text, "\n    +0.000065433 host   -     cpu1  <idle>-0              sched_switch "));
	assert_non_null(strstr(text, "\n    +0.198700000 host   -     cpu1  qemu-system-x86-4321  sched_switch "));
	free(text);
	assert_int_equal(MERGE(c, &text, c->root, "--delta", "--format=json"), 2);
	free(text);
}

/* A VM whose info.json is gone: the host's events, and exit status 1. */
static void test_vm_unread(void **state)
{
	struct ctx *c = *state;
	char *text, *err, path[128];

	snprintf(path, sizeof(path), "%s/vm/demo/info.json", c->root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root), 1);
	assert_non_null(strstr(text, " host   -     cpu1  qemu-system-x86-4321  sched_switch "));
	assert_null(strstr(text, " kernel "));
	ASSERT_ERR_HAS(err, "error: 1 VM of the archive could not be read: its guest events are "
		       "not in the output");
	free(text);
	free(err);
	/* its clock exchanges gone (info.json records 5): the VM is lost too, exit 1 */
	assert_int_equal(fx_standard_archive(c->root, &(struct fx_options){ .ftrace = true }), 0);
	snprintf(path, sizeof(path), "%s/vm/demo/sync.tsv", c->root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root), 1);
	assert_null(strstr(text, " kernel "));
	ASSERT_ERR_HAS(err, "error: 1 VM of the archive could not be read");
	free(text);
	free(err);
	/* the host layer too: nothing of it, exit 1 */
	snprintf(path, sizeof(path), "%s/host/ftrace/header_page", c->root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root), 1);
	assert_null(strstr(text, " host "));
	ASSERT_ERR_HAS(err, "error: the archive's host layer could not be decoded: its events are "
		       "not in the output");
	free(text);
	free(err);
}

static json_t *json_of(const char *text)
{
	json_error_t jerr;
	json_t *doc = json_loads(text, JSON_DECODE_ANY, &jerr);

	if (!doc)
		fail_msg("not JSON: %s at line %d: %.200s", jerr.text, jerr.line, text);
	return doc;
}

/* A string of decimal digits only. */
static bool digits(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/*
 * --format=jsonl: a JSON object per line and event, as many as text lines,
 * with the times (host_tsc and realtime_ns exact, as strings), the bound
 * (0 on the host), the layer, VM, thread name, event and its fields; it
 * has its own times: --time is refused.
 */
static void test_jsonl(void **state)
{
	struct ctx *c = *state;
	char *text, *jsonl, *err, *line, *next;
	size_t lines = 0, text_lines = 0, guest = 0;
	json_t *o, *args;

	assert_int_equal(MERGE(c, &text, c->root), 0);
	for (line = text; (line = strchr(line, '\n')); line++)
		text_lines++;
	assert_int_equal(MERGE_ERR(c, &jsonl, &err, c->root, "--format=jsonl"), 0);
	for (line = jsonl; *line; line = next + 1) {
		next = strchr(line, '\n');
		assert_non_null(next);
		*next = 0;
		o = json_of(line);
		assert_true(json_is_object(o));
		args = json_object_get(o, "args");
		assert_true(json_is_object(args));
		assert_true(digits(json_string_value(json_object_get(o, "host_tsc"))));
		assert_true(digits(json_string_value(json_object_get(o, "realtime_ns"))));
		assert_true(json_is_integer(json_object_get(o, "time_ns")));
		if (!lines) {	/* the first event: the host's sched_switch at 0.001234567 */
			assert_int_equal(json_integer_value(json_object_get(o, "time_ns")), 1234567);
			assert_string_equal(json_string_value(json_object_get(o, "layer")), "host");
			assert_true(json_is_null(json_object_get(o, "vm")));
			assert_int_equal(json_integer_value(json_object_get(o, "bound_ns")), 0);
			assert_string_equal(json_string_value(json_object_get(o, "comm")),
					    "qemu-system-x86");
			assert_string_equal(json_string_value(json_object_get(o, "event")),
					    "sched_switch");
			assert_int_equal(json_integer_value(json_object_get(args, "cpu")), 1);
			assert_int_equal(json_integer_value(json_object_get(args, "tid")), 4321);
		}
		if (json_integer_value(json_object_get(o, "time_ns")) == 1240000) {
			json_int_t b = json_integer_value(json_object_get(o, "bound_ns"));

			assert_string_equal(json_string_value(json_object_get(o, "layer")), "kernel");
			assert_string_equal(json_string_value(json_object_get(o, "vm")), "demo");
			assert_true(b > 0 && b < 100);
			assert_int_equal(json_integer_value(json_object_get(args, "tid")), 77);
			assert_non_null(json_object_get(args, "next_comm"));
			guest++;
		}
		json_decref(o);
		lines++;
	}
	assert_int_equal(lines, text_lines);
	assert_int_equal(guest, 1);
	free(text);
	free(jsonl);
	free(err);
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root, "--format=jsonl", "--time=realtime"), 2);
	assert_non_null(strstr(err, "--format=jsonl gives every time"));
	free(text);
	free(err);
}

/* The metadata entry @name ("thread_name", ...) of @pid (and @tid unless 0): its args.name. */
static const char *meta_name(json_t *events, const char *name, json_int_t pid, json_int_t tid)
{
	const char *found = NULL;
	size_t i;
	json_t *e;

	json_array_foreach(events, i, e) {
		if (strcmp(json_string_value(json_object_get(e, "ph")), "M") ||
		    strcmp(json_string_value(json_object_get(e, "name")), name) ||
		    json_integer_value(json_object_get(e, "pid")) != pid ||
		    (tid && json_integer_value(json_object_get(e, "tid")) != tid))
			continue;
		assert_null(found);	/* named once */
		found = json_string_value(json_object_get(json_object_get(e, "args"), "name"));
	}
	return found;
}

/*
 * --format=json: the same events in the same order as the text, each at its
 * time in µs, in its machine's process and its CPU's or task's thread, with
 * its fields as typed JSON values; every process and thread named once.
 */
static void test_json(void **state)
{
	struct ctx *c = *state;
	static const struct {
		int64_t ns;
		const char *cat;
		json_int_t pid, tid;
		const char *thread;
	} want[] = {
		{ 1234567, "host", 1, (1 << 30) + 1, "cpu 1" },
		{ 1240000, "kernel", 2, 1 << 30, "vcpu 0" },
		{ 1300000, "host", 1, (1 << 30) + 1, "cpu 1" },
		{ 1300000, "kernel", 2, 1 << 30, "vcpu 0" },
		{ 1300000, "kernel", 2, (1 << 30) + 1, "vcpu 1" },
		{ 1300000, "user", 2, 78, "tid 78" },
		{ 100000000, "kernel", 2, 1 << 30, "vcpu 0" },
		{ 200000000, "host", 1, (1 << 30) + 1, "cpu 1" },
	};
	json_t *doc, *events, *e, *args[8];
	size_t i, n = 0;
	char *text;

	assert_int_equal(MERGE(c, &text, c->root, "--format=json"), 0);
	doc = json_of(text);
	events = json_object_get(doc, "traceEvents");
	assert_true(json_is_array(events));
	json_array_foreach(events, i, e) {
		if (strcmp(json_string_value(json_object_get(e, "ph")), "i"))
			continue;
		assert_true(n < 8);
		assert_int_equal(llround(json_number_value(json_object_get(e, "ts")) * 1000),
				 want[n].ns);
		assert_string_equal(json_string_value(json_object_get(e, "cat")), want[n].cat);
		assert_int_equal(json_integer_value(json_object_get(e, "pid")), want[n].pid);
		assert_int_equal(json_integer_value(json_object_get(e, "tid")), want[n].tid);
		assert_string_equal(meta_name(events, "thread_name", want[n].pid, want[n].tid),
				    want[n].thread);
		args[n++] = json_object_get(e, "args");
	}
	assert_int_equal(n, 8);
	assert_string_equal(meta_name(events, "process_name", 1, 0), "host");
	assert_string_equal(meta_name(events, "process_name", 2, 0), "vm demo");
	/* fields: ftrace's by their format, the guest's by their registry */
	assert_string_equal(json_string_value(json_object_get(args[0], "prev_comm")),
			    "qemu-system-x86");
	assert_int_equal(json_integer_value(json_object_get(args[0], "prev_pid")), 4321);
	assert_int_equal(json_integer_value(json_object_get(args[0], "cpu")), 1);
	assert_int_equal(json_integer_value(json_object_get(args[0], "tid")), 4321);
	assert_string_equal(json_string_value(json_object_get(args[1], "prev_comm")), "hvdemo");
	/* prev_state: the kernel's letters, the same on the host and in the guest */
	assert_string_equal(json_string_value(json_object_get(args[0], "prev_state")), "S");
	assert_string_equal(json_string_value(json_object_get(args[1], "prev_state")), "S");
	assert_string_equal(json_string_value(json_object_get(args[2], "prev_state")), "R");
	assert_string_equal(json_string_value(json_object_get(args[3], "prev_state")), "R");
	assert_int_equal(json_integer_value(json_object_get(args[1], "next_prio")), 120);
	assert_int_equal(json_integer_value(json_object_get(args[5], "round")), 3);
	assert_int_equal(json_integer_value(json_object_get(args[5], "to_tid")), 77);
	assert_int_equal(json_integer_value(json_object_get(args[6], "value")), 42);
	json_decref(doc);
	free(text);
	/* selection applies as to text */
	assert_int_equal(MERGE(c, &text, c->root, "--format=json", "--event", "test:far"), 0);
	doc = json_of(text);
	n = 0;
	json_array_foreach(json_object_get(doc, "traceEvents"), i, e)
		n += !strcmp(json_string_value(json_object_get(e, "ph")), "i");
	assert_int_equal(n, 1);
	json_decref(doc);
	free(text);
}

/*
 * With the manifest's vcpu_threads, each VM has a track per vCPU with its
 * host thread's states: QEMU thread 4321 (vCPU 1 here) sleeps from
 * 1.234567 ms to 1.3 ms, with the idle task next, then runs to 200 ms.
 * Before its first sched_switch its state is unknown: not drawn.
 */
static void test_json_vcpu_tracks(void **state)
{
	struct ctx *c = *state;
	const struct fx_options o = { .ftrace = true, .vcpu_tids = "[0, 4321]" };
	const json_int_t track = (1 << 30) + (1 << 21) + 1;
	json_t *doc, *events, *e, *x[4];
	size_t i, n = 0;
	char *text;

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	assert_int_equal(MERGE(c, &text, c->root, "--format=json"), 0);
	doc = json_of(text);
	events = json_object_get(doc, "traceEvents");
	json_array_foreach(events, i, e)
		if (!strcmp(json_string_value(json_object_get(e, "ph")), "X") &&
		    !strcmp(json_string_value(json_object_get(e, "cat")), "vcpu")) {
			assert_true(n < 4);
			x[n++] = e;
		}
	assert_int_equal(n, 2);
	assert_string_equal(json_string_value(json_object_get(x[0], "name")), "blocked");
	assert_int_equal(llround(json_number_value(json_object_get(x[0], "ts")) * 1000), 1234567);
	assert_int_equal(llround(json_number_value(json_object_get(x[0], "dur")) * 1000), 65433);
	assert_int_equal(json_integer_value(json_object_get(x[0], "pid")), 2);
	assert_int_equal(json_integer_value(json_object_get(x[0], "tid")), track);
	assert_string_equal(json_string_value(json_object_get(json_object_get(x[0], "args"),
							      "then_ran")), "swapper/1");
	assert_string_equal(json_string_value(json_object_get(x[1], "name")), "running");
	assert_int_equal(llround(json_number_value(json_object_get(x[1], "ts")) * 1000), 1300000);
	assert_int_equal(llround(json_number_value(json_object_get(x[1], "dur")) * 1000),
			 198700000);
	assert_string_equal(meta_name(events, "thread_name", 2, track), "vCPU 1 on the host");
	assert_null(meta_name(events, "thread_name", 2, track - 1));	/* vCPU 0: unknown thread */
	json_decref(doc);
	free(text);
}

/*
 * Who ran on each CPU, as slices named after the task: on host CPU 1 QEMU
 * (4321) from its switch-in at 1.3 ms to its switch-out at 200 ms, asleep
 * (D); its run before 1.234567 ms started before the trace, and the idle
 * task gets none. On vCPU 0 hvdemo (77) from 1.3 ms to the end, its ends
 * within their bounds. The user task's track, named by no switch, keeps
 * "tid 78".
 */
static void test_json_sched_slices(void **state)
{
	struct ctx *c = *state;
	json_t *doc, *events, *e, *x[4], *args;
	size_t i, n = 0;
	char *text;

	assert_int_equal(MERGE(c, &text, c->root, "--format=json"), 0);
	doc = json_of(text);
	events = json_object_get(doc, "traceEvents");
	json_array_foreach(events, i, e)
		if (!strcmp(json_string_value(json_object_get(e, "ph")), "X") &&
		    !strcmp(json_string_value(json_object_get(e, "cat")), "sched")) {
			assert_true(n < 4);
			x[n++] = e;
		}
	assert_int_equal(n, 2);
	assert_string_equal(json_string_value(json_object_get(x[0], "name")), "qemu-system-x86");
	assert_int_equal(json_integer_value(json_object_get(x[0], "pid")), 1);
	assert_int_equal(json_integer_value(json_object_get(x[0], "tid")), (1 << 30) + 1);
	assert_int_equal(llround(json_number_value(json_object_get(x[0], "ts")) * 1000), 1300000);
	assert_int_equal(llround(json_number_value(json_object_get(x[0], "dur")) * 1000),
			 198700000);
	args = json_object_get(x[0], "args");
	assert_int_equal(json_integer_value(json_object_get(args, "tid")), 4321);
	assert_string_equal(json_string_value(json_object_get(args, "end_state")), "D");
	assert_null(json_object_get(args, "start_bound_ns"));	/* the host's: exact */
	assert_string_equal(json_string_value(json_object_get(x[1], "name")), "hvdemo");
	assert_int_equal(json_integer_value(json_object_get(x[1], "pid")), 2);
	assert_int_equal(json_integer_value(json_object_get(x[1], "tid")), 1 << 30);
	args = json_object_get(x[1], "args");
	assert_int_equal(json_integer_value(json_object_get(args, "tid")), 77);
	assert_true(json_integer_value(json_object_get(args, "start_bound_ns")) > 0);
	assert_true(json_is_null(json_object_get(args, "end_bound_ns")));	/* the trace's end */
	assert_string_equal(meta_name(events, "thread_name", 2, 78), "tid 78");
	json_decref(doc);
	free(text);
}

/* What a guest wrote, however broken, becomes a JSON string of the same characters. */
static void test_json_strings(void **state)
{
	static const struct {
		const char *in;
		size_t max;
		const char *out;
	} cases[] = {
		{ "plain", 99, "\"plain\"" },
		{ "abc", 2, "\"ab\"" },
		{ "q\"b\\s\n\t\x01\x7f", 99, "\"q\\\"b\\\\s\\n\\t\\u0001\\u007f\"" },
		{ "caf\xc3\xa9 \xf0\x9f\x98\x80", 99, "\"caf\xc3\xa9 \xf0\x9f\x98\x80\"" },
		/* a stray byte, a cut sequence, an overlong '/', a surrogate */
		{ "\xff|\xc3|\xc0\xaf|\xed\xa0\x80", 99,
		  "\"\\u00ff|\\u00c3|\\u00c0\\u00af|\\u00ed\\u00a0\\u0080\"" },
		{ "\xc3\xa9", 1, "\"\\u00c3\"" },	/* cut by the field's end */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[HVT_TEXT_MIN], *mem = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&mem, &len);
		struct hvt_text t;
		json_t *parsed;

		hvt_text_init(&t, f, buf, sizeof(buf));
		hvt_text_json_str(&t, cases[i].in, cases[i].max);
		hvt_text_flush(&t);
		fclose(f);
		assert_string_equal(mem, cases[i].out);
		parsed = json_of(mem);
		assert_true(json_is_string(parsed));
		json_decref(parsed);
		free(mem);
	}
}

/* Integers stay exact for any JSON reader: beyond 2^53 they are strings of digits. */
static void test_json_integers(void **state)
{
	char buf[HVT_TEXT_MIN], *mem = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&mem, &len);
	struct hvt_text t;

	(void)state;
	hvt_text_init(&t, f, buf, sizeof(buf));
	hvt_text_json_u64(&t, 1ull << 53);
	hvt_text_char(&t, ' ');
	hvt_text_json_u64(&t, (1ull << 53) + 1);
	hvt_text_char(&t, ' ');
	hvt_text_json_u64(&t, UINT64_MAX);
	hvt_text_char(&t, ' ');
	hvt_text_json_s64(&t, -(int64_t)(1ull << 53));
	hvt_text_char(&t, ' ');
	hvt_text_json_s64(&t, INT64_MIN);
	hvt_text_flush(&t);
	fclose(f);
	assert_string_equal(mem, "9007199254740992 \"9007199254740993\" \"18446744073709551615\" "
			    "-9007199254740992 \"-9223372036854775808\"");
	free(mem);
}

/*
 * --stats: per stream what was read, shown and lost, and whether it was
 * merged or left out by the selection; per VM its alignment.
 */
static void test_stats(void **state)
{
	struct ctx *c = *state;
	char *text, *err;

	assert_int_equal(MERGE_ERR(c, &text, &err, c->root, "--stats", "--format=null",
				   "--layer", "kernel,user", "--event", "sched_switch"), 0);
	assert_string_equal(text, "");
	assert_string_equal(err,
		"stream                  layer  vm                 events        shown       lost "
		"pkt-gaps  skipped warnings  state                 first           last  of\n"
		"host/ftrace/cpu0.raw    host   -                       0            0          0 "
		"       0        0        0  not selected              -              -  cpu 0\n"
		"host/ftrace/cpu1.raw    host   -                       0            0          0 "
		"       0        0        0  not selected              -              -  cpu 1\n"
		"vm/demo/kernel/stream-0 kernel demo                    3            2          0 "
		"       0        0        0  merged          0.001240000    0.100000000  vcpu 0\n"
		"vm/demo/kernel/stream-1 kernel demo                    1            1          0 "
		"       0        0        0  merged          0.001300000    0.001300000  vcpu 1\n"
		"vm/demo/user-1/stream-0 user   demo                    1            0          0 "
		"       0        0        0  merged          0.001300000    0.001300000  "
		"pid 78 (hvdemo) tid 78\n"
		"vm demo: clock from 5 exchanges and 0 sync points, 1 segment; guest events are "
		"within +/-0.050 us of their host time (median; worst 0.051 us) between the "
		"first and last exchange\n"
		"0 warnings in all\n");
	free(text);
	free(err);
}

/*
 * A flight-recorder stream: packets 1 and 2 were overwritten, and the
 * writer counted their 5 events in events_discarded. --stats reports 5
 * events lost and 2 packets missing, not 7 "lost" in two units.
 */
static void test_stats_overwritten_packets(void **state)
{
	static const uint8_t kernel_uuid[16] = { 0x5c, 0x0f, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
						 12, 13, 14 };
	struct ctx *c = *state;
	struct fx_sched_switch sw = fx_sched("swapper/1", 0, 0, "swapper/1", 0);
	const struct fx_event first = { FX_ID_SCHED_SWITCH, FX_GUEST_TSC(1300000), 1, 0, &sw,
					sizeof(sw) };
	const struct fx_event last = { FX_ID_SCHED_SWITCH, FX_GUEST_TSC(1400000), 1, 0, &sw,
				       sizeof(sw) };
	unsigned char *p0, *p3;
	size_t len0, len3;
	char *text, *err, *line;

	p0 = fx_make_stream(kernel_uuid, 4096, 1, 1, &first, 1, &len0);
	p3 = fx_make_stream(kernel_uuid, 4096, 1, 1, &last, 1, &len3);
	assert_non_null(p0);
	assert_non_null(p3);
	hvt_put_u64(p3 + offsetof(struct hvt_ctf_packet, packet_seq_num), 3);
	hvt_put_u64(p3 + offsetof(struct hvt_ctf_packet, events_discarded), 5);
	assert_int_equal(fx_write(c->root, "vm/demo/kernel/stream-1", p0, len0), 0);
	assert_int_equal(fx_append(c->root, "vm/demo/kernel/stream-1", p3, len3), 0);
	assert_int_equal(fx_refresh_info(c->root), 0);
	free(p0);
	free(p3);

	assert_int_equal(MERGE_ERR(c, &text, &err, c->root, "--stats", "--format=null"), 0);
	line = strstr(err, "vm/demo/kernel/stream-1 ");
	assert_non_null(line);
	assert_memory_equal(line, "vm/demo/kernel/stream-1 kernel demo                    2  "
			    "          2          5        2        0        0  merged\n", 112);
	free(text);
	free(err);
	assert_int_equal(merge_err(c, "--format=text", &err), 0);
	assert_non_null(strstr(err, ", 5 lost while recording (and packets missing: see --stats)"));
	free(err);
}

/* Runs the progress line over the merge of c->root; what it wrote in *@text. */
static void progress_run(struct ctx *c, int64_t delay_ns, uint64_t *total, char **text)
{
	struct fx_opened tl;
	struct hvt_progress p;
	size_t len = 0;
	FILE *f = open_memstream(text, &len);

	assert_int_equal(fx_open(&tl, c->root, false), 0);
	hvt_progress_init(&p, &tl.tl, f, delay_ns, 1);
	p.redraw_ns = 0;
	while (hvt_timeline_next(&tl.tl))
		hvt_progress_tick(&p);
	hvt_progress_end(&p);
	*total = p.total_bytes;
	fx_close(&tl);
	fclose(f);
}

/*
 * The progress line: after its delay, once per check, the share of the
 * streams' bytes read and the events so far, rewritten in place (\r) and
 * erased at the end; nothing before the delay.
 */
static void test_progress(void **state)
{
	static const char *const streams[] = { "host/ftrace/cpu0.raw", "host/ftrace/cpu1.raw",
		"vm/demo/kernel/stream-0", "vm/demo/kernel/stream-1", "vm/demo/user-1/stream-0" };
	struct ctx *c = *state;
	uint64_t total, want = 0;
	char *text, *line, path[160], expect[64];
	double pct, last = 0;
	unsigned int n = 0, events;
	struct stat st;
	size_t i;

	for (i = 0; i < sizeof(streams) / sizeof(streams[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", c->root, streams[i]);
		assert_int_equal(stat(path, &st), 0);
		want += (uint64_t)st.st_size;
	}
	progress_run(c, 0, &total, &text);
	assert_int_equal(total, want);
	for (line = strstr(text, "\rmerging: "); line; line = strstr(line + 1, "\rmerging: ")) {
		assert_int_equal(sscanf(line, "\rmerging: %lf%%", &pct), 1);
		assert_true(pct >= last && pct <= 100);
		last = pct;
		snprintf(expect, sizeof(expect), "), %u events\033[K", ++n);
		assert_non_null(strstr(line, expect));
		assert_int_equal(sscanf(strstr(line, "), ") + 3, "%u", &events), 1);
		assert_int_equal(events, n);
	}
	assert_int_equal(n, 8);
	assert_true(last > 0);
	assert_string_equal(text + strlen(text) - 4, "\r\033[K");	/* erased */
	free(text);
	progress_run(c, 3600000000000, &total, &text);	/* an hour's delay */
	assert_string_equal(text, "");
	free(text);
}

/* "TSC NAME CPU TID" of a line of merge --time=host-tsc; 0 if it is not one. */
static int our_key(const char *line, char *key, size_t n)
{
	char name[96], cpu[24];
	unsigned long long tsc;
	int tid;

	char thread[64], *dash;

	if (sscanf(line, "%llu %*s %*s %23s %63s %95s", &tsc, cpu, thread, name) != 4 ||
	    !(dash = strrchr(thread, '-')) || sscanf(dash + 1, "%d", &tid) != 1)
		return 0;
	/* the CTF has the CPU number, guest or host: vcpu0 is its cpu0 */
	snprintf(key, n, "%llu %s %s %d", tsc, name, cpu + (cpu[0] == 'v'), tid);
	return 1;
}

/* The same of a line of babeltrace2 --clock-cycles on our CTF. */
static int bt2_key(const char *line, char *key, size_t n)
{
	char name[96], cpu[24] = "-";
	unsigned long long tsc;
	unsigned int c;
	int tid;

	if (sscanf(line, "[%llu] (%*[^)]) %95[^:]: { cpu_id = %*u }, { cpu_id = %u, tid = %d,",
		   &tsc, name, &c, &tid) != 4) {
		/* names with a colon: "hvdemo:send: {" */
		if (sscanf(line, "[%llu] (%*[^)]) %95[^ ] { cpu_id = %*u }, { cpu_id = %u, "
			   "tid = %d,", &tsc, name, &c, &tid) != 4)
			return 0;
		name[strlen(name) - 1] = '\0';
	}
	if (c != 0xFFFFFFFFu)
		snprintf(cpu, sizeof(cpu), "cpu%u", c);
	snprintf(key, n, "%llu %s %s %d", tsc, name, cpu, tid);
	return 1;
}


/*
 * --format=ctf: babeltrace2 reads the trace, with every event at its host
 * TSC and in hvtrace's order - ties across layers and streams included,
 * which it breaks by stream id - and decodes every kind of field: the
 * guest's, copied as they are, and the host's, converted from ftrace's
 * records (fixed and __data_loc strings and arrays, pointers, odd widths).
 */
static void test_ctf(void **state)
{
	static const struct fx_host_dyn dyn[] = {
		{ FX_HOST_TSC(1300000), 9, "hello", { 1, 2, 3 }, 0xdeadbeef, -5 },
		{ FX_HOST_TSC(150000000), 9, "", { 7, 8, 9 }, 0, 32767 },
	};
	struct ctx *c = *state;
	char dir[128], key[160], bkey[160], *text, *bt, *line, *save, *p, *q;
	int status, n = 0;

	if (system("command -v babeltrace2 >/dev/null 2>&1")) {
		skip();
		return;
	}
	assert_int_equal(fx_write_ftrace_dyn(c->root, "host/ftrace/cpu0.raw", 4096, dyn, 2), 0);
	snprintf(dir, sizeof(dir), "%s/ctf", c->root);
	assert_int_equal(MERGE(c, &text, "--format=ctf", "--output", dir, c->root), 0);
	assert_string_equal(text, "");
	free(text);
	assert_int_equal(MERGE(c, &text, "--time=host-tsc", c->root), 0);

	bt = bt2_run("--clock-cycles", dir, &status);
	assert_int_equal(status, 0);
	/* the same events in the same order */
	p = bt;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		assert_true(our_key(line, key, sizeof(key)));
		q = strchr(p, '\n');
		assert_non_null(q);
		*q = '\0';
		if (!bt2_key(p, bkey, sizeof(bkey)))
			fail_msg("babeltrace2 line %d: %s", n, p);
		assert_string_equal(bkey, key);
		*q = '\n';
		p = q + 1;
		n++;
	}
	assert_int_equal(n, 10);
	assert_string_equal(p, "");
	/* fields */
	assert_non_null(strstr(bt, "prev_comm = \"qemu-system-x86\", prev_pid = 4321, "
			       "prev_prio = 120, prev_state = 1, next_comm = \"swapper/1\""));
	/* a guest event's context carries its bound (the fixture's: some 50 ns) */
	assert_non_null(strstr(bt, "layer = ( \"kernel\" : container = 1 ), vm = ( \"demo\" : "
			       "container = 1 ), bound_ns = 5"));
	assert_non_null(strstr(bt, " }, { prev_comm = \"hvdemo\", prev_tid = 77, "
			       "prev_prio = 120, prev_state = 0x1,"));
	assert_non_null(strstr(bt, "vm = ( \"-\" : container = 0 ), bound_ns = 0 }"));
	assert_non_null(strstr(bt, "{ round = 3, to_tid = 77 }"));
	assert_non_null(strstr(bt, "{ name = \"hello\", ids_len = 3, ids = [ [0] = 1, [1] = 2, "
			       "[2] = 3 ], ptr = 0xDEADBEEF, wide = [ [0] = 0xAB,"));
	assert_non_null(strstr(bt, "[15] = 0xAB ], delta = -5 }"));
	assert_non_null(strstr(bt, "{ name = \"\", ids_len = 3, ids = [ [0] = 7, [1] = 8, "
			       "[2] = 9 ], ptr = 0x0,"));
	assert_non_null(strstr(bt, "[15] = 0xAB ], delta = 32767 }"));
	free(bt);
	free(text);
	/* the clock: the first clock pair at its CLOCK_REALTIME */
	bt = bt2_run("--clock-seconds --clock-gmt", dir, &status);
	assert_int_equal(status, 0);
	assert_true(!strncmp(bt, "[1700000000.001234567] ", 23));
	free(bt);
	/* never into a directory that holds something */
	assert_int_equal(MERGE(c, &text, "--format=ctf", "--output", dir, c->root), 1);
	free(text);
	assert_int_equal(fx_write(c->root, "merged.txt", "x", 1), 0);
	assert_int_equal(MERGE(c, &text, "--format=ctf", "--output", c->out, c->root), 1);
	free(text);
	assert_int_equal(MERGE(c, &text, "--format=ctf", c->root), 2);
	free(text);
	assert_int_equal(MERGE(c, &text, "--format=ctf", "--time=host-tsc", "--output", dir,
			       c->root), 2);
	free(text);
}

/* A field value as text: quoted when it is empty or has a blank or a quote. */
static void test_field_value_text(void **state)
{
	static const struct {
		const char *in;
		size_t max;
		const char *out;
	} cases[] = {
		{ "hvdemo", 16, "hvdemo" },
		{ "CPU 0/TCG", 16, "\"CPU 0/TCG\"" },
		{ "", 16, "\"\"" },
		{ "a\"b", 16, "\"a\\\"b\"" },
		{ "tab\there", 16, "tab\\there" },
		{ "x y", 1, "x" },		/* the blank is past max */
		{ "\"", 1, "\"\\\"\"" },
	};
	char buf[64], out[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		FILE *f = fmemopen(out, sizeof(out), "w");
		struct hvt_text t;

		assert_non_null(f);
		hvt_text_init(&t, f, buf, sizeof(buf));
		hvt_text_field_value(&t, (const unsigned char *)cases[i].in, cases[i].max);
		hvt_text_flush(&t);
		fputc('\0', f);
		fclose(f);
		assert_string_equal(out, cases[i].out);
	}
}

static void test_time_text(void **state)
{
	const struct hvt_clock_pair pairs[] = {
		{ FX_T0, FX_MONO0, FX_REAL0, 100 },
		{ FX_T0 + 2000000000ull, FX_MONO0 + 1000000000ll, FX_REAL0 + 1000000000ll, 100 },
	};
	struct hvt_host_clock clock;
	char buf[HVT_TIME_TEXT_MAX];

	(void)state;
	assert_int_equal(hvt_host_clock_init(&clock, pairs, 2, 0), 0);
	assert_int_equal(hvt_time_format(buf, HVT_TIME_NS, &clock, FX_T0 - 2000), 12);
	assert_string_equal(buf, "-0.000001000");
	assert_int_equal(hvt_time_format(buf, HVT_TIME_NS, &clock, FX_HOST_TSC(12345678901ull)), 12);
	assert_string_equal(buf, "12.345678901");
	assert_int_equal(hvt_time_format(buf, HVT_TIME_REALTIME, &clock, FX_T0), 20);
	assert_string_equal(buf, "1700000000.000000000");
	assert_int_equal(hvt_time_format(buf, HVT_TIME_HOST_TSC, &clock, 0), 1);
	assert_string_equal(buf, "0");
	/* digits two at a time: each length's edges */
	assert_int_equal(hvt_time_format(buf, HVT_TIME_HOST_TSC, &clock, 9), 1);
	assert_string_equal(buf, "9");
	assert_int_equal(hvt_time_format(buf, HVT_TIME_HOST_TSC, &clock, 10), 2);
	assert_string_equal(buf, "10");
	assert_int_equal(hvt_time_format(buf, HVT_TIME_HOST_TSC, &clock, 99), 2);
	assert_string_equal(buf, "99");
	assert_int_equal(hvt_time_format(buf, HVT_TIME_HOST_TSC, &clock, 100), 3);
	assert_string_equal(buf, "100");
	assert_int_equal(hvt_time_format(buf, HVT_TIME_HOST_TSC, &clock, 1000000007), 10);
	assert_string_equal(buf, "1000000007");
	assert_int_equal(hvt_time_format(buf, HVT_TIME_HOST_TSC, &clock, UINT64_MAX), 20);
	assert_string_equal(buf, "18446744073709551615");
	hvt_host_clock_free(&clock);
}

/*
 * --pid: host threads by host/ftrace/tasks.tsv, guest threads by the traced
 * processes (trace 1 is pid 78, its stream thread 78); tid 0 is process 0.
 * Without tasks.tsv a host event has no process, and the empty result says why.
 */
static void test_pid_selection(void **state)
{
	struct ctx *c = *state;
	char *text, *err;

	assert_int_equal(MERGE_ERR(c, &text, &err, c->root, "--pid", "4300", "--layer", "host"),
			 0);
	assert_string_equal(text, "");
	assert_non_null(strstr(err, "--pid: the archive lists no host thread"));
	free(text);
	free(err);
	assert_int_equal(fx_printf(c->root, "host/ftrace/tasks.tsv",
				   "tid\tpid\tcomm\n4321\t4300\tqemu-system-x86\n"
				   "x\t1\tbad row\n99\t98\tworker\n"), 0);
	ASSERT_SELECTS(c, LINES(0, 7), "--pid", "4300");
	ASSERT_SELECTS(c, LINES(5), "--pid", "78");
	ASSERT_SELECTS(c, LINES(0, 5, 7), "--pid", "78,4300");
	ASSERT_SELECTS(c, LINES(2, 3, 4), "--pid", "0");
	ASSERT_SELECTS(c, LINES(7), "--pid", "4300", "--from", "0.1");
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root, "--pid", "4300"), 0);
	assert_non_null(strstr(err, "tasks.tsv: line 3 does not parse; skipping it"));
	free(text);
	free(err);
	/* a NUL inside a row: that row skipped, not the next one */
	{
		static const char nul[] = "tid\tpid\tcomm\n99\t98\twor\0ker\n4321\t4300\tqemu\n";

		assert_int_equal(fx_write(c->root, "host/ftrace/tasks.tsv", nul, sizeof(nul) - 1), 0);
		ASSERT_SELECTS(c, LINES(0, 7), "--pid", "4300");
	}
	/* a name longer than the kernel keeps: said, with the name it keeps */
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root, "--comm", "qemu-system-x86_64"), 0);
	assert_non_null(strstr(err, "; --comm qemu-system-x86_64: the kernel keeps a thread's "
				    "name to 15 characters (qemu-system-x86)"));
	free(text);
	free(err);
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root, "--pid", "-1"), 2);
	assert_non_null(strstr(err, "--pid: '-1' is not a process id"));
	free(text);
	free(err);
}

/*
 * A host layer whose records all fail to decode (its format files gone) is
 * lost as much as one that cannot be opened: exit 1, said as an error.
 */
static void test_host_layer_undecoded(void **state)
{
	struct ctx *c = *state;
	char *text, *err, path[256];

	snprintf(path, sizeof(path), "%s/host/ftrace/events/sched/sched_switch/format", c->root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root), 1);
	assert_null(strstr(text, " host "));
	assert_non_null(strstr(err, "error: not one record of the archive's host layer could be "
				    "decoded"));
	free(text);
	free(err);
	/* --layer kernel,user: the host layer is not read, nothing is lost */
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root, "--layer", "kernel,user"), 0);
	free(text);
	free(err);
}

/*
 * A stream the recording has but that is missing, cut short or damaged: what could
 * be read is printed, and merge ends with 1, said as an error; unless the
 * selection leaves that stream out.
 */
static void test_stream_missing_exit_status(void **state)
{
	struct ctx *c = *state;
	char *text, *err, path[256];

	/* a host CPU file the manifest does not list: its events not read, said */
	assert_int_equal(fx_write(c->root, "host/ftrace/cpu5.raw", "", 0), 0);
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root), 1);
	assert_non_null(strstr(err, "error: 1 recorded file the archive does not list was not "
				    "read"));
	free(text);
	free(err);
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root, "--layer", "kernel,user"), 0);
	free(text);
	free(err);
	snprintf(path, sizeof(path), "%s/host/ftrace/cpu5.raw", c->root);
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/vm/demo/user-1/stream-0", c->root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root), 1);
	assert_non_null(strstr(text, " host "));	/* the rest is there */
	assert_non_null(strstr(err, "error: 1 stream of the archive is missing, cut short or damaged"));
	free(text);
	free(err);
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root, "--layer", "host,kernel"), 0);
	free(text);
	free(err);
	snprintf(path, sizeof(path), "%s/vm/demo/kernel/stream-1", c->root);
	assert_int_equal(truncate(path, 0), 0);
	assert_int_equal(MERGE_ERR(c, &text, &err, c->root, "--layer", "host,kernel"), 1);
	free(text);
	free(err);
}

/*
 * Guest events before the first exchange kept (the first two cut from
 * sync.tsv): the summary says they reach outside, with the widest bound,
 * not only the narrow one between the exchanges.
 */
static void test_summary_events_outside_exchanges(void **state)
{
	struct ctx *c = *state;
	char *text, *err, path[256], *sync, *third;
	size_t len;

	assert_int_equal(MERGE_ERR(c, &text, &err, c->root), 0);
	ASSERT_ERR_HAS(err, "between the first and last exchange\n");
	free(text);
	free(err);
	snprintf(path, sizeof(path), "%s/vm/demo/sync.tsv", c->root);
	assert_int_equal(hvt_read_file(path, 1 << 20, &sync, &len), 0);
	third = strstr(sync, "\n2\t");
	assert_non_null(third);
	memmove(strchr(sync, '\n'), third, strlen(third) + 1);	/* the header, then 2.. */
	assert_int_equal(fx_write(c->root, "vm/demo/sync.tsv", sync, strlen(sync)), 0);
	free(sync);
	MERGE_ERR(c, &text, &err, c->root);
	ASSERT_ERR_HAS(err, "reach outside the exchanges, where bounds widen up to +/-");
	free(text);
	free(err);
}

/* Whether @text is @n lines, each of thread @thread. */
static bool lines_of(const char *text, unsigned int n, const char *thread)
{
	const char *p = text;
	unsigned int k = 0;

	for (; *p; p = strchr(p, '\n') + 1, k++)
		if (!strchr(p, '\n') || !strstr(p, thread) || strstr(p, thread) > strchr(p, '\n'))
			return false;
	return k == n;
}

/*
 * The thread column: COMM-TID with the name the machine's last switch gave
 * the thread (a switch out names its thread first), blanks shown as '_';
 * "<idle>" for tid 0; a user event's process name where no switch named
 * its thread. --comm takes the name as recorded or as shown, --tid the
 * whole column.
 */
static void test_thread_column(void **state)
{
	struct ctx *c = *state;
	const struct fx_host_switch ev[] = {
		/* 4321's first event: no switch named it before */
		{ FX_HOST_TSC(1234567), 4321, "CPU 0/KVM", 4321, 120, 1, "swapper/1", 0, 120 },
		{ FX_HOST_TSC(1300000), 0, "swapper/1", 0, 120, 0, "CPU 0/KVM", 4321, 120 },
		{ FX_HOST_TSC(200000000), 4321, "CPU 0/KVM", 4321, 120, 1, "swapper/1", 0, 120 },
	};
	char *text, path[256];

	snprintf(path, sizeof(path), "%s/host/ftrace/cpu1.raw", c->root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(fx_write_ftrace_cpu(c->root, "host/ftrace/cpu1.raw", 4096, ev, 3), 0);
	assert_int_equal(MERGE(c, &text, c->root, "--layer", "host"), 0);
	assert_string_equal(text,
		"     0.001234567 host   -     cpu1  CPU_0/KVM-4321        sched_switch "
		"prev_comm=\"CPU 0/KVM\" prev_pid=4321 prev_prio=120 prev_state=S "
		"next_comm=swapper/1 next_pid=0 next_prio=120\n"
		"     0.001300000 host   -     cpu1  <idle>-0              sched_switch "
		"prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R "
		"next_comm=\"CPU 0/KVM\" next_pid=4321 next_prio=120\n"
		"     0.200000000 host   -     cpu1  CPU_0/KVM-4321        sched_switch "
		"prev_comm=\"CPU 0/KVM\" prev_pid=4321 prev_prio=120 prev_state=S "
		"next_comm=swapper/1 next_pid=0 next_prio=120\n");
	free(text);
	/* a user event's thread no guest switch named: its process's name */
	assert_int_equal(MERGE(c, &text, c->root, "--layer", "user"), 0);
	assert_non_null(strstr(text, " vcpu1 hvdemo-78             hvdemo:send "));
	free(text);
	assert_int_equal(MERGE(c, &text, c->root, "--comm", "CPU 0/KVM"), 0);	/* as recorded */
	assert_true(lines_of(text, 2, " CPU_0/KVM-4321 "));
	free(text);
	assert_int_equal(MERGE(c, &text, c->root, "--comm", "CPU_0/*"), 0);	/* as shown */
	assert_true(lines_of(text, 2, " CPU_0/KVM-4321 "));
	free(text);
	assert_int_equal(MERGE(c, &text, c->root, "--tid", "CPU_0/KVM-4321"), 0);
	assert_true(lines_of(text, 2, " CPU_0/KVM-4321 "));
	free(text);
	/* the idle task: as shown, or as the kernel names it on that CPU */
	assert_int_equal(MERGE(c, &text, c->root, "--comm", "<idle>"), 0);
	assert_true(lines_of(text, 3, " <idle>-0 "));
	free(text);
	assert_int_equal(MERGE(c, &text, c->root, "--comm", "swapper/1"), 0);
	assert_true(lines_of(text, 2, " <idle>-0 "));	/* host CPU 1 and vCPU 1 */
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_text_to_stdout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_thread_column, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pid_selection, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_layer_undecoded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream_missing_exit_status, setup, teardown),
		cmocka_unit_test_setup_teardown(test_summary_events_outside_exchanges, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_output_file_and_null, setup, teardown),
		cmocka_unit_test_setup_teardown(test_output_exists, setup, teardown),
		cmocka_unit_test_setup_teardown(test_null_decodes_everything, setup, teardown),
		cmocka_unit_test_setup_teardown(test_untraced_warned, setup, teardown),
		cmocka_unit_test_setup_teardown(test_time_modes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_print_fmt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usage_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable_and_damaged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_monotonic_raw_is_skipped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wild_timestamps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_select, setup, teardown),
		cmocka_unit_test_setup_teardown(test_select_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_vcpu_tracks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ctf, setup, teardown),
		cmocka_unit_test(test_json_strings),
		cmocka_unit_test(test_json_integers),
		cmocka_unit_test_setup_teardown(test_stats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_selection_said, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vm_unread, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bounds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_runs_unused_said, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_sched_slices, setup, teardown),
		cmocka_unit_test_setup_teardown(test_delta, setup, teardown),
		cmocka_unit_test_setup_teardown(test_jsonl, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stats_overwritten_packets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_progress, setup, teardown),
		cmocka_unit_test(test_time_text),
		cmocka_unit_test(test_field_value_text),
	};

	return cmocka_run_group_tests_name("merge", tests, NULL, NULL);
}
