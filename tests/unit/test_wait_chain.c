// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_wait_chain.c - wake chains (tools/model/wait_chain.h) and their sums
 * (wait_account.h): the waker of each sleep, chains followed link by link
 * while each waker's wait overlaps the first sleep, every way a chain ends
 * (the waker ran, was preempted, the idle task, a waker not seen, no
 * wakeup, the depth limit), waits whose end or switch-in was not recorded, losses, and the
 * sums cut to a span with their bounds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "tools/model/wait_account.h"
#include "tools/model/wait_chain.h"

#define MAX_SEEN 64

struct seen {
	struct hvt_wait_chain c[MAX_SEEN];
	size_t n;
};

static void on_wait(void *ctx, const struct hvt_wait_chain *c)
{
	struct seen *s = ctx;

	assert_true(s->n < MAX_SEEN);
	s->c[s->n++] = *c;
}

/* The last wait told of @tid. */
static const struct hvt_wait_chain *wait_of(const struct seen *s, int32_t tid)
{
	size_t i = s->n;

	while (i--)
		if (s->c[i].link[0].tid == tid)
			return &s->c[i];
	fail_msg("no wait of %d", tid);
	return NULL;
}

static void sw(struct hvt_wait_chains *w, uint64_t ts, int32_t prev, bool runnable, int32_t next)
{
	struct hvt_sched_switch s = { .prev = prev, .next = next, .runnable = runnable };

	snprintf(s.prev_comm, sizeof(s.prev_comm), "t%d", prev);
	snprintf(s.next_comm, sizeof(s.next_comm), "t%d", next);
	hvt_wait_chains_switch(w, ts, 0, &s);
}

/* @tid (on its own CPU) sleeps at @ts; runs again at @ran. */
static void sleep_at(struct hvt_wait_chains *w, uint64_t ts, int32_t tid)
{
	sw(w, ts, tid, false, 0);
}

static void run_at(struct hvt_wait_chains *w, uint64_t ts, int32_t tid)
{
	sw(w, ts, 0, false, tid);
}

static void wake(struct hvt_wait_chains *w, uint64_t ts, int32_t tid, int32_t waker)
{
	hvt_wait_chains_wakeup(w, ts, 0, tid, "", waker);
}

/* T (10) sleeps at 100, W (20), running since 0, wakes it at 150; T runs at 160. */
static void test_direct_waker(void **state)
{
	struct hvt_wait_chains w;
	struct seen s = { .n = 0 };
	const struct hvt_wait_chain *c;

	(void)state;
	hvt_wait_chains_init(&w, on_wait, &s);
	run_at(&w, 0, 20);
	run_at(&w, 1, 10);
	sleep_at(&w, 100, 10);
	wake(&w, 150, 10, 20);
	run_at(&w, 160, 10);
	c = wait_of(&s, 10);
	assert_int_equal(c->depth, 1);
	assert_int_equal(c->end, HVT_CHAIN_RAN);
	assert_int_equal(c->link[0].asleep, 100);
	assert_int_equal(c->link[0].woken, 150);
	assert_int_equal(c->link[0].ran, 160);
	assert_int_equal(c->link[0].waker, 20);
	assert_string_equal(c->link[0].waker_comm, "t20");
	assert_string_equal(c->link[0].comm, "t10");
	assert_false(c->unended);
	assert_false(c->ran_unseen);
	hvt_wait_chains_free(&w);
}

/*
 * Threads 1..10 run from 0 and fall asleep at 10, 11, ..., 19; X (99),
 * running since 0, wakes 10 at 30, and each thread k, once running, wakes
 * k - 1: thread 1's chain holds 2..10 after it, cut at 8 links; thread
 * 9's is [9, 10], ending on X, which ran throughout.
 */
