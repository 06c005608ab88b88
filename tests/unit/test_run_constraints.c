// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_run_constraints.c - the vCPU threads' host runs as clock constraints
 * (tools/align/run_constraints.h), on synthetic archives with a known true
 * offset (guest TSC = host TSC + FX_OFFSET): clock exchanges with 200 us
 * round trips bound the clock to about +/-100 us; QEMU thread 4321, vCPU
 * 0's, runs 10 ms of every 20; the guest kernel records an event 2 us after
 * each run starts and 3 us before it ends. The bound must contain the truth
 * at every event, tightened to a few us; host data that does not fit (a
 * thread mapped to the wrong vCPU) must leave the exchanges' bound and say
 * why. Under KVM, kvm_entry -> kvm_exit windows do the same.
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
#include "tests/unit/open_timeline.h"

#define RUNS		20
#define RUN_NS		10000000ull	/* 10 ms on, 10 ms off, from 10 ms */
#define FIRST_NS	10000000ull
#define JUMP_BACK_NS	2000000ull	/* test_clock_change: the guest TSC set back 2 ms */

static uint64_t jump_ns;		/* when, in host ns; 0: never */

/* The guest TSC at host instant @ns. */
static uint64_t guest_at(uint64_t ns)
{
	return FX_GUEST_TSC(ns) - (jump_ns && ns >= jump_ns ? 2 * JUMP_BACK_NS : 0);
}

/* The host TSC at which the guest kernel's event with stamp @g was recorded. */
static uint64_t truth_of(uint64_t g)
{
	unsigned int k;

	for (k = 0; k < RUNS; k++) {
		uint64_t on = FIRST_NS + 2 * k * RUN_NS;

		if (guest_at(on + 2000) == g)
			return FX_HOST_TSC(on + 2000);
		if (guest_at(on + RUN_NS - 3000) == g)
			return FX_HOST_TSC(on + RUN_NS - 3000);
	}
	fail_msg("no event of the fixture has stamp %llu", (unsigned long long)g);
	return 0;
}

static int setup(void **state)
{
	char *root = calloc(1, 64);

	assert_int_equal(fx_mkdtemp(root, 64), 0);
	*state = root;
	return 0;
}

static int teardown(void **state)
{
	fx_rm_rf(*state);
	free(*state);
	jump_ns = 0;
	return 0;
}

/* 11 exchanges 40 ms apart, each received and answered at the middle of 200 us. */
static void write_wide_exchanges(const char *root)
{
	char text[4096];
	size_t len = (size_t)snprintf(text, sizeof(text), "seq\thost_send\tguest_recv\t"
				      "guest_send\thost_recv\tcpu_recv\tcpu_send\n");
	unsigned int k;

	for (k = 0; k <= 10; k++) {
		uint64_t ns = k * 40000000ull;

		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"%u\t%llu\t%llu\t%llu\t%llu\t0\t0\n", k,
					(unsigned long long)FX_HOST_TSC(ns),
					(unsigned long long)guest_at(ns + 100000),
					(unsigned long long)guest_at(ns + 100000),
					(unsigned long long)FX_HOST_TSC(ns + 200000));
	}
	assert_int_equal(fx_write(root, "vm/demo/sync.tsv", text, len), 0);
}

/* Thread @tid's runs, @shift_ns later than the guest's: a switch in and out each. */
static void run_switches(struct fx_host_switch ev[2 * RUNS], int32_t tid, uint64_t shift_ns)
{
	unsigned int k;

	for (k = 0; k < RUNS; k++) {
		uint64_t on = FIRST_NS + shift_ns + 2 * k * RUN_NS;

		ev[2 * k] = (struct fx_host_switch){ FX_HOST_TSC(on), 0, "swapper/1", 0, 120, 0,
						     "CPU 0/TCG", tid, 120 };
		ev[2 * k + 1] = (struct fx_host_switch){ FX_HOST_TSC(on + RUN_NS), tid, "CPU 0/TCG",
							 tid, 120, 1, "swapper/1", 0, 120 };
	}
}

