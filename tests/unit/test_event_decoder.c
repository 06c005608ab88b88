// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_event_decoder.c - scheduling and KVM events as typed records
 * (tools/read/event_decoder.c): the host's ftrace records, with prev_state
 * told runnable by the kernel's own print fmt (this kernel's, and a 4.9
 * kernel's whose bits differ), the kinds asked for only, a format lacking a
 * field its kind needs, and a guest's hvtrace.ko CTF records through the
 * reader interface (prev_tid for prev_pid, 0 for runnable), and QEMU's I/O
 * events from its log's text arguments.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/archive_fixture.h"
#include "tests/unit/open_timeline.h"
#include "tools/read/event_decoder.h"

#define PAGE	4096
#define MAX	16

static int setup(void **state)
{
	char *root = calloc(1, 64);

	assert_int_equal(fx_mkdtemp(root, 64), 0);
	assert_int_equal(fx_write_ftrace_meta(root), 0);
	*state = root;
	return 0;
}

static int teardown(void **state)
{
	fx_rm_rf(*state);
	free(*state);
	return 0;
}

/* Decodes ROOT/host/ftrace/@file with a decoder of @kinds into @out; their number. */
static size_t decode_file(const char *root, const char *file, unsigned int kinds, bool comms,
			  struct hvt_typed_event *out)
{
	struct hvt_event_decoder d;
	struct hvt_ftrace_event ev;
	unsigned long warnings = 0;
	struct hvt_ftrace_cpu *c;
	struct hvt_ftrace *ft;
	char dir[128], path[192];
	size_t n = 0;

	snprintf(dir, sizeof(dir), "%s/host/ftrace", root);
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	ft = hvt_ftrace_open(dir, PAGE, &warnings);
	assert_non_null(ft);
	c = hvt_ftrace_cpu_open(ft, path, file, 0, &warnings);
	assert_non_null(c);
	assert_int_equal(hvt_event_decoder_init(&d, kinds, comms), 0);
	while (hvt_ftrace_cpu_next(c, &ev) > 0) {
		enum hvt_ev_kind k;

		assert_true(n < MAX);
		k = hvt_decode_ftrace(&d, c, &ev, &out[n]);
		assert_int_equal(k, out[n].kind);
		n++;
	}
	assert_int_equal(warnings, 0);
	hvt_event_decoder_free(&d);
	hvt_ftrace_cpu_close(c);
	hvt_ftrace_close(ft);
	return n;
}

static size_t decode_cpu0(const char *root, unsigned int kinds, bool comms,
			  struct hvt_typed_event *out)
{
	return decode_file(root, "cpu0.raw", kinds, comms, out);
}

static void write_switches(const char *root, const int64_t *states, size_t n)
{
	struct fx_host_switch sw[MAX];
	size_t i;

	for (i = 0; i < n; i++)
		sw[i] = (struct fx_host_switch){ 1000 + i, 100, "CPU 0/KVM", 100, 120, states[i],
						 "hog", 200 + (int32_t)i, 120 };
	assert_int_equal(fx_write_ftrace_cpu(root, "host/ftrace/cpu0.raw", PAGE, sw, n), 0);
}

