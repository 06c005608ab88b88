// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_top.c - `hvtrace top`'s interval and screen (tools/top/):
 *   - each piece counts where top shows it: per vCPU and state; the host
 *     task that took it (not the idle task, next after a block: it took
 *     nothing); per KVM exit reason; per guest thread, what it lost to;
 *     a piece shorter than its bounds nowhere; a full table counts what
 *     it drops;
 *   - on the standard archive followed to its end, the screen fits the
 *     terminal: no line wider, no more lines than it has, and says how
 *     many it could not show; in --batch (no height) it shows them all;
 *   - a recording complete when opened is shown whole, with real shares.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tools/top/top_live.h"
#include "tools/top/top_screen.h"
#include "tests/unit/archive_fixture.h"
#include "tests/unit/open_timeline.h"

static const struct hvt_top_entry *find(const struct hvt_top_table *t, int32_t a, int32_t b)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->v[i].a == a && t->v[i].b == b)
			return &t->v[i];
	return NULL;
}

static void piece(struct hvt_top_vm *vm, int32_t vcpu, enum hvt_vcpu_state state, uint64_t len,
		  const struct hvt_cause *cause, int32_t tid, bool too_short)
{
	hvt_top_vm_piece(vm, &(struct hvt_vcpu_piece){ .vcpu = vcpu, .state = state,
		.start = 1000, .end = 1000 + len, .cause = cause, .tid = tid,
		.too_short = too_short });
}

static void test_pieces_counted(void **state)
{
	struct hvt_vm_analysis a = { .runs = { .nr = 2 } };
	const struct hvt_cause hog = { .tid = 42, .comm = "hog" }, idle = { .tid = 0,
		.comm = "swapper/0" }, exit48 = { .tid = 48 };
	const struct hvt_top_entry *e;
	struct hvt_top_vm vm;
	size_t i;

	(void)state;
	assert_int_equal(hvt_top_vm_init(&vm, &a), 0);
	assert_ptr_equal(a.on_piece, hvt_top_vm_piece);
	piece(&vm, 0, HVT_VCPU_GUEST, 100, NULL, 7, false);
	piece(&vm, 0, HVT_VCPU_PREEMPTED, 30, &hog, 7, false);
	piece(&vm, 0, HVT_VCPU_PREEMPTED, 20, &hog, 7, false);
	piece(&vm, 0, HVT_VCPU_BLOCKED, 50, &idle, 7, false);
	piece(&vm, 1, HVT_VCPU_HYPERVISOR, 5, &exit48, 9, false);
	piece(&vm, 1, HVT_VCPU_IDLE, 60, NULL, 0, false);
	piece(&vm, -1, HVT_VCPU_RUNNABLE, 15, NULL, 9, false);
	piece(&vm, 1, HVT_VCPU_PREEMPTED, 3, &hog, 9, true);	/* too short: nowhere */

	assert_int_equal(vm.vcpus[0].ticks[HVT_VCPU_GUEST], 100);
	assert_int_equal(vm.vcpus[0].ticks[HVT_VCPU_PREEMPTED], 50);
	assert_int_equal(vm.vcpus[0].ticks[HVT_VCPU_BLOCKED], 50);
	assert_int_equal(vm.vcpus[1].ticks[HVT_VCPU_HYPERVISOR], 5);
	assert_int_equal(vm.vcpus[1].exits, 1);
	assert_int_equal(vm.vcpus[1].ticks[HVT_VCPU_IDLE], 60);
	assert_int_equal(vm.vcpus[1].ticks[HVT_VCPU_PREEMPTED], 0);
	/* the hog took 50 from vCPU 0; the idle task, next after the block, nothing */
	assert_int_equal(vm.takers.n, 1);
	e = find(&vm.takers, 0, 42);
	assert_non_null(e);
	assert_int_equal(e->ticks, 50);
	assert_int_equal(e->count, 2);
	assert_string_equal(e->b_name, "hog");
	assert_non_null(e = find(&vm.exits, 48, 0));
	assert_int_equal(e->ticks, 5);
	/* thread 7 ran 100 and lost 50 to the hog; 9 lost 5 to KVM, waited 15 in the guest */
	assert_int_equal(find(&vm.threads, 7, HVT_TOP_RAN)->ticks, 100);
	assert_int_equal(find(&vm.threads, 7, 42)->ticks, 50);
	assert_int_equal(find(&vm.threads, 9, HVT_TOP_HYPERVISOR)->ticks, 5);
	assert_int_equal(find(&vm.threads, 9, HVT_TOP_RUNNABLE)->ticks, 15);
	assert_null(find(&vm.threads, 0, HVT_TOP_RAN));	/* idle is no thread */
	assert_null(find(&vm.threads, 9, 42));		/* the short piece */

	hvt_top_table_sort(&vm.threads);
	for (i = 1; i < vm.threads.n; i++)
		assert_true(vm.threads.v[i - 1].ticks >= vm.threads.v[i].ticks);
	hvt_top_vm_reset(&vm);
	assert_int_equal(vm.vcpus[0].ticks[HVT_VCPU_GUEST], 0);
	assert_int_equal(vm.takers.n + vm.exits.n + vm.threads.n, 0);

	/* a full table: the rest counted as dropped, none lost silently */
	for (i = 0; i < HVT_TOP_MAX_ENTRIES + 10; i++)
		hvt_top_table_add(&vm.takers, 0, (int32_t)i + 1, "t", 1);
	assert_int_equal(vm.takers.n, HVT_TOP_MAX_ENTRIES);
	assert_int_equal(vm.takers.dropped, 10);
	hvt_top_vm_free(&vm);
	assert_null(a.on_piece);
}

