// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_vm_analysis.c - `hvtrace analyze`'s attribution (tools/analyze/):
 * exact totals per vCPU state and per guest thread for known intervals
 * (preemption, blocking, idle, KVM exits, unknown time), the bounds of
 * their ends, pieces too short for their bounds, the --from/--to cut and
 * the time a thread waited runnable in the guest.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "tools/model/vm_analysis.h"

static const int32_t tids[] = { 100, 0 };	/* vCPU 1's thread is not known */

static struct hvt_guest_thread *find(struct hvt_vm_analysis *a, int32_t tid)
{
	size_t i;

	for (i = 0; i < a->cap_threads; i++)
		if (a->threads[i].tid == tid)
			return &a->threads[i];
	fail_msg("guest thread %d not found", tid);
	return NULL;
}

/*
 * vCPU 0's thread runs from 10, is preempted by a hog (200) from 30 to 50,
 * runs to 80, then sleeps; the trace ends at 100. In the guest, app (77)
 * is current from 12 (bound 1) to 60 (bound 1), then idle, except app2
 * (78) from 70 to 75 (bounds 3): shorter than its bounds together.
 */
static void feed_standard(struct hvt_vm_analysis *a)
{
	hvt_vm_analysis_host_switch(a, 0, 10, 5, false, 100, "CPU 0/TCG");
	hvt_vm_analysis_guest_switch(a, 0, 12, 1, 0, true, "swapper/0", 77, "app");
	hvt_vm_analysis_host_switch(a, 0, 30, 100, true, 200, "hog");
	hvt_vm_analysis_host_switch(a, 0, 50, 200, true, 100, "CPU 0/TCG");
	hvt_vm_analysis_guest_switch(a, 0, 60, 1, 77, false, "app", 0, "swapper/0");
	hvt_vm_analysis_guest_switch(a, 0, 70, 3, 0, true, "swapper/0", 78, "app2");
	hvt_vm_analysis_guest_switch(a, 0, 75, 3, 78, false, "app2", 0, "swapper/0");
	hvt_vm_analysis_host_switch(a, 0, 80, 100, false, 0, "swapper/0");
	/* vCPU 1: no host thread known, its changes are not kept */
	hvt_vm_analysis_guest_switch(a, 1, 81, 1, 0, true, "swapper/1", 79, "other");
	hvt_vm_analysis_finish(a, 100);
}

static void test_states_and_threads(void **state)
{
	struct hvt_vm_analysis a;
	struct hvt_account *v;
	struct hvt_guest_thread *app, *app2;

	(void)state;
	assert_int_equal(hvt_vm_analysis_init(&a, "vm", tids, 2, 0, 0, UINT64_MAX), 0);
	feed_standard(&a);
	v = hvt_vm_analysis_vcpu(&a, 0);
	assert_int_equal(v->ticks[HVT_VCPU_UNKNOWN], 10);
	/* [10, 12) of no known task, [12, 30) and [50, 60) of app */
	assert_int_equal(v->ticks[HVT_VCPU_GUEST], 2 + 18 + 10);
	assert_int_equal(v->slack[HVT_VCPU_GUEST], 1 + 1 + 1);	/* 12 ends one, starts one; 60 */
	assert_int_equal(v->ticks[HVT_VCPU_PREEMPTED], 20);
	assert_int_equal(v->slack[HVT_VCPU_PREEMPTED], 0);	/* host instants */
	/* idle [60, 70) within 1 + 3, [75, 80) within 3; [70, 75) too short */
	assert_int_equal(v->ticks[HVT_VCPU_IDLE], 15);
	assert_int_equal(v->slack[HVT_VCPU_IDLE], 4 + 3);
	assert_int_equal(v->short_ticks, 5);
	assert_int_equal(v->short_pieces, 1);
	assert_int_equal(v->ticks[HVT_VCPU_BLOCKED], 20);
	assert_int_equal(v->blocked_then.n, 1);		/* its CPU went idle */
	assert_int_equal(v->blocked_then.v[0].tid, 0);
	assert_int_equal(v->blocked_then.v[0].ticks, 20);
	assert_int_equal(v->ticks[HVT_VCPU_HYPERVISOR], 0);
	assert_int_equal(hvt_account_total(v), 100);
	assert_int_equal(v->preempted_by.n, 1);
	assert_int_equal(v->preempted_by.v[0].tid, 200);
	assert_string_equal(v->preempted_by.v[0].comm, "hog");
	assert_int_equal(v->preempted_by.v[0].ticks, 20);
	assert_int_equal(v->guessed, 0);

	app = find(&a, 77);
	assert_string_equal(app->comm, "app");
	assert_int_equal(app->acc.ticks[HVT_VCPU_GUEST], 28);
	assert_int_equal(app->acc.slack[HVT_VCPU_GUEST], 2);
	assert_int_equal(app->acc.ticks[HVT_VCPU_PREEMPTED], 20);
	assert_int_equal(app->acc.preempted_by.v[0].tid, 200);
	assert_int_equal(app->acc.ticks[HVT_VCPU_BLOCKED], 0);
	app2 = find(&a, 78);
	assert_int_equal(app2->acc.short_ticks, 5);
	assert_int_equal(app2->acc.ticks[HVT_VCPU_GUEST], 0);
	assert_false(a.failed);
	hvt_vm_analysis_free(&a);
}