/* This kernel's encoding: states in the low 8 bits, 0x100 "R+" (preempted). */
static void test_switch_states(void **state)
{
	static const int64_t states[] = { 0, 0x100, 1, 2, 0x80, 0x10000 };
	static const bool runnable[] = { true, true, false, false, false, true };
	static const char *const text[] = { "R", "R+", "S", "D", "I", "R" };
	struct hvt_typed_event e[MAX];
	size_t i, n;

	write_switches(*state, states, 6);
	n = decode_cpu0(*state, HVT_EV_BIT(HVT_EV_SCHED_SWITCH), true, e);
	assert_int_equal(n, 6);
	for (i = 0; i < n; i++) {
		assert_int_equal(e[i].kind, HVT_EV_SCHED_SWITCH);
		assert_int_equal(e[i].sw.prev, 100);
		assert_int_equal(e[i].sw.next, 200 + (int32_t)i);
		assert_int_equal(e[i].sw.prev_state, (uint64_t)states[i]);
		assert_int_equal(e[i].sw.runnable, runnable[i]);
		assert_string_equal(e[i].sw.end_state, text[i]);
		assert_string_equal(e[i].sw.prev_comm, "CPU 0/KVM");
		assert_string_equal(e[i].sw.next_comm, "hog");
	}
	/* without comms: the fields are read, the names left empty */
	assert_int_equal(decode_cpu0(*state, HVT_EV_BIT(HVT_EV_SCHED_SWITCH), false, e), 6);
	assert_int_equal(e[0].sw.next, 200);
	assert_string_equal(e[0].sw.next_comm, "");
	/* not asked for: not decoded */
	assert_int_equal(decode_cpu0(*state, HVT_EV_BIT(HVT_EV_KVM_EXIT), true, e), 6);
	assert_int_equal(e[0].kind, HVT_EV_OTHER);
}

/* sched_switch as Linux 4.9 printed it: states up to 1024, "+" at 2048. */
static const char switch_4_9[] =
	"name: sched_switch\nID: 372\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s "
	"next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, "
	"REC->prev_state & (2048-1) ? __print_flags(REC->prev_state & (2048-1), \"|\", "
	"{ 1, \"S\"} , { 2, \"D\" }, { 4, \"T\" }, { 8, \"t\" }, { 16, \"Z\" }, { 32, \"X\" }, "
	"{ 64, \"x\" }, { 128, \"K\" }, { 256, \"W\" }, { 512, \"P\" }, { 1024, \"N\" }) : \"R\", "
	"REC->prev_state & 2048 ? \"+\" : \"\", REC->next_comm, REC->next_pid, REC->next_prio\n";

/*
 * On 4.9, 0x100 is TASK_WAKING, not "R+", and a preempted task has 2048:
 * a fixed mask of this kernel's bits would call a waking task preempted.
 */
static void test_switch_states_old_kernel(void **state)
{
	static const int64_t states[] = { 0, 0x800, 0x100, 0x400, 1, 0x3 };
	static const bool runnable[] = { true, true, false, false, false, false };
	static const char *const text[] = { "R", "R+", "W", "N", "S", "S|D" };
	struct hvt_typed_event e[MAX];
	size_t i;

	assert_int_equal(fx_write(*state, "host/ftrace/events/sched/sched_switch/format",
				  switch_4_9, strlen(switch_4_9)), 0);
	write_switches(*state, states, 6);
	assert_int_equal(decode_cpu0(*state, HVT_EV_BIT(HVT_EV_SCHED_SWITCH), false, e), 6);
	for (i = 0; i < 6; i++) {
		assert_int_equal(e[i].kind, HVT_EV_SCHED_SWITCH);
		assert_int_equal(e[i].sw.runnable, runnable[i]);
		assert_string_equal(e[i].sw.end_state, text[i]);
	}
}

/* A print fmt that does not show the state: the usual rule, HVT_FTRACE_STATE_MASK. */
static void test_switch_state_not_printed(void **state)
{
	char *fmt = strdup(switch_4_9), *p = strstr(fmt, "print fmt:");
	static const int64_t states[] = { 0x100, 0x80 };
	struct hvt_typed_event e[MAX];

	strcpy(p, "print fmt: \"prev_pid=%d next_pid=%d\", REC->prev_pid, REC->next_pid\n");
	assert_int_equal(fx_write(*state, "host/ftrace/events/sched/sched_switch/format", fmt,
				  strlen(fmt)), 0);
	free(fmt);
	write_switches(*state, states, 2);
	assert_int_equal(decode_cpu0(*state, HVT_EV_BIT(HVT_EV_SCHED_SWITCH), false, e), 2);
	assert_true(e[0].sw.runnable);
	assert_false(e[1].sw.runnable);
}

