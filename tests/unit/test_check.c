// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_check.c - `hvtrace check`: the sync-causal verdict on a consistent and
 * an inconsistent sync.tsv, the PASS/FAIL lines and summary of whole
 * archives (sound, damaged, without clock exchanges, unreadable, empty) and
 * the exit statuses.
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
#include "tests/unit/cmd_capture.h"
#include "tools/archive.h"
#include "tools/check.h"
#include "tools/commands.h"
#include "tools/timeline.h"

struct ctx {
	char root[64];
	char stdout_path[96];
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	assert_int_equal(fx_mkdtemp(c->root, sizeof(c->root)), 0);
	snprintf(c->stdout_path, sizeof(c->stdout_path), "%s/stdout.txt", c->root);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	fx_rm_rf(c->root);
	free(c);
	return 0;
}

static int check(struct ctx *c, char **text)
{
	char *argv[] = { "check", c->root, NULL };

	return capture_cmd(hvt_cmd_check, 2, argv, c->stdout_path, text);
}

/* The verdict on the clock the timeline fitted, as check asks for it. */
static bool sync_verdict(struct ctx *c, bool inconsistent, char *reason, size_t len)
{
	const struct fx_options o = { .inconsistent_sync = inconsistent };
	struct hvt_timeline tl;
	bool ok;

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	assert_int_equal(hvt_timeline_open(&tl, c->root, true), 0);
	assert_int_equal(tl.vms[0].vm.nr_sync, 5);
	assert_true(tl.vms[0].aligned);
	ok = hvt_check_sync(&tl.vms[0].vm, &tl.vms[0].clock, reason, len);
	hvt_timeline_close(&tl);
	return ok;
}

static void test_sync_causal_verdict(void **state)
{
	struct ctx *c = *state;
	struct hvt_vm_info vm;
	char reason[256] = "";

	assert_true(sync_verdict(c, false, reason, sizeof(reason)));
	assert_false(sync_verdict(c, true, reason, sizeof(reason)));
	assert_non_null(strstr(reason, "exchange seq 3 is not causal"));
	/* No clock could be fitted. */
	memset(&vm, 0, sizeof(vm));
	assert_false(hvt_check_sync(&vm, NULL, reason, sizeof(reason)));
	assert_string_equal(reason, "no clock exchanges: the guest cannot be aligned");
}

static void test_sound_archive(void **state)
{
	struct ctx *c = *state;
	const struct fx_options o = { .ftrace = true };
	char *text;

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	assert_int_equal(check(c, &text), 0);
	assert_string_equal(text,
			    "PASS manifest\n"
			    "PASS info-json[demo]\n"
			    "PASS sync-causal[demo]\n"
			    "PASS registry[vm/demo/kernel]\n"
			    "PASS registry[vm/demo/user-1]\n"
			    "PASS stream-decodes[host/ftrace/cpu0.raw]\n"
			    "PASS stream-decodes[host/ftrace/cpu1.raw]\n"
			    "PASS stream-decodes[vm/demo/kernel/stream-0]\n"
			    "PASS stream-decodes[vm/demo/kernel/stream-1]\n"
			    "PASS stream-decodes[vm/demo/user-1/stream-0]\n"
			    "PASS timeline-ordered\n"
			    "PASS layers-present: host=3 kernel=4 user=1\n"
			    "12 passed, 0 failed\n");
	free(text);
}

static void test_inconsistent_sync(void **state)
{
	struct ctx *c = *state;
	const struct fx_options o = { .inconsistent_sync = true };
	char *text;

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	assert_int_equal(check(c, &text), 1);
	assert_non_null(strstr(text, "\nFAIL sync-causal[demo]: exchange seq 3 is not causal"));
	assert_non_null(strstr(text, "\nPASS timeline-ordered\n"));
	assert_non_null(strstr(text, "\n9 passed, 1 failed\n"));
	free(text);
}

/*
 * A KVM VM with its TSC parameters recorded: aligned with them, its
 * exchanges judged against them, kvm-tsc passes. Parameters the exchanges
 * contradict fail kvm-tsc (the estimate then aligns it and sync-causal
 * still passes on it).
 */
static void test_kvm_tsc(void **state)
{
	struct ctx *c = *state;
	const struct fx_options o = { .ftrace = true, .sync_points = true };
	char *text;

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	assert_int_equal(fx_write_kvm_snapshots(c->root, 2, (uint64_t)FX_OFFSET + 50), 0);
	assert_int_equal(check(c, &text), 0);
	assert_non_null(strstr(text, "\nPASS sync-causal[demo]\nPASS kvm-tsc[demo]\n"));
	free(text);

	assert_int_equal(fx_write_kvm_snapshots(c->root, 2, (uint64_t)FX_OFFSET + 500), 0);
	assert_int_equal(check(c, &text), 1);
	assert_non_null(strstr(text, "\nPASS sync-causal[demo]\nFAIL kvm-tsc[demo]: not aligned "
				     "with KVM's TSC parameters: they contradict clock exchange "
				     "seq 0"));
	assert_non_null(strstr(text, " 1 failed\n"));
	free(text);
}