/* Host CPU @cpu's pages, replaced by @n switches. */
static void rewrite_cpu(const char *root, int cpu, const struct fx_host_switch *ev, unsigned int n)
{
	char path[256], rel[64];

	snprintf(rel, sizeof(rel), "host/ftrace/cpu%d.raw", cpu);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	unlink(path);
	assert_int_equal(fx_write_ftrace_cpu(root, rel, 4096, ev, n), 0);
}

/* Thread @tid's runs on host CPU 1, @shift_ns later than the guest's. */
static void write_runs(const char *root, int32_t tid, uint64_t shift_ns)
{
	struct fx_host_switch ev[2 * RUNS];

	run_switches(ev, tid, shift_ns);
	rewrite_cpu(root, 1, ev, 2 * RUNS);
}

/* The guest kernel's events on vCPU 0: 2 us into each run, 3 us before its end. */
static void write_guest(const char *root)
{
	static const uint8_t uuid[16] = { 0x5c, 0x0f, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14 };
	static struct fx_sched_switch sw;
	struct fx_event ev[2 * RUNS];
	unsigned int k;

	sw = fx_sched("swapper/0", 0, 0, "app", 77);
	for (k = 0; k < RUNS; k++) {
		uint64_t on = FIRST_NS + 2 * k * RUN_NS;

		ev[2 * k] = (struct fx_event){ FX_ID_SCHED_SWITCH, guest_at(on + 2000), 0, 77,
					       &sw, sizeof(sw) };
		ev[2 * k + 1] = (struct fx_event){ FX_ID_SCHED_SWITCH,
						   guest_at(on + RUN_NS - 3000), 0, 77, &sw,
						   sizeof(sw) };
	}
	assert_int_equal(fx_write_stream(root, "vm/demo/kernel/stream-0", uuid, 4096, 0, 0, ev,
					 2 * RUNS), 0);
}

static void make_archive(const char *root, const char *tids, int32_t run_tid, uint64_t shift)
{
	const struct fx_options o = { .ftrace = true, .vcpu_tids = tids };

	assert_int_equal(fx_standard_archive(root, &o), 0);
	write_wide_exchanges(root);
	write_runs(root, run_tid, shift);
	write_guest(root);
	assert_int_equal(fx_refresh_info(root), 0);
}

/*
 * Merges the archive; every guest kernel event of vCPU 0 must lie within
 * its bound of its true host time. Returns the largest bound, in ns, of
 * those outside host [@skip_from, @skip_to) ns (0, 0: none).
 */
static uint64_t widest_bound_outside(const char *root, struct hvt_run_fit *fit,
				     uint64_t skip_from, uint64_t skip_to)
{
	struct fx_opened tl;
	struct hvt_source *s;
	uint64_t widest = 0;
	size_t n = 0;

	assert_int_equal(fx_open(&tl, root, false), 0);
	assert_true(tl.ses.vms[0].al.aligned);
	*fit = tl.ses.vms[0].al.runs;
	while ((s = hvt_timeline_next(&tl.tl))) {
		uint64_t bound, truth;

		if (s->layer != HVT_LAYER_KERNEL || hvt_source_cpu(s) != 0)
			continue;
		truth = truth_of(s->ev.ts);
		assert_int_equal(hvt_source_error_bound(&tl.ses.vms[0], s, &bound), 0);
		if (s->host_tsc > truth + bound || truth > s->host_tsc + bound)
			fail_msg("event %zu: placed at %llu, truth %llu, bound %llu ticks", n,
				 (unsigned long long)s->host_tsc, (unsigned long long)truth,
				 (unsigned long long)bound);
		if (bound > widest && (truth < FX_HOST_TSC(skip_from) ||
				       truth >= FX_HOST_TSC(skip_to)))
			widest = bound;
		n++;
	}
	assert_int_equal(n, 2 * RUNS);
	fx_close(&tl);
	return widest / 2;	/* 2 GHz */
}