/* --from 20 --to 90: cut ends are exact. */
static void test_selection(void **state)
{
	struct hvt_vm_analysis a;
	struct hvt_account *v;

	(void)state;
	assert_int_equal(hvt_vm_analysis_init(&a, "vm", tids, 2, 0, 20, 90), 0);
	feed_standard(&a);
	v = hvt_vm_analysis_vcpu(&a, 0);
	assert_int_equal(v->ticks[HVT_VCPU_UNKNOWN], 0);
	assert_int_equal(v->ticks[HVT_VCPU_GUEST], 10 + 10);
	assert_int_equal(v->slack[HVT_VCPU_GUEST], 1);		/* 20 is exact, 60 is not */
	assert_int_equal(v->ticks[HVT_VCPU_PREEMPTED], 20);
	assert_int_equal(v->ticks[HVT_VCPU_BLOCKED], 10);
	assert_int_equal(hvt_account_total(v), 70);
	hvt_vm_analysis_free(&a);
}

/*
 * KVM: exits at 20 (reason 30, entry at 25) and at 40 (reason 1), still
 * out when the thread sleeps at 45; its entry at 60 comes while it sleeps.
 */
static void test_hypervisor(void **state)
{
	struct hvt_vm_analysis a;
	struct hvt_account *v;
	struct hvt_guest_thread *app;

	(void)state;
	assert_int_equal(hvt_vm_analysis_init(&a, "vm", tids, 2, 0, 0, UINT64_MAX), 0);
	hvt_vm_analysis_guest_switch(&a, 0, 5, 0, 0, true, "swapper/0", 77, "app");
	hvt_vm_analysis_host_switch(&a, 0, 10, 5, false, 100, "CPU 0/KVM");
	hvt_vm_analysis_kvm(&a, 0, false, 20, 30);
	hvt_vm_analysis_kvm(&a, 0, true, 25, 0);
	hvt_vm_analysis_kvm(&a, 0, false, 40, 1);
	hvt_vm_analysis_host_switch(&a, 0, 45, 100, false, 0, "swapper/0");
	hvt_vm_analysis_kvm(&a, 0, true, 60, 0);
	hvt_vm_analysis_finish(&a, 70);
	assert_true(a.hypervisor_seen);
	v = hvt_vm_analysis_vcpu(&a, 0);
	assert_int_equal(v->ticks[HVT_VCPU_UNKNOWN], 10);
	assert_int_equal(v->ticks[HVT_VCPU_GUEST], 10 + 15);
	assert_int_equal(v->ticks[HVT_VCPU_HYPERVISOR], 5 + 5);
	assert_int_equal(v->slack[HVT_VCPU_HYPERVISOR], 0);
	assert_int_equal(v->ticks[HVT_VCPU_BLOCKED], 25);
	hvt_causes_sort(&v->exits);
	assert_int_equal(v->exits.n, 2);
	assert_int_equal(v->exits.v[0].ticks, 5);
	assert_int_equal(v->exits.v[0].tid, 1);	/* equal times: by reason */
	assert_int_equal(v->exits.v[1].tid, 30);
	app = find(&a, 77);
	assert_int_equal(app->acc.ticks[HVT_VCPU_HYPERVISOR], 10);
	assert_int_equal(app->acc.ticks[HVT_VCPU_BLOCKED], 25);
	hvt_vm_analysis_free(&a);
}

/*
 * A thread preempted in the guest at 20 (bound 2) runs again at 50 (bound
 * 3): 30 runnable within 5. One woken at 60 runs at 70; a wakeup while it
 * runs changes nothing; one woken at 90 is still waiting at the end (100).
 */
