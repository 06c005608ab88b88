// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_analyze.c - `hvtrace analyze` on synthetic archives: the rows it
 * prints for known host states, guest tasks and KVM exits (exact times and
 * bounds; under TCG the hypervisor "-", not measured), and a VM it cannot
 * analyse; --tid and --comm taken as merge takes them; --from and --to of
 * one instant refused, and out of the events' span said (--io too); a
 * longest sleep cut by --from/--to said so, with the whole sleep.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "clocksync/host_clock.h"
#include "tests/unit/archive_fixture.h"
#include "tests/unit/cmd_capture.h"
#include "tools/analyze/wait_report.h"
#include "tools/commands.h"

struct ctx {
	char root[64];
	char stdout_path[96];
	char stderr_path[96];
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	assert_int_equal(fx_mkdtemp(c->root, sizeof(c->root)), 0);
	snprintf(c->stdout_path, sizeof(c->stdout_path), "%s/stdout.txt", c->root);
	snprintf(c->stderr_path, sizeof(c->stderr_path), "%s/stderr.txt", c->root);
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

static int analyze(struct ctx *c, const char *format, char **text)
{
	char *argv[] = { "analyze", "--format", (char *)format, c->root, NULL };

	return capture_cmd(hvt_cmd_analyze, 4, argv, c->stdout_path, text);
}

static int analyze_picked(struct ctx *c, const char *comm, char **text)
{
	char *argv[] = { "analyze", "--comm", (char *)comm, c->root, NULL };

	return capture_cmd(hvt_cmd_analyze, 4, argv, c->stdout_path, text);
}

/* analyze OPTIONS... ARCHIVE (@opts ends with NULL): its exit, stdout and stderr. */
static int analyze_opts(struct ctx *c, const char *const *opts, char **out, char **err)
{
	char *argv[16] = { "analyze" };
	int argc = 1, saved = dup(2), fd = open(c->stderr_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int ret;
	size_t len;

	while (*opts && argc < 14)
		argv[argc++] = (char *)*opts++;
	argv[argc++] = c->root;
	fflush(stderr);
	dup2(fd, 2);
	close(fd);
	ret = capture_cmd(hvt_cmd_analyze, argc, argv, c->stdout_path, out);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	if (hvt_read_file(c->stderr_path, 1 << 20, err, &len))
		*err = NULL;
	return ret;
}

/*
 * TCG, QEMU thread 4321 is vCPU 1's: unknown until it sleeps at 1.234567
 * ms, blocked (the idle task next) until 1.3 ms, then it runs to the end
 * (200 ms) while the guest's idle task is current on vCPU 1 from 1.3 ms.
 * That guest event bounds the clock by the run it starts (its true time is
 * the switch-in's): the estimate moves it 25 ns later, within its bound of
 * 26 ns, so the first 25 ns of the run, with no guest task known yet, are
 * too short to place.
 */
static void test_tcg_rows(void **state)
{
	struct ctx *c = *state;
	const struct fx_options o = { .ftrace = true, .vcpu_tids = "[0, 4321]" };
	char *text;

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	assert_int_equal(analyze(c, "tsv", &text), 0);
	assert_string_equal(text,
		"vm\tkind\tid\tname\tstate\tcause_id\tcause\tns\tslack_ns\tpieces\n"
		"demo\tvcpu\t1\t\tguest-idle\t-1\t\t198699975\t26\t1\n"
		"demo\tvcpu\t1\t\tblocked\t-1\t\t65433\t0\t1\n"
		"demo\tvcpu\t1\t\tunknown\t-1\t\t1234567\t0\t1\n"
		"demo\tvcpu\t1\t\tblocked-then-ran\t0\tswapper/1\t65433\t0\t0\n"
		"demo\tvcpu\t1\t\ttoo-short\t-1\t\t25\t0\t1\n"
		"demo\tvcpu\t1\t\tunknown-because\t-1\tunseen\t1234567\t0\t0\n");
	free(text);
	assert_int_equal(analyze(c, "text", &text), 0);
	assert_non_null(strstr(text, "VM demo: 2 vCPUs, TCG: the hypervisor state is not seen"));
	assert_non_null(strstr(text, "\n  0     ?         its host thread is not known\n"));
	/* the bound under the figure it bounds, none under exact ones; the unknown's why */
	/* TCG: the hypervisor not measured, so "-", not 0.000 */
	assert_non_null(strstr(text, "\n  1     4321             0.000      198.700            - "
				     "       0.000        0.065        1.235\n"
				     "              +/-                  0.000026\n"
				     "        unknown: 1.235 ms before its thread's first host "
				     "sched_switch\n"));
	assert_null(strstr(text, "+/-0.000"));
	free(text);
}

/*
 * The same, vCPU 1's guest kernel stream missing: its thread's running time
 * (198.7 ms) is unknown, not guest: nothing says whether the guest idled.
 */
static void test_guest_stream_missing(void **state)
{
	struct ctx *c = *state;
	const struct fx_options o = { .ftrace = true, .vcpu_tids = "[0, 4321]" };
	char *text, path[300];

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	snprintf(path, sizeof(path), "%s/vm/demo/kernel/stream-1", c->root);
	assert_int_equal(unlink(path), 0);
	/* the figures from what could be read, and status 1: a stream is lacking */
	assert_int_equal(analyze(c, "tsv", &text), 1);
	assert_null(strstr(text, "\tguest-idle\t"));
	assert_null(strstr(text, "\tguest\t"));
	assert_non_null(strstr(text, "demo\tvcpu\t1\t\tunknown-because\t-1\tno-guest-stream\t"
				     "198700000\t0\t0\n"));
	free(text);
	assert_int_equal(analyze(c, "text", &text), 1);
	assert_non_null(strstr(text, "198.700 ms running, but its guest kernel stream is missing "
				     "or cut short (guest or guest-idle not known)"));
	free(text);
	/* vCPU 0's stream missing instead: vCPU 1 keeps its guest-idle, it is that vCPU's */
	fx_rm_rf(c->root);
	assert_int_equal(fx_mkdtemp(c->root, sizeof(c->root)), 0);
	snprintf(c->stdout_path, sizeof(c->stdout_path), "%s/stdout.txt", c->root);
	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	snprintf(path, sizeof(path), "%s/vm/demo/kernel/stream-0", c->root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(analyze(c, "tsv", &text), 1);
	assert_non_null(strstr(text, "demo\tvcpu\t1\t\tguest-idle\t-1\t\t198699975\t26\t1\n"));
	assert_null(strstr(text, "no-guest-stream"));
	free(text);
	/* vCPU 1's emptied, not gone: the same unknown, not its last task's time */
	fx_rm_rf(c->root);
	assert_int_equal(fx_mkdtemp(c->root, sizeof(c->root)), 0);
	snprintf(c->stdout_path, sizeof(c->stdout_path), "%s/stdout.txt", c->root);
	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	snprintf(path, sizeof(path), "%s/vm/demo/kernel/stream-1", c->root);
	assert_int_equal(truncate(path, 0), 0);
	assert_int_equal(analyze(c, "tsv", &text), 1);
	assert_non_null(strstr(text, "demo\tvcpu\t1\t\tunknown-because\t-1\tno-guest-stream\t"
				     "198700000\t0\t0\n"));
	free(text);
}

/*
 * KVM, thread 4321 is vCPU 0's; it exits to KVM at 10 ms (reason 30) and
 * enters at 10.5 ms, while hvdemo (77) is current from 1.3 ms.
 */
static void test_kvm_rows(void **state)
{
	struct ctx *c = *state;
	const struct fx_options o = { .ftrace = true, .kvm = true, .vcpu_tids = "[4321]" };
	const struct fx_host_kvm_run runs[] = {
		{ FX_HOST_TSC(10000000), 4321, false, 0 },
		{ FX_HOST_TSC(10500000), 4321, true, 0 },
	};
	char *text, path[256];

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	snprintf(path, sizeof(path), "%s/host/ftrace/cpu0.raw", c->root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(fx_write_ftrace_kvm_runs(c->root, "host/ftrace/cpu0.raw", 4096, runs, 2),
			 0);
	assert_int_equal(analyze(c, "tsv", &text), 0);
	assert_non_null(strstr(text, "\ndemo\tvcpu\t0\t\tguest\t-1\t\t198200000\t0\t2\n"));
	assert_non_null(strstr(text, "\ndemo\tvcpu\t0\t\thypervisor\t-1\t\t500000\t0\t1\n"));
	assert_non_null(strstr(text, "\ndemo\tvcpu\t0\t\texit-reason\t30\t\t500000\t0\t0\n"));
	assert_non_null(strstr(text, "\ndemo\tthread\t77\thvdemo\tguest\t-1\t\t198200000\t0\t2\n"));
	assert_non_null(strstr(text, "\ndemo\tthread\t77\thvdemo\thypervisor\t-1\t\t500000\t0\t1\n"));
	free(text);
	assert_int_equal(analyze(c, "text", &text), 0);
	assert_non_null(strstr(text, "VM demo: 1 vCPU, in the hypervisor from kvm_exit to "
				     "kvm_entry\n"));
	assert_non_null(strstr(text, "  vCPU 0 in the hypervisor: exit reason 30 0.500 ms\n"));
	free(text);
	/* threads picked by name: that one, or none */
	assert_int_equal(analyze_picked(c, "hvdemo", &text), 0);
	assert_non_null(strstr(text, "\n  77       hvdemo   "));
	free(text);
	assert_int_equal(analyze_picked(c, "hvd*", &text), 0);	/* a shell pattern */
	assert_non_null(strstr(text, "\n  77       hvdemo   "));
	free(text);
	assert_int_equal(analyze_picked(c, "nosuch", &text), 0);
	assert_non_null(strstr(text, "\n  (none: no guest sched_switch of these threads)\n"
				     "  its threads: hvdemo[77]"));
	free(text);
}

/* Without vcpu_threads in the manifest nothing can be attributed: exit 1. */
static void test_not_analysable(void **state)
{
	struct ctx *c = *state;
	const struct fx_options o = { .ftrace = true };
	char *text;

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	assert_int_equal(analyze(c, "text", &text), 1);
	assert_string_equal(text, "");
	free(text);
}

/*
 * --io on a recording whose guest has no block events but whose QEMU log
 * (kept as vm/demo/qemu-trace.log, so the VM's) took up a request: nothing
 * to follow (exit 1), and said: the guest's missing events, and QEMU's
 * request that no guest issue fits.
 */
static void test_io_nothing_to_follow(void **state)
{
	static const char log[] =
		"4321@1700000000.000008:virtio_blk_handle_read vdev 0x55 req 0x77 sector 16 "
		"nsectors 8\n"
		"4321@1700000000.000009:virtio_blk_req_complete vdev 0x55 req 0x77 status 0\n";
	struct ctx *c = *state;
	const struct fx_options o = { .ftrace = true };
	char *argv[] = { "analyze", "--io", c->root, NULL };
	char *text;

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	assert_int_equal(fx_write(c->root, "vm/demo/qemu-trace.log", log, sizeof(log) - 1), 0);
	assert_int_equal(capture_cmd(hvt_cmd_analyze, 3, argv, c->stdout_path, &text), 1);
	assert_non_null(strstr(text, "VM demo: its guest kernel recorded no block_rq_issue"));
	assert_non_null(strstr(text, "VM demo: 1 QEMU requests no guest issue fits"));
	assert_null(strstr(text, "no QEMU events"));
	free(text);
}

/*
 * --tid and --comm take what merge's take: lists, the thread column's
 * "comm-tid"; not the idle task, nor a name no comm can be. KVM, hvdemo
 * (77) current on vCPU 0 (thread 4321).
 */
static void test_thread_lists(void **state)
{
	static const char *const tid_list[] = { "--tid", "5,77", NULL };
	static const char *const tid_column[] = { "--tid", "hvdemo-77", NULL };
	static const char *const comm_list[] = { "--comm", "nosuch,hvd*", NULL };
	static const char *const both[] = { "--tid", "5", "--comm", "hvdemo", NULL };
	static const char *const idle[] = { "--tid", "77,0", NULL };
	static const char *const long_comm[] = { "--comm", "hvdemo,sixteen-chars-xx", NULL };
	static const char *const empty_item[] = { "--comm", "hvdemo,", NULL };
	const char *const *good[] = { tid_list, tid_column, comm_list, both };
	const char *const *bad[] = { idle, long_comm, empty_item };
	struct ctx *c = *state;
	const struct fx_options o = { .ftrace = true, .kvm = true, .vcpu_tids = "[4321]" };
	char *out, *err;
	size_t i;

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(analyze_opts(c, good[i], &out, &err), 0);
		assert_non_null(strstr(out, "\n  77       hvdemo   "));
		assert_null(strstr(out, "(none: no guest sched_switch of these threads)"));
		free(out);
		free(err);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(analyze_opts(c, bad[i], &out, &err), 2);
		assert_non_null(strstr(err, "see 'hvtrace analyze --help'"));
		free(out);
		free(err);
	}
}

/*
 * --from and --to of one instant count no time: a usage error, with or
 * without --io. A --from past the events, or a --to before them, is said
 * with their span, by --io as by plain analyze; --io --top beyond what is
 * kept is said too.
 */
static void test_windows(void **state)
{
	static const char log[] =
		"4321@1700000000.000008:virtio_blk_handle_read vdev 0x55 req 0x77 sector 16 "
		"nsectors 8\n";
	static const char *const same[] = { "--from", "0.1", "--to", "0.100000000", NULL };
	static const char *const same_io[] = { "--io", "--from", "0.1", "--to", "0.1", NULL };
	static const char *const late[] = { "--from", "100", NULL };
	static const char *const late_io[] = { "--io", "--from", "100", NULL };
	static const char *const early[] = { "--to", "-0.5", NULL };
	static const char *const top_io[] = { "--io", "--top", "10000", NULL };
	struct ctx *c = *state;
	const struct fx_options o = { .ftrace = true, .vcpu_tids = "[0, 4321]" };
	char *out, *err;

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	assert_int_equal(fx_write(c->root, "vm/demo/qemu-trace.log", log, sizeof(log) - 1), 0);
	assert_int_equal(analyze_opts(c, same, &out, &err), 2);
	assert_non_null(strstr(err, "--from 0.1 and --to 0.100000000 are the same instant"));
	free(out);
	free(err);
	assert_int_equal(analyze_opts(c, same_io, &out, &err), 2);
	free(out);
	free(err);
	assert_int_equal(analyze_opts(c, late, &out, &err), 0);
	assert_non_null(strstr(err, "warning: --from 100 lies after the end of the events read"));
	free(out);
	free(err);
	assert_int_equal(analyze_opts(c, early, &out, &err), 0);
	assert_non_null(strstr(err, "warning: --to -0.5 lies before the start of the events read"));
	free(out);
	free(err);
	assert_int_equal(analyze_opts(c, late_io, &out, &err), 1);	/* no block events */
	assert_non_null(strstr(err, "warning: --from 100 lies after the end of the events read"));
	free(out);
	free(err);
	assert_int_equal(analyze_opts(c, top_io, &out, &err), 1);
	assert_non_null(strstr(err, "--io lists at most 1000 requests per disk, not 10000"));
	free(out);
	free(err);
}

/*
 * A sleep from 6.5 s to 7.9 s (ends within 1 and 2 us), cut to --from 7
 * --to 7.5: the longest sleep is the 500 ms within, exact (both ends cut),
 * said to be part of the whole one, whose length, bound and ends the
 * chain's lines give; uncut, its own.
 */
static void test_longest_sleep_cut(void **state)
{
	const struct hvt_clock_pair pairs[] = { { .tsc = 0 }, { .tsc = 1000000000,
		.mono_ns = 1000000000, .real_ns = 1000000000 } };
	struct hvt_wait_chain ch = { .depth = 1, .end = HVT_CHAIN_IDLE };
	struct hvt_analysis_view v = { .ns_per_tick = 1, .top = 5 };
	struct hvt_host_clock clock;
	struct hvt_wait_account w;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(hvt_host_clock_init(&clock, pairs, 2, 1000000000), 0);
	v.clock = &clock;
	ch.link[0] = (struct hvt_wait_link){ .tid = 77, .waker = 0, .asleep = 6500000000,
		.asleep_bound = 1000, .woken = 7900000000, .woken_bound = 2000,
		.ran = 7900001000 };
	snprintf(ch.link[0].comm, sizeof(ch.link[0].comm), "hvdemo");
	memset(&w, 0, sizeof(w));
	hvt_wait_account_add(&w, &ch, 7000000000, 7500000000);
	assert_true(w.longest_cut);
	assert_int_equal(w.longest_slack, 0);
	f = open_memstream(&text, &len);
	hvt_wait_text(f, 2, "", "in the guest", &w, &v);
	fclose(f);
	assert_non_null(strstr(text, "longest sleep 500.000 ms within --from/--to (the whole "
				     "sleep 1400.000 ms +/-0.003, from 6.500000 s, woken at "
				     "7.900000 s); its chain, 1 link, "));
	assert_non_null(strstr(text, "  0  hvdemo[77] asleep 1400.000 ms from 6.500000 s"));
	free(text);
	hvt_wait_account_free(&w);

	hvt_wait_account_add(&w, &ch, 0, UINT64_MAX);
	assert_false(w.longest_cut);
	f = open_memstream(&text, &len);
	hvt_wait_text(f, 2, "", "in the guest", &w, &v);
	fclose(f);
	assert_non_null(strstr(text, "longest sleep 1400.000 ms +/-0.003, woken at 7.900000 s; "
				     "its chain, 1 link, "));
	free(text);
	hvt_wait_account_free(&w);
	hvt_host_clock_free(&clock);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tcg_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_guest_stream_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kvm_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_analysable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_io_nothing_to_follow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_thread_lists, setup, teardown),
		cmocka_unit_test_setup_teardown(test_windows, setup, teardown),
		cmocka_unit_test(test_longest_sleep_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