static uint64_t widest_bound(const char *root, struct hvt_run_fit *fit)
{
	return widest_bound_outside(root, fit, 0, 0);
}

/* Without vcpu_threads: the exchanges alone, about +/-100 us. */
static void test_exchanges_alone(void **state)
{
	struct hvt_run_fit fit;

	make_archive(*state, NULL, 4321, 0);
	assert_true(widest_bound(*state, &fit) > 50000);
	assert_int_equal(fit.samples, 0);
}

/* With them: every run bounds the clock; a few us, the truth inside. */
static void test_runs_tighten(void **state)
{
	struct hvt_run_fit fit;
	uint64_t ns;

	make_archive(*state, "[4321]", 4321, 0);
	ns = widest_bound(*state, &fit);
	/*
	 * Not the first event nor the last: their intervals reach before the
	 * host's first sched_switch of the thread, and after its last, where it
	 * is unknown. So the first run bounds the clock at its end only, the last
	 * at its start only: a bound from an event 10 ms away reaches further
	 * than an exchange's round trip, and is not used.
	 */
	assert_int_equal(fit.events, 2 * RUNS - 2);
	assert_int_equal(fit.samples, 2 * RUNS - 2);
	assert_int_equal(fit.contradictions, 0);
	assert_null(fit.rejected);
	assert_true(ns <= 5000);
}

/*
 * The host's runs 1 ms later than the guest's (the manifest names the
 * wrong thread, say): the events 2 us into each run fall outside every run.
 * The runs are not used, and the exchanges' bound, which holds, stays.
 */
static void test_runs_that_do_not_fit(void **state)
{
	struct hvt_run_fit fit;

	make_archive(*state, "[4321]", 4321, 1000000);
	assert_true(widest_bound(*state, &fit) > 50000);
	assert_int_equal(fit.samples, 0);
	assert_int_equal(fit.vcpus_unused, 1);
	assert_int_equal(fit.contradictions, RUNS - 1);	/* the first meets the unknown */
}

/*
 * Run 10 ran on host CPU 0, which lost the page that held it (marked missed
 * on its next page, as the kernel marks it); host CPU 1 recorded runs 0-9,
 * a short run of its own between 10 and 11 (after the loss began, before
 * CPU 0's next event tells of it), and runs 11-19. The thread then looks
 * asleep where it ran run 10, whose events would fall outside every run and
 * take the whole vCPU out (or worse, be tied to a wrong run). Every host
 * CPU's loss window is unknown time for every vCPU: run 10's events are not
 * used, nor counted as contradictions, and the other runs bound the clock.
 */