static void test_runnable(void **state)
{
	struct hvt_vm_analysis a;
	struct hvt_guest_thread *t;

	(void)state;
	assert_int_equal(hvt_vm_analysis_init(&a, "vm", tids, 2, 0, 0, UINT64_MAX), 0);
	hvt_vm_analysis_guest_switch(&a, 0, 10, 1, 0, true, "swapper/0", 77, "a");
	hvt_vm_analysis_guest_switch(&a, 0, 20, 2, 77, true, "a", 78, "b");
	hvt_vm_analysis_guest_switch(&a, 0, 50, 3, 78, false, "b", 77, "a");
	hvt_vm_analysis_guest_wakeup(&a, 55, 1, 77, "a", 5);	/* running: ignored */
	hvt_vm_analysis_guest_wakeup(&a, 60, 1, 78, "b", 5);
	hvt_vm_analysis_guest_switch(&a, 0, 70, 1, 77, false, "a", 78, "b");
	hvt_vm_analysis_guest_wakeup(&a, 90, 2, 77, "a", 5);
	hvt_vm_analysis_finish(&a, 100);
	t = find(&a, 77);
	assert_int_equal(t->acc.runnable, 30 + 10);
	assert_int_equal(t->acc.runnable_slack, 5 + 2);
	assert_int_equal(t->acc.runnable_pieces, 2);
	t = find(&a, 78);
	assert_int_equal(t->acc.runnable, 10);
	assert_int_equal(t->acc.runnable_slack, 2);
	hvt_vm_analysis_free(&a);
}

/* Many threads: the table grows and keeps each one's account. */
static void test_many_threads(void **state)
{
	struct hvt_vm_analysis a;
	int32_t tid;

	(void)state;
	assert_int_equal(hvt_vm_analysis_init(&a, "vm", tids, 2, 0, 0, UINT64_MAX), 0);
	hvt_vm_analysis_host_switch(&a, 0, 1, 5, false, 100, "CPU 0/TCG");
	for (tid = 1; tid <= 1000; tid++)
		hvt_vm_analysis_guest_switch(&a, 0, 10 * (uint64_t)tid, 0, tid - 1, false, "", tid, "t");
	hvt_vm_analysis_finish(&a, 10010);
	assert_int_equal(a.nr_threads, 1000);
	for (tid = 1; tid <= 1000; tid++)
		assert_int_equal(find(&a, tid)->acc.ticks[HVT_VCPU_GUEST], 10);
	hvt_vm_analysis_free(&a);
}

/*
 * Every cause is kept, however many tasks came first: a hog that preempts
 * after 1000 other tasks still leads the list (a cap of 64 once lumped it
 * into "others"); a task that exec'd (same tid, new name) is one cause.
 */
static void test_many_causes(void **state)
{
	struct hvt_account a;
	struct hvt_cause c = { .tid = 0 };
	int32_t tid;

	(void)state;
	memset(&a, 0, sizeof(a));
	for (tid = 1; tid <= 1000; tid++) {
		c.tid = tid;
		hvt_account_add(&a, HVT_VCPU_PREEMPTED, 10, 0, &c, false);
	}
	c.tid = 4242;
	snprintf(c.comm, sizeof(c.comm), "taskset");
	hvt_account_add(&a, HVT_VCPU_PREEMPTED, 500, 0, &c, false);
	snprintf(c.comm, sizeof(c.comm), "hog");
	hvt_account_add(&a, HVT_VCPU_PREEMPTED, 500, 1, &c, false);
	assert_int_equal(a.preempted_by.n, 1001);
	hvt_causes_sort(&a.preempted_by);
	assert_int_equal(a.preempted_by.v[0].tid, 4242);
	assert_int_equal(a.preempted_by.v[0].ticks, 1000);
	assert_int_equal(a.preempted_by.v[0].slack, 1);
	assert_string_equal(a.preempted_by.v[0].comm, "taskset");
	/* the index follows the sort */
	c.tid = 7;
	hvt_account_add(&a, HVT_VCPU_PREEMPTED, 5, 0, &c, false);
	assert_int_equal(a.preempted_by.n, 1001);
	assert_int_equal(a.ticks[HVT_VCPU_PREEMPTED], 10000 + 1000 + 5);
	assert_false(a.failed);
	hvt_account_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_states_and_threads),
		cmocka_unit_test(test_selection),
		cmocka_unit_test(test_hypervisor),
		cmocka_unit_test(test_runnable),
		cmocka_unit_test(test_many_threads),
		cmocka_unit_test(test_many_causes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
