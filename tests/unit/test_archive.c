// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_archive.c - reading hvtrace.json, info.json and the .tsv files: what
 * is valid is read exactly; a bad entry or line is skipped and counted; what
 * makes a file unusable is refused; no path ever leaves the archive.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/fileio.h"
#include "tests/unit/archive_fixture.h"
#include "tools/archive/archive.h"
#include "tools/archive/archive_path.h"

static int setup(void **state)
{
	char *root = calloc(1, 64);
	const struct fx_options o = { .ftrace = true };

	assert_int_equal(fx_mkdtemp(root, 64), 0);
	assert_int_equal(fx_standard_archive(root, &o), 0);
	*state = root;
	return 0;
}

static int teardown(void **state)
{
	fx_rm_rf(*state);
	free(*state);
	return 0;
}

static void test_names_paths_uuids(void **state)
{
	uint8_t u[16];

	(void)state;
	assert_true(hvt_relpath_ok("vm/demo"));
	assert_true(hvt_relpath_ok("kernel/stream-0"));
	assert_true(hvt_relpath_ok("a.b_c-d"));
	assert_false(hvt_relpath_ok(""));
	assert_false(hvt_relpath_ok("/etc/passwd"));
	assert_false(hvt_relpath_ok("../x"));
	assert_false(hvt_relpath_ok("a/../../x"));
	assert_false(hvt_relpath_ok("a/./b"));
	assert_false(hvt_relpath_ok("a//b"));
	assert_false(hvt_relpath_ok("a/"));
	assert_false(hvt_relpath_ok("a b"));
	assert_false(hvt_relpath_ok("a\nb"));
	assert_true(hvt_vm_name_ok("demo-1.x_y"));
	assert_false(hvt_vm_name_ok("a/b"));
	assert_false(hvt_vm_name_ok(".."));
	assert_false(hvt_vm_name_ok("0123456789012345678901234567890123456789012345678901234567890123X"));
	assert_true(hvt_vm_name_ok("..."));
	assert_true(hvt_relpath_ok(".../a"));
	/* one component: only its @len bytes count */
	assert_true(hvt_path_component_ok("ab/c", 2));
	assert_false(hvt_path_component_ok("../c", 2));
	assert_false(hvt_path_component_ok("ab", 0));
	assert_int_equal(hvt_uuid_parse("5c0f0102-0304-0506-0708-090a0b0c0d0e", u), 0);
	assert_int_equal(u[0], 0x5c);
	assert_int_equal(u[15], 0x0e);
	assert_int_equal(hvt_uuid_parse("5C0F0102030405060708090A0B0C0D0E", u), 0);
	assert_int_equal(u[1], 0x0f);
	assert_int_equal(hvt_uuid_parse("5c0f0102-0304-0506-0708-090a0b0c0d0", u), -1);
	assert_int_equal(hvt_uuid_parse("5c0f0102x0304-0506-0708-090a0b0c0d0e", u), -1);
	assert_int_equal(hvt_uuid_parse("5c0f0102-0304-0506-0708-090a0b0c0d0g", u), -1);
	assert_int_equal(hvt_uuid_parse("", u), -1);
}

