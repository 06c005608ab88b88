// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_timeline.c - alignment arithmetic and the merged time line of the
 * standard synthetic archive (archive_fixture.c): host TSC -> ns since the
 * start and realtime, the guest offset fitted from sync.tsv, guest events
 * placed at the host time they were made to have, ties broken by layer then
 * stream, unalignable traces skipped, a stream stepping back in guest time
 * kept across a real clock change and cut without one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/fileio.h"
#include "tests/unit/archive_fixture.h"
#include "tools/align/align.h"
#include "tests/unit/open_timeline.h"

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
	return 0;
}

static void test_host_clock(void **state)
{
	const struct hvt_clock_pair pairs[] = {
		{ FX_T0, FX_MONO0, FX_REAL0, 100 },
		{ FX_T0 + 2000000000ull, FX_MONO0 + 1000000000ll, FX_REAL0 + 1000000000ll, 100 },
	};
	struct hvt_host_clock c;

	(void)state;
	assert_int_equal(hvt_host_clock_init(&c, pairs, 2, 0), 0);
	assert_int_equal(hvt_host_clock_since_start(&c, FX_HOST_TSC(0)), 0);
	assert_int_equal(hvt_host_clock_since_start(&c, FX_HOST_TSC(1234567)), 1234567);
	assert_int_equal(hvt_host_clock_since_start(&c, FX_T0 - 2000), -1000);
	assert_int_equal(hvt_host_clock_realtime(&c, FX_HOST_TSC(1234567)), FX_REAL0 + 1234567);
	hvt_host_clock_free(&c);
	/* A single pair: the nominal frequency around it. */
	assert_int_equal(hvt_host_clock_init(&c, pairs, 1, 2000000000ull), 0);
	assert_int_equal(hvt_host_clock_since_start(&c, FX_HOST_TSC(5000000)), 5000000);
	hvt_host_clock_free(&c);
	assert_int_equal(hvt_host_clock_init(&c, pairs, 0, 0), -1);
}

static void fill_sync(struct hvt_sync_rec *recs, unsigned int n)
{
	unsigned int k;

	for (k = 0; k < n; k++) {
		uint64_t hs = FX_T0 + k * 1000000ull;

		recs[k].seq = k;
		recs[k].ex.host_send = hs;
		recs[k].ex.guest_recv = hs + 100 + (uint64_t)FX_OFFSET;
		recs[k].ex.guest_send = recs[k].ex.guest_recv + 10;
		recs[k].ex.host_recv = hs + 210;
	}
}

static void test_vm_clock_and_causality(void **state)
{
	struct hvt_sync_rec recs[8];
	struct hvt_vm_clock c;
	struct hvt_tsc_cursor cur = { 0, 0, 0 };
	uint64_t h;
	size_t exempt;

	(void)state;
	fill_sync(recs, 8);
	assert_int_equal(hvt_vm_clock_build(&c, recs, 8, NULL, 0), 0);
	assert_int_equal(hvt_vm_clock_segments(&c), 1);
	assert_false(c.glitch);
	assert_null(hvt_vm_clock_first_violation(&c, recs, 8, &exempt));
	assert_int_equal(exempt, 0);
	/* guest = host + FX_OFFSET within the exchanges' +/-100 ticks */
	h = hvt_vm_clock_to_host(&c, &cur, FX_GUEST_TSC(1240000));
	assert_true(h + 100 >= FX_HOST_TSC(1240000) && h <= FX_HOST_TSC(1240000) + 100);
	hvt_vm_clock_free(&c);
	/* one guest that received before the host sent: a glitch, not a clock change */
	recs[3].ex.guest_recv = recs[3].ex.host_send + (uint64_t)FX_OFFSET - 500;
	assert_int_equal(hvt_vm_clock_build(&c, recs, 8, NULL, 0), 0);
	assert_true(c.glitch);
	assert_int_equal(c.glitch_seq, 3);
	hvt_vm_clock_free(&c);
	assert_int_equal(hvt_vm_clock_build(&c, recs, 0, NULL, 0), -1);
}

/* Sync points 5 ticks either side of the host's instant, every 1 ms like the exchanges. */
static void fill_points(struct hvt_sync_point *p, unsigned int n)
{
	unsigned int k;

	for (k = 0; k < n; k++) {
		uint64_t host = FX_T0 + k * 1000000ull + 500000;

		p[k] = (struct hvt_sync_point){ host, host + (uint64_t)FX_OFFSET - 5,
						host + (uint64_t)FX_OFFSET + 5, 1000 + k };
	}
}

/*
 * Sync points narrow what the exchanges (+/-100 ticks) allow to +/-5 ticks,
 * and fit a clock on their own.
 */
static void test_vm_clock_sync_points(void **state)
{
	struct hvt_sync_rec recs[40];
	struct hvt_sync_point points[40];
	struct hvt_vm_clock_quality q;
	struct hvt_vm_clock c;
	struct hvt_tsc_cursor cur = { 0, 0, 0 };
	uint64_t h;

	(void)state;
	fill_sync(recs, 40);
	fill_points(points, 40);
	assert_int_equal(hvt_vm_clock_build(&c, recs, 40, points, 40), 0);
	assert_int_equal(c.nr_points, 40);
	assert_int_equal(hvt_vm_clock_segments(&c), 1);
	assert_false(c.glitch);
	hvt_vm_clock_quality(&c, recs, 40, &q);
	assert_int_equal(q.in_window + q.unbounded, 0);
	assert_true(q.half_max <= 6);
	h = hvt_vm_clock_to_host(&c, &cur, FX_GUEST_TSC(1240000));
	assert_true(h + 5 >= FX_HOST_TSC(1240000) && h <= FX_HOST_TSC(1240000) + 5);
	hvt_vm_clock_free(&c);
	/* sync points alone */
	assert_int_equal(hvt_vm_clock_build(&c, recs, 0, points, 40), 0);
	cur = (struct hvt_tsc_cursor){ 0, 0, 0 };
	h = hvt_vm_clock_to_host(&c, &cur, FX_GUEST_TSC(1240000));
	assert_true(h + 5 >= FX_HOST_TSC(1240000) && h <= FX_HOST_TSC(1240000) + 5);
	hvt_vm_clock_free(&c);
}

