// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_tsc_xform.c - KVM's exact TSC transform and its inverse
 * (include/hvtrace/clock_math.h), and piecewise per-vCPU timelines
 * (clocksync/tsc_timeline.h).
 *
 * The inverse is checked against its definition - the first host tick at
 * which the guest reads at least the value - so no expected number is
 * copied from the code under test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <hvtrace/clock_math.h>

#include "clocksync/tsc_timeline.h"
#include "clocksync/sim.h"

#define ONE48 (1ull << 48)
#define ONE32 (1ull << 32)

static struct hvt_sim_rng rng = { 0x9e3779b97f4a7c15ull };

static uint64_t next_rand(void)
{
	return hvt_sim_rand(&rng);
}

/* The definition of the inverse, checked around host value h. */
static void check_inverse_at(const struct hvt_tsc_xform *x, uint64_t h)
{
	uint64_t g = hvt_tsc_to_guest(x, h);
	uint64_t back = hvt_tsc_to_host(x, g);

	/* back is the first host tick reading at least g */
	assert_true(back <= h);
	assert_int_equal(hvt_tsc_to_guest(x, back), g);
	if (back > 0)
		assert_true(hvt_tsc_to_guest(x, back - 1) - x->offset < g - x->offset);
	if (x->ratio >= (1ull << x->frac))
		assert_int_equal(back, h);	/* a guest at least as fast: exact */
	else		/* the first host tick of the same guest tick */
		assert_true(h - back <= ((1ull << x->frac) + x->ratio - 1) / x->ratio - 1);
}

static void check_ratio(uint64_t ratio, uint32_t frac, uint64_t offset, uint64_t max_host)
{
	struct hvt_tsc_xform x = { offset, ratio, frac, 0 };
	int i;

	for (i = 0; i < 2000; i++)
		check_inverse_at(&x, next_rand() % max_host);
	check_inverse_at(&x, 0);
	check_inverse_at(&x, max_host - 1);
}

/* The largest host TSC whose guest value (host * ratio) >> 48 fits 63 bits. */
static uint64_t max_host48(uint64_t ratio)
{
	return ratio <= ONE48 ? (1ull << 62) : (uint64_t)(((unsigned __int128)1 << 111) / ratio);
}

/*
 * Intel: frac 48; ratios near 1.0 both sides, a guest 1000 times slower, and
 * the largest 16.48 ratio KVM accepts; TSCs up to 2^62.
 */
static void test_intel_ratios(void **state)
{
	const uint64_t ratios[] = { ONE48, ONE48 - 1, ONE48 + 1, ONE48 - 1000, ONE48 + 1000,
				    ONE48 * 3 / 2, ONE48 / 2, ONE48 / 3, 7 * ONE48, ONE48 / 1000,
				    ~0ull, ~0ull - 12345 };
	const uint64_t offsets[] = { 0, 1, (uint64_t)-1, (uint64_t)-123456789012345ll,
				     1ull << 62, 987654321012345ull };
	size_t r, o;

	(void)state;
	for (r = 0; r < sizeof(ratios) / sizeof(ratios[0]); r++)
		for (o = 0; o < sizeof(offsets) / sizeof(offsets[0]); o++)
			check_ratio(ratios[r], 48, offsets[o], max_host48(ratios[r]));
}

/* AMD: frac 32, an 8.32 ratio, up to its largest value. */
static void test_amd_ratios(void **state)
{
	const uint64_t ratios[] = { ONE32, ONE32 - 1, ONE32 + 1, ONE32 * 5 / 4,
				    (0xffull << 32) | 0xffffffffull };
	size_t r;

	(void)state;
	for (r = 0; r < sizeof(ratios) / sizeof(ratios[0]); r++)
		check_ratio(ratios[r], 32, (uint64_t)-77777, 1ull << 54);
}

/*
 * The two mistakes of the best-known tool: a 64-bit product (host * ratio)
 * that overflows once host exceeds 2^16 with ratios near 2^48, and the ratio
 * applied in the wrong direction when going from guest to host.
 */