static void test_standard_manifest(void **state)
{
	const char *root = *state;
	struct hvt_archive a;
	struct hvt_vm_info vm;

	assert_int_equal(hvt_archive_open(&a, root), 0);
	assert_true(a.complete);
	assert_int_equal(a.warnings, 0);
	assert_int_equal(a.nr_pairs, 3);
	assert_int_equal(a.pairs[1].mono_ns, FX_MONO0 + 1000000000ll);
	assert_int_equal(a.page_size, 4096);
	assert_int_equal(a.nr_cpus, 2);
	assert_int_equal(a.cpus[1].cpu, 1);
	assert_non_null(strstr(a.cpus[1].path, "/host/ftrace/cpu1.raw"));
	assert_int_equal(a.nr_vms, 1);
	assert_string_equal(a.vms[0].name, "demo");
	assert_int_equal(hvt_vm_info_load(&vm, &a.vms[0]), 0);
	assert_int_equal(vm.warnings + vm.sync_warnings, 0);
	assert_int_equal(vm.nr_traces, 2);
	assert_int_equal(vm.traces[1].layer, HVT_LAYER_USER);
	assert_int_equal(vm.traces[1].pid, 78);
	assert_int_equal(vm.traces[1].uuid[0], 0xaa);
	assert_string_equal(vm.traces[0].rel, "vm/demo/kernel");
	assert_int_equal(vm.nr_streams, 3);
	assert_int_equal(vm.streams[2].trace, 1);
	assert_int_equal(vm.streams[2].cpu, -1);
	assert_int_equal(vm.streams[2].tid, 78);
	assert_string_equal(vm.streams[2].rel, "vm/demo/user-1/stream-0");
	assert_int_equal(vm.nr_sync, 5);
	assert_int_equal(vm.sync[4].seq, 4);
	assert_true(vm.finished);
	assert_string_equal(vm.end_reason, "guest finished");
	hvt_vm_info_free(&vm);
	hvt_archive_close(&a);
}

static int open_with_manifest(const char *root, const char *host, const char *vms,
			      struct hvt_archive *a)
{
	assert_int_equal(fx_printf(root, "hvtrace.json", "{\"format\": \"hvtrace-archive\", "
				   "\"version\": 1, \"status\": \"complete\", \"host\": %s, "
				   "\"vms\": %s}", host, vms), 0);
	return hvt_archive_open(a, root);
}

#define HOST_OK "{\"clock\": \"x86-tsc\", \"clock_pairs\": \"host/clock.tsv\", \"ftrace\": null}"

static void test_bad_manifests(void **state)
{
	const char *root = *state;
	struct hvt_archive a;

	assert_int_equal(open_with_manifest(root, HOST_OK, "[]", &a), 0);
	assert_null(a.ftrace_dir);
	hvt_archive_close(&a);
	/* Refused outright. */
	assert_int_equal(open_with_manifest(root, "{}", "[]", &a), -1);
	assert_int_equal(open_with_manifest(root, HOST_OK, "{}", &a), -1);
	assert_int_equal(open_with_manifest(root, "{\"clock\": \"mono\", \"clock_pairs\": "
					    "\"host/clock.tsv\", \"ftrace\": null}", "[]", &a), -1);
	assert_int_equal(open_with_manifest(root, "{\"clock\": \"x86-tsc\", \"clock_pairs\": "
					    "\"../clock.tsv\", \"ftrace\": null}", "[]", &a), -1);
	assert_int_equal(open_with_manifest(root, "{\"clock\": \"x86-tsc\", \"clock_pairs\": "
					    "\"host/clock.tsv\", \"ftrace\": {\"dir\": \"host/ftrace\","
					    " \"page_size\": 1000, \"cpus\": []}}", "[]", &a), -1);
	assert_int_equal(fx_printf(root, "hvtrace.json", "{\"format\": \"hvtrace-archive\", "
				   "\"version\": 2, \"status\": \"complete\", \"host\": " HOST_OK
				   ", \"vms\": []}"), 0);
	assert_int_equal(hvt_archive_open(&a, root), -1);
	assert_int_equal(fx_printf(root, "hvtrace.json", "[1, 2]"), 0);
	assert_int_equal(hvt_archive_open(&a, root), -1);
	/* Bad entries are skipped. */
	assert_int_equal(open_with_manifest(root, HOST_OK,
					    "[{\"name\": \"a/b\", \"dir\": \"vm/x\"},"
					    " {\"name\": \"x\", \"dir\": \"/etc\"},"
					    " {\"name\": \"ok\", \"dir\": \"vm/ok\"},"
					    " {\"name\": \"ok\", \"dir\": \"vm/ok2\"}, 7]", &a), 0);
	assert_int_equal(a.nr_vms, 1);
	assert_int_equal(a.warnings, 5);	/* and the fixture's vm/demo, unlisted */
	hvt_archive_close(&a);
}