/*
 * Exchanges 100 ticks each way on a clock that neither drifts nor jumps: every
 * line shifted by at most 100 ticks from the truth fits them, so the interval
 * is +/-100 ticks wherever the exchanges reach.
 */
static void test_vm_clock_quality(void **state)
{
	struct hvt_sync_rec recs[40];
	struct hvt_vm_clock_quality q;
	struct hvt_vm_clock c;
	unsigned int k;

	(void)state;
	fill_sync(recs, 40);
	assert_int_equal(hvt_vm_clock_build(&c, recs, 40, NULL, 0), 0);
	hvt_vm_clock_quality(&c, recs, 40, &q);
	assert_int_equal(q.measured, HVT_QUALITY_POINTS);
	assert_int_equal(q.in_window + q.unbounded, 0);
	assert_int_equal(q.half_p50, 100);
	/* between exchanges the bounds are rounded outwards to whole ticks */
	assert_true(q.half_max == 100 || q.half_max == 101);
	/* from host_send 0 to host_recv 39 ms + 210 ticks after FX_T0: the middle */
	assert_int_equal(q.host_mid, FX_T0 + 19500105);
	hvt_vm_clock_free(&c);

	/* a jump: the instants around it are in the change window, the rest still +/-100 */
	for (k = 20; k < 40; k++) {
		recs[k].ex.guest_recv += 5000000;
		recs[k].ex.guest_send += 5000000;
	}
	assert_int_equal(hvt_vm_clock_build(&c, recs, 40, NULL, 0), 0);
	hvt_vm_clock_quality(&c, recs, 40, &q);
	assert_true(q.in_window > 0 && q.in_window < HVT_QUALITY_POINTS / 4);
	assert_int_equal(q.measured + q.in_window + q.unbounded, HVT_QUALITY_POINTS);
	assert_int_equal(q.half_p50, 100);
	hvt_vm_clock_free(&c);

	/*
	 * A guest TSC at twice the host's rate, same 100-tick delays: the interval
	 * is 400 guest ticks wide, and still +/-100 on the host's time line.
	 */
	for (k = 0; k < 40; k++) {
		uint64_t hs = recs[k].ex.host_send;

		recs[k].ex.guest_recv = 2 * (hs + 100) + (uint64_t)FX_OFFSET;
		recs[k].ex.guest_send = 2 * (hs + 110) + (uint64_t)FX_OFFSET;
	}
	assert_int_equal(hvt_vm_clock_build(&c, recs, 40, NULL, 0), 0);
	hvt_vm_clock_quality(&c, recs, 40, &q);
	assert_int_equal(q.measured, HVT_QUALITY_POINTS);
	assert_true(q.half_p50 >= 99 && q.half_p50 <= 101);
	hvt_vm_clock_free(&c);

	/* one exchange bounds the offset but not the rate: nothing to measure */
	assert_int_equal(hvt_vm_clock_build(&c, recs, 1, NULL, 0), 0);
	hvt_vm_clock_quality(&c, recs, 1, &q);
	assert_int_equal(q.measured, 0);
	hvt_vm_clock_free(&c);
}

/* A real offset jump: two segments, no glitch, every exchange causal or exempt. */
static void test_vm_clock_jump(void **state)
{
	struct hvt_sync_rec recs[40];
	struct hvt_vm_clock c;
	struct hvt_tsc_cursor cur = { 0, 0, 0 };
	size_t exempt;
	unsigned int k;
	uint64_t h;

	(void)state;
	fill_sync(recs, 40);
	for (k = 20; k < 40; k++) {
		recs[k].ex.guest_recv += 5000000;	/* the guest TSC jumped 5 M ticks */
		recs[k].ex.guest_send += 5000000;
	}
	assert_int_equal(hvt_vm_clock_build(&c, recs, 40, NULL, 0), 0);
	assert_int_equal(hvt_vm_clock_segments(&c), 2);
	assert_false(c.glitch);
	assert_null(hvt_vm_clock_first_violation(&c, recs, 40, &exempt));
	assert_true(exempt <= 2);
	/* before and after the jump, in stream order */
	h = hvt_vm_clock_to_host(&c, &cur, FX_GUEST_TSC(5000000));
	assert_true(h + 100 >= FX_HOST_TSC(5000000) && h <= FX_HOST_TSC(5000000) + 100);
	h = hvt_vm_clock_to_host(&c, &cur, FX_GUEST_TSC(30000000) + 5000000);
	assert_true(h + 100 >= FX_HOST_TSC(30000000) && h <= FX_HOST_TSC(30000000) + 100);
	hvt_vm_clock_free(&c);
}

struct row {
	int64_t ns;
	enum hvt_layer layer;
	const char *stream;
	const char *name;
	int32_t tid;
	uint32_t cpu;
};

static void check_rows(const char *root, bool ftrace, const struct row *want, size_t n)
{
	struct fx_opened tl;
	struct hvt_source *s;
	size_t i = 0;

	assert_int_equal(fx_open(&tl, root, false), 0);
	while ((s = hvt_timeline_next(&tl.tl))) {
		assert_true(i < n);
		assert_int_equal(hvt_host_clock_since_start(&tl.ses.clock, s->host_tsc), want[i].ns);
		assert_int_equal(s->layer, want[i].layer);
		assert_string_equal(s->name, want[i].stream);
		assert_string_equal(hvt_source_event_name(s), want[i].name);
		assert_int_equal(hvt_source_tid(s), want[i].tid);
		assert_int_equal(hvt_source_cpu(s), want[i].cpu);
		if (s->layer != HVT_LAYER_HOST)
			assert_string_equal(s->vm, "demo");
		i++;
	}
	assert_int_equal(i, n);
	assert_int_equal(tl.tl.events[HVT_LAYER_HOST], ftrace ? 3 : 0);
	assert_int_equal(tl.tl.events[HVT_LAYER_KERNEL], 4);
	assert_int_equal(tl.tl.events[HVT_LAYER_USER], 1);
	assert_int_equal(hvt_session_lost(&tl.ses), 0);
	fx_close(&tl);
}

#define K0 "vm/demo/kernel/stream-0"
#define K1 "vm/demo/kernel/stream-1"
#define U0 "vm/demo/user-1/stream-0"
#define H1 "host/ftrace/cpu1.raw"

