// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_kvm_model.c - the exact KVM timeline per vCPU (tools/align/kvm_model.c) from a
 * synthetic archive: kvm_write_tsc_offset records in the host layer and
 * debugfs snapshots in vm/demo/kvm_tsc.tsv. Which source is used where, the
 * scaling ratio, every disagreement found, and bad input refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/archive_format.h"
#include "tests/unit/archive_fixture.h"
#include "tools/align/kvm_model.h"

#define OFF_A	((uint64_t)-5000000)		/* vcpu 0 before its change */
#define OFF_B	((uint64_t)-9000000)		/* ... after */
#define OFF_C	123456ull			/* vcpu 1 before its change */
#define OFF_D	((uint64_t)-77ll)		/* ... after */
#define RATIO	((1ull << 48) + (1ull << 40))	/* guest TSC ~0.4% faster */
#define T_CH0	(FX_T0 + 1000)			/* vcpu 0's change */
#define T_CH1	(FX_T0 + 2000)			/* vcpu 1's change */

struct fx {
	char root[64];
	struct hvt_archive a;
	struct hvt_ftrace *ft;
	struct hvt_kvm_changes changes;
	struct hvt_vm_info vm;
	struct hvt_kvm_model m;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	const struct fx_options o = { .ftrace = true };

	assert_non_null(f);
	assert_int_equal(fx_mkdtemp(f->root, sizeof(f->root)), 0);
	assert_int_equal(fx_standard_archive(f->root, &o), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	hvt_kvm_model_free(&f->m);
	hvt_kvm_changes_free(&f->changes);
	if (f->ft)
		hvt_ftrace_close(f->ft);
	if (f->vm.dir)
		hvt_vm_info_free(&f->vm);
	if (f->a.root)
		hvt_archive_close(&f->a);
	fx_rm_rf(f->root);
	free(f);
	return 0;
}

static void write_changes(struct fx *f, const struct fx_host_tsc_write *ev, size_t n)
{
	assert_int_equal(fx_write_ftrace_tsc_writes(f->root, "host/ftrace/cpu0.raw", 4096, ev, n),
			 0);
}

/* Header plus @rows, each "before after source vm_fd vcpu offset ratio frac". */
static void write_snapshots(struct fx *f, const char *rows)
{
	assert_int_equal(fx_printf(f->root, "vm/demo/kvm_tsc.tsv", "%s\n%s",
				   HVT_KVM_TSC_TSV_HEADER, rows), 0);
}

static void build(struct fx *f)
{
	unsigned long warnings = 0;

	assert_int_equal(hvt_archive_open(&f->a, f->root), 0);
	f->ft = hvt_ftrace_open(f->a.ftrace_dir, f->a.page_size, &warnings);
	assert_non_null(f->ft);
	assert_int_equal(hvt_kvm_changes_read(&f->a, f->ft, &f->changes), 0);
	assert_int_equal(hvt_vm_info_load(&f->vm, &f->a.vms[0]), 0);
	assert_int_equal(hvt_kvm_model_build(&f->m, &f->vm, &f->changes), 0);
}

static void assert_segment(const struct hvt_kvm_vcpu *v, size_t i, uint64_t start,
			   uint64_t offset, uint64_t ratio, uint32_t frac,
			   enum hvt_tsc_source src)
{
	assert_true(i < v->tl.n);
	assert_int_equal(v->tl.seg[i].host_start, start);
	assert_int_equal(v->tl.seg[i].x.offset, offset);
	assert_int_equal(v->tl.seg[i].x.ratio, ratio);
	assert_int_equal(v->tl.seg[i].x.frac, frac);
	assert_int_equal(v->tl.seg[i].source, src);
}

/*
 * vcpu 0: a debugfs snapshot (with a ratio) before its change, and one after
 * that agrees; vcpu 1: no snapshot, so its change's previous offset starts
 * its timeline, unscaled. Nothing disagrees.
 */
static void test_sources_used(void **state)
{
	struct fx *f = *state;
	const struct fx_host_tsc_write ev[] = {
		{ T_CH0, 4321, 0, OFF_A, OFF_B },
		{ T_CH1, 4322, 1, OFF_C, OFF_D },
	};
	char rows[512];
	const struct hvt_kvm_vcpu *v0, *v1;

	write_changes(f, ev, 2);
	snprintf(rows, sizeof(rows),
		 "%llu\t%llu\t2\t11\t0\t%llu\t%llu\t48\n"
		 "%llu\t%llu\t2\t11\t0\t%llu\t%llu\t48\n",
		 FX_T0 + 100, FX_T0 + 110, (unsigned long long)OFF_A, RATIO,
		 FX_T0 + 3000, FX_T0 + 3010, (unsigned long long)OFF_B, RATIO);
	write_snapshots(f, rows);
	build(f);
	assert_null(f->m.unusable);
	assert_int_equal(f->changes.n, 2);
	assert_int_equal(f->m.nr_vcpus, 2);
	v0 = hvt_kvm_model_vcpu(&f->m, 0);
	v1 = hvt_kvm_model_vcpu(&f->m, 1);
	assert_non_null(v0);
	assert_non_null(v1);
	assert_null(hvt_kvm_model_vcpu(&f->m, 2));

	assert_int_equal(v0->tl.n, 2);
	assert_segment(v0, 0, 0, OFF_A, RATIO, 48, HVT_TSC_SRC_DEBUGFS);
	assert_segment(v0, 1, T_CH0, OFF_B, RATIO, 48, HVT_TSC_SRC_TRACEPOINT);
	assert_int_equal(v0->changes, 1);
	assert_int_equal(v0->readings, 2);
	assert_int_equal(v0->disagreements, 0);
	/* KVM's own transform, with the ratio from debugfs. */
	assert_int_equal(hvt_tsc_timeline_to_guest(&v0->tl, T_CH0 + 500),
			 (uint64_t)(((unsigned __int128)(T_CH0 + 500) * RATIO) >> 48) + OFF_B);

	assert_int_equal(v1->tl.n, 2);
	assert_segment(v1, 0, 0, OFF_C, 1, 0, HVT_TSC_SRC_TRACEPOINT);
	assert_segment(v1, 1, T_CH1, OFF_D, 1, 0, HVT_TSC_SRC_TRACEPOINT);
	assert_int_equal(v1->disagreements, 0);
	assert_int_equal(hvt_tsc_timeline_to_guest(&v1->tl, T_CH1 - 1), T_CH1 - 1 + OFF_C);
}

/*
 * A stale snapshot after the change and a change whose previous offset is
 * not what the timeline had: two disagreements, the earliest kept. A ratio
 * read later is the segment's own (no disagreement), and a snapshot taken
 * across the change is not judged.
 */
static void test_disagreements(void **state)
{
	struct fx *f = *state;
	const struct fx_host_tsc_write ev[] = {
		{ T_CH0, 4321, 0, OFF_A, OFF_B },
		{ T_CH1, 4321, 0, OFF_C, OFF_D },	/* prev should be OFF_B */
	};
	char rows[512];
	const struct hvt_kvm_vcpu *v0;

	write_changes(f, ev, 2);
	snprintf(rows, sizeof(rows),
		 "%llu\t%llu\t2\t11\t0\t%llu\t0\t0\n"		/* before: agrees */
		 "%llu\t%llu\t2\t11\t0\t%llu\t0\t0\n"		/* across T_CH0: not judged */
		 "%llu\t%llu\t2\t11\t0\t%llu\t0\t0\n"		/* stale: says OFF_A */
		 "%llu\t%llu\t2\t11\t0\t%llu\t%llu\t48\n",	/* a ratio appears */
		 FX_T0 + 100, FX_T0 + 110, (unsigned long long)OFF_A,
		 T_CH0 - 5, T_CH0 + 5, (unsigned long long)OFF_A,
		 T_CH0 + 300, T_CH0 + 310, (unsigned long long)OFF_A,
		 T_CH1 + 300, T_CH1 + 310, (unsigned long long)OFF_D, RATIO);
	write_snapshots(f, rows);
	build(f);
	v0 = hvt_kvm_model_vcpu(&f->m, 0);
	assert_non_null(v0);
	assert_int_equal(v0->tl.n, 3);
	assert_segment(v0, 2, T_CH1, OFF_D, RATIO, 48, HVT_TSC_SRC_TRACEPOINT);
	assert_int_equal(v0->readings, 4);
	/* stale snapshot, wrong previous offset; the ratio is the segment's own */
	assert_int_equal(v0->disagreements, 2);
	assert_int_equal(v0->first.host, T_CH0 + 300);
	assert_int_equal(v0->first.source, HVT_TSC_SRC_DEBUGFS);
	assert_int_equal(v0->first.said, OFF_A);
	assert_int_equal(v0->first.used, OFF_B);
	assert_false(v0->first.ratio);
	/* The segments before the ratio was read take the first ratio seen. */
	assert_segment(v0, 0, 0, OFF_A, RATIO, 48, HVT_TSC_SRC_DEBUGFS);
}

static void test_unusable(void **state)
{
	struct fx *f = *state;
	char rows[256];

	/* Two VM fds in one process: vCPU ids are ambiguous. */
	snprintf(rows, sizeof(rows), "%llu\t%llu\t2\t11\t0\t5\t0\t0\n"
		 "%llu\t%llu\t2\t12\t0\t6\t0\t0\n", FX_T0, FX_T0 + 1, FX_T0 + 2, FX_T0 + 3);
	write_snapshots(f, rows);
	build(f);
	assert_non_null(f->m.unusable);
	assert_non_null(strstr(f->m.unusable, "several KVM VMs"));
	assert_int_equal(f->m.nr_vcpus, 0);
}

/* A kvm_tsc.tsv that cannot be used at all: no exact model, but no error either. */
static void test_unreadable_file(void **state)
{
	struct fx *f = *state;

	assert_int_equal(fx_printf(f->root, "vm/demo/kvm_tsc.tsv", "not a header\n1\t2\n"), 0);
	build(f);
	assert_non_null(f->m.unusable);
	assert_non_null(strstr(f->m.unusable, "cannot be read"));
	assert_int_equal(f->m.nr_vcpus, 0);
}

static void test_nothing_recorded(void **state)
{
	struct fx *f = *state;

	build(f);	/* no kvm_tsc.tsv, no change in the host layer */
	assert_int_equal(f->m.nr_readings, 0);
	assert_non_null(f->m.unusable);
	assert_int_equal(f->m.nr_vcpus, 0);
}

/* Out-of-range lines are skipped and counted; the good one is kept. */
static void test_bad_lines(void **state)
{
	struct fx *f = *state;
	char rows[512];

	snprintf(rows, sizeof(rows),
		 "%llu\t%llu\t3\t11\t0\t5\t0\t0\n"	/* unknown source */
		 "%llu\t%llu\t2\t11\t0\t5\t0\t0\n"	/* after < before */
		 "%llu\t%llu\t2\t11\t0\t5\t7\t64\n"	/* frac > 63 */
		 "%llu\t%llu\t2\t11\t0\t5\t0\t48\n"	/* frac without ratio */
		 "%llu\t%llu\t2\t11\t70000\t5\t0\t0\n"	/* vCPU id out of range */
		 "%llu\t%llu\t2\t11\t0\t-5\t0\t0\n"	/* not unsigned decimal */
		 "%llu\t%llu\t2\t11\t1\t5\t0\t0\n",	/* good */
		 FX_T0, FX_T0, FX_T0 + 9, FX_T0, FX_T0, FX_T0, FX_T0, FX_T0, FX_T0, FX_T0,
		 FX_T0, FX_T0, FX_T0, FX_T0);
	write_snapshots(f, rows);
	build(f);
	assert_int_equal(f->m.warnings, 6);
	assert_int_equal(f->m.nr_readings, 1);
	assert_int_equal(f->m.nr_vcpus, 1);
	assert_int_equal(f->m.vcpus[0].id, 1);
	assert_segment(&f->m.vcpus[0], 0, 0, 5, 1, 0, HVT_TSC_SRC_DEBUGFS);
}

/* Converted by hand: KVM's formula. */
static uint64_t to_guest(uint64_t host, uint64_t offset)
{
	return (uint64_t)(((unsigned __int128)host * RATIO) >> 48) + offset;
}

/*
 * Exchanges judged against the model in the guest's domain, exactly: a
 * receive stamp equal to the guest TSC at the host's send passes, one tick
 * less fails; a send stamp one tick past the guest TSC at the host's receive
 * fails; an exchange across a change is exempt; a CPU the model cannot place
 * fails.
 */
static void test_exchanges_against_model(void **state)
{
	struct fx *f = *state;
	const struct fx_host_tsc_write ev[] = {
		{ T_CH0, 4321, 0, OFF_A, OFF_B },
		{ T_CH0, 4322, 1, OFF_A, OFF_B },
	};
	char rows[512];
	struct hvt_sync_rec recs[4];
	size_t exempt;
	const uint64_t hs = T_CH0 + 100, hr = T_CH0 + 300;

	write_changes(f, ev, 2);
	snprintf(rows, sizeof(rows), "%llu\t%llu\t2\t11\t0\t%llu\t%llu\t48\n"
		 "%llu\t%llu\t2\t11\t1\t%llu\t%llu\t48\n",
		 FX_T0 + 100, FX_T0 + 110, (unsigned long long)OFF_A, RATIO,
		 FX_T0 + 100, FX_T0 + 110, (unsigned long long)OFF_A, RATIO);
	write_snapshots(f, rows);
	build(f);
	assert_non_null(hvt_kvm_model_common(&f->m));
	assert_ptr_equal(hvt_kvm_model_stream(&f->m, 1), hvt_kvm_model_common(&f->m));
	assert_ptr_equal(hvt_kvm_model_stream(&f->m, 7), hvt_kvm_model_common(&f->m));

	memset(recs, 0, sizeof(recs));
	/* tight both ways, after the change, on vCPU 1 */
	recs[0] = (struct hvt_sync_rec){ 0, { hs, to_guest(hs, OFF_B), to_guest(hr, OFF_B), hr },
					 1, 1 };
	/* across the change: exempt whatever it says */
	recs[1] = (struct hvt_sync_rec){ 1, { T_CH0 - 10, 0, 0, T_CH0 + 10 }, 0, 0 };
	recs[2] = recs[0];
	recs[2].seq = 2;
	assert_null(hvt_kvm_model_first_violation(&f->m, recs, 3, &exempt));
	assert_int_equal(exempt, 1);

	recs[2].ex.guest_recv--;		/* received before the host sent */
	assert_ptr_equal(hvt_kvm_model_first_violation(&f->m, recs, 3, &exempt), &recs[2]);
	recs[2] = recs[0];
	recs[2].ex.guest_send++;		/* sent after the host received */
	assert_ptr_equal(hvt_kvm_model_first_violation(&f->m, recs, 3, &exempt), &recs[2]);
	/* before the change the old offset holds */
	recs[3] = (struct hvt_sync_rec){ 3, { FX_T0 + 200, to_guest(FX_T0 + 200, OFF_A),
					      to_guest(FX_T0 + 400, OFF_A), FX_T0 + 400 }, 0, 0 };
	assert_null(hvt_kvm_model_first_violation(&f->m, recs + 3, 1, &exempt));
	recs[3].cpu_recv = 1u << 31;		/* no such CPU */
	assert_ptr_equal(hvt_kvm_model_first_violation(&f->m, recs + 3, 1, &exempt), &recs[3]);
}

/* vCPUs that differ: no common timeline, per-CPU streams take their own. */
static void test_vcpus_differ(void **state)
{
	struct fx *f = *state;
	const struct fx_host_tsc_write ev[] = { { T_CH0, 4321, 0, OFF_A, OFF_B } };
	char rows[256];

	write_changes(f, ev, 1);
	snprintf(rows, sizeof(rows), "%llu\t%llu\t2\t11\t1\t%llu\t0\t0\n", FX_T0 + 100,
		 FX_T0 + 110, (unsigned long long)OFF_A);
	write_snapshots(f, rows);
	build(f);
	assert_null(hvt_kvm_model_common(&f->m));
	assert_ptr_equal(hvt_kvm_model_stream(&f->m, 0), &hvt_kvm_model_vcpu(&f->m, 0)->tl);
	assert_ptr_equal(hvt_kvm_model_stream(&f->m, 1), &hvt_kvm_model_vcpu(&f->m, 1)->tl);
	assert_null(hvt_kvm_model_stream(&f->m, 2));
	assert_null(hvt_kvm_model_stream(&f->m, -1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sources_used, setup, teardown),
		cmocka_unit_test_setup_teardown(test_disagreements, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unusable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nothing_recorded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exchanges_against_model, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vcpus_differ, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