static void test_clock_tsv(void **state)
{
	const char *root = *state;
	struct hvt_archive a;

	assert_int_equal(fx_printf(root, "host/clock.tsv", "tsc\tmono_ns\trealtime_ns\tuncertainty\n"
				   "100\t1000\t5000\t1\n"
				   "oops\n"
				   "150\t-5\t5000\t1\n"		/* signed: not digits */
				   "120\t900\t5100\t1\n"		/* mono goes back */
				   "200\t2000\t6000\t1\t9\n"	/* extra column */
				   "300\t3000\t7000\t1\n"
				   "\n"
				   "400\t4000\t8000"),		/* cut short: no column, no newline */
			 0);
	assert_int_equal(open_with_manifest(root, HOST_OK, "[]", &a), 0);
	assert_int_equal(a.nr_pairs, 2);
	assert_int_equal(a.pairs[1].tsc, 300);
	assert_int_equal(a.warnings, 6);	/* and the fixture's vm/demo, unlisted */
	hvt_archive_close(&a);
	assert_int_equal(fx_printf(root, "host/clock.tsv", "tsc mono\n1\t2\t3\t4\n5\t6\t7\t8\n"), 0);
	assert_int_equal(open_with_manifest(root, HOST_OK, "[]", &a), -1);
	/* A line longer than any valid one is skipped whole, its rest not taken as a line. */
	{
		char longline[600];

		memset(longline, '7', sizeof(longline) - 1);
		longline[sizeof(longline) - 1] = '\0';
		assert_int_equal(fx_printf(root, "host/clock.tsv", "tsc\tmono_ns\trealtime_ns\t"
					   "uncertainty\n100\t1000\t5000\t1\n%s\n"
					   "300\t3000\t7000\t1\n", longline), 0);
	}
	assert_int_equal(open_with_manifest(root, HOST_OK, "[]", &a), 0);
	assert_int_equal(a.nr_pairs, 2);
	assert_int_equal(a.pairs[1].tsc, 300);
	assert_int_equal(a.warnings, 2);	/* and the fixture's vm/demo, unlisted */
	hvt_archive_close(&a);
}