static void test_merge_order(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .ftrace = true };
	const struct row want[] = {
		{ 1234567, HVT_LAYER_HOST, H1, "sched_switch", 4321, 1 },
		{ 1240000, HVT_LAYER_KERNEL, K0, "sched_switch", 77, 0 },
		{ 1300000, HVT_LAYER_HOST, H1, "sched_switch", 0, 1 },
		{ 1300000, HVT_LAYER_KERNEL, K0, "sched_switch", 0, 0 },
		{ 1300000, HVT_LAYER_KERNEL, K1, "sched_switch", 0, 1 },
		{ 1300000, HVT_LAYER_USER, U0, "hvdemo:send", 78, 1 },
		{ 100000000, HVT_LAYER_KERNEL, K0, "test:far", 77, 0 },
		{ 200000000, HVT_LAYER_HOST, H1, "sched_switch", 4321, 1 },
	};
	struct fx_opened tl;

	assert_int_equal(fx_standard_archive(root, &o), 0);
	check_rows(root, true, want, sizeof(want) / sizeof(want[0]));
	assert_int_equal(fx_open(&tl, root, false), 0);
	while (hvt_timeline_next(&tl.tl))
		;
	assert_int_equal(hvt_session_warnings(&tl.ses), 0);
	assert_true(tl.ses.vms[0].al.aligned);
	assert_int_equal(hvt_vm_clock_segments(&tl.ses.vms[0].al.clock), 1);
	fx_close(&tl);
}

/* Rewrites info.json's "accel": "kvm" into @accel. */
static void rewrite_accel(const char *root, const char *accel)
{
	char path[256], *text, *at;
	size_t len;

	snprintf(path, sizeof(path), "%s/vm/demo/info.json", root);
	assert_int_equal(hvt_read_file(path, 1 << 20, &text, &len), 0);
	at = strstr(text, "\"accel\": \"kvm\"");
	assert_non_null(at);
	memcpy(at + 10, accel, 3);
	assert_int_equal(fx_write(root, "vm/demo/info.json", text, len), 0);
	free(text);
}

/*
 * The archive's sync points: the host's kvm_hypercall records joined with the
 * guest's hvtrace_sync_end events. The one the host did not record and the
 * hypercall of another number are not used; the ones used pin the clock to
 * +/-FX_SYNC_HALF ticks where the exchanges allow +/-100.
 */
static void test_sync_points_from_archive(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .ftrace = true, .sync_points = true };
	struct hvt_tsc_cursor cur = { 0, 0, 0 };
	struct fx_opened tl;
	struct hvt_source *s;
	struct hvt_est_value v;
	size_t calls = 0, ends = 0;
	uint64_t h;

	assert_int_equal(fx_standard_archive(root, &o), 0);
	assert_int_equal(fx_open(&tl, root, false), 0);
	assert_true(tl.ses.vms[0].al.aligned);
	assert_int_equal(tl.ses.vms[0].al.clock.nr_points, FX_SYNC_POINTS);
	assert_int_equal(tl.ses.align_host.calls.n, FX_SYNC_POINTS);
	h = hvt_vm_clock_to_host(&tl.ses.vms[0].al.clock, &cur, FX_GUEST_TSC(3000000));
	assert_true(h + FX_SYNC_HALF >= FX_HOST_TSC(3000000) &&
		    h <= FX_HOST_TSC(3000000) + FX_SYNC_HALF);
	/* the guaranteed interval there: the sync point's, not the exchanges' 200 ticks */
	assert_int_equal(hvt_est_eval(tl.ses.vms[0].al.clock.est, FX_HOST_TSC(3000000), &v), 0);
	assert_true(v.bounded);
	assert_true(v.hi - v.lo <= 2 * FX_SYNC_HALF);
	while ((s = hvt_timeline_next(&tl.tl))) {
		const char *name = hvt_source_event_name(s);

		calls += !strcmp(name, "kvm_hypercall");
		ends += !strcmp(name, "hvtrace_sync_end");
	}
	assert_int_equal(calls, FX_SYNC_POINTS + 1);
	assert_int_equal(ends, FX_SYNC_POINTS + 1);
	assert_int_equal(hvt_session_warnings(&tl.ses), 0);
	fx_close(&tl);

	/* without the host layer there is nothing to join: exchanges alone */
	fx_rm_rf(root);
	assert_int_equal(mkdir(root, 0700), 0);
	assert_int_equal(fx_standard_archive(root, &(struct fx_options){ .sync_points = true }), 0);
	assert_int_equal(fx_open(&tl, root, false), 0);
	assert_true(tl.ses.vms[0].al.aligned);
	assert_int_equal(tl.ses.vms[0].al.clock.nr_points, 0);
	fx_close(&tl);

	/* under TCG the module makes no sync points: not even looked for */
	fx_rm_rf(root);
	assert_int_equal(mkdir(root, 0700), 0);
	assert_int_equal(fx_standard_archive(root, &o), 0);
	rewrite_accel(root, "tcg");
	assert_int_equal(fx_open(&tl, root, false), 0);
	assert_int_equal(tl.ses.vms[0].al.clock.nr_points, 0);
	assert_false(tl.ses.align_host.calls_read);
	fx_close(&tl);
}

static void test_without_host_layer(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .ftrace = false };
	const struct row want[] = {
		{ 1240000, HVT_LAYER_KERNEL, K0, "sched_switch", 77, 0 },
		{ 1300000, HVT_LAYER_KERNEL, K0, "sched_switch", 0, 0 },
		{ 1300000, HVT_LAYER_KERNEL, K1, "sched_switch", 0, 1 },
		{ 1300000, HVT_LAYER_USER, U0, "hvdemo:send", 78, 1 },
		{ 100000000, HVT_LAYER_KERNEL, K0, "test:far", 77, 0 },
	};

	assert_int_equal(fx_standard_archive(root, &o), 0);
	check_rows(root, false, want, sizeof(want) / sizeof(want[0]));
}

/*
 * A VM without exchanges, opened as check opens it: every guest stream is
 * opened, none merged, and each decodes on its own with its raw guest times.
 */