static void test_transitive_and_depth(void **state)
{
	struct hvt_wait_chains w;
	struct seen s = { .n = 0 };
	const struct hvt_wait_chain *c;
	const char *comm;
	uint64_t t = 30;
	int32_t k;

	(void)state;
	hvt_wait_chains_init(&w, on_wait, &s);
	run_at(&w, 0, 99);
	for (k = 1; k <= 10; k++)
		run_at(&w, 0, k);
	for (k = 1; k <= 10; k++)
		sleep_at(&w, 9 + (uint64_t)k, k);
	wake(&w, t, 10, 99);
	for (k = 10; k > 1; k--) {
		run_at(&w, ++t, k);
		wake(&w, ++t, k - 1, k);
	}
	run_at(&w, ++t, 1);

	c = wait_of(&s, 9);
	assert_int_equal(c->depth, 2);
	assert_int_equal(c->link[1].tid, 10);
	assert_int_equal(c->end, HVT_CHAIN_RAN);
	assert_int_equal(hvt_wait_chain_root(c, &comm), 99);
	assert_string_equal(comm, "t99");

	c = wait_of(&s, 1);
	assert_int_equal(c->depth, HVT_WAIT_CHAIN_MAX);
	for (k = 0; k < HVT_WAIT_CHAIN_MAX; k++)
		assert_int_equal(c->link[k].tid, k + 1);
	assert_int_equal(c->end, HVT_CHAIN_DEPTH);
	assert_int_equal(hvt_wait_chain_root(c, &comm), 9);	/* link 7 (thread 8)'s waker */
	hvt_wait_chains_free(&w);
}

/* A waker whose last wait ended before the sleep began is what was waited on. */
static void test_stops_where_waits_do_not_overlap(void **state)
{
	struct hvt_wait_chains w;
	struct seen s = { .n = 0 };
	const struct hvt_wait_chain *c;

	(void)state;
	hvt_wait_chains_init(&w, on_wait, &s);
	run_at(&w, 0, 30);
	run_at(&w, 0, 20);
	run_at(&w, 0, 10);
	sleep_at(&w, 50, 20);
	wake(&w, 60, 20, 30);
	run_at(&w, 70, 20);		/* 20's wait: 50 -> 70 */
	sleep_at(&w, 80, 10);		/* after it */
	wake(&w, 90, 10, 20);
	run_at(&w, 91, 10);
	c = wait_of(&s, 10);
	assert_int_equal(c->depth, 1);
	assert_int_equal(c->end, HVT_CHAIN_RAN);
	hvt_wait_chains_free(&w);
}

/*
 * The waker ran throughout the sleep but was preempted by a hog (50) from
 * 120 to 140 of it: the chain ends on that preemption, the hog waited on.
 * A preemption before the sleep began is not a link.
 */
static void test_preempted_waker(void **state)
{
	struct hvt_wait_chains w;
	struct seen s = { .n = 0 };
	const struct hvt_wait_chain *c;
	const char *comm;

	(void)state;
	hvt_wait_chains_init(&w, on_wait, &s);
	run_at(&w, 0, 20);
	run_at(&w, 0, 10);
	sw(&w, 50, 20, true, 50);	/* 20 preempted 50 -> 60, before the sleep */
	sw(&w, 60, 50, true, 20);
	sleep_at(&w, 100, 10);
	wake(&w, 110, 10, 20);
	run_at(&w, 111, 10);
	assert_int_equal(wait_of(&s, 10)->end, HVT_CHAIN_RAN);

	sleep_at(&w, 115, 10);
	sw(&w, 120, 20, true, 50);	/* 20 preempted by 50 */
	sw(&w, 140, 50, true, 20);
	wake(&w, 150, 10, 20);
	run_at(&w, 151, 10);
	c = wait_of(&s, 10);
	assert_int_equal(c->depth, 2);
	assert_int_equal(c->end, HVT_CHAIN_PREEMPTED);
	assert_true(c->link[1].preempted);
	assert_int_equal(c->link[1].tid, 20);
	assert_int_equal(c->link[1].asleep, 120);
	assert_int_equal(c->link[1].woken, 140);
	assert_int_equal(hvt_wait_chain_root(c, &comm), 50);
	assert_string_equal(comm, "t50");
	hvt_wait_chains_free(&w);
}