static void test_info_json(void **state)
{
	const char *root = *state;
	struct hvt_vm_ref ref = { .name = "demo" };
	struct hvt_vm_info vm;
	char dir[128];

	snprintf(dir, sizeof(dir), "%s/vm/demo", root);
	ref.dir = dir;
	assert_int_equal(fx_printf(root, "vm/demo/info.json",
		"{\"name\": \"other\", \"sync\": {\"file\": \"sync.tsv\"}, \"traces\": ["
		" {\"id\": 0, \"layer\": \"kernel\", \"dir\": \"kernel\", \"domain\": \"guest_tsc\","
		"  \"freq_hz\": 1, \"uuid\": \"5c0f0102-0304-0506-0708-090a0b0c0d0e\"},"
		" {\"id\": 1, \"layer\": \"hypervisor\", \"dir\": \"x\", \"domain\": \"guest_tsc\","
		"  \"freq_hz\": 1, \"uuid\": \"5c0f0102-0304-0506-0708-090a0b0c0d0e\"},"
		" {\"id\": 2, \"layer\": \"user\", \"dir\": \"../../..\", \"domain\": \"guest_tsc\","
		"  \"freq_hz\": 1, \"uuid\": \"5c0f0102-0304-0506-0708-090a0b0c0d0e\"},"
		" {\"id\": 0, \"layer\": \"user\", \"dir\": \"u\", \"domain\": \"guest_tsc\","
		"  \"freq_hz\": 1, \"uuid\": \"5c0f0102-0304-0506-0708-090a0b0c0d0e\"}],"
		" \"streams\": ["
		" {\"id\": 0, \"trace\": 0, \"file\": \"kernel/stream-0\", \"cpu\": 0},"
		" {\"id\": 1, \"trace\": 1, \"file\": \"x/stream-0\"},"
		" {\"id\": 2, \"trace\": 0, \"file\": \"/etc/passwd\"},"
		" {\"id\": 0, \"trace\": 0, \"file\": \"kernel/stream-9\"},"
		" {\"id\": 3, \"trace\": 0, \"file\": \"kernel/stream-3\", \"cpu\": -7}]}"), 0);
	assert_int_equal(fx_printf(root, "vm/demo/sync.tsv", "seq\thost_send\tguest_recv\t"
				   "guest_send\thost_recv\tcpu_recv\tcpu_send\n"
				   "0\t1\t2\t3\t4\t0\t0\n0\t1\t2\n0\t1\t2\t3\t4\t0\t99999999999\n"), 0);
	assert_int_equal(hvt_vm_info_load(&vm, &ref), 0);
	/* name differs, 3 bad traces, 4 bad streams */
	assert_int_equal(vm.warnings, 8);
	assert_int_equal(vm.nr_traces, 1);
	assert_int_equal(vm.nr_streams, 1);
	assert_int_equal(vm.nr_sync, 1);
	assert_int_equal(vm.sync_warnings, 2);
	assert_null(vm.end_reason);
	assert_false(vm.finished);
	hvt_vm_info_free(&vm);
	/* Informational members are not judged: freq_hz, a stream's lost and closed. */
	assert_int_equal(fx_printf(root, "vm/demo/info.json", "{\"name\": \"demo\", \"sync\": "
		"{\"file\": \"sync.tsv\"}, \"traces\": ["
		" {\"id\": 0, \"layer\": \"kernel\", \"dir\": \"kernel\", \"domain\": \"guest_tsc\","
		"  \"freq_hz\": 0, \"uuid\": \"5c0f0102-0304-0506-0708-090a0b0c0d0e\"},"
		" {\"id\": 1, \"layer\": \"user\", \"dir\": \"user-1\", \"domain\": \"guest_tsc\","
		"  \"uuid\": \"5c0f0102-0304-0506-0708-090a0b0c0d0e\"}],"
		" \"streams\": [{\"id\": 0, \"trace\": 0, \"file\": \"kernel/stream-0\","
		" \"lost\": -1, \"closed\": 3}]}"), 0);
	assert_int_equal(hvt_vm_info_load(&vm, &ref), 0);
	assert_int_equal(vm.warnings, 0);
	assert_int_equal(vm.nr_traces, 2);
	assert_int_equal(vm.nr_streams, 1);
	assert_false(vm.streams[0].closed);	/* closed only where it says true */
	hvt_vm_info_free(&vm);
	/*
	 * An impossible count of untraced threads (negative: no collector
	 * writes it) keeps its trace, its streams readable, and counts as the
	 * most there can be, with a warning.
	 */
	assert_int_equal(fx_printf(root, "vm/demo/info.json", "{\"name\": \"demo\", \"sync\": "
		"{\"file\": \"sync.tsv\"}, \"traces\": ["
		" {\"id\": 0, \"layer\": \"kernel\", \"dir\": \"kernel\", \"domain\": \"guest_tsc\","
		"  \"uuid\": \"5c0f0102-0304-0506-0708-090a0b0c0d0e\"},"
		" {\"id\": 1, \"layer\": \"user\", \"dir\": \"user-1\", \"domain\": \"guest_tsc\","
		"  \"uuid\": \"5c0f0102-0304-0506-0708-090a0b0c0d0e\", \"untraced_threads\": -5},"
		" {\"id\": 2, \"layer\": \"user\", \"dir\": \"user-2\", \"domain\": \"guest_tsc\","
		"  \"uuid\": \"5c0f0102-0304-0506-0708-090a0b0c0d0e\", \"untraced_threads\": 7}],"
		" \"streams\": [{\"id\": 0, \"trace\": 1, \"file\": \"user-1/stream-0\"}]}"), 0);
	assert_int_equal(hvt_vm_info_load(&vm, &ref), 0);
	assert_int_equal(vm.nr_traces, 3);
	assert_int_equal(vm.nr_streams, 1);
	assert_int_equal(vm.warnings, 1);
	assert_true(vm.untraced_threads == UINT64_MAX);	/* saturated, not wrapped */
	hvt_vm_info_free(&vm);
	/*
	 * Copies of an exchange (the same host send time) are damage: each is
	 * skipped and counted, the first kept (they cost the estimator a pass
	 * each: 100 k copies took 15 s to merge).
	 */
	{
		char rows[64 * 1024];
		size_t len = (size_t)snprintf(rows, sizeof(rows), "%s",
			"seq\thost_send\tguest_recv\tguest_send\thost_recv\tcpu_recv\tcpu_send\n"
			"0\t10\t20\t30\t40\t0\t0\n1\t50\t60\t70\t80\t0\t0\n");
		int i;

		for (i = 0; i < 2000; i++)
			len += (size_t)snprintf(rows + len, sizeof(rows) - len,
						"1\t50\t61\t71\t81\t0\t0\n");
		snprintf(rows + len, sizeof(rows) - len, "2\t90\t100\t110\t120\t0\t0\n");
		assert_int_equal(fx_printf(root, "vm/demo/sync.tsv", "%s", rows), 0);
	}
	assert_int_equal(hvt_vm_info_load(&vm, &ref), 0);
	assert_int_equal(vm.nr_sync, 3);
	assert_int_equal(vm.sync_warnings, 2000);
	assert_int_equal(vm.sync[1].ex.guest_recv, 60);	/* the first of the copies */
	assert_int_equal(vm.sync[2].seq, 2);
	hvt_vm_info_free(&vm);
	/* No sync.tsv: loaded, with a sync warning. */
	assert_int_equal(fx_printf(root, "vm/demo/info.json", "{\"name\": \"demo\", \"sync\": "
				   "{\"file\": \"nosuch.tsv\"}, \"traces\": [], \"streams\": []}"), 0);
	assert_int_equal(hvt_vm_info_load(&vm, &ref), 0);
	assert_int_equal(vm.sync_warnings, 1);
	assert_int_equal(vm.nr_sync, 0);
	hvt_vm_info_free(&vm);
	/* Unusable. */
	assert_int_equal(fx_printf(root, "vm/demo/info.json", "{\"name\": \"demo\"}"), 0);
	assert_int_equal(hvt_vm_info_load(&vm, &ref), -1);
	assert_int_equal(fx_printf(root, "vm/demo/info.json", "{\"name\": \"demo\", \"sync\": "
				   "{\"file\": \"../sync.tsv\"}, \"traces\": [], \"streams\": []}"), 0);
	assert_int_equal(hvt_vm_info_load(&vm, &ref), -1);
	assert_int_equal(fx_write(root, "vm/demo/info.json", "{\"a\": 1, \"a\": 2}", 16), 0);
	assert_int_equal(hvt_vm_info_load(&vm, &ref), -1);
}