static void test_not_the_known_mistakes(void **state)
{
	struct hvt_tsc_xform x = { 5000, ONE48 * 3 / 2, 48, 0 };	/* guest runs 1.5x */
	uint64_t host = 3000000000000ull;	/* ~20 min at 2.5 GHz */
	uint64_t guest = hvt_tsc_to_guest(&x, host);
	uint64_t wrap64 = ((host * x.ratio) >> 48) + x.offset;	/* 64-bit product */
	uint64_t wrong_dir = (uint64_t)((((unsigned __int128)(guest - x.offset)) * x.ratio) >> 48);

	(void)state;
	assert_int_equal(guest, host + host / 2 + 5000);
	assert_true(wrap64 != guest);
	assert_int_equal(hvt_tsc_to_host(&x, guest), host);
	assert_true(wrong_dir != host);
}

/* Offset 0 is a real value (that tool drops such samples). */
static void test_offset_zero(void **state)
{
	struct hvt_tsc_xform x = { 0, ONE48, 48, 0 };

	(void)state;
	assert_int_equal(hvt_tsc_to_guest(&x, 123), 123);
	assert_int_equal(hvt_tsc_to_host(&x, 123), 123);
	assert_true(hvt_tsc_xform_ok(&x));
	x.ratio = 0;
	assert_false(hvt_tsc_xform_ok(&x));
	x.ratio = 1;
	x.frac = 64;
	assert_false(hvt_tsc_xform_ok(&x));
}

static struct hvt_tsc_segment seg(uint64_t start, uint64_t offset, uint64_t ratio)
{
	struct hvt_tsc_segment s = { start, { offset, ratio, 48, 0 }, HVT_TSC_SRC_TRACEPOINT };

	return s;
}

/* An offset change applies from its instant, not from some later poll. */
static void test_timeline_forward(void **state)
{
	struct hvt_tsc_timeline tl;
	struct hvt_tsc_segment a = seg(1000, 100, ONE48), b = seg(5000, 900, ONE48);
	struct hvt_tsc_segment c = seg(9000, 900, 2 * ONE48);

	(void)state;
	hvt_tsc_timeline_init(&tl);
	assert_int_equal(hvt_tsc_timeline_add(&tl, &a), 0);
	assert_int_equal(hvt_tsc_timeline_add(&tl, &b), 0);
	assert_int_equal(hvt_tsc_timeline_add(&tl, &c), 0);
	assert_int_equal(hvt_tsc_timeline_to_guest(&tl, 4999), 5099);
	assert_int_equal(hvt_tsc_timeline_to_guest(&tl, 5000), 5900);
	assert_int_equal(hvt_tsc_timeline_to_guest(&tl, 8999), 9899);
	assert_int_equal(hvt_tsc_timeline_to_guest(&tl, 9000), 18900);	/* scaling from here */
	assert_int_equal(hvt_tsc_timeline_to_guest(&tl, 500), 600);	/* before: first */
	/* out of order is refused; the same instant replaces */
	a.host_start = 10;
	assert_int_equal(hvt_tsc_timeline_add(&tl, &a), -1);
	c.x.offset = 1;
	assert_int_equal(hvt_tsc_timeline_add(&tl, &c), 0);
	assert_int_equal(tl.n, 3);
	assert_int_equal(hvt_tsc_timeline_to_guest(&tl, 9000), 18001);
	hvt_tsc_timeline_free(&tl);
}

/*
 * A backwards jump at host 5000: the guest read up to 5999 before and reads
 * 5100 right after, so 5100..5999 are ambiguous. A stream in order resolves
 * them: first the old segment, then - after stepping back - the new one.
 */