static void check_unaligned_vm(const char *root)
{
	static const uint64_t first_ts[] = {
		FX_GUEST_TSC(1240000), FX_GUEST_TSC(1300000), FX_GUEST_TSC(1300000), 5000,
	};
	static const size_t events[] = { 3, 1, 1, 1 };
	struct fx_opened tl;
	size_t i, n;

	assert_int_equal(fx_open(&tl, root, true), 0);
	assert_false(tl.ses.vms[0].al.aligned);
	assert_int_equal(tl.ses.nr_sources, 4);
	assert_null(hvt_timeline_next(&tl.tl));
	for (i = 0; i < tl.ses.nr_sources; i++) {
		struct hvt_source *s = tl.ses.sources[i];

		assert_false(s->aligned);
		assert_null(s->guest_tl);
		assert_int_equal(hvt_source_next(s), 1);
		assert_int_equal(s->host_tsc, first_ts[i]);
		assert_int_equal(s->host_tsc, s->ev.ts);
		for (n = 1; hvt_source_next(s); n++)
			;
		assert_int_equal(n, events[i]);
		assert_int_equal(hvt_source_warnings(s), 0);
	}
	fx_close(&tl);
}

static void test_unalignable_traces(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .monotonic_user = true };
	struct fx_opened tl;
	struct hvt_source *raw;
	char path[128];
	size_t n = 0;

	assert_int_equal(fx_standard_archive(root, &o), 0);
	/* merge: the monotonic_raw trace is not even opened. */
	assert_int_equal(fx_open(&tl, root, false), 0);
	assert_int_equal(tl.ses.nr_sources, 3);
	while (hvt_timeline_next(&tl.tl))
		n++;
	assert_int_equal(n, 5);
	assert_int_equal(hvt_session_warnings(&tl.ses), 1);
	fx_close(&tl);
	/* check: opened, not merged, decodable on its own. */
	assert_int_equal(fx_open(&tl, root, true), 0);
	assert_int_equal(tl.ses.nr_sources, 4);
	raw = tl.ses.sources[3];
	assert_false(raw->aligned);
	assert_string_equal(raw->name, "vm/demo/user-2/stream-0");
	n = 0;
	while (hvt_timeline_next(&tl.tl))
		n++;
	assert_int_equal(n, 5);
	assert_int_equal(hvt_source_next(raw), 1);
	assert_int_equal(raw->ev.ts, 5000);
	assert_int_equal(hvt_source_next(raw), 0);
	fx_close(&tl);
	/* No exchanges at all: the whole VM cannot be aligned. */
	assert_int_equal(fx_printf(root, "vm/demo/sync.tsv", "seq\thost_send\tguest_recv\t"
				   "guest_send\thost_recv\tcpu_recv\tcpu_send\n"), 0);
	assert_int_equal(fx_open(&tl, root, false), 0);
	assert_false(tl.ses.vms[0].al.aligned);
	assert_null(hvt_timeline_next(&tl.tl));
	fx_close(&tl);
	check_unaligned_vm(root);
	/* Nor without sync.tsv at all. */
	snprintf(path, sizeof(path), "%s/vm/demo/sync.tsv", root);
	assert_int_equal(unlink(path), 0);
	check_unaligned_vm(root);
}

static const uint8_t kernel_uuid[16] = { 0x5c, 0x0f, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
					 14 };

#define MS		1000000ll		/* ns */
#define JUMP_BACK	10000000ull		/* guest ticks: 5 ms */

/*
 * sync.tsv with 40 exchanges 1 ms apart; from the 21st (20 ms) on, the guest
 * TSC is JUMP_BACK lower (@jump) or the same (!@jump).
 */
static void write_sync_jump(const char *root, bool jump)
{
	char text[8192];
	size_t len = (size_t)snprintf(text, sizeof(text), "seq\thost_send\tguest_recv\t"
				      "guest_send\thost_recv\tcpu_recv\tcpu_send\n");
	unsigned int k;

	for (k = 0; k < 40; k++) {
		uint64_t hs = FX_HOST_TSC(k * MS);
		uint64_t gr = hs + 100 + (uint64_t)FX_OFFSET - (jump && k >= 20 ? JUMP_BACK : 0);

		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"%u\t%llu\t%llu\t%llu\t%llu\t0\t0\n", k,
					(unsigned long long)hs, (unsigned long long)gr,
					(unsigned long long)gr + 10, (unsigned long long)hs + 210);
	}
	assert_int_equal(fx_write(root, "vm/demo/sync.tsv", text, len), 0);
}

/* kernel/stream-0 with test:far events at these guest TSC values, in this order. */
static void write_kernel_stream(const char *root, const uint64_t *guest, size_t n)
{
	static uint32_t value[8];
	struct fx_event ev[8];
	size_t i;

	assert_true(n <= 8);
	for (i = 0; i < n; i++) {
		value[i] = (uint32_t)i;
		ev[i] = (struct fx_event){ FX_ID_FAR, guest[i], 0, 77, &value[i], 4 };
	}
	assert_int_equal(fx_write_stream(root, "vm/demo/kernel/stream-0", kernel_uuid, 4096, 0, 0,
					 ev, n), 0);
	assert_int_equal(fx_refresh_info(root), 0);
}

/* The events of kernel/stream-0 the merge returns: their field value and ns. */
static size_t merged_k0(const char *root, uint32_t *value, int64_t *ns, unsigned long *warnings)
{
	struct fx_opened tl;
	struct hvt_source *s;
	size_t n = 0;
	uint64_t v;

	assert_int_equal(fx_open(&tl, root, false), 0);
	while ((s = hvt_timeline_next(&tl.tl))) {
		if (strcmp(s->name, K0))
			continue;
		assert_true(n < 8);
		assert_int_equal(hvt_source_field_u64(s, "value", &v), 0);
		assert_int_equal(hvt_source_field_u64(s, "no_such_field", &v), -1);
		value[n] = (uint32_t)v;
		ns[n++] = hvt_host_clock_since_start(&tl.ses.clock, s->host_tsc);
	}
	*warnings = hvt_session_warnings(&tl.ses);
	fx_close(&tl);
	return n;
}

static void assert_near_ms(int64_t ns, int64_t ms)
{
	if (ns < ms * MS - 1000 || ns > ms * MS + 1000)
		fail_msg("%lld ns is not %lld ms (+/- 1 us)", (long long)ns, (long long)ms);
}

/*
 * The guest TSC jumps back 5 ms between the exchanges at 19 and 20 ms. A
 * stream with events at 10 and 18 ms before it and 21 and 30 ms after it shows
 * guest values 10, 18, 16, 25 ms: it goes back, and must keep every event,
 * each at its own host time.
 */