static void test_hidden_run(void **state)
{
	const char *root = *state;
	struct fx_host_switch ev[2 * RUNS + 2], cpu0[2];
	const uint64_t r9_end = FIRST_NS + 18 * RUN_NS + RUN_NS, r11_on = FIRST_NS + 22 * RUN_NS;
	const uint64_t r10_end = r11_on - RUN_NS;
	struct hvt_run_fit fit;
	unsigned char page[4096];
	char path[256];
	unsigned int k, n = 0;
	FILE *f;

	make_archive(root, "[4321]", 4321, 0);
	for (k = 0; k < RUNS; k++) {
		uint64_t on = FIRST_NS + 2 * k * RUN_NS;

		if (k == 10) {	/* CPU 1 saw only a short run after run 10 */
			ev[n++] = (struct fx_host_switch){ FX_HOST_TSC(r10_end + 2000000), 0,
				"swapper/1", 0, 120, 0, "CPU 0/TCG", 4321, 120 };
			ev[n++] = (struct fx_host_switch){ FX_HOST_TSC(r10_end + 4000000), 4321,
				"CPU 0/TCG", 4321, 120, 1, "swapper/1", 0, 120 };
			continue;
		}
		ev[n++] = (struct fx_host_switch){ FX_HOST_TSC(on), 0, "swapper/1", 0, 120, 0,
						   "CPU 0/TCG", 4321, 120 };
		ev[n++] = (struct fx_host_switch){ FX_HOST_TSC(on + RUN_NS), 4321, "CPU 0/TCG",
						   4321, 120, 1, "swapper/1", 0, 120 };
	}
	snprintf(path, sizeof(path), "%s/host/ftrace/cpu1.raw", root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(fx_write_ftrace_cpu(root, "host/ftrace/cpu1.raw", 4096, ev, n), 0);
	/* CPU 0: another task before the loss, and after it */
	cpu0[0] = (struct fx_host_switch){ FX_HOST_TSC(r9_end + 500000), 55, "kworker", 55, 120,
					   1, "swapper/0", 0, 120 };
	cpu0[1] = (struct fx_host_switch){ FX_HOST_TSC(r11_on - 500000), 55, "kworker", 55, 120,
					   1, "swapper/0", 0, 120 };
	snprintf(path, sizeof(path), "%s/host/ftrace/cpu0.raw", root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(fx_write_ftrace_cpu(root, "host/ftrace/cpu0.raw", 4096, cpu0, 1), 0);
	assert_int_equal(fx_write_ftrace_cpu(root, "host/ftrace/page1.raw", 4096, cpu0 + 1, 1), 0);
	snprintf(path, sizeof(path), "%s/host/ftrace/page1.raw", root);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(page, 1, sizeof(page), f), sizeof(page));
	assert_int_equal(fclose(f), 0);
	assert_int_equal(unlink(path), 0);
	page[8 + 3] |= 0x80;		/* commit: events were missed before this page */
	assert_int_equal(fx_append(root, "host/ftrace/cpu0.raw", page, sizeof(page)), 0);

	assert_true(widest_bound(root, &fit) <= 5000);
	assert_int_equal(fit.contradictions, 0);
	assert_int_equal(fit.vcpus_unused, 0);
	assert_true(fit.events <= 2 * RUNS - 4);	/* not run 10's two */
	assert_true(fit.samples > RUNS);
}

/*
 * The guest TSC set back 2 ms at 225 ms, between the exchanges at 200 and
 * 240 ms: two segments, and guest values around the jump shown twice. The
 * runs bound both segments; events whose value either segment may have
 * shown (the runs at 190-240 ms) are not used, and the bound holds the
 * truth everywhere, a few us away from the change.
 */
static void test_clock_change(void **state)
{
	struct hvt_run_fit fit;
	struct fx_opened tl;

	jump_ns = 225000000;
	make_archive(*state, "[4321]", 4321, 0);
	assert_int_equal(fx_open(&tl, *state, false), 0);
	assert_int_equal(hvt_vm_clock_segments(&tl.ses.vms[0].al.clock), 2);
	fx_close(&tl);
	assert_true(widest_bound_outside(*state, &fit, 190000000, 250000000) <= 5000);
	assert_int_equal(fit.contradictions, 0);
	assert_null(fit.rejected);
	/* all but the first and last events, and those around the jump */
	assert_true(fit.samples >= 2 * RUNS - 2 - 6);
	assert_true(fit.samples < 2 * RUNS - 2);
}

/*
 * The host recorded no switch-in of the thread (some kernels skip idle ->
 * task), only another task's switch 1 us before each run and the
 * thread's switch-out: a run then starts at that other switch (the
 * lenient rule), which merge must keep although it involves no vCPU
 * thread. Each run still bounds the clock at both ends, as in
 * test_runs_tighten; from the run before's end instead, its start would
 * lie 10 ms from its first event, too far to be used.
 */
static void test_missing_switch_in(void **state)
{
	const char *root = *state;
	struct fx_host_switch ev[2 * RUNS];
	struct hvt_run_fit fit;
	unsigned int k;

	make_archive(root, "[4321]", 4321, 0);
	run_switches(ev, 4321, 0);
	for (k = 0; k < RUNS; k++)	/* each switch-in: another task's switch 1 us (2 GHz) before */
		ev[2 * k] = (struct fx_host_switch){ ev[2 * k].ts - 2000, 55, "kworker", 55, 120, 1,
						     "swapper/1", 0, 120 };
	rewrite_cpu(root, 1, ev, 2 * RUNS);
	assert_true(widest_bound(root, &fit) <= 5000);
	assert_int_equal(fit.contradictions, 0);
	assert_int_equal(fit.samples, 2 * RUNS - 2);
}

/*
 * The thread still runs when host CPU 1's recording ends (no switch-out
 * after its last switch-in), while host CPU 0 records an unrelated switch
 * 1 ms later: the host layer ends there, not at the last switch merge
 * keeps, so the last run still holds its events and bounds the clock at
 * its start, as in test_runs_tighten.
 */
static void test_running_at_the_end(void **state)
{
	const char *root = *state;
	const uint64_t last_on = FIRST_NS + 2 * (RUNS - 1) * RUN_NS;
	struct fx_host_switch ev[2 * RUNS], other;
	struct hvt_run_fit fit;

	make_archive(root, "[4321]", 4321, 0);
	run_switches(ev, 4321, 0);
	rewrite_cpu(root, 1, ev, 2 * RUNS - 1);		/* no last switch-out */
	other = (struct fx_host_switch){ FX_HOST_TSC(last_on + RUN_NS + 1000000), 55, "kworker",
					 55, 120, 1, "swapper/0", 0, 120 };
	rewrite_cpu(root, 0, &other, 1);
	assert_true(widest_bound(root, &fit) <= 5000);
	assert_int_equal(fit.contradictions, 0);
	assert_int_equal(fit.samples, 2 * RUNS - 2);
}

/* A thread the host never scheduled: nothing known, nothing used, nothing contradicted. */
static void test_unknown_thread(void **state)
{
	struct hvt_run_fit fit;

	make_archive(*state, "[9999]", 4321, 0);
	assert_true(widest_bound(*state, &fit) > 50000);
	assert_int_equal(fit.samples, 0);
	assert_int_equal(fit.contradictions, 0);
}

/*
 * Under KVM without its TSC parameters recorded: the vCPU's kvm_entry ->
 * kvm_exit windows (here the same 10 ms of every 20 on host CPU 0) bound
 * the clock the same way, without the manifest's vcpu_threads.
 */
static void test_kvm_windows(void **state)
{
	const struct fx_options o = { .ftrace = true, .kvm = true };
	struct fx_host_kvm_run ev[2 * RUNS];
	struct hvt_run_fit fit;
	char path[256];
	unsigned int k;

	assert_int_equal(fx_standard_archive(*state, &o), 0);
	write_wide_exchanges(*state);
	write_guest(*state);
	assert_int_equal(fx_refresh_info(*state), 0);
	for (k = 0; k < RUNS; k++) {
		uint64_t on = FIRST_NS + 2 * k * RUN_NS;

		ev[2 * k] = (struct fx_host_kvm_run){ FX_HOST_TSC(on), 4321, true, 0 };
		ev[2 * k + 1] = (struct fx_host_kvm_run){ FX_HOST_TSC(on + RUN_NS), 4321, false, 0 };
	}
	snprintf(path, sizeof(path), "%s/host/ftrace/cpu0.raw", (char *)*state);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(fx_write_ftrace_kvm_runs(*state, "host/ftrace/cpu0.raw", 4096, ev,
						  2 * RUNS), 0);
	assert_true(widest_bound(*state, &fit) <= 5000);
	assert_true(fit.windows);
	assert_int_equal(fit.samples, 2 * RUNS - 2);
	assert_int_equal(fit.contradictions, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_exchanges_alone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_runs_tighten, setup, teardown),
		cmocka_unit_test_setup_teardown(test_runs_that_do_not_fit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_thread, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kvm_windows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hidden_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clock_change, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_switch_in, setup, teardown),
		cmocka_unit_test_setup_teardown(test_running_at_the_end, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