/* Woken by the idle task; by a task not seen before the sleep; with no wakeup. */
static void test_chain_ends(void **state)
{
	struct hvt_wait_chains w;
	struct seen s = { .n = 0 };
	const struct hvt_wait_chain *c;
	const char *comm;

	(void)state;
	hvt_wait_chains_init(&w, on_wait, &s);
	run_at(&w, 0, 10);
	sleep_at(&w, 10, 10);
	wake(&w, 20, 10, 0);
	run_at(&w, 21, 10);
	c = wait_of(&s, 10);
	assert_int_equal(c->end, HVT_CHAIN_IDLE);
	assert_int_equal(hvt_wait_chain_root(c, &comm), 0);
	assert_string_equal(comm, "swapper");

	sleep_at(&w, 30, 10);
	wake(&w, 40, 10, 55);		/* 55: first seen at its wakeup */
	run_at(&w, 41, 10);
	assert_int_equal(wait_of(&s, 10)->end, HVT_CHAIN_UNKNOWN);

	sleep_at(&w, 50, 10);
	run_at(&w, 70, 10);		/* no wakeup recorded */
	c = wait_of(&s, 10);
	assert_int_equal(c->end, HVT_CHAIN_NO_WAKEUP);
	assert_int_equal(c->link[0].waker, -1);
	assert_int_equal(c->link[0].woken, 70);
	assert_int_equal(hvt_wait_chain_root(c, &comm), -1);
	assert_int_equal(s.n, 3);
	assert_int_equal(w.unended, 0);
	hvt_wait_chains_free(&w);
}

/*
 * Switch-ins not recorded: woken, the sleep is known and the latency not;
 * not woken, nothing is known of its end. A loss ends the waits in
 * progress unseen.
 */
static void test_unseen_ends(void **state)
{
	struct hvt_wait_chains w;
	struct seen s = { .n = 0 };
	const struct hvt_wait_chain *c;

	(void)state;
	hvt_wait_chains_init(&w, on_wait, &s);
	run_at(&w, 0, 20);
	run_at(&w, 0, 10);
	sleep_at(&w, 10, 10);
	wake(&w, 15, 10, 20);
	sleep_at(&w, 30, 10);		/* its switch-in at 15..30 was not recorded */
	c = wait_of(&s, 10);
	assert_true(c->ran_unseen);
	assert_false(c->unended);
	assert_int_equal(c->link[0].woken, 15);
	assert_int_equal(c->link[0].ran, 15);

	sleep_at(&w, 40, 10);		/* asleep since 30, no wakeup, no switch-in */
	c = wait_of(&s, 10);
	assert_true(c->unended);
	assert_int_equal(c->link[0].asleep, 30);
	assert_int_equal(w.unended, 1);

	hvt_wait_chains_lost(&w, 45);	/* asleep since 40: its wakeup may be lost */
	assert_int_equal(w.unended, 2);
	assert_true(wait_of(&s, 10)->unended);
	run_at(&w, 50, 10);		/* nothing more told of that wait */
	assert_int_equal(s.n, 3);
	hvt_wait_chains_free(&w);
}

/*
 * The sums, cut to [100, 200): a sleep 50 -> 150 woken by 20 (counted
 * 50, its start exact at the cut), latency 150 -> 155 (bounds 2 + 3);
 * a sleep 160 -> 190 woken by 30 at bound 2; a sleep with no wakeup
 * 190 -> 260 (10 within); a wait whose end was not seen.
 */