/* A member that is missing or of another type is named (jansson's own text does not). */
static void test_json_why(void **state)
{
	json_t *j = json_loads("{\"format\": \"hvtrace-archive\", \"version\": \"1\", "
			       "\"host\": {\"clock\": 7}, \"n\": 1.5}", 0, NULL);
	const char *spec = "format:s version:I host:o host.clock:s ?host.tsc_freq_hz:I";
	char buf[160];

	(void)state;
	assert_non_null(j);
	assert_string_equal(hvt_json_why(j, spec, buf, sizeof(buf)),
			    "\"version\" is a string, not an integer");
	json_object_set_new(j, "version", json_integer(1));
	assert_string_equal(hvt_json_why(j, spec, buf, sizeof(buf)),
			    "\"host.clock\" is an integer, not a string");
	json_object_set_new(json_object_get(j, "host"), "clock", json_string("x86-tsc"));
	assert_null(hvt_json_why(j, spec, buf, sizeof(buf)));	/* the optional may be absent */
	assert_string_equal(hvt_json_why(j, "vms:o", buf, sizeof(buf)), "no \"vms\"");
	assert_string_equal(hvt_json_why(j, "n:I", buf, sizeof(buf)),
			    "\"n\" is a number with a fraction, not an integer");
	assert_string_equal(hvt_json_why(j, "host.missing.deeper:s", buf, sizeof(buf)),
			    "no \"host.missing.deeper\"");
	json_decref(j);
}