static void test_damaged_archive(void **state)
{
	struct ctx *c = *state;
	const struct fx_options o = { .monotonic_user = true };
	size_t len;
	unsigned char *bytes;
	char *text;

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	/* A stream cut short, a broken registry, and a stream that cannot be aligned. */
	assert_int_equal(fx_write(c->root, "vm/demo/kernel/stream-1", "\xc1\x1f\xfc\xc1", 4), 0);
	bytes = fx_registry(&len);
	bytes[len - 8] = 0x7f;	/* the last record's print format loses its NUL */
	assert_int_equal(fx_write(c->root, "vm/demo/user-2/hvtrace/registry", bytes, len), 0);
	free(bytes);
	assert_int_equal(check(c, &text), 1);
	assert_non_null(strstr(text, "\nFAIL stream-decodes[vm/demo/kernel/stream-1]: 1 problem ("));
	assert_non_null(strstr(text, "\nPASS stream-decodes[vm/demo/kernel/stream-0]\n"));
	assert_non_null(strstr(text, "\nPASS stream-decodes[vm/demo/user-2/stream-0]\n"));
	assert_non_null(strstr(text, "\nFAIL registry[vm/demo/user-2]: fails validation"));
	assert_non_null(strstr(text, "\nPASS layers-present: host=0 kernel=3 user=1\n"));
	free(text);
}

/*
 * A VM with no exchange cannot be aligned: its streams are decoded on their
 * own (never converted through a clock it does not have), sync-causal fails
 * and nothing is merged.
 */
static void test_vm_without_exchanges(void **state)
{
	struct ctx *c = *state;
	const struct fx_options o = { .ftrace = true };
	const char *streams =
		"PASS stream-decodes[host/ftrace/cpu0.raw]\n"
		"PASS stream-decodes[host/ftrace/cpu1.raw]\n"
		"PASS stream-decodes[vm/demo/kernel/stream-0]\n"
		"PASS stream-decodes[vm/demo/kernel/stream-1]\n"
		"PASS stream-decodes[vm/demo/user-1/stream-0]\n"
		"PASS timeline-ordered\n"
		"PASS layers-present: host=3 kernel=0 user=0\n";
	char *text, path[128], want[2048];

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	/* sync.tsv with its header only */
	assert_int_equal(fx_printf(c->root, "vm/demo/sync.tsv", "seq\thost_send\tguest_recv\t"
				   "guest_send\thost_recv\tcpu_recv\tcpu_send\n"), 0);
	assert_int_equal(check(c, &text), 1);
	snprintf(want, sizeof(want), "PASS manifest\nPASS info-json[demo]\n"
		 "FAIL sync-causal[demo]: no clock exchanges: the guest cannot be aligned\n"
		 "PASS registry[vm/demo/kernel]\nPASS registry[vm/demo/user-1]\n%s"
		 "11 passed, 1 failed\n", streams);
	assert_string_equal(text, want);
	free(text);
	/* no sync.tsv at all */
	snprintf(path, sizeof(path), "%s/vm/demo/sync.tsv", c->root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(check(c, &text), 1);
	snprintf(want, sizeof(want), "PASS manifest\nPASS info-json[demo]\n"
		 "FAIL sync-causal[demo]: sync.tsv: 1 problem (see the warnings)\n"
		 "PASS registry[vm/demo/kernel]\nPASS registry[vm/demo/user-1]\n%s"
		 "11 passed, 1 failed\n", streams);
	assert_string_equal(text, want);
	free(text);
}

static void test_unreadable_and_empty(void **state)
{
	struct ctx *c = *state;
	char *argv[] = { "check", NULL, NULL, NULL };
	char *text;

	assert_int_equal(check(c, &text), 1);
	assert_string_equal(text, "FAIL manifest: the archive cannot be read (see the errors)\n"
				  "0 passed, 1 failed\n");
	free(text);
	/* An archive with no VM and no host layer: nothing to merge. */
	assert_int_equal(fx_printf(c->root, "hvtrace.json",
				   "{\"format\": \"hvtrace-archive\", \"version\": 1, \"status\": "
				   "\"complete\", \"host\": {\"clock\": \"x86-tsc\", \"clock_pairs\":"
				   " \"clock.tsv\", \"ftrace\": null}, \"vms\": []}"), 0);
	assert_int_equal(fx_printf(c->root, "clock.tsv", "tsc\tmono_ns\trealtime_ns\tuncertainty\n"
				   "10\t20\t30\t1\n20\t40\t50\t1\n"), 0);
	assert_int_equal(check(c, &text), 1);
	assert_string_equal(text, "PASS manifest\nPASS timeline-ordered\n"
				  "FAIL layers-present: host=0 kernel=0 user=0 (no events at all)\n"
				  "2 passed, 1 failed\n");
	free(text);
	/* Usage. */
	assert_int_equal(capture_cmd(hvt_cmd_check, 1, argv, c->stdout_path, &text), 2);
	free(text);
	argv[1] = "--verbose";
	argv[2] = c->root;
	assert_int_equal(capture_cmd(hvt_cmd_check, 3, argv, c->stdout_path, &text), 2);
	free(text);
	argv[1] = "--help";
	assert_int_equal(capture_cmd(hvt_cmd_check, 2, argv, c->stdout_path, &text), 0);
	assert_non_null(strstr(text, "usage: hvtrace check ARCHIVE"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sync_causal_verdict, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sound_archive, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inconsistent_sync, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kvm_tsc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged_archive, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vm_without_exchanges, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable_and_empty, setup, teardown),
	};

	return cmocka_run_group_tests_name("check", tests, NULL, NULL);
}
