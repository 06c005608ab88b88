// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_host_runs.c - a vCPU thread's host states from sched_switch
 * (tools/align/host_runs.h): exact segments with complete data, the lenient
 * run when a switch-in is missing, losses, and the runnable prev_state.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tools/align/host_runs.h"

struct seen {
	struct hvt_run_segment seg[32];
	bool open[32];
	size_t n;
};

static void record(void *ctx, const struct hvt_run_segment *seg, bool open)
{
	struct seen *s = ctx;

	assert_true(s->n < 32);
	s->seg[s->n] = *seg;
	s->open[s->n++] = open;
}

static void expect(const struct seen *s, size_t i, enum hvt_run_state state, uint64_t start,
		   uint64_t end, bool open)
{
	assert_true(i < s->n);
	assert_int_equal(s->seg[i].state, state);
	assert_int_equal(s->seg[i].start, start);
	assert_int_equal(s->seg[i].end, end);
	assert_int_equal(s->open[i], open);
}

/* In at 10, preempted by a hog at 20, in at 35, to sleep at 50; the end at 60. */
static void test_complete(void **state)
{
	static const int32_t tids[] = { 100 };
	struct hvt_host_runs r;
	struct seen s = { .n = 0 };

	(void)state;
	assert_int_equal(hvt_host_runs_init(&r, tids, 1, 0, record, &s), 0);
	hvt_host_runs_switch(&r, 0, 10, 5, false, 100, "CPU 0/TCG");
	hvt_host_runs_switch(&r, 0, 20, 100, true, 200, "hog");
	hvt_host_runs_switch(&r, 0, 35, 200, true, 100, "CPU 0/TCG");
	hvt_host_runs_switch(&r, 0, 50, 100, false, 0, "swapper/0");
	hvt_host_runs_finish(&r, 60);
	assert_int_equal(s.n, 7);
	expect(&s, 0, HVT_RUN_UNKNOWN, 0, 10, false);
	expect(&s, 1, HVT_RUN_RUNNING, 10, 0, true);
	expect(&s, 2, HVT_RUN_RUNNING, 10, 20, false);
	assert_false(s.seg[2].guessed);
	assert_int_equal(s.seg[2].cpu, 0);
	expect(&s, 3, HVT_RUN_PREEMPTED, 20, 35, false);
	assert_int_equal(s.seg[3].by.tid, 200);
	assert_string_equal(s.seg[3].by.comm, "hog");
	expect(&s, 4, HVT_RUN_RUNNING, 35, 0, true);
	expect(&s, 5, HVT_RUN_RUNNING, 35, 50, false);
	expect(&s, 6, HVT_RUN_BLOCKED, 50, 60, false);
	assert_int_equal(s.seg[6].by.tid, 0);
	assert_int_equal(r.switches, 4);
	assert_int_equal(r.missing_in, 0);
	assert_int_equal(r.missing_out, 0);
	hvt_host_runs_free(&r);
}

/*
 * Asleep at 50 on CPU 1; CPU 1 then switches another task out at 70 and,
 * unrecorded, switches the thread in; out at 90. The run is [70, 90),
 * guessed; before the first switch-out, with no CPU history, it is unknown.
 */
static void test_missing_switch_in(void **state)
{
	static const int32_t tids[] = { 0, 100 };
	struct hvt_host_runs r;
	struct seen s = { .n = 0 };

	(void)state;
	assert_int_equal(hvt_host_runs_init(&r, tids, 2, 5, record, &s), 0);
	hvt_host_runs_switch(&r, 1, 50, 100, false, 0, "swapper/1");
	hvt_host_runs_switch(&r, 1, 70, 7, false, 0, "swapper/1");
	hvt_host_runs_switch(&r, 1, 90, 100, false, 0, "swapper/1");
	hvt_host_runs_finish(&r, 95);
	assert_int_equal(s.n, 4);
	expect(&s, 0, HVT_RUN_UNKNOWN, 5, 50, false);	/* seen first leaving */
	assert_int_equal(s.seg[0].thread, 1);
	expect(&s, 1, HVT_RUN_BLOCKED, 50, 70, false);
	expect(&s, 2, HVT_RUN_RUNNING, 70, 90, false);
	assert_true(s.seg[2].guessed);
	expect(&s, 3, HVT_RUN_BLOCKED, 90, 95, false);
	assert_int_equal(r.missing_in, 1);		/* the first sighting is not counted */
	assert_int_equal(r.first_missing_in, 90);
	assert_int_equal(r.first_missing_in_cpu, 1);
	hvt_host_runs_free(&r);
}