static void test_timeline_backwards_jump(void **state)
{
	struct hvt_tsc_timeline tl;
	struct hvt_tsc_segment a = seg(0, 1000, ONE48), b = seg(5000, 100, ONE48);
	struct hvt_tsc_cursor cur = { 0 }, fresh = { 0 };
	const uint64_t host[] = { 4000, 4500, 4999, 5000, 5400, 5999, 7000 };
	size_t i;

	(void)state;
	hvt_tsc_timeline_init(&tl);
	assert_int_equal(hvt_tsc_timeline_add(&tl, &a), 0);
	assert_int_equal(hvt_tsc_timeline_add(&tl, &b), 0);
	for (i = 0; i < sizeof(host) / sizeof(host[0]); i++) {
		uint64_t g = hvt_tsc_timeline_to_guest(&tl, host[i]);

		assert_int_equal(hvt_tsc_timeline_to_host(&tl, &cur, g), host[i]);
	}
	/* without history, an ambiguous value goes to the earliest segment */
	assert_int_equal(hvt_tsc_timeline_to_host(&tl, &fresh, 5400), 4400);
	hvt_tsc_timeline_free(&tl);
}

/* A forward jump: values inside the gap were never shown; they map to the jump. */
static void test_timeline_forward_jump(void **state)
{
	struct hvt_tsc_timeline tl;
	struct hvt_tsc_segment a = seg(0, 0, ONE48), b = seg(1000, 50000, ONE48);
	struct hvt_tsc_cursor cur = { 0 };

	(void)state;
	hvt_tsc_timeline_init(&tl);
	assert_int_equal(hvt_tsc_timeline_add(&tl, &a), 0);
	assert_int_equal(hvt_tsc_timeline_add(&tl, &b), 0);
	assert_int_equal(hvt_tsc_timeline_to_host(&tl, &cur, 999), 999);
	assert_int_equal(hvt_tsc_timeline_to_host(&tl, &cur, 20000), 1000);
	assert_int_equal(hvt_tsc_timeline_to_host(&tl, &cur, 51000), 1000);
	assert_int_equal(hvt_tsc_timeline_to_host(&tl, &cur, 52000), 2000);
	hvt_tsc_timeline_free(&tl);
}

/*
 * A small backwards jump followed by a segment whose guest range lies far
 * in the past: stepping back into segment 1 is no reason to go on into
 * segment 2 (found by the drift suite's exact-offset-changes scenario).
 */
static void test_timeline_step_back_once(void **state)
{
	struct hvt_tsc_timeline tl;
	struct hvt_tsc_segment a = seg(1000000, 0, ONE48);
	struct hvt_tsc_segment b = seg(1010000, (uint64_t)-500, ONE48);
	struct hvt_tsc_segment c = seg(1020000, (uint64_t)-900000, ONE48);	/* far back */
	struct hvt_tsc_segment d = seg(1030000, 400, ONE48);
	struct hvt_tsc_cursor cur = { 0 };
	uint64_t h;

	(void)state;
	hvt_tsc_timeline_init(&tl);
	assert_int_equal(hvt_tsc_timeline_add(&tl, &a), 0);
	assert_int_equal(hvt_tsc_timeline_add(&tl, &b), 0);
	assert_int_equal(hvt_tsc_timeline_add(&tl, &c), 0);
	assert_int_equal(hvt_tsc_timeline_add(&tl, &d), 0);
	for (h = 1009000; h < 1040000; h += 250)
		assert_int_equal(hvt_tsc_timeline_to_host(&tl, &cur,
							  hvt_tsc_timeline_to_guest(&tl, h)), h);
	hvt_tsc_timeline_free(&tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intel_ratios),
		cmocka_unit_test(test_amd_ratios),
		cmocka_unit_test(test_not_the_known_mistakes),
		cmocka_unit_test(test_offset_zero),
		cmocka_unit_test(test_timeline_forward),
		cmocka_unit_test(test_timeline_backwards_jump),
		cmocka_unit_test(test_timeline_forward_jump),
		cmocka_unit_test(test_timeline_step_back_once),
	};

	return cmocka_run_group_tests_name("tsc_xform", tests, NULL, NULL);
}
