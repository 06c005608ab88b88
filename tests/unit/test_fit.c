// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_fit.c - clocksync/fit.c against brute force.
 *
 * Every vertex of the feasible (slope, intercept) polygon is a line through
 * two constraint points, so the true U(h) and L(h) are the largest and
 * smallest values, at h, of the feasible lines through pairs of points.
 * Random streams of constraints are fed to the fit and, after every point,
 * its interval, its verdicts and its feasibility are compared with that
 * enumeration in exact integer arithmetic.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "clocksync/fit.h"
#include "clocksync/sim.h"

typedef __int128 i128;

#define MAXPTS 40

struct set {
	struct hvt_pt p[MAXPTS], q[MAXPTS];
	int np, nq;
};

static struct hvt_sim_rng rng;

static uint64_t next_rand(void)
{
	return hvt_sim_rand(&rng);
}

static int64_t urand(int64_t lo, int64_t hi)
{
	return lo + (int64_t)(next_rand() % (uint64_t)(hi - lo + 1));
}

/* Does the line through a, b (a.x < b.x) satisfy every constraint? */
static int line_feasible(const struct set *s, struct hvt_pt a, struct hvt_pt b)
{
	i128 dx = (i128)b.x - a.x, dy = (i128)b.y - a.y;
	int i;

	for (i = 0; i < s->np; i++)	/* line(x) * dx <= y * dx */
		if ((i128)a.y * dx + dy * ((i128)s->p[i].x - a.x) > (i128)s->p[i].y * dx)
			return 0;
	for (i = 0; i < s->nq; i++)
		if ((i128)a.y * dx + dy * ((i128)s->q[i].x - a.x) < (i128)s->q[i].y * dx)
			return 0;
	return 1;
}

static i128 floor_div(i128 n, i128 d)
{
	i128 q = n / d;

	return (n % d && ((n < 0) != (d < 0))) ? q - 1 : q;
}

/*
 * Brute force: 1 and the exact [lo, hi] at h if some pair-line is feasible
 * (lo rounded down, hi up); 0 if none is.
 */
static int brute(const struct set *s, int64_t h, int64_t *lo, int64_t *hi)
{
	struct hvt_pt all[2 * MAXPTS];
	int n = 0, i, j, any = 0;

	for (i = 0; i < s->np; i++)
		all[n++] = s->p[i];
	for (i = 0; i < s->nq; i++)
		all[n++] = s->q[i];
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			struct hvt_pt a = all[i], b = all[j];
			i128 dx = (i128)b.x - a.x, num = ((i128)b.y - a.y) * ((i128)h - a.x);
			int64_t down, up;

			if (dx <= 0 || !line_feasible(s, a, b))
				continue;
			down = (int64_t)(floor_div(num, dx) + a.y);
			up = (int64_t)(-floor_div(-num, dx) + a.y);
			if (!any || down < *lo)
				*lo = down;
			if (!any || up > *hi)
				*hi = up;
			any = 1;
		}
	return any;
}

/* Some feasible line at all (vertices are pair-lines when it is bounded). */
static int brute_feasible(const struct set *s)
{
	int64_t lo, hi;

	return brute(s, 0, &lo, &hi);
}