/* A sched_switch without next_pid cannot say who ran next: not decoded. */
static void test_field_missing(void **state)
{
	char *fmt = strdup(switch_4_9), *p = strstr(fmt, "next_pid;");
	static const int64_t states[] = { 1 };
	struct hvt_typed_event e[MAX];

	memcpy(p, "next_pix", 8);
	assert_int_equal(fx_write(*state, "host/ftrace/events/sched/sched_switch/format", fmt,
				  strlen(fmt)), 0);
	free(fmt);
	write_switches(*state, states, 1);
	assert_int_equal(decode_cpu0(*state, HVT_EV_BIT(HVT_EV_SCHED_SWITCH), true, e), 1);
	assert_int_equal(e[0].kind, HVT_EV_OTHER);
}

static void test_kvm_events(void **state)
{
	const struct fx_host_kvm_run runs[] = {
		{ 10, 7, true, 3 }, { 20, 7, false, 3 },
	};
	const struct fx_host_tsc_write writes[] = { { 30, 7, 1, 5, (uint64_t)-9 } };
	const struct fx_host_call calls[] = { { 40, 7, 0x5a5a, 11, 12, 13 } };
	const unsigned int all = HVT_EV_BIT(HVT_EV_KVM_ENTRY) | HVT_EV_BIT(HVT_EV_KVM_EXIT) |
				 HVT_EV_BIT(HVT_EV_KVM_TSC_OFFSET) |
				 HVT_EV_BIT(HVT_EV_KVM_HYPERCALL);
	struct hvt_typed_event e[MAX];

	assert_int_equal(fx_write_ftrace_kvm_runs(*state, "host/ftrace/cpu0.raw", PAGE, runs, 2),
			 0);
	assert_int_equal(fx_write_ftrace_tsc_writes(*state, "host/ftrace/cpu1.raw", PAGE, writes,
						    1), 0);
	assert_int_equal(fx_write_ftrace_calls(*state, "host/ftrace/cpu2.raw", PAGE, calls, 1), 0);
	assert_int_equal(decode_file(*state, "cpu0.raw", all, false, e), 2);
	assert_int_equal(e[0].kind, HVT_EV_KVM_ENTRY);
	assert_int_equal(e[0].kvm.vcpu, 3);
	assert_int_equal(e[1].kind, HVT_EV_KVM_EXIT);
	assert_int_equal(e[1].kvm.vcpu, 3);
	assert_int_equal(decode_file(*state, "cpu1.raw", all, false, e), 1);
	assert_int_equal(e[0].kind, HVT_EV_KVM_TSC_OFFSET);
	assert_int_equal(e[0].tsc_offset.vcpu, 1);
	assert_int_equal(e[0].tsc_offset.previous, 5);
	assert_int_equal(e[0].tsc_offset.next, (uint64_t)-9);
	assert_int_equal(decode_file(*state, "cpu2.raw", all, false, e), 1);
	assert_int_equal(e[0].kind, HVT_EV_KVM_HYPERCALL);
	assert_int_equal(e[0].hypercall.nr, 0x5a5a);
	assert_int_equal(e[0].hypercall.a[0], 11);
	assert_int_equal(e[0].hypercall.a[1], 12);
	assert_int_equal(e[0].hypercall.a[2], 13);
	assert_int_equal(e[0].hypercall.a[3], 0);
	/* only the hypercall asked for */
	assert_int_equal(decode_file(*state, "cpu0.raw", HVT_EV_BIT(HVT_EV_KVM_HYPERCALL), false,
				     e), 2);
	assert_int_equal(e[0].kind, HVT_EV_OTHER);
	assert_int_equal(e[1].kind, HVT_EV_OTHER);
	assert_int_equal(decode_file(*state, "cpu2.raw", HVT_EV_BIT(HVT_EV_KVM_HYPERCALL), false,
				     e), 1);
	assert_int_equal(e[0].kind, HVT_EV_KVM_HYPERCALL);
}

/*
 * The standard archive's guest kernel records (hvtrace.ko's sched_switch:
 * prev_tid, prev_state 0 for a preempted task) through the readers of a
 * session, as the analysis reads them, and its host records the same way.
 */