/* A VM folder the manifest does not list is data no one reads: a warning. */
static void test_unlisted_vm(void **state)
{
	const char *root = *state;
	struct hvt_archive a;

	assert_int_equal(fx_write(root, "vm/ghost/info.json", "{}", 2), 0);
	assert_int_equal(hvt_archive_open(&a, root), 0);
	assert_int_equal(a.nr_vms, 1);
	assert_int_equal(a.warnings, 1);
	hvt_archive_close(&a);
}

/*
 * Files no entry lists are data no one reads: a host CPU file hvtrace.json
 * does not list, a stream file or a trace directory a finished VM's
 * info.json does not list, each a warning. While the guest traces, a
 * stream's file comes before its entry: not judged.
 */
static void test_unlisted_files(void **state)
{
	const char *root = *state;
	struct hvt_vm_info vm;
	struct hvt_archive a;
	char path[256], *info, *at;
	size_t len;

	assert_int_equal(fx_write(root, "host/ftrace/cpu5.raw", "", 0), 0);
	assert_int_equal(fx_write(root, "host/ftrace/cpu5.raw.bak", "", 0), 0);
	assert_int_equal(fx_write(root, "vm/demo/kernel/stream-7", "", 0), 0);
	assert_int_equal(fx_write(root, "vm/demo/user-9/stream-0", "", 0), 0);
	assert_int_equal(hvt_archive_open(&a, root), 0);
	assert_int_equal(a.warnings, 1);
	assert_int_equal(hvt_vm_info_load(&vm, &a.vms[0]), 0);
	assert_true(vm.finished);
	assert_int_equal(vm.warnings, 2);
	hvt_vm_info_free(&vm);
	/* the same VM still tracing */
	snprintf(path, sizeof(path), "%s/vm/demo/info.json", root);
	assert_int_equal(hvt_read_file(path, 1 << 20, &info, &len), 0);
	at = strstr(info, "\"finished\": true");
	assert_non_null(at);
	memcpy(at, "\"finished\":false", 16);
	assert_int_equal(fx_write(root, "vm/demo/info.json", info, len), 0);
	free(info);
	assert_int_equal(hvt_vm_info_load(&vm, &a.vms[0]), 0);
	assert_false(vm.finished);
	assert_int_equal(vm.warnings, 0);
	hvt_vm_info_free(&vm);
	hvt_archive_close(&a);
}

/*
 * A stream entry info.json cannot read leaves its file unlisted: one
 * problem, one warning (the entry's), and the file is said not read.
 */