static void one_stream(int seed, int *checked, int *infeasible_seen, int *useful_seen)
{
	struct hvt_fit f;
	struct set s = { .np = 0, .nq = 0 };
	int64_t t = 0, k, base = urand(-1000000, 1000000);
	int slope_ppm = (int)urand(-2000, 2000), n = (int)urand(4, 30);

	(void)seed;
	hvt_fit_init(&f);
	for (k = 0; k < n; k++) {
		int is_p = (int)(next_rand() & 1);
		int64_t d = urand(0, 5000), truth, lo, hi, h;
		struct hvt_pt pt;
		enum hvt_fit_verdict v;
		struct set before = s;
		int feasible_after, i;

		t += urand(1, 40000);
		if (next_rand() % 40 == 0)
			d = -urand(1, 300);		/* a constraint the truth violates */
		truth = base + t + t * slope_ppm / 1000000;
		pt = (struct hvt_pt){ t, is_p ? truth + d : truth - d };
		if (is_p)
			s.p[s.np++] = pt;
		else
			s.q[s.nq++] = pt;
		feasible_after = brute_feasible(&s);
		v = hvt_fit_check(&f, pt, is_p);
		if (v == HVT_FIT_INFEASIBLE) {
			assert_false(feasible_after);
			(*infeasible_seen)++;
			break;
		}
		if (v == HVT_FIT_REDUNDANT) {
			/* the interval must not change anywhere we look */
			for (i = 0; i < 5; i++) {
				int64_t l0, h0, l1, h1;

				h = urand(-100000, t + 100000);
				brute(&before, h, &l0, &h0);
				brute(&s, h, &l1, &h1);
				assert_int_equal(l0, l1);
				assert_int_equal(h0, h1);
			}
			continue;
		}
		if (v == HVT_FIT_USEFUL) {
			/* it narrows the interval, at least at its own instant */
			int64_t l0, h0, l1, h1;

			assert_true(brute(&before, pt.x, &l0, &h0));
			assert_true(brute(&s, pt.x, &l1, &h1));
			assert_true(is_p ? h1 < h0 : l1 > l0);
			(*useful_seen)++;
		}
		if (hvt_fit_add(&f, pt, is_p)) {
			assert_false(feasible_after);
			(*infeasible_seen)++;
			break;
		}
		assert_true(feasible_after || !f.complete);
		if (!f.complete)
			continue;
		for (i = 0; i < 8; i++) {
			int64_t blo, bhi;

			h = urand(-200000, t + 200000);
			hvt_fit_bounds(&f, h, &lo, &hi);
			assert_true(brute(&s, h, &blo, &bhi));
			if (lo != blo || hi != bhi)
				fail_msg("h=%lld fit [%lld, %lld] brute [%lld, %lld]", (long long)h,
					 (long long)lo, (long long)hi, (long long)blo, (long long)bhi);
			(*checked)++;
		}
	}
	hvt_fit_free(&f);
}

static void test_against_brute_force(void **state)
{
	int seed, checked = 0, infeasible = 0, useful = 0;

	(void)state;
	for (seed = 1; seed <= 3000; seed++) {
		rng.s = 0x9e3779b97f4a7c15ull * (uint64_t)seed;
		one_stream(seed, &checked, &infeasible, &useful);
	}
	/* the streams exercise both outcomes */
	assert_true(checked > 20000);
	assert_true(infeasible > 50);
	assert_true(useful > 1000);
}

/* Coordinates near the 2^61 limit: exact, no overflow. */
static void test_large_coordinates(void **state)
{
	struct hvt_fit f;
	const int64_t big = (int64_t)1 << 60;
	int64_t lo, hi;

	(void)state;
	hvt_fit_init(&f);
	/* guest = host exactly; messages 10 ticks each way */
	assert_int_equal(hvt_fit_add(&f, (struct hvt_pt){ -big, -big + 10 }, 1), 0);
	assert_int_equal(hvt_fit_add(&f, (struct hvt_pt){ -big + 20, -big + 10 }, 0), 0);
	assert_int_equal(hvt_fit_add(&f, (struct hvt_pt){ big, big + 10 }, 1), 0);
	assert_int_equal(hvt_fit_add(&f, (struct hvt_pt){ big + 20, big + 10 }, 0), 0);
	assert_true(f.complete);
	hvt_fit_bounds(&f, 0, &lo, &hi);
	assert_true(lo <= 0 && 0 <= hi && hi - lo <= 40);
	hvt_fit_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_brute_force),
		cmocka_unit_test(test_large_coordinates),
	};

	return cmocka_run_group_tests_name("fit", tests, NULL, NULL);
}