static void test_reader_formats(void **state)
{
	const struct fx_options o = { .ftrace = true };
	struct hvt_event_decoder d;
	struct hvt_typed_event e;
	struct fx_opened m;
	struct hvt_source *s;
	size_t guest = 0, host = 0;

	fx_rm_rf(*state);
	assert_int_equal(fx_standard_archive(*state, &o), 0);
	assert_int_equal(fx_open(&m, *state, false), 0);
	assert_int_equal(hvt_event_decoder_init(&d, HVT_EV_BIT(HVT_EV_SCHED_SWITCH), true), 0);
	while ((s = hvt_timeline_next(&m.tl))) {
		uint64_t prev, next, st;
		char comm[HVT_COMM_LEN];

		if (strcmp(hvt_source_event_name(s), "sched_switch")) {
			assert_int_equal(hvt_decode_reader(&d, &s->rd, &s->ev, &e), HVT_EV_OTHER);
			continue;
		}
		assert_int_equal(hvt_decode_reader(&d, &s->rd, &s->ev, &e), HVT_EV_SCHED_SWITCH);
		/* what the fields say by name, in each format's own spelling */
		if (s->layer == HVT_LAYER_HOST) {
			assert_int_equal(hvt_source_field_u64(s, "prev_pid", &prev), 0);
			assert_int_equal(hvt_source_field_u64(s, "next_pid", &next), 0);
			host++;
		} else {
			assert_int_equal(hvt_source_field_u64(s, "prev_tid", &prev), 0);
			assert_int_equal(hvt_source_field_u64(s, "next_tid", &next), 0);
			guest++;
		}
		assert_int_equal(hvt_source_field_u64(s, "prev_state", &st), 0);
		assert_int_equal(hvt_source_field_text(s, "next_comm", comm, sizeof(comm)), 0);
		assert_string_equal(e.sw.next_comm, comm);
		assert_int_equal(hvt_source_field_text(s, "prev_comm", comm, sizeof(comm)), 0);
		assert_string_equal(e.sw.prev_comm, comm);
		assert_int_equal(e.sw.prev, (int32_t)prev);
		assert_int_equal(e.sw.next, (int32_t)next);
		assert_int_equal(e.sw.prev_state, st);
		if (s->layer != HVT_LAYER_HOST) {
			assert_int_equal(e.sw.runnable, st == 0);
			assert_string_equal(e.sw.end_state, st == 0 ? "R" : st == 1 ? "S" : "?");
		}
	}
	assert_true(guest > 0);
	assert_true(host > 0);
	hvt_event_decoder_free(&d);
	fx_close(&m);
}

/*
 * QEMU's log: the I/O events' "NAME VALUE" arguments as numbers (decimal,
 * negative, 0x hex), each event name to its kind, read and write told
 * apart; a line whose number is not one, or lacks a field, is not decoded.
 */