static void test_skipped_stream_entry_counted_once(void **state)
{
	const char *root = *state;
	struct hvt_vm_info vm;
	struct hvt_archive a;
	char path[256], *info, *at;
	size_t len;

	snprintf(path, sizeof(path), "%s/vm/demo/info.json", root);
	assert_int_equal(hvt_read_file(path, 1 << 20, &info, &len), 0);
	at = strstr(info, "\"file\": \"kernel/stream-0\"");
	assert_non_null(at);
	memcpy(at, "\"file\": \"kernel/../../x.\"", 25);	/* same length, refused */
	assert_int_equal(fx_write(root, "vm/demo/info.json", info, len), 0);
	free(info);
	assert_int_equal(hvt_archive_open(&a, root), 0);
	assert_int_equal(hvt_vm_info_load(&vm, &a.vms[0]), 0);
	assert_int_equal(vm.streams_skipped, 1);
	assert_int_equal(vm.warnings, 1);
	hvt_vm_info_free(&vm);
	hvt_archive_close(&a);
}

/* The host span: the clock pairs' with 60 s at their rate around; none from damaged pairs. */
static void test_host_span(void **state)
{
	const char *root = *state;
	struct hvt_archive a;
	uint64_t lo = 1, hi = 1;

	assert_int_equal(hvt_archive_open(&a, root), 0);
	assert_true(a.complete);
	assert_true(hvt_archive_host_span(&a, &lo, &hi));
	assert_int_equal(lo, 0);	/* FX_T0 is less than 60 s of 2 GHz */
	assert_int_equal(hi, FX_T0 + 4000000000ull + 60ull * 2000000000ull);
	a.complete = false;		/* while it records: open at the end */
	assert_true(hvt_archive_host_span(&a, &lo, &hi));
	assert_int_equal(hi, UINT64_MAX);
	a.pairs[1].tsc = a.pairs[0].tsc;	/* the TSC stood still: damage */
	a.nr_pairs = 2;
	assert_false(hvt_archive_host_span(&a, &lo, &hi));
	hvt_archive_close(&a);
}

/*
 * Exchanges no clock of the recording could have made are damage: one
 * far past the recording's host time, one on a guest CPU the guest does
 * not have (it has 2). Skipped, one warning per kind, the rest kept.
 */
static void test_impossible_exchanges_skipped(void **state)
{
	const char *root = *state;
	struct hvt_vm_info vm;
	struct hvt_archive a;
	char path[256], *text, row[256];
	size_t len;
	uint64_t far = FX_T0 + 1000000000000000ull, near = FX_T0 + 1000000ull;

	snprintf(path, sizeof(path), "%s/vm/demo/sync.tsv", root);
	assert_int_equal(hvt_read_file(path, 1 << 20, &text, &len), 0);
	text = realloc(text, len + sizeof(row) * 2);
	assert_non_null(text);
	len += (size_t)snprintf(text + len, sizeof(row), "90\t%llu\t%llu\t%llu\t%llu\t0\t0\n",
				(unsigned long long)far, (unsigned long long)far + 100,
				(unsigned long long)far + 110, (unsigned long long)far + 210);
	len += (size_t)snprintf(text + len, sizeof(row), "91\t%llu\t%llu\t%llu\t%llu\t5\t0\n",
				(unsigned long long)near,
				(unsigned long long)(near + 100 + FX_OFFSET),
				(unsigned long long)(near + 110 + FX_OFFSET),
				(unsigned long long)near + 210);
	assert_int_equal(fx_write(root, "vm/demo/sync.tsv", text, len), 0);
	free(text);
	assert_int_equal(hvt_archive_open(&a, root), 0);
	assert_int_equal(hvt_vm_info_load(&vm, &a.vms[0]), 0);
	assert_int_equal(vm.nr_sync, 5);
	assert_int_equal(vm.sync_warnings, 2);
	assert_int_equal(vm.sync[4].seq, 4);
	hvt_vm_info_free(&vm);
	hvt_archive_close(&a);
}

/* Says what a path given as an archive is: @expect in its text, or NULL: may be one. */
static void assert_misgiven(const char *root, const char *rel, const char *expect)
{
	char path[256], why[8192];
	const char *said;

	snprintf(path, sizeof(path), "%s%s%s", root, *rel ? "/" : "", rel);
	said = hvt_archive_path_misgiven(path, why, sizeof(why));
	if (!expect) {
		if (said)
			fail_msg("%s: said '%s'", path, said);
		return;
	}
	if (!said || !strstr(said, expect))
		fail_msg("%s: said '%s', not '%s'", path, said ? said : "(nothing)", expect);
}