static void test_backwards_jump_keeps_events(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .ftrace = false };
	const uint64_t guest[] = {
		FX_GUEST_TSC(10 * MS), FX_GUEST_TSC(18 * MS),
		FX_GUEST_TSC(21 * MS) - JUMP_BACK, FX_GUEST_TSC(30 * MS) - JUMP_BACK,
	};
	uint32_t value[8];
	int64_t ns[8];
	unsigned long warnings;

	assert_true(guest[2] < guest[1]);
	assert_int_equal(fx_standard_archive(root, &o), 0);
	write_sync_jump(root, true);
	write_kernel_stream(root, guest, 4);
	assert_int_equal(merged_k0(root, value, ns, &warnings), 4);
	assert_int_equal(warnings, 0);
	assert_int_equal(value[0], 0);
	assert_int_equal(value[1], 1);
	assert_int_equal(value[2], 2);
	assert_int_equal(value[3], 3);
	assert_near_ms(ns[0], 10);
	assert_near_ms(ns[1], 18);
	assert_near_ms(ns[2], 21);
	assert_near_ms(ns[3], 30);
}

/* The same stream when the guest clock never changed: the step back is dropped. */
static void test_backwards_without_clock_change(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .ftrace = false };
	const uint64_t guest[] = {
		FX_GUEST_TSC(10 * MS), FX_GUEST_TSC(18 * MS),
		FX_GUEST_TSC(16 * MS), FX_GUEST_TSC(25 * MS),
	};
	uint32_t value[8];
	int64_t ns[8];
	unsigned long warnings;

	assert_int_equal(fx_standard_archive(root, &o), 0);
	write_sync_jump(root, false);
	write_kernel_stream(root, guest, 4);
	assert_int_equal(merged_k0(root, value, ns, &warnings), 3);
	assert_int_equal(warnings, 1);
	assert_int_equal(value[0], 0);
	assert_int_equal(value[1], 1);
	assert_int_equal(value[2], 3);
	assert_near_ms(ns[0], 10);
	assert_near_ms(ns[1], 18);
	assert_near_ms(ns[2], 25);
}

/*
 * A kernel stream of three packets whose middle one's times are damaged far
 * into the future (its header consistent): the merge loses that packet,
 * with a warning, and keeps every event of the others, in order. Before,
 * every event after the damage looked earlier than it and was dropped.
 */
static void test_damaged_packet_stays_in_its_packet(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .ftrace = false };
	static uint32_t value[700];
	static struct fx_event ev[700];
	struct fx_opened tl;
	struct hvt_source *src;
	uint64_t far = UINT64_C(1) << 60, v, last = 0, p2, p3;
	size_t i, n = 0, gaps = 0, len;
	unsigned char *bytes;
	bool ordered = true;

	assert_int_equal(fx_standard_archive(root, &o), 0);
	write_sync_jump(root, false);
	for (i = 0; i < 700; i++) {		/* 10 to 24 ms: three packets */
		value[i] = (uint32_t)i;
		ev[i] = (struct fx_event){ FX_ID_FAR, FX_GUEST_TSC(10 * MS + (int64_t)i * 20000),
					   0, 77, &value[i], 4 };
	}
	bytes = fx_make_stream(kernel_uuid, 4096, 0, 0, ev, 700, &len);
	assert_non_null(bytes);
	p2 = hvt_get_u64(bytes + offsetof(struct hvt_ctf_packet, packet_size)) / 8;
	p3 = p2 + hvt_get_u64(bytes + p2 + offsetof(struct hvt_ctf_packet, packet_size)) / 8;
	assert_true(p3 < len);
	hvt_put_u64(bytes + p2 + offsetof(struct hvt_ctf_packet, timestamp_begin), far);
	hvt_put_u64(bytes + p2 + offsetof(struct hvt_ctf_packet, timestamp_end), far + 1);
	assert_int_equal(fx_write(root, "vm/demo/kernel/stream-0", bytes, len), 0);
	assert_int_equal(fx_refresh_info(root), 0);
	free(bytes);

	assert_int_equal(fx_open(&tl, root, false), 0);
	while ((src = hvt_timeline_next(&tl.tl))) {
		if (strcmp(src->name, K0))
			continue;
		assert_int_equal(hvt_source_field_u64(src, "value", &v), 0);
		ordered = ordered && (n ? v > last : v == 0);
		gaps += n && v != last + 1;
		last = v;
		n++;
	}
	assert_int_equal(hvt_session_warnings(&tl.ses), 1);
	fx_close(&tl);
	/* from the first event to the last, in order, one run missing: packet 2 */
	assert_true(ordered);
	assert_int_equal(last, 699);
	assert_int_equal(gaps, 1);
	assert_true(n > 300 && n < 700);
}

/*
 * One clock pair (a recording that crashed within its first second): merged
 * with the manifest's nominal frequency and a warning; without one, refused.
 */
static void test_single_clock_pair(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .ftrace = false };
	const struct row want[] = {
		{ 1240000, HVT_LAYER_KERNEL, K0, "sched_switch", 77, 0 },
		{ 1300000, HVT_LAYER_KERNEL, K0, "sched_switch", 0, 0 },
		{ 1300000, HVT_LAYER_KERNEL, K1, "sched_switch", 0, 1 },
		{ 1300000, HVT_LAYER_USER, U0, "hvdemo:send", 78, 1 },
		{ 100000000, HVT_LAYER_KERNEL, K0, "test:far", 77, 0 },
	};
	struct fx_opened tl;
	char path[128], *text, *freq;
	size_t len;

	assert_int_equal(fx_standard_archive(root, &o), 0);
	assert_int_equal(fx_printf(root, "host/clock.tsv", "tsc\tmono_ns\trealtime_ns\t"
				   "uncertainty\n%llu\t%lld\t%lld\t100\n", FX_T0, FX_MONO0,
				   FX_REAL0), 0);
	check_rows(root, false, want, sizeof(want) / sizeof(want[0]));
	assert_int_equal(fx_open(&tl, root, false), 0);
	assert_int_equal(tl.ses.archive.warnings, 1);
	fx_close(&tl);
	/* the manifest without its nominal frequency */
	snprintf(path, sizeof(path), "%s/hvtrace.json", root);
	assert_int_equal(hvt_read_file(path, 1 << 20, &text, &len), 0);
	freq = strstr(text, "\"tsc_freq_hz\": 2000000000,");
	assert_non_null(freq);
	memset(freq, ' ', strlen("\"tsc_freq_hz\": 2000000000,"));
	assert_int_equal(fx_write(root, "hvtrace.json", text, len), 0);
	free(text);
	assert_int_equal(fx_open(&tl, root, false), -1);
}