static void test_qemu_log(void **state)
{
	static const char log[] =
		"100@1700000000.000001:virtio_blk_handle_write vdev 0x55d0 req 0x55e0 "
		"sector 16 nsectors 8\n"
		"100@1700000000.000002:thread_pool_submit pool 0x5f00 req 0x5f10 opaque 0x1\n"
		"101@1700000000.000003:thread_pool_complete pool 0x5f00 req 0x5f10 opaque 0x1 "
		"ret -5\n"
		"100@1700000000.000004:virtio_blk_req_complete vdev 0x55d0 req 0x55e0 status 0\n"
		"100@1700000000.000005:virtio_notify_irqfd vdev 0x55d0 vq 0x7f00\n"
		"100@1700000000.000006:virtio_blk_handle_read vdev 0x55d0 req 0x55e0 "
		"sector 18446744073709551615 nsectors 1\n"
		"100@1700000000.000007:virtio_blk_handle_read vdev 0x55d0 req 0xZZ "
		"sector 1 nsectors 1\n"
		"100@1700000000.000008:virtio_blk_handle_read vdev 0x55d0 sector 1 nsectors 1\n"
		"100@1700000000.000009:virtio_blk_handle_read vdev 0x55d0 req 0x1 "
		"sector 18446744073709551616 nsectors 1\n";
	enum hvt_ev_kind want[] = { HVT_EV_VIRTIO_BLK_HANDLE, HVT_EV_POOL_SUBMIT,
				    HVT_EV_POOL_COMPLETE, HVT_EV_VIRTIO_BLK_REQ_COMPLETE,
				    HVT_EV_VIRTIO_NOTIFY, HVT_EV_VIRTIO_BLK_HANDLE, HVT_EV_OTHER,
				    HVT_EV_OTHER, HVT_EV_OTHER };
	struct hvt_typed_event e[9];
	struct hvt_event_decoder d;
	struct hvt_reader_event ev;
	struct hvt_reader rd;
	unsigned long warnings = 0;
	char path[128];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/qemu.log", (const char *)*state);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(log, f);
	fclose(f);
	assert_int_equal(hvt_reader_open_qemu_log(&rd, path, "qemu.log", &warnings), 0);
	assert_int_equal(hvt_event_decoder_init(&d, ~0u, false), 0);
	while (hvt_reader_next(&rd, &ev) > 0) {
		assert_true(n < 9);
		assert_int_equal(hvt_decode_reader(&d, &rd, &ev, &e[n]), want[n]);
		n++;
	}
	assert_int_equal(n, 9);
	assert_true(e[0].qio.write && e[0].qio.dev == 0x55d0 && e[0].qio.req == 0x55e0);
	assert_true(e[0].qio.sector == 16 && e[0].qio.nr_sector == 8);
	assert_true(e[1].qio.dev == 0x5f00 && e[1].qio.req == 0x5f10);
	assert_true(e[2].qio.ret == -5);
	assert_true(e[3].qio.ret == 0 && e[3].qio.req == 0x55e0);
	assert_true(e[4].qio.dev == 0x55d0 && e[4].qio.req == 0x7f00 && e[4].qio.write);
	assert_true(!e[5].qio.write && e[5].qio.sector == UINT64_MAX);
	hvt_event_decoder_free(&d);
	hvt_reader_close(&rd);
	assert_int_equal(warnings, 0);
}

/*
 * QEMU's log is text: a damaged first line of an event (here without its
 * req) is not decoded, and the whole lines of that event after it are.
 */
static void test_qemu_log_first_line_damaged(void **state)
{
	static const char log[] =
		"100@1700000000.000001:virtio_blk_handle_read vdev 0x55d0 sector 8 nsectors 8\n"
		"100@1700000000.000002:virtio_blk_handle_read vdev 0x55d0 req 0x55e0 sector 16 "
		"nsectors 8\n";
	struct hvt_typed_event e[2];
	struct hvt_event_decoder d;
	struct hvt_reader_event ev;
	struct hvt_reader rd;
	unsigned long warnings = 0;
	char path[128];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/qemu.log", (const char *)*state);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(log, f);
	fclose(f);
	assert_int_equal(hvt_reader_open_qemu_log(&rd, path, "qemu.log", &warnings), 0);
	assert_int_equal(hvt_event_decoder_init(&d, ~0u, false), 0);
	while (hvt_reader_next(&rd, &ev) > 0 && n < 2) {
		hvt_decode_reader(&d, &rd, &ev, &e[n]);
		n++;
	}
	assert_int_equal(n, 2);
	assert_int_equal(e[0].kind, HVT_EV_OTHER);
	assert_int_equal(e[1].kind, HVT_EV_VIRTIO_BLK_HANDLE);
	assert_true(e[1].qio.sector == 16 && e[1].qio.req == 0x55e0);
	hvt_event_decoder_free(&d);
	hvt_reader_close(&rd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_switch_states, setup, teardown),
		cmocka_unit_test_setup_teardown(test_switch_states_old_kernel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_switch_state_not_printed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_field_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kvm_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reader_formats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_qemu_log, setup, teardown),
		cmocka_unit_test_setup_teardown(test_qemu_log_first_line_damaged, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