/* A switch-out a CPU never recorded: the next switch there has another prev. */
static void test_missing_switch_out(void **state)
{
	static const int32_t tids[] = { 100 };
	struct hvt_host_runs r;
	struct seen s = { .n = 0 };

	(void)state;
	assert_int_equal(hvt_host_runs_init(&r, tids, 1, 0, record, &s), 0);
	hvt_host_runs_switch(&r, 0, 10, 5, false, 100, "t");
	hvt_host_runs_switch(&r, 0, 20, 6, false, 7, "u");	/* 100 left unrecorded */
	assert_int_equal(r.missing_out, 1);
	hvt_host_runs_free(&r);
}

/*
 * CPU 0 loses events after 15: the thread running there is unknown from
 * 15 to its next sched_switch; one running on CPU 1 is not touched.
 */
static void test_loss(void **state)
{
	static const int32_t tids[] = { 100, 101 };
	struct hvt_host_runs r;
	struct seen s = { .n = 0 };

	(void)state;
	assert_int_equal(hvt_host_runs_init(&r, tids, 2, 0, record, &s), 0);
	hvt_host_runs_switch(&r, 0, 10, 5, false, 100, "a");
	hvt_host_runs_switch(&r, 1, 12, 6, false, 101, "b");
	s.n = 0;
	hvt_host_runs_lost(&r, 0, 15, 20);
	assert_int_equal(s.n, 1);
	expect(&s, 0, HVT_RUN_RUNNING, 10, 15, false);
	assert_int_equal(s.seg[0].thread, 0);
	hvt_host_runs_switch(&r, 0, 40, 100, true, 9, "c");
	expect(&s, 1, HVT_RUN_UNKNOWN, 15, 40, false);	/* not a guessed run */
	assert_int_equal(s.n, 2);
	assert_int_equal(r.missing_in, 0);
	hvt_host_runs_finish(&r, 50);
	expect(&s, 2, HVT_RUN_PREEMPTED, 40, 50, false);
	expect(&s, 3, HVT_RUN_RUNNING, 12, 50, false);	/* 101 on CPU 1 throughout */
	hvt_host_runs_free(&r);
}

/*
 * CPU 1's file could not be read (lost from 0, nothing after): a thread
 * switched out on CPU 0 may run there unseen, so its time out is UNKNOWN,
 * not preempted or blocked; its runs on CPU 0 stay runs. Once CPU 1 shows
 * an event after all, switch-outs are judged again.
 */
static void test_gone_cpu(void **state)
{
	static const int32_t tids[] = { 100 };
	struct hvt_host_runs r;
	struct seen s = { .n = 0 };

	(void)state;
	assert_int_equal(hvt_host_runs_init(&r, tids, 1, 0, record, &s), 0);
	hvt_host_runs_lost(&r, 1, 0, UINT64_MAX);
	hvt_host_runs_switch(&r, 0, 10, 5, false, 100, "a");
	hvt_host_runs_switch(&r, 0, 20, 100, true, 6, "b");	/* out, runnable */
	hvt_host_runs_switch(&r, 0, 30, 6, false, 100, "a");
	expect(&s, 0, HVT_RUN_UNKNOWN, 0, 10, false);
	expect(&s, 1, HVT_RUN_RUNNING, 10, 0, true);
	expect(&s, 2, HVT_RUN_RUNNING, 10, 20, false);
	expect(&s, 3, HVT_RUN_UNKNOWN, 20, 30, false);	/* not preempted */
	expect(&s, 4, HVT_RUN_RUNNING, 30, 0, true);
	hvt_host_runs_switch(&r, 1, 35, 7, false, 8, "c");	/* CPU 1 after all */
	hvt_host_runs_switch(&r, 0, 40, 100, false, 6, "b");	/* out, asleep */
	hvt_host_runs_finish(&r, 50);
	expect(&s, 5, HVT_RUN_RUNNING, 30, 40, false);
	expect(&s, 6, HVT_RUN_BLOCKED, 40, 50, false);
	assert_int_equal(s.n, 7);
	hvt_host_runs_free(&r);
}

/* Which prev_state is runnable is the decoder's (test_event_decoder.c). */
static void test_state_names(void **state)
{
	(void)state;
	assert_string_equal(hvt_run_state_name(HVT_RUN_PREEMPTED), "preempted");
	assert_string_equal(hvt_run_state_name(HVT_NR_RUN_STATES), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_complete),
		cmocka_unit_test(test_missing_switch_in),
		cmocka_unit_test(test_missing_switch_out),
		cmocka_unit_test(test_loss),
		cmocka_unit_test(test_gone_cpu),
		cmocka_unit_test(test_state_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