static void test_inconsistent_sync_still_merges(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .inconsistent_sync = true };
	struct fx_opened tl;
	size_t n = 0;

	assert_int_equal(fx_standard_archive(root, &o), 0);
	assert_int_equal(fx_open(&tl, root, false), 0);
	assert_true(tl.ses.vms[0].al.aligned);
	assert_true(tl.ses.vms[0].al.clock.glitch);
	while (hvt_timeline_next(&tl.tl))
		n++;
	assert_int_equal(n, 5);
	assert_int_equal(hvt_session_warnings(&tl.ses), 1);
	fx_close(&tl);
}

static void test_damaged_archive_still_merges(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .ftrace = true, .status = "recording" };
	struct fx_opened tl;
	char path[128];
	size_t n = 0;

	assert_int_equal(fx_standard_archive(root, &o), 0);
	snprintf(path, sizeof(path), "%s/vm/demo/kernel/stream-1", root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(fx_write(root, "vm/demo/user-1/hvtrace/registry", "junk", 4), 0);
	assert_int_equal(fx_write(root, "host/ftrace/cpu1.raw", "short", 5), 0);
	assert_int_equal(fx_open(&tl, root, false), 0);
	while (hvt_timeline_next(&tl.tl))
		n++;
	assert_int_equal(n, 3);		/* kernel stream-0 only */
	/* unfinished, missing stream, bad registry + unknown event, short page */
	assert_int_equal(hvt_session_warnings(&tl.ses), 5);
	fx_close(&tl);
	/* Unreadable: no manifest, or no usable clock. */
	assert_int_equal(fx_printf(root, "host/clock.tsv", "tsc\tmono_ns\trealtime_ns\t"
				   "uncertainty\n"), 0);
	assert_int_equal(fx_open(&tl, root, false), -1);
	snprintf(path, sizeof(path), "%s/hvtrace.json", root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(fx_open(&tl, root, false), -1);
}

/* Copies @from over @to in @root. */
static void copy_file(const char *root, const char *from, const char *to)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "cp %s/%s %s/%s", root, from, root, to);
	assert_int_equal(system(cmd), 0);
}

/*
 * Packets the collector dropped at the end of a recording (their events'
 * ids never registered, info.json's dropped_packets) are a warning, which
 * makes check fail; the stored events are all there.
 */
static void test_dropped_packets_warned(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .ftrace = true };
	char path[200], *text, *at, *out;
	struct fx_opened tl;
	struct hvt_source *s;
	size_t kernel = 0, len;

	assert_int_equal(fx_standard_archive(root, &o), 0);
	snprintf(path, sizeof(path), "%s/vm/demo/info.json", root);
	assert_int_equal(hvt_read_file(path, 1 << 20, &text, &len), 0);
	at = strstr(text, "kernel/stream-1");
	assert_non_null(at);
	at = strstr(at, "\"packets\": ");
	assert_non_null(at);
	assert_true(asprintf(&out, "%.*s\"dropped_packets\": 2, %s", (int)(at - text), text,
			     at) > 0);
	assert_int_equal(fx_write(root, "vm/demo/info.json", out, strlen(out)), 0);
	free(out);
	free(text);
	assert_int_equal(fx_open(&tl, root, false), 0);
	while ((s = hvt_timeline_next(&tl.tl)))
		kernel += s->layer == HVT_LAYER_KERNEL;
	assert_int_equal(kernel, 4);
	assert_int_equal(hvt_session_warnings(&tl.ses), 1);
	fx_close(&tl);
}

/*
 * The host's own applications (host/apps): their events on the host TSC
 * come out at their raw values, as user events of no VM, after a host
 * event of the same instant (layer order); on another domain their trace
 * is skipped with one warning.
 */
static void test_host_apps(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .ftrace = true, .host_apps = true };
	static const char *const domains[] = { "host_tsc", "monotonic_raw", "guest_tsc" };
	struct fx_opened tl;
	struct hvt_source *s;
	size_t d;

	assert_int_equal(fx_standard_archive(root, &o), 0);
	for (d = 0; d < 3; d++) {
		uint64_t prev_host_at_2 = 0;
		size_t n = 0;

		assert_int_equal(fx_write_host_apps_info(root, domains[d]), 0);
		assert_int_equal(fx_open(&tl, root, false), 0);
		while ((s = hvt_timeline_next(&tl.tl))) {
			if (s->layer == HVT_LAYER_HOST && s->host_tsc == FX_HOST_TSC(FX_APP_NS_2))
				prev_host_at_2 = s->host_tsc;
			if (s->layer != HVT_LAYER_USER || s->vm)
				continue;
			assert_true(n < 2);
			assert_int_equal(s->host_tsc, FX_HOST_TSC(n ? FX_APP_NS_2 : FX_APP_NS_1));
			assert_int_equal(hvt_source_tid(s), FX_APP_TID);
			assert_int_equal(s->vm_number, 0);
			assert_string_equal(hvt_source_event_name(s), "hvdemo:send");
			if (n == 1)	/* the host's sched_switch of that instant came first */
				assert_int_equal(prev_host_at_2, FX_HOST_TSC(FX_APP_NS_2));
			n++;
		}
		assert_int_equal(n, d ? 0 : 2);
		assert_int_equal(hvt_session_warnings(&tl.ses), d ? 1 : 0);
		fx_close(&tl);
	}
}

/*
 * merge --qemu-trace: QEMU's log trace backend lines, written out of
 * order and with a line of other output, come out sorted as vmm events,
 * each at the host TSC its CLOCK_REALTIME microsecond maps to (stamped on
 * the middle of the microsecond), with one warning for the other line.
 */