static void test_account(void **state)
{
	struct hvt_wait_account a;
	struct hvt_wait_chain c = { .depth = 1, .end = HVT_CHAIN_RAN };
	struct hvt_wait_link *l = &c.link[0];

	(void)state;
	memset(&a, 0, sizeof(a));
	*l = (struct hvt_wait_link){ .tid = 10, .waker = 20, .asleep = 50, .asleep_bound = 1,
				     .woken = 150, .woken_bound = 2, .ran = 155, .ran_bound = 3 };
	snprintf(l->waker_comm, sizeof(l->waker_comm), "w20");
	hvt_wait_account_add(&a, &c, 100, 200);
	*l = (struct hvt_wait_link){ .tid = 10, .waker = 30, .asleep = 160, .woken = 190,
				     .woken_bound = 2, .ran = 190 };
	hvt_wait_account_add(&a, &c, 100, 200);
	c.end = HVT_CHAIN_NO_WAKEUP;
	*l = (struct hvt_wait_link){ .tid = 10, .waker = -1, .asleep = 190, .woken = 260,
				     .ran = 260 };
	hvt_wait_account_add(&a, &c, 100, 200);
	c.unended = true;
	hvt_wait_account_add(&a, &c, 100, 200);

	assert_int_equal(a.asleep, 50 + 30);
	assert_int_equal(a.asleep_slack, 2 + 2);
	assert_int_equal(a.woken, 2);
	assert_int_equal(a.latency, 5);
	assert_int_equal(a.latency_slack, 5);
	assert_int_equal(a.no_wakeup, 10);
	assert_int_equal(a.no_wakeup_waits, 1);
	assert_int_equal(a.unended, 1);
	assert_int_equal(a.woken_by.n, 2);
	assert_int_equal(a.ends[HVT_CHAIN_RAN], 2);
	assert_int_equal(a.longest_ticks, 50);
	assert_int_equal(a.longest.link[0].waker, 20);
	/* the span cut its start: that end exact, the whole sleep its chain's */
	assert_true(a.longest_cut);
	assert_int_equal(a.longest_slack, 2);
	assert_int_equal(a.longest.link[0].asleep, 50);
	hvt_causes_sort(&a.woken_by);
	assert_int_equal(a.woken_by.v[0].tid, 20);
	assert_int_equal(a.woken_by.v[0].ticks, 50);
	assert_int_equal(a.woken_by.v[0].count, 1);
	assert_string_equal(a.woken_by.v[0].comm, "w20");
	hvt_wait_account_free(&a);
}

static uint64_t waited_on(struct hvt_wait_account *a, int32_t tid)
{
	size_t i;

	for (i = 0; i < a->waited_on.n; i++)
		if (a->waited_on.v[i].tid == tid)
			return a->waited_on.v[i].ticks;
	return 0;
}

/*
 * The critical path: T sleeps 100 -> 200, woken by W, which slept 50 -> 150
 * (woken by X, which ran throughout) and ran at 160: W has 160 -> 200 and
 * its latency 150 -> 160, X 100 -> 150; they sum to the sleep. Then W
 * preempted by Y 120 -> 140 instead: Y has those 20, W the other 80; and
 * cut to [130, 170): Y 10, W 30.
 */
static void test_critical_path(void **state)
{
	struct hvt_wait_account a;
	struct hvt_wait_chain c = { .depth = 2, .end = HVT_CHAIN_RAN };

	(void)state;
	memset(&a, 0, sizeof(a));
	c.link[0] = (struct hvt_wait_link){ .tid = 1, .waker = 2, .asleep = 100, .woken = 200,
					    .ran = 201 };
	c.link[1] = (struct hvt_wait_link){ .tid = 2, .waker = 3, .asleep = 50, .woken = 150,
					    .ran = 160 };
	hvt_wait_account_add(&a, &c, 0, UINT64_MAX);
	assert_int_equal(waited_on(&a, 2), 50);
	assert_int_equal(waited_on(&a, 3), 50);
	assert_int_equal(a.asleep, 100);
	hvt_wait_account_free(&a);

	c.end = HVT_CHAIN_PREEMPTED;
	c.link[1] = (struct hvt_wait_link){ .tid = 2, .preempted = true, .waker = 4, .asleep = 120,
					    .woken = 140, .ran = 140 };
	hvt_wait_account_add(&a, &c, 0, UINT64_MAX);
	assert_int_equal(waited_on(&a, 4), 20);
	assert_int_equal(waited_on(&a, 2), 80);
	hvt_wait_account_free(&a);
	hvt_wait_account_add(&a, &c, 130, 170);
	assert_int_equal(waited_on(&a, 4), 10);
	assert_int_equal(waited_on(&a, 2), 30);
	assert_int_equal(a.asleep, 40);
	hvt_wait_account_free(&a);
}

