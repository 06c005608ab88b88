// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_clock_page.c - the clock page reader (include/hvtrace/clock_page.h)
 * against a page filled by the test: per-CPU selection, and no torn read
 * while a writer updates the page as the module does.
 */
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <hvtrace/clock_page.h>

static struct hvt_clock_page page __attribute__((aligned(4096)));
static volatile int stop;

/* The module's update sequence (guest-kmod/clock.c). */
static void publish(struct hvt_clock_params *dst, uint64_t v)
{
	__atomic_store_n(&page.seq, page.seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	dst->guest_tsc_base = v;
	dst->host_ns_base = (int64_t)v;
	dst->mult = v;
	dst->error_ns = v;
	dst->realtime_offset_ns = (int64_t)v;
	__atomic_store_n(&page.generation, v, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&page.seq, page.seq + 1, __ATOMIC_RELAXED);
}

static void *writer(void *arg)
{
	uint64_t v = 1;

	(void)arg;
	while (!stop)
		publish(&page.global, v++);
	return NULL;
}

static void test_no_torn_reads(void **state)
{
	pthread_t t;
	uint64_t last_gen = 0, new_gens = 0;
	time_t deadline;
	long i;

	(void)state;
	memset(&page, 0, sizeof(page));
	page.magic = HVT_CLOCK_PAGE_MAGIC;
	assert_int_equal(pthread_create(&t, NULL, writer, NULL), 0);
	/*
	 * Reads start once the writer runs, and go on until it has published
	 * often while they ran. On a busy machine (CI shares 2 cores) the two
	 * threads may share one CPU: the reader yields now and then so that the
	 * writer gets turns, and gives up after 60 s, not after a count of reads
	 * that a starved writer might never see.
	 */
	while (!__atomic_load_n(&page.generation, __ATOMIC_ACQUIRE))
		sched_yield();
	deadline = time(NULL) + 60;
	for (i = 0; i < 2000000 || (new_gens < 1000 && time(NULL) < deadline); i++) {
		struct hvt_clock_params p;
		uint32_t flags;
		uint64_t gen = hvt_clock_page_read_params(&page, 0, &p, &flags);

		if (p.guest_tsc_base != p.mult || p.mult != p.error_ns ||
		    (uint64_t)p.host_ns_base != p.mult || (uint64_t)p.realtime_offset_ns != p.mult ||
		    gen != p.mult)
			fail_msg("torn read at %ld: %llu %llu %llu gen %llu", i,
				 (unsigned long long)p.guest_tsc_base, (unsigned long long)p.mult,
				 (unsigned long long)p.error_ns, (unsigned long long)gen);
		new_gens += gen != last_gen;
		last_gen = gen;
		if (!(i % 4096))
			sched_yield();
	}
	stop = 1;
	pthread_join(t, NULL);
	assert_true(new_gens >= 1000);	/* the writer really ran during the reads */
}

static void test_per_cpu_selection(void **state)
{
	struct hvt_clock_params p;
	uint32_t flags;

	(void)state;
	memset(&page, 0, sizeof(page));
	page.global.guest_tsc_base = 1;
	page.cpu[1].guest_tsc_base = 2;
	page.nr_cpus = 2;
	hvt_clock_page_read_params(&page, 1, &p, &flags);
	assert_int_equal(p.guest_tsc_base, 1);		/* not per-CPU: global */
	page.flags = HVT_CLOCK_F_PER_CPU | HVT_CLOCK_F_SYNCED;
	hvt_clock_page_read_params(&page, 1, &p, &flags);
	assert_int_equal(p.guest_tsc_base, 2);
	assert_int_equal(flags, HVT_CLOCK_F_PER_CPU | HVT_CLOCK_F_SYNCED);
	hvt_clock_page_read_params(&page, 7, &p, &flags);	/* beyond nr_cpus */
	assert_int_equal(p.guest_tsc_base, 1);
}

static void test_apply(void **state)
{
	struct hvt_clock_params p = { .guest_tsc_base = 5000, .host_ns_base = 1000000,
				      .mult = 1ull << 62, .shift = 63 };	/* 0.5 ns/tick */

	(void)state;
	assert_int_equal(hvt_clock_params_apply(&p, 5000), 1000000);
	assert_int_equal(hvt_clock_params_apply(&p, 7000), 1001000);
	assert_int_equal(hvt_clock_params_apply(&p, 3000), 999000);
}

static void test_layout_fits_a_page(void **state)
{
	(void)state;
	assert_true(sizeof(struct hvt_clock_page) <= HVT_CLOCK_PAGE_SIZE);
	assert_int_equal(offsetof(struct hvt_clock_page, global), 72);
	assert_int_equal(sizeof(struct hvt_clock_params), 64);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_torn_reads),
		cmocka_unit_test(test_per_cpu_selection),
		cmocka_unit_test(test_apply),
		cmocka_unit_test(test_layout_fits_a_page),
	};

	return cmocka_run_group_tests_name("clock_page", tests, NULL, NULL);
}