static void test_qemu_trace(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .ftrace = true };
	static const char *const names[] = { "kvm_run_exit", "virtio_notify", "qemu_mutex_lock" };
	struct fx_opened tl;
	struct hvt_session_opts opts = { 0 };
	struct hvt_host_clock clock;
	const char *paths[1];
	char path[200], text[600], args[64];
	uint64_t tsc[3];
	int64_t real[3];
	struct hvt_source *s;
	size_t n = 0, i;

	assert_int_equal(fx_standard_archive(root, &o), 0);
	assert_int_equal(fx_open(&tl, root, false), 0);
	for (i = 0; i < 3; i++) {
		tsc[i] = tl.ses.archive.pairs[0].tsc + (i + 1) * 1234567;
		real[i] = hvt_host_clock_realtime(&tl.ses.clock, tsc[i]) / 1000 * 1000;
	}
	assert_int_equal(hvt_host_clock_init(&clock, tl.ses.archive.pairs, tl.ses.archive.nr_pairs,
					     tl.ses.archive.tsc_freq_hz), 0);
	fx_close(&tl);
	snprintf(text, sizeof(text),
		 "77@%lld.%06lld:%s vdev 0x1 vq 2\n"
		 "76@%lld.%06lld:%s cpu_index 0, reason 2\n"
		 "qemu-system-x86_64: some other message\n"
		 "77@%lld.%06lld:%s\r\n",	/* a CRLF line is taken too */
		 (long long)(real[1] / 1000000000), (long long)(real[1] % 1000000000 / 1000), names[1],
		 (long long)(real[0] / 1000000000), (long long)(real[0] % 1000000000 / 1000), names[0],
		 (long long)(real[2] / 1000000000), (long long)(real[2] % 1000000000 / 1000), names[2]);
	assert_int_equal(fx_write(root, "qemu.log", text, strlen(text)), 0);
	snprintf(path, sizeof(path), "%s/qemu.log", root);
	paths[0] = path;
	opts.qemu_traces = paths;
	opts.nr_qemu_traces = 1;
	assert_int_equal(fx_open_with(&tl, root, &opts), 0);
	while ((s = hvt_timeline_next(&tl.tl))) {
		uint64_t want;

		if (s->layer != HVT_LAYER_VMM)
			continue;
		assert_true(n < 3);
		assert_string_equal(hvt_source_event_name(s), names[n]);
		assert_null(s->vm);
		assert_int_equal(hvt_source_tid(s), n == 0 ? 76 : 77);
		assert_int_equal(hvt_source_field_text(s, "args", args, sizeof(args)), 0);
		assert_string_equal(args, n == 0 ? "cpu_index 0, reason 2" :
				    n == 1 ? "vdev 0x1 vq 2" : "");
		/* where CLOCK_REALTIME read the middle of its microsecond, within a tick */
		want = hvt_realtime_tsc(&tl.ses.realtime, real[n] + 500);
		assert_true(s->host_tsc + 1 >= want && s->host_tsc <= want + 1);
		assert_true(hvt_host_clock_realtime(&clock, s->host_tsc) - (real[n] + 500) <= 1 &&
			    hvt_host_clock_realtime(&clock, s->host_tsc) - (real[n] + 500) >= -1);
		n++;
	}
	assert_int_equal(n, 3);
	assert_int_equal(tl.tl.events[HVT_LAYER_VMM], 3);
	assert_int_equal(hvt_session_warnings(&tl.ses), 1);
	fx_close(&tl);
	hvt_host_clock_free(&clock);
}

/*
 * A stream file is judged against what info.json recorded of it: emptied
 * or cut short, the events it lost are a warning (before: silently gone);
 * holding another stream's packets (a copied or swapped file), those
 * packets are skipped with a warning instead of being merged twice.
 */
/* Writes @packets as the packets info.json records of stream @file. */
static void set_stream_packets(const char *root, const char *file, int packets)
{
	char path[200], *text, *at, *p, *out;
	size_t len;

	snprintf(path, sizeof(path), "%s/vm/demo/info.json", root);
	assert_int_equal(hvt_read_file(path, 1 << 20, &text, &len), 0);
	at = strstr(text, file);
	assert_non_null(at);
	p = strstr(at, "\"packets\": ");
	assert_non_null(p);
	p += strlen("\"packets\": ");
	assert_true(asprintf(&out, "%.*s%d%s", (int)(p - text), text, packets,
			     p + strspn(p, "0123456789")) > 0);
	assert_int_equal(fx_write(root, "vm/demo/info.json", out, strlen(out)), 0);
	free(out);
	free(text);
}

static void test_streams_against_info_json(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .ftrace = true };
	struct fx_opened tl;
	struct hvt_source *s;
	size_t kernel = 0;
	char path[160];

	assert_int_equal(fx_standard_archive(root, &o), 0);
	assert_int_equal(fx_open(&tl, root, false), 0);
	while ((s = hvt_timeline_next(&tl.tl)))
		kernel += s->layer == HVT_LAYER_KERNEL;
	assert_int_equal(kernel, 4);
	assert_int_equal(hvt_session_warnings(&tl.ses), 0);
	fx_close(&tl);
	/* emptied */
	snprintf(path, sizeof(path), "%s/vm/demo/kernel/stream-1", root);
	assert_int_equal(truncate(path, 0), 0);
	assert_int_equal(fx_open(&tl, root, false), 0);
	for (kernel = 0; (s = hvt_timeline_next(&tl.tl));)
		kernel += s->layer == HVT_LAYER_KERNEL;
	assert_int_equal(kernel, 3);
	assert_int_equal(hvt_session_warnings(&tl.ses), 1);
	fx_close(&tl);
	/* CPU 0's stream copied over CPU 1's, info.json agreeing on the size */
	copy_file(root, "vm/demo/kernel/stream-0", "vm/demo/kernel/stream-1");
	assert_int_equal(fx_refresh_info(root), 0);
	assert_int_equal(fx_open(&tl, root, false), 0);
	for (kernel = 0; (s = hvt_timeline_next(&tl.tl));)
		kernel += s->layer == HVT_LAYER_KERNEL;
	assert_int_equal(kernel, 3);	/* stream-0's, once */
	assert_int_equal(hvt_session_warnings(&tl.ses), 1);	/* its one packet, skipped */
	fx_close(&tl);
	/*
	 * The sizes agree but info.json counts another packet: the packets
	 * themselves say nothing is missing, info.json does (one warning);
	 * and one fewer than the file holds, in a complete recording.
	 */
	assert_int_equal(fx_standard_archive(root, &o), 0);
	set_stream_packets(root, "kernel/stream-0", 2);
	assert_int_equal(fx_open(&tl, root, false), 0);
	for (kernel = 0; (s = hvt_timeline_next(&tl.tl));)
		kernel += s->layer == HVT_LAYER_KERNEL;
	assert_int_equal(kernel, 4);
	assert_int_equal(hvt_session_warnings(&tl.ses), 1);
	fx_close(&tl);
	set_stream_packets(root, "kernel/stream-0", 0);
	assert_int_equal(fx_open(&tl, root, false), 0);
	while (hvt_timeline_next(&tl.tl))
		;
	assert_int_equal(hvt_session_warnings(&tl.ses), 1);
	fx_close(&tl);
}