/*
 * Review cases. Ping-pong: T wakes W at 100 and sleeps at 102; W runs at
 * 105 and wakes T at 200: the chain's last waker is T itself, asleep then:
 * a cycle, and W has all of T's sleep. An earlier preemption of the waker
 * is found past a later one.
 */
static void test_ping_pong_and_preemptions(void **state)
{
	struct hvt_wait_chains w;
	struct seen s = { .n = 0 };
	const struct hvt_wait_chain *c;

	(void)state;
	hvt_wait_chains_init(&w, on_wait, &s);
	run_at(&w, 0, 10);
	run_at(&w, 0, 20);
	sleep_at(&w, 50, 20);
	wake(&w, 100, 20, 10);
	sleep_at(&w, 102, 10);
	run_at(&w, 105, 20);
	wake(&w, 200, 10, 20);
	run_at(&w, 201, 10);
	c = wait_of(&s, 10);
	assert_int_equal(c->depth, 2);
	assert_int_equal(c->end, HVT_CHAIN_CYCLE);

	/* T (30) asleep at 300; X (40) asleep at 330; W (20) preempted by 50
	 * 310..320, wakes X at 360, preempted again 370..380; X wakes T at 400 */
	run_at(&w, 290, 30);
	run_at(&w, 290, 40);
	sleep_at(&w, 300, 30);
	sw(&w, 310, 20, true, 50);
	sw(&w, 320, 50, true, 20);
	sleep_at(&w, 330, 40);
	wake(&w, 360, 40, 20);
	run_at(&w, 361, 40);
	sw(&w, 370, 20, true, 50);
	sw(&w, 380, 50, true, 20);
	wake(&w, 400, 30, 40);
	run_at(&w, 401, 30);
	c = wait_of(&s, 30);
	assert_int_equal(c->depth, 3);
	assert_int_equal(c->link[1].tid, 40);
	assert_true(c->link[2].preempted);
	assert_int_equal(c->link[2].asleep, 310);
	assert_int_equal(c->end, HVT_CHAIN_PREEMPTED);
	hvt_wait_chains_free(&w);
}

/*
 * The critical path gives the last link's thread its own awake time: T
 * sleeps 100 -> 200, woken by W, which was awake until 140, slept to 170
 * (woken by X) and ran at 175: W has 100 -> 140 and 170 -> 200, X 140 ->
 * 170. Damaged order (a waker's wait "woken" before it fell asleep, or
 * woken after link 0's wakeup) never gives more than the sleep. A sleep of
 * no length counts as a wait; one shorter than its bounds is not placed.
 */
