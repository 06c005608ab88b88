// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_analyze.c - `hvtrace analyze` on synthetic archives: the rows it
 * prints for known host states, guest tasks and KVM exits (exact times and
 * bounds), and a VM it cannot analyse.
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

#include "tests/unit/archive_fixture.h"
#include "tests/unit/cmd_capture.h"
#include "tools/commands.h"

struct ctx {
	char root[64];
	char stdout_path[96];
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	assert_int_equal(fx_mkdtemp(c->root, sizeof(c->root)), 0);
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
	assert_non_null(strstr(text, "\n  1     4321             0.000      198.700        0.000 "
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
	assert_int_equal(analyze(c, "tsv", &text), 0);
	assert_null(strstr(text, "\tguest-idle\t"));
	assert_null(strstr(text, "\tguest\t"));
	assert_non_null(strstr(text, "demo\tvcpu\t1\t\tunknown-because\t-1\tno-guest-stream\t"
				     "198700000\t0\t0\n"));
	free(text);
	assert_int_equal(analyze(c, "text", &text), 0);
	assert_non_null(strstr(text, "198.700 ms running, but its guest kernel stream is missing "
				     "(guest or guest-idle not known)"));
	free(text);
	/* vCPU 0's stream missing instead: vCPU 1 keeps its guest-idle, it is that vCPU's */
	fx_rm_rf(c->root);
	assert_int_equal(fx_mkdtemp(c->root, sizeof(c->root)), 0);
	snprintf(c->stdout_path, sizeof(c->stdout_path), "%s/stdout.txt", c->root);
	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	snprintf(path, sizeof(path), "%s/vm/demo/kernel/stream-0", c->root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(analyze(c, "tsv", &text), 0);
	assert_non_null(strstr(text, "demo\tvcpu\t1\t\tguest-idle\t-1\t\t198699975\t26\t1\n"));
	assert_null(strstr(text, "no-guest-stream"));
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tcg_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_guest_stream_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kvm_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_analysable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_io_nothing_to_follow, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