static int take(struct hvt_source *s, void *ctx)
{
	return hvt_top_live_event(s, ctx);
}

/* The lines of @text: how many, and the widest. */
static void measure(const char *text, int *lines, int *widest)
{
	const char *p = text;

	*lines = *widest = 0;
	while (*p) {
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);

		(*lines)++;
		if (len > *widest)
			*widest = len;
		p += len + (nl != NULL);
	}
}

static char *render(struct hvt_top_live *t, int width, int height)
{
	const struct hvt_top_view v = { .width = width, .height = height, .vm = HVT_TOP_ALL_VMS,
					.rows = 5, .keys = height > 0, .now_ns = 1 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	hvt_top_screen(f, t, &v);
	fclose(f);
	return buf;
}

static void test_screen_fits(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .ftrace = true, .vcpu_tids = "[0, 4321]" };
	const struct hvt_session_opts so = { .follow = true };
	const struct hvt_follow_sink sink = { .event = take };
	const struct hvt_follow_opts fo = { .lag_ns = 1000000000, .period_ns = 1000000 };
	struct hvt_top_live t;
	struct fx_opened m;
	int lines, widest, all;
	char *text;

	assert_int_equal(fx_standard_archive(root, &o), 0);
	assert_int_equal(fx_open_with(&m, root, &so), 0);
	assert_int_equal(hvt_top_live_init(&t, &m.tl, &fo), 0);
	assert_true(hvt_top_live_ready(&t));	/* complete: nothing to wait for */
	assert_int_equal(hvt_follow_run(&t.f, &sink, &t), 0);
	assert_true(t.f.complete);

	text = render(&t, 0, 0);	/* --batch: everything */
	measure(text, &all, &widest);
	assert_non_null(strstr(text, "VM demo (tcg)"));
	assert_non_null(strstr(text, " vCPU  guest"));
	assert_non_null(strstr(text, "streams of the host"));
	free(text);

	text = render(&t, 40, 24);
	measure(text, &lines, &widest);
	assert_true(widest <= 40);
	assert_true(lines <= 24);
	free(text);

	text = render(&t, 80, 5);
	measure(text, &lines, &widest);
	assert_true(lines <= 5);
	assert_true(all > 5);
	assert_non_null(strstr(text, "more lines: a taller terminal"));
	free(text);

	hvt_top_live_free(&t);
	fx_close(&m);
}

/*
 * A recording complete when opened is shown whole: analysed from its first
 * event to its last, the runs still open then closed, its head says so with
 * its length (no interval, nothing behind). vCPU 1's thread ran the guest's
 * idle task from 1.3 ms to the end: idle is nearly all of it, not "-";
 * under TCG the hypervisor is "-" (not measured).
 */
static void test_whole_recording(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .ftrace = true, .vcpu_tids = "[0, 4321]" };
	const struct hvt_session_opts so = { .follow = true };
	const struct hvt_follow_sink sink = { .event = take };
	const struct hvt_follow_opts fo = { .lag_ns = 1000000000, .period_ns = 1000000 };
	struct hvt_top_live t;
	struct fx_opened m;
	char *text;

	assert_int_equal(fx_standard_archive(root, &o), 0);
	assert_int_equal(fx_open_with(&m, root, &so), 0);
	assert_int_equal(hvt_top_live_init(&t, &m.tl, &fo), 0);
	assert_true(hvt_top_live_whole(&t));
	assert_int_equal(hvt_follow_run(&t.f, &sink, &t), 0);
	hvt_top_live_finish(&t);
	assert_false(hvt_top_live_whole(&t));		/* once, before following */

	text = render(&t, 0, 0);
	assert_non_null(strstr(text, "hvtrace top: complete, shown whole: 0.2 s of trace: "));
	assert_null(strstr(text, "behind"));
	assert_non_null(strstr(text, "\n    1      -  99.3%      -        -    0.0%    0.6%        -  -\n"));
	free(text);
	hvt_top_live_free(&t);
	fx_close(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pieces_counted),
		cmocka_unit_test_setup_teardown(test_screen_fits, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_whole_recording, fx_setup_root,
						fx_teardown_root),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
