// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_timeline.c - the merged time line of the standard synthetic archive
 * (archive_fixture.c): guest events placed at the host time they were made
 * to have, ties broken by layer then stream, a host layer missing or from
 * a single clock pair, a stream stepping back in guest time kept across a
 * real clock change and cut without one, damage kept in its packet.
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_merge_order, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_without_host_layer, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_backwards_jump_keeps_events, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_backwards_without_clock_change, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_damaged_packet_stays_in_its_packet, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_single_clock_pair, fx_setup_root, fx_teardown_root),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
