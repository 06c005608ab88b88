// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_heap.c - the merge heap: pops in key order, breaks ties by layer, then
 * stream index, whatever the push order; and a k-way merge of sorted streams,
 * run as the timeline runs it (top, re-key in place, pop at a stream's end),
 * comes out sorted and stable.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "tools/merge/heap.h"

static void test_key_order(void **state)
{
	const struct hvt_merge_key a = { 10, 2, 5 }, b = { 11, 0, 0 },
				   host = { 10, 0, 7 }, kernel = { 10, 1, 0 },
				   user = { 10, 2, 0 }, s1 = { 10, 1, 1 },
				   big = { 10, 1, UINT32_MAX }, late = { UINT64_MAX, 0, 0 };

	(void)state;
	assert_true(hvt_merge_key_cmp(&a, &b) < 0);		/* time first */
	assert_true(hvt_merge_key_cmp(&b, &a) > 0);
	assert_true(hvt_merge_key_cmp(&host, &kernel) < 0);	/* layer before stream */
	assert_true(hvt_merge_key_cmp(&kernel, &user) < 0);
	assert_true(hvt_merge_key_cmp(&kernel, &s1) < 0);	/* then stream index */
	assert_true(hvt_merge_key_cmp(&big, &user) < 0);	/* the index never reaches the layer */
	assert_true(hvt_merge_key_cmp(&late, &b) > 0);
	assert_int_equal(hvt_merge_key_cmp(&s1, &s1), 0);
}

static void test_ties_any_push_order(void **state)
{
	/* Sorted as the heap must return them. */
	const struct hvt_merge_key want[] = {
		{ 5, 2, 9 }, { 7, 0, 3 }, { 7, 0, 4 }, { 7, 1, 0 },
		{ 7, 1, 1 }, { 7, 1, 2 }, { 7, 2, 1 }, { 8, 0, 0 },
	};
	const size_t n = sizeof(want) / sizeof(want[0]);
	unsigned int perm;

	(void)state;
	/* Many push orders: a simple permutation generator over a multiplier. */
	for (perm = 1; perm < 64; perm += 2) {
		struct hvt_heap h;
		struct hvt_merge_key k;
		size_t i;

		assert_int_equal(hvt_heap_init(&h, n), 0);
		for (i = 0; i < n; i++) {
			size_t j = (i * perm + perm / 2) % n;

			assert_int_equal(hvt_heap_push(&h, &want[j], (void *)&want[j]), 0);
		}
		assert_int_equal(hvt_heap_push(&h, &want[0], NULL), -1);	/* full */
		for (i = 0; i < n; i++) {
			const struct hvt_merge_key *item = hvt_heap_pop(&h, &k);

			assert_ptr_equal(item, &want[i]);
			assert_int_equal(hvt_merge_key_cmp(&k, &want[i]), 0);
		}
		assert_null(hvt_heap_pop(&h, &k));
		hvt_heap_free(&h);
	}
}

/*
 * Streams of sorted times merged as the timeline does: take the top, re-key
 * it in place with its stream's next time, pop it at the stream's end.
 */
static void test_k_way_merge(void **state)
{
	enum { STREAMS = 7, PER = 200 };
	static uint64_t t[STREAMS][PER];
	size_t next[STREAMS] = { 0 }, s, total = 0, prev_s = 0;
	uint32_t layer[STREAMS] = { 0, 0, 1, 1, 1, 2, 2 };
	struct hvt_merge_key prev = { 0, 0, 0 };
	struct hvt_heap h;
	unsigned int seed = 1;
	void *item;

	(void)state;
	for (s = 0; s < STREAMS; s++) {
		uint64_t now = 0;
		size_t i;

		for (i = 0; i < PER; i++) {
			seed = seed * 1103515245u + 12345u;
			now += (seed >> 16) % 3;	/* many equal times */
			t[s][i] = now;
		}
	}
	assert_int_equal(hvt_heap_init(&h, STREAMS), 0);
	assert_null(hvt_heap_top(&h));
	for (s = 0; s < STREAMS; s++) {
		struct hvt_merge_key key = { t[s][0], layer[s], (uint32_t)s };

		hvt_heap_push(&h, &key, (void *)(uintptr_t)(s + 1));
	}
	while ((item = hvt_heap_top(&h))) {
		struct hvt_merge_key k = h.e[0].key;
		int cmp = hvt_merge_key_cmp(&prev, &k);

		s = (uintptr_t)item - 1;
		/* sorted; an equal key only as the same stream's next event */
		assert_true(total == 0 || cmp < 0 || (cmp == 0 && s == prev_s));
		assert_int_equal(k.time, t[s][next[s]]);
		assert_int_equal(k.stream, s);
		prev = k;
		prev_s = s;
		total++;
		if (++next[s] < PER) {
			struct hvt_merge_key key = { t[s][next[s]], layer[s], (uint32_t)s };

			hvt_heap_replace_top(&h, &key);
		} else {
			assert_ptr_equal(hvt_heap_pop(&h, NULL), item);
		}
	}
	assert_int_equal(total, STREAMS * PER);
	for (s = 0; s < STREAMS; s++)
		assert_int_equal(next[s], PER);
	hvt_heap_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_order),
		cmocka_unit_test(test_ties_any_push_order),
		cmocka_unit_test(test_k_way_merge),
	};

	return cmocka_run_group_tests_name("heap", tests, NULL, NULL);
}