static void test_misgiven_paths(void **state)
{
	const char *root = *state;
	char real[4096], expect[4300], why[256];

	assert_non_null(realpath(root, real));
	assert_misgiven(root, "", NULL);
	assert_misgiven(root, "nosuch", ": No such file or directory");
	snprintf(expect, sizeof(expect), "is the folder vm/demo inside the archive %s: give the "
		 "archive itself (to see that VM alone: hvtrace merge or analyze ARCHIVE --vm demo)", real);
	assert_misgiven(root, "vm/demo", expect);
	snprintf(expect, sizeof(expect), "is the file vm/demo/kernel/stream-0 inside the archive "
		 "%s: give the archive itself (to see that VM alone: hvtrace merge or analyze ARCHIVE --vm demo)", real);
	assert_misgiven(root, "vm/demo/kernel/stream-0", expect);
	assert_misgiven(root, "host", "is the folder host inside the archive");
	assert_misgiven(root, "vm/demo/kernel", "is the folder vm/demo/kernel inside the archive");
	/* a trace.dat kept in the archive is one; a database, a CTF trace, a plain folder */
	assert_int_equal(fx_write(root, "guest.dat", "\027\010\104tracing6\0", 12), 0);
	assert_misgiven(root, "guest.dat", NULL);
	assert_int_equal(fx_write(root, "out/x.db", "SQLite format 3\0...", 19), 0);
	assert_misgiven(root, "out/x.db", "is an SQLite database (merge --format=sqlite writes "
			"these), not an archive: ask it with hvtrace sql ");
	assert_int_equal(fx_write(root, "out/ctf/metadata", "/* CTF 1.8 */\n", 14), 0);
	assert_misgiven(root, "out/ctf", "is a CTF trace, not an hvtrace archive");
	assert_misgiven(root, "out/ctf/metadata", "is the metadata of a CTF trace");
	assert_misgiven("/", "", "is a directory without hvtrace.json: not an hvtrace archive");
	assert_string_equal(hvt_archive_path_misgiven("", why, sizeof(why)),
			    "the archive's path is empty: name an archive directory");
	/* a typo of an archive's name: the archive named */
	{
		char typo[300];

		snprintf(typo, sizeof(typo), "%sx", root);
		snprintf(expect, sizeof(expect), "%s: No such file or directory; did you mean %s?",
			 typo, root);
		assert_string_equal(hvt_archive_path_misgiven(typo, why, sizeof(why)), expect);
	}
	/* a folder of eleven archives (not in one): eight named, the rest counted */
	{
		char rel[64], many[256];
		int i;

		assert_int_equal(fx_mkdtemp(many, sizeof(many)), 0);
		for (i = 0; i < 11; i++) {
			snprintf(rel, sizeof(rel), "a%d/hvtrace.json", i);
			assert_int_equal(fx_write(many, rel, "{}", 2), 0);
		}
		assert_misgiven(many, "", "; it holds archives: ");
		assert_misgiven(many, "", " and 3 more");
		fx_rm_rf(many);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_paths_uuids),
		cmocka_unit_test(test_json_why),
		cmocka_unit_test_setup_teardown(test_standard_manifest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_manifests, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clock_tsv, setup, teardown),
		cmocka_unit_test_setup_teardown(test_info_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_misgiven_paths, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unlisted_vm, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unlisted_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_skipped_stream_entry_counted_once, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_host_span, setup, teardown),
		cmocka_unit_test_setup_teardown(test_impossible_exchanges_skipped, setup, teardown),
	};

	return cmocka_run_group_tests_name("archive", tests, NULL, NULL);
}