static void test_critical_path_edges(void **state)
{
	struct hvt_wait_account a;
	struct hvt_wait_chain c = { .depth = 2, .end = HVT_CHAIN_RAN };
	uint64_t sum;
	size_t i;

	(void)state;
	memset(&a, 0, sizeof(a));
	c.link[0] = (struct hvt_wait_link){ .tid = 1, .waker = 2, .asleep = 100, .woken = 200,
					    .ran = 201 };
	c.link[1] = (struct hvt_wait_link){ .tid = 2, .waker = 3, .asleep = 140, .woken = 170,
					    .ran = 175 };
	hvt_wait_account_add(&a, &c, 0, UINT64_MAX);
	assert_int_equal(waited_on(&a, 2), 70);
	assert_int_equal(waited_on(&a, 3), 30);
	assert_int_equal(a.followed, 1);
	hvt_wait_account_free(&a);

	c.link[1] = (struct hvt_wait_link){ .tid = 2, .waker = 3, .asleep = 150, .woken = 90,
					    .ran = 300 };
	hvt_wait_account_add(&a, &c, 0, UINT64_MAX);
	c.link[1] = (struct hvt_wait_link){ .tid = 2, .waker = 3, .asleep = 10, .woken = 260,
					    .ran = 300 };
	hvt_wait_account_add(&a, &c, 0, UINT64_MAX);
	for (sum = 0, i = 0; i < a.waited_on.n; i++)
		sum += a.waited_on.v[i].ticks;
	assert_true(sum <= 200);
	assert_int_equal(sum, a.asleep);
	hvt_wait_account_free(&a);

	c.depth = 1;
	c.link[0] = (struct hvt_wait_link){ .tid = 1, .waker = 2, .asleep = 100, .woken = 100,
					    .ran = 101 };
	hvt_wait_account_add(&a, &c, 0, UINT64_MAX);
	assert_int_equal(a.woken, 1);
	assert_int_equal(a.woken_by.n, 1);
	c.link[0] = (struct hvt_wait_link){ .tid = 1, .waker = 2, .asleep = 100,
					    .asleep_bound = UINT64_MAX / 4, .woken = 200,
					    .woken_bound = 100, .ran = 201 };
	hvt_wait_account_add(&a, &c, 0, UINT64_MAX);
	hvt_wait_account_add(&a, &c, 0, UINT64_MAX);
	assert_int_equal(a.too_short, 2);
	assert_int_equal(a.woken, 1);
	assert_int_equal(a.asleep_slack, 0);
	hvt_wait_account_free(&a);
}

/*
 * Threads that exit (switched out X or Z) are forgotten: 20000 short-lived
 * threads leave the table as small as the few alive, and the threads that
 * stay are found as before (a chain through them after the churn).
 */
static void test_dead_threads_forgotten(void **state)
{
	struct hvt_wait_chains w;
	struct seen s = { .n = 0 };
	struct hvt_sched_switch sw = { .prev = 0, .next = 0 };
	const struct hvt_wait_chain *c;
	int32_t tid;

	(void)state;
	hvt_wait_chains_init(&w, on_wait, &s);
	run_at(&w, 0, 30);
	run_at(&w, 0, 20);
	run_at(&w, 0, 10);
	sleep_at(&w, 5, 20);
	for (tid = 1000; tid < 21000; tid++) {
		sw = (struct hvt_sched_switch){ .prev = 0, .next = tid };
		hvt_wait_chains_switch(&w, 10, 0, &sw);
		sw = (struct hvt_sched_switch){ .prev = tid, .next = 0 };
		snprintf(sw.end_state, sizeof(sw.end_state), tid % 2 ? "X" : "Z");
		hvt_wait_chains_switch(&w, 11, 0, &sw);
	}
	assert_true(w.nr_threads <= 4);
	assert_true(w.cap_threads <= 1024);
	sleep_at(&w, 25, 10);
	wake(&w, 30, 20, 30);
	run_at(&w, 31, 20);
	wake(&w, 50, 10, 20);
	run_at(&w, 51, 10);
	c = wait_of(&s, 10);
	assert_int_equal(c->depth, 2);		/* 20's wait, 5 -> 31, overlaps 10's from 25 */
	assert_int_equal(c->link[1].tid, 20);
	assert_int_equal(c->link[1].asleep, 5);
	hvt_wait_chains_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_direct_waker),
		cmocka_unit_test(test_transitive_and_depth),
		cmocka_unit_test(test_stops_where_waits_do_not_overlap),
		cmocka_unit_test(test_preempted_waker),
		cmocka_unit_test(test_chain_ends),
		cmocka_unit_test(test_unseen_ends),
		cmocka_unit_test(test_account),
		cmocka_unit_test(test_critical_path),
		cmocka_unit_test(test_ping_pong_and_preemptions),
		cmocka_unit_test(test_critical_path_edges),
		cmocka_unit_test(test_dead_threads_forgotten),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