/* Replaces @rel in @root with a FIFO (no writer: opening it to read would block) or a link. */
static void replace_with(const char *root, const char *rel, const char *link_to)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(unlink(path), 0);
	if (link_to)
		assert_int_equal(symlink(link_to, path), 0);
	else
		assert_int_equal(mkfifo(path, 0600), 0);
}

/*
 * Every archive file is opened as a regular file: a FIFO (which blocked
 * every reader forever) or a device (/dev/zero grew the TSV reader without
 * end) is refused with a warning naming it, and the rest still merges.
 * alarm(): a reader that blocks fails the test instead of hanging it.
 */
static void test_files_that_are_not_regular(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .ftrace = true };
	struct fx_opened tl;
	size_t n = 0;

	assert_int_equal(fx_standard_archive(root, &o), 0);
	replace_with(root, "vm/demo/kernel/stream-1", NULL);
	replace_with(root, "host/ftrace/cpu1.raw", "/dev/zero");
	replace_with(root, "vm/demo/user-1/hvtrace/registry", NULL);
	alarm(20);
	assert_int_equal(fx_open(&tl, root, false), 0);
	while (hvt_timeline_next(&tl.tl))
		n++;
	alarm(0);
	/* kernel stream-0's (the host's are on cpu1; the user stream's of no known type) */
	assert_int_equal(n, 3);
	/* the two streams skipped, the registry, the user stream's unknown event */
	assert_int_equal(hvt_session_warnings(&tl.ses), 4);
	fx_close(&tl);
	/* The VM's exchanges: the VM cannot be aligned, the host still merges. */
	replace_with(root, "vm/demo/sync.tsv", "/dev/zero");
	alarm(20);
	assert_int_equal(fx_open(&tl, root, false), 0);
	alarm(0);
	fx_close(&tl);
	/* The host's clock pairs or the manifest: nothing can be merged. */
	replace_with(root, "host/clock.tsv", NULL);
	alarm(20);
	assert_int_equal(fx_open(&tl, root, false), -1);
	replace_with(root, "hvtrace.json", NULL);
	assert_int_equal(fx_open(&tl, root, false), -1);
	alarm(0);
}

/* Every guest event at exactly guest TSC - @offset, in both kernel streams and the user one. */
static void assert_guest_events_at(struct hvt_timeline *tl, uint64_t offset)
{
	struct hvt_source *s;
	size_t guest = 0;

	while ((s = hvt_timeline_next(tl))) {
		if (s->layer == HVT_LAYER_HOST)
			continue;
		assert_int_equal(s->host_tsc, s->ev.ts - offset);
		guest++;
	}
	assert_true(guest >= 5);
}

/*
 * A KVM VM whose debugfs snapshots give an offset 50 ticks off the centre of
 * the exchanges' +/-100 band: still consistent with every exchange, so the
 * guest events land exactly there, not where the estimate would put them. At
 * 500 ticks off the exchanges contradict it and the estimate stays; so it
 * does when a guest CPU has no vCPU in the recording.
 */
static void test_kvm_exact_from_archive(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .ftrace = true, .sync_points = true };
	const uint64_t near = (uint64_t)FX_OFFSET + 50, far = (uint64_t)FX_OFFSET + 500;
	struct fx_opened tl;

	assert_int_equal(fx_standard_archive(root, &o), 0);
	assert_int_equal(fx_write_kvm_snapshots(root, 2, near), 0);
	assert_int_equal(fx_open(&tl, root, false), 0);
	assert_true(tl.ses.vms[0].al.exact);
	assert_int_equal(tl.ses.vms[0].al.kvm.nr_vcpus, 2);
	assert_guest_events_at(&tl.tl, near);
	assert_int_equal(hvt_session_warnings(&tl.ses), 0);
	fx_close(&tl);

	assert_int_equal(fx_write_kvm_snapshots(root, 2, far), 0);
	assert_int_equal(fx_open(&tl, root, false), 0);
	assert_false(tl.ses.vms[0].al.exact);
	assert_true(tl.ses.vms[0].al.aligned);
	assert_int_equal(hvt_session_warnings(&tl.ses), 1);
	fx_close(&tl);

	assert_int_equal(fx_write_kvm_snapshots(root, 1, near), 0);	/* stream-1: CPU 1 */
	assert_int_equal(fx_open(&tl, root, false), 0);
	assert_false(tl.ses.vms[0].al.exact);
	assert_true(tl.ses.vms[0].al.aligned);
	fx_close(&tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_clock),
		cmocka_unit_test(test_vm_clock_and_causality),
		cmocka_unit_test(test_vm_clock_sync_points),
		cmocka_unit_test(test_vm_clock_jump),
		cmocka_unit_test(test_vm_clock_quality),
		cmocka_unit_test_setup_teardown(test_merge_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sync_points_from_archive, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kvm_exact_from_archive, setup, teardown),
		cmocka_unit_test_setup_teardown(test_without_host_layer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unalignable_traces, setup, teardown),
		cmocka_unit_test_setup_teardown(test_backwards_jump_keeps_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_backwards_without_clock_change, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged_packet_stays_in_its_packet, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_single_clock_pair, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inconsistent_sync_still_merges, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged_archive_still_merges, setup, teardown),
		cmocka_unit_test_setup_teardown(test_files_that_are_not_regular, setup, teardown),
		cmocka_unit_test_setup_teardown(test_streams_against_info_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_qemu_trace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_apps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dropped_packets_warned, setup, teardown),
	};

	return cmocka_run_group_tests_name("timeline", tests, NULL, NULL);
}
