// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_check.c - `hvtrace check`: the sync-causal verdict on a consistent and
 * an inconsistent sync.tsv, the PASS/FAIL/SKIP lines and summary of whole
 * archives (sound, damaged, without clock exchanges, unreadable, empty), the
 * error bounds and the vCPU windows of a KVM VM, and the exit statuses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "tests/unit/archive_fixture.h"
#include "tests/unit/cmd_capture.h"
#include "lib/fileio.h"
#include "tools/archive/archive.h"
#include "tools/check/bound_hist.h"
#include "tools/check/archive_checks.h"
#include "tools/commands.h"
#include "tests/unit/open_timeline.h"

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
	struct fx_opened tl;
	bool ok;

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	assert_int_equal(fx_open(&tl, c->root, true), 0);
	assert_int_equal(tl.ses.vms[0].vm.nr_sync, 5);
	assert_true(tl.ses.vms[0].al.aligned);
	ok = hvt_check_sync(&tl.ses.vms[0].vm, &tl.ses.vms[0].al.clock, reason, len);
	fx_close(&tl);
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

/* The lines of archives made without them (held-out: too few exchanges). */
#define HELD_OUT_5 "SKIP sync-held-out[demo]: 5 exchanges; at least 16 are needed to keep " \
	"some out of the fit\n"
#define VCPU_THREADS_UNNAMED "SKIP vcpu-threads[demo]: the manifest does not name the " \
	"VM's vCPU threads (vcpu_threads)\n"
/* The KVM-only checks of the standard archive's TCG VM: a SKIP line each. */
#define TCG "the VM ran under TCG (its TSC is QEMU's: KVM has no TSC parameters, kvm_entry " \
	"or kvm_exit for it)"
#define KVM_TSC_TCG "SKIP kvm-tsc[demo]: " TCG "\n"
#define WINDOWS_TCG "SKIP vcpu-windows[demo]: " TCG "\n"

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
			    "PASS untraced[demo]\n"
			    "PASS sync-causal[demo]\n"
			    HELD_OUT_5
			    KVM_TSC_TCG
			    "PASS registry[vm/demo/kernel]\n"
			    "PASS metadata[vm/demo/kernel]\n"
			    "PASS registry[vm/demo/user-1]\n"
			    "PASS metadata[vm/demo/user-1]\n"
			    "PASS stream-decodes[host/ftrace/cpu0.raw]\n"
			    "PASS stream-decodes[host/ftrace/cpu1.raw]\n"
			    "PASS stream-decodes[vm/demo/kernel/stream-0]\n"
			    "PASS stream-decodes[vm/demo/kernel/stream-1]\n"
			    "PASS stream-decodes[vm/demo/user-1/stream-0]\n"
			    "PASS timeline-ordered\n"
			    "PASS layers-present: host=3 kernel=4 user=1\n"
			    /* the exchanges' 210-tick round trips less the guest's 10:
			     * +/-100 ticks at 2 GHz */
			    "INFO error-bound[demo]: 5 guest events, clock estimated, each bound guaranteed: median "
			    "+/-0.050 us, p90 +/-0.050 us, p99 +/-0.050 us, worst +/-0.050 us; "
			    "0 without a guaranteed bound\n"
			    WINDOWS_TCG
			    VCPU_THREADS_UNNAMED
			    "15 passed, 0 failed, 4 skipped\n");
	free(text);
}

/* A recording that did not finish: its manifest line FAILs, the rest is checked. */
static void test_unfinished_recording(void **state)
{
	struct ctx *c = *state;
	const struct fx_options o = { .ftrace = true, .status = "recording" };
	char *text;

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	assert_int_equal(check(c, &text), 1);
	assert_true(!strncmp(text, "FAIL manifest: the recording did not finish (its status is "
			     "not \"complete\"", 60));
	assert_non_null(strstr(text, "\nPASS sync-causal[demo]\n"));
	assert_non_null(strstr(text, "\n14 passed, 1 failed, 4 skipped\n"));
	free(text);
}

/* A VM whose kernel streams all gave nothing: layers-present names it. */
static void test_kernel_layer_empty(void **state)
{
	struct ctx *c = *state;
	const struct fx_options o = { .ftrace = true };
	char *text, path[256];
	int i;

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/vm/demo/kernel/stream-%d", c->root, i);
		assert_int_equal(unlink(path), 0);
	}
	assert_int_equal(check(c, &text), 1);
	assert_non_null(strstr(text, "\nFAIL layers-present: host=3 kernel=0 user=1; recorded, "
				     "but no event on the time line: kernel[demo]\n"));
	free(text);
}

/* -q: only the FAIL lines and the last line; no PASS, SKIP or INFO. */
static void test_quiet(void **state)
{
	struct ctx *c = *state;
	const struct fx_options o = { .ftrace = true };
	char *argv[] = { "check", "-q", c->root, NULL }, *text;

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	assert_int_equal(capture_cmd(hvt_cmd_check, 3, argv, c->stdout_path, &text), 0);
	assert_string_equal(text, "15 passed, 0 failed, 4 skipped\n");
	free(text);
	assert_int_equal(fx_write(c->root, "vm/demo/kernel/metadata", "garbled", 7), 0);
	assert_int_equal(capture_cmd(hvt_cmd_check, 3, argv, c->stdout_path, &text), 1);
	assert_non_null(strstr(text, "FAIL metadata[vm/demo/kernel]: "));
	assert_null(strstr(text, "PASS"));
	assert_null(strstr(text, "INFO"));
	assert_null(strstr(text, "SKIP"));
	free(text);
	/* the next check without -q prints every line again */
	assert_int_equal(check(c, &text), 1);
	assert_non_null(strstr(text, "PASS manifest\n"));
	free(text);
}

/*
 * Host applications (host/apps): their trace's registry and metadata, their
 * stream, and host-apps-clock, which judges the host agent's exchanges
 * against offset 0: one exchange read before it was sent fails it.
 */
/* Makes info.json @rel record @to exchanges instead of @from, as for a sync.tsv rewritten so. */
static void set_recorded_exchanges(const char *root, const char *rel, int from, int to)
{
	char path[256], key[64], *text, *at, *out;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(hvt_read_file(path, 1 << 20, &text, &len), 0);
	snprintf(key, sizeof(key), "\"exchanges\": %d", from);
	at = strstr(text, key);
	assert_non_null(at);
	assert_true(asprintf(&out, "%.*s\"exchanges\": %d%s", (int)(at - text), text, to,
			     at + strlen(key)) > 0);
	assert_int_equal(fx_write(root, rel, out, strlen(out)), 0);
	free(out);
	free(text);
}

static void test_host_apps(void **state)
{
	struct ctx *c = *state;
	const struct fx_options o = { .ftrace = true, .host_apps = true };
	static const char bad[] = "seq\thost_send\tguest_recv\tguest_send\thost_recv\t"
				  "cpu_recv\tcpu_send\n"
				  "0\t1000000000\t1000000100\t1000000110\t1000000210\t0\t0\n"
				  "1\t1200000000\t1199999000\t1199999010\t1200000210\t0\t0\n";
	char *text;

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	assert_int_equal(check(c, &text), 0);
	assert_non_null(strstr(text, "\nPASS info-json[host/apps]\n"
				     "PASS host-apps-clock: 3 exchanges with the host agent, each "
				     "causal at offset 0\n"
				     "PASS untraced[host/apps]\n"
				     "PASS registry[host/apps/user-1]\n"
				     "PASS metadata[host/apps/user-1]\n"));
	assert_non_null(strstr(text, "\nPASS stream-decodes[host/apps/user-1/stream-0]\n"));
	assert_non_null(strstr(text, "\nPASS layers-present: host=3 kernel=4 user=3\n"));
	free(text);
	assert_int_equal(fx_write(c->root, "host/apps/sync.tsv", bad, sizeof(bad) - 1), 0);
	set_recorded_exchanges(c->root, "host/apps/info.json", 3, 2);
	assert_int_equal(check(c, &text), 1);
	assert_non_null(strstr(text, "\nFAIL host-apps-clock: exchange seq 1 rules out offset "
				     "0: the host agent's TSC is not the collector's"));
	free(text);
}

/*
 * Processes the guest refused and threads it could not trace fail
 * untraced[VM], with the numbers: their events are in no stream.
 */
static void test_untraced(void **state)
{
	struct ctx *c = *state;
	const struct fx_options o = { .ftrace = true };
	char *text;

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	assert_int_equal(fx_mark_untraced(c->root, 37, 96), 0);
	assert_int_equal(check(c, &text), 1);
	assert_non_null(strstr(text, "\nPASS info-json[demo]\nFAIL untraced[demo]: 37 processes "
				     "and 96 threads went untraced: their events are in no stream"));
	assert_non_null(strstr(text, "\n14 passed, 1 failed, 4 skipped\n"));
	free(text);
	/* threads alone fail it too */
	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	assert_int_equal(fx_mark_untraced(c->root, 0, 1), 0);
	assert_int_equal(check(c, &text), 1);
	assert_non_null(strstr(text, "\nFAIL untraced[demo]: 1 process and 1 thread went "));
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
	/* the damaged exchange is left out of the fit (before: segments too short to bound) */
	assert_non_null(strstr(text, "\nINFO error-bound[demo]: 5 guest events, clock estimated, each bound guaranteed: "
				     "median +/-0.050 us"));
	assert_non_null(strstr(text, "; 0 without a guaranteed bound\n"));
	assert_non_null(strstr(text, "\n12 passed, 1 failed, 4 skipped\n"));
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
	assert_non_null(strstr(text, "\nPASS sync-causal[demo]\nSKIP sync-held-out[demo]: "
				     "aligned by KVM's TSC parameters, not by a fit\n"
				     "PASS kvm-tsc[demo]\n"));
	free(text);

	assert_int_equal(fx_write_kvm_snapshots(c->root, 2, (uint64_t)FX_OFFSET + 500), 0);
	assert_int_equal(check(c, &text), 1);
	assert_non_null(strstr(text, "\nPASS sync-causal[demo]\n" HELD_OUT_5
				     "FAIL kvm-tsc[demo]: not aligned with KVM's TSC parameters: "
				     "they contradict clock exchange seq 0"));
	/* no vCPU windows; held-out and vCPU threads skipped */
	assert_non_null(strstr(text, " 1 failed, 3 skipped\n"));
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
	/* two: the file is shorter than info.json records, and its only packet is cut */
	assert_non_null(strstr(text, "\nFAIL stream-decodes[vm/demo/kernel/stream-1]: 2 problems ("));
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
/* sync.tsv with fewer exchanges than info.json records: cut short or trimmed, a failure. */
static void test_sync_trimmed(void **state)
{
	struct ctx *c = *state;
	const struct fx_options o = { .ftrace = true };
	char path[256], *tsv, *text, *cut;
	size_t len;
	int lines;

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	snprintf(path, sizeof(path), "%s/vm/demo/sync.tsv", c->root);
	assert_int_equal(hvt_read_file(path, 1 << 20, &tsv, &len), 0);
	for (cut = tsv, lines = 0; lines < 4; lines++)	/* the header and 3 of the 5 */
		cut = strchr(cut, '\n') + 1;
	assert_int_equal(fx_write(c->root, "vm/demo/sync.tsv", tsv, (size_t)(cut - tsv)), 0);
	free(tsv);
	assert_int_equal(check(c, &text), 1);
	assert_non_null(strstr(text, "\nFAIL sync-causal[demo]: sync.tsv: 1 problem (see the "
				     "warnings)\n"));
	free(text);
}

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
		"PASS timeline-ordered\n";
	/* the layers it recorded gave no event, as it cannot be aligned: said, and why */
	const char *lines =
		"FAIL layers-present: host=3 kernel=0 user=0; recorded, but no event on the time "
		"line: kernel[demo] user[demo] (%1$s)\n"
		"INFO error-bound[demo]: no guest event of this VM was merged (%1$s)\n"
		WINDOWS_TCG
		"SKIP vcpu-threads[demo]: %1$s\n"
		"13 passed, 2 failed, 4 skipped\n";
	char *text, path[128], want[4096], tail[1024];

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	/* sync.tsv with its header only */
	assert_int_equal(fx_printf(c->root, "vm/demo/sync.tsv", "seq\thost_send\tguest_recv\t"
				   "guest_send\thost_recv\tcpu_recv\tcpu_send\n"), 0);
	set_recorded_exchanges(c->root, "vm/demo/info.json", 5, 0);
	assert_int_equal(check(c, &text), 1);
	snprintf(tail, sizeof(tail), lines, "the VM cannot be aligned: no clock exchange in "
		 "sync.tsv and no sync point");
	snprintf(want, sizeof(want), "PASS manifest\nPASS info-json[demo]\nPASS untraced[demo]\n"
		 "FAIL sync-causal[demo]: no clock exchanges: the guest cannot be aligned\n"
		 "SKIP sync-held-out[demo]: 0 exchanges; at least 16 are needed to keep some "
		 "out of the fit\n" KVM_TSC_TCG
		 "PASS registry[vm/demo/kernel]\nPASS metadata[vm/demo/kernel]\n"
		 "PASS registry[vm/demo/user-1]\nPASS metadata[vm/demo/user-1]\n%s%s", streams,
		 tail);
	assert_string_equal(text, want);
	free(text);
	/* no sync.tsv at all: named (before, layers-present passed on the host's events) */
	snprintf(path, sizeof(path), "%s/vm/demo/sync.tsv", c->root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(check(c, &text), 1);
	snprintf(tail, sizeof(tail), lines, "the VM cannot be aligned: vm/demo/sync.tsv: No such "
		 "file or directory");
	snprintf(want, sizeof(want), "PASS manifest\nPASS info-json[demo]\nPASS untraced[demo]\n"
		 "FAIL sync-causal[demo]: sync.tsv: 1 problem (see the warnings)\n"
		 "SKIP sync-held-out[demo]: 0 exchanges; at least 16 are needed to keep some "
		 "out of the fit\n" KVM_TSC_TCG
		 "PASS registry[vm/demo/kernel]\nPASS metadata[vm/demo/kernel]\n"
		 "PASS registry[vm/demo/user-1]\nPASS metadata[vm/demo/user-1]\n%s%s", streams,
		 tail);
	assert_string_equal(text, want);
	free(text);
}

/*
 * io-causal of a VM whose QEMU logged a request (vm/demo/qemu-trace.log,
 * the vmm layer): SKIPped for want of the guest's block events, and, once
 * the VM cannot be aligned or read, for that, named - not "the guest
 * recorded no block_rq_issue" (before: said so in all three).
 */
static void test_io_causal_unplaced(void **state)
{
	static const char log[] =
		"4321@1700000000.000008:virtio_blk_handle_read vdev 0x55 req 0x77 sector 16 "
		"nsectors 8\n"
		"4321@1700000000.000009:virtio_blk_req_complete vdev 0x55 req 0x77 status 0\n";
	static const char skip[] = "\nSKIP io-causal[demo]: no guest block request linked to "
				   "QEMU's handling of it (";
	struct ctx *c = *state;
	const struct fx_options o = { .ftrace = true };
	char *text, path[128];

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	assert_int_equal(fx_write(c->root, "vm/demo/qemu-trace.log", log, sizeof(log) - 1), 0);
	assert_int_equal(check(c, &text), 0);
	assert_non_null(strstr(text, "\nPASS layers-present: host=3 kernel=4 user=1 vmm=2\n"));
	assert_non_null(strstr(text, skip));
	assert_non_null(strstr(text, "(the guest recorded no block_rq_issue)\n"));
	free(text);

	snprintf(path, sizeof(path), "%s/vm/demo/sync.tsv", c->root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(check(c, &text), 1);
	assert_non_null(strstr(text, "\nFAIL layers-present: host=3 kernel=0 user=0 vmm=2; "
				     "recorded, but no event on the time line: kernel[demo] "
				     "user[demo] (the VM cannot be aligned: vm/demo/sync.tsv: No "
				     "such file or directory)\n"));
	assert_non_null(strstr(text, skip));
	assert_non_null(strstr(text, "(the VM cannot be aligned: vm/demo/sync.tsv: No such file or "
				     "directory)\n"));
	free(text);

	/* its description lost: it cannot be read (and it was recorded: not a PASS) */
	snprintf(path, sizeof(path), "%s/vm/demo/info.json", c->root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(check(c, &text), 1);
	assert_non_null(strstr(text, "\nFAIL layers-present: host=3 kernel=0 user=0 vmm=2; "
				     "recorded, but no event on the time line: kernel[demo] (the "
				     "VM cannot be read: vm/demo/info.json: No such file or "
				     "directory)\n"));
	assert_non_null(strstr(text, "QEMU's handling of it (the VM cannot be read: "
				     "vm/demo/info.json: No such file or directory)\n"));
	assert_non_null(strstr(text, "\nSKIP vcpu-threads[demo]: the VM cannot be read: "
				     "vm/demo/info.json: No such file or directory\n"));
	free(text);
}

/* Host ticks of a window edge, in ns since the trace start (FX_HOST_TSC) */
#define RUN(ns, entry, vcpu) { FX_HOST_TSC(ns), 4321, entry, vcpu }
#define IN true
#define OUT false

/*
 * A KVM VM (its guest events: vCPU 0 at 1.24, 1.3 and 100 ms; vCPU 1 twice
 * at 1.3 ms), aligned exactly by KVM's offset when @exact, else estimated
 * (+/-100 ticks), with vCPU 1's windows on host CPU 1.
 */
static void kvm_archive(struct ctx *c, bool exact)
{
	const struct fx_options o = { .ftrace = true, .kvm = true };
	const struct fx_host_kvm_run vcpu1[] = { RUN(1200000, IN, 1), RUN(1600000, OUT, 1) };

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	if (exact)
		assert_int_equal(fx_write_kvm_snapshots(c->root, 2, (uint64_t)FX_OFFSET), 0);
	assert_int_equal(fx_write_ftrace_kvm_runs(c->root, "host/ftrace/cpu1.raw", 4096, vcpu1,
						  2), 0);
}

static void vcpu0_runs(struct ctx *c, const struct fx_host_kvm_run *ev, size_t n)
{
	assert_int_equal(fx_write_ftrace_kvm_runs(c->root, "host/ftrace/cpu0.raw", 4096, ev, n),
			 0);
}

static const char *line_of(const char *text, const char *start)
{
	const char *p = strstr(text, start);

	assert_non_null(p);
	return p;
}

/* Every guest event inside its vCPU's windows, then one outside. */
static void test_vcpu_windows(void **state)
{
	struct ctx *c = *state;
	const struct fx_host_kvm_run inside[] = {
		RUN(1000000, IN, 0), RUN(1500000, OUT, 0), RUN(99000000, IN, 0),
		RUN(101000000, OUT, 0),
	};
	const struct fx_host_kvm_run outside[] = {
		RUN(1000000, IN, 0), RUN(1500000, OUT, 0), RUN(99000000, IN, 0),
		RUN(99900000, OUT, 0), RUN(102000000, IN, 0), RUN(103000000, OUT, 0),
	};
	char *text;

	kvm_archive(c, true);
	vcpu0_runs(c, inside, 4);
	assert_int_equal(check(c, &text), 0);
	assert_non_null(strstr(text, "\nPASS kvm-tsc[demo]\n"));
	assert_non_null(strstr(text, "\nINFO error-bound[demo]: 5 guest events, exact by KVM's "
				     "TSC parameters: median +/-0.000 us, p90 +/-0.000 us, p99 "
				     "+/-0.000 us, worst +/-0.000 us; 0 without a guaranteed "
				     "bound\n"));
	assert_non_null(strstr(text, "\nPASS vcpu-windows[demo]: 5 guest events inside their "
				     "vCPU's windows, 0 not judged (no CPU, or where the host did "
				     "not record their vCPU)\n"));
	free(text);

	vcpu0_runs(c, outside, 6);
	assert_int_equal(check(c, &text), 1);
	assert_string_equal(strchr(line_of(text, "FAIL vcpu-windows[demo]"), '\n'),
			    "\n" VCPU_THREADS_UNNAMED "16 passed, 1 failed, 2 skipped\n");
	assert_non_null(strstr(text, "\nFAIL vcpu-windows[demo]: 1 of 5 guest events lie outside "
				     "every kvm_entry -> kvm_exit window of their vCPU by more "
				     "than their error bound; the first is event 3 of "
				     "vm/demo/kernel/stream-0 on vCPU 0 at 0.100000000 s: 100.000 "
				     "us after its vCPU's kvm_exit and 2000.000 us before its next "
				     "kvm_entry, with an error bound of +/-0.000 us\n"));
	free(text);
}

/*
 * Where a host CPU lost events, a vCPU's windows may be missing: the event
 * outside them is not judged. Here host CPU 1 lost events between its 53rd
 * record (2.5 ms) and its 54th (100.5 ms, the first of a page marked so),
 * over vCPU 0's gap from 99.9 to 102 ms.
 */
/* The manifest's bytes of host CPU file @file: @now, where it said @was. */
static void set_cpu_bytes(struct ctx *c, const char *file, const char *was, const char *now)
{
	char path[256], key[64], *manifest, *at;
	size_t len;

	snprintf(path, sizeof(path), "%s/hvtrace.json", c->root);
	assert_int_equal(hvt_read_file(path, 1 << 20, &manifest, &len), 0);
	snprintf(key, sizeof(key), "\"%s\", \"bytes\": %s", file, was);
	at = strstr(manifest, key);
	assert_non_null(at);
	assert_int_equal(strlen(was), strlen(now));
	memcpy(at + strlen(key) - strlen(was), now, strlen(now));
	assert_int_equal(fx_write(c->root, "hvtrace.json", manifest, len), 0);
	free(manifest);
}

static void test_vcpu_windows_host_loss(void **state)
{
	struct ctx *c = *state;
	const struct fx_host_kvm_run gap[] = {
		RUN(1000000, IN, 0), RUN(1500000, OUT, 0), RUN(99000000, IN, 0),
		RUN(99900000, OUT, 0), RUN(102000000, IN, 0), RUN(103000000, OUT, 0),
	};
	struct fx_host_kvm_run vcpu1[54];
	unsigned char commit[8];
	char *text, path[128];
	FILE *f;
	size_t k;

	kvm_archive(c, true);
	vcpu0_runs(c, gap, 6);
	vcpu1[0] = (struct fx_host_kvm_run)RUN(1200000, IN, 1);
	vcpu1[1] = (struct fx_host_kvm_run)RUN(1600000, OUT, 1);
	for (k = 2; k < 53; k++)	/* 53 records of 76 bytes fill a page */
		vcpu1[k] = (struct fx_host_kvm_run)RUN(2000000 + 10000 * k, k % 2 == 0, 1);
	vcpu1[53] = (struct fx_host_kvm_run)RUN(100500000, OUT, 1);
	assert_int_equal(fx_write_ftrace_kvm_runs(c->root, "host/ftrace/cpu1.raw", 4096, vcpu1,
						  54), 0);
	snprintf(path, sizeof(path), "%s/host/ftrace/cpu1.raw", c->root);
	f = fopen(path, "r+b");
	assert_non_null(f);
	assert_int_equal(fseek(f, 4096 + 8, SEEK_SET), 0);
	assert_int_equal(fread(commit, 1, 8, f), 8);
	commit[3] |= 0x80;		/* the page's commit word: events were missed before it */
	assert_int_equal(fseek(f, 4096 + 8, SEEK_SET), 0);
	assert_int_equal(fwrite(commit, 1, 8, f), 8);
	assert_int_equal(fclose(f), 0);
	set_cpu_bytes(c, "cpu1.raw", "4096", "8192");	/* the collector wrote both pages */

	assert_int_equal(check(c, &text), 0);
	assert_non_null(strstr(text, "\nPASS vcpu-windows[demo]: 4 guest events inside their "
				     "vCPU's windows, 1 not judged"));
	free(text);
}

/*
 * An estimated clock: an event is inside a window it misses by less than
 * its error bound (100 ticks), and outside one it misses by more.
 */
static void test_vcpu_windows_estimated(void **state)
{
	struct ctx *c = *state;
	const uint64_t event = FX_HOST_TSC(100000000);	/* vCPU 0's third event */
	struct fx_host_kvm_run runs[] = {
		RUN(1000000, IN, 0), RUN(1500000, OUT, 0), RUN(99000000, IN, 0),
		{ event - 90, 4321, OUT, 0 }, RUN(102000000, IN, 0), RUN(103000000, OUT, 0),
	};
	char *text;

	kvm_archive(c, false);
	vcpu0_runs(c, runs, 6);
	assert_int_equal(check(c, &text), 0);
	assert_non_null(strstr(text, "\nINFO error-bound[demo]: 5 guest events, clock estimated, each bound guaranteed: "));
	assert_non_null(strstr(text, "\nPASS vcpu-windows[demo]: 5 guest events inside"));
	free(text);

	runs[3].ts = event - 110;
	vcpu0_runs(c, runs, 6);
	assert_int_equal(check(c, &text), 1);
	assert_non_null(strstr(text, "\nFAIL vcpu-windows[demo]: 1 of 5 guest events lie outside "
				     "every kvm_entry -> kvm_exit window of their vCPU by more "
				     "than their error bound; the first is event 3 of "
				     "vm/demo/kernel/stream-0 on vCPU 0 at 0.100000000 s: 0.055 us "
				     "after its vCPU's kvm_exit and 2000.000 us before its next "
				     "kvm_entry, with an error bound of +/-0.050 us; the windows of "
				     "1 vCPU were left out of the clock fit (1 guest event outside "
				     "them); the clock fit took no bound from the vCPUs' windows (no "
				     "guest kernel event lies for certain near one of their edges): "
				     "this check is independent of it\n"));
	free(text);
}

/* Rewrites vm/demo/info.json's "accel": "@from" into @to. */
static void set_accel(const char *root, const char *from, const char *to)
{
	char path[256], key[64], *text, *at, *out;
	size_t len;

	snprintf(path, sizeof(path), "%s/vm/demo/info.json", root);
	assert_int_equal(hvt_read_file(path, 1 << 20, &text, &len), 0);
	snprintf(key, sizeof(key), "\"accel\": \"%s\"", from);
	at = strstr(text, key);
	assert_non_null(at);
	assert_true(asprintf(&out, "%.*s\"accel\": \"%s\"%s", (int)(at - text), text, to,
			     at + strlen(key)) > 0);
	assert_int_equal(fx_write(root, "vm/demo/info.json", out, strlen(out)), 0);
	free(out);
	free(text);
}

/* What cannot be judged is skipped, and says why. */
static void test_vcpu_windows_skipped(void **state)
{
	struct ctx *c = *state;
	const struct fx_options o = { .ftrace = true, .kvm = true };
	char *text;

	/* No kvm_entry or kvm_exit in the host layer. */
	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	assert_int_equal(fx_write_kvm_snapshots(c->root, 2, (uint64_t)FX_OFFSET), 0);
	assert_int_equal(check(c, &text), 0);
	assert_non_null(strstr(text, "\nSKIP vcpu-windows[demo]: the host layer has no kvm_entry "
				     "or kvm_exit event\n" VCPU_THREADS_UNNAMED
				     "16 passed, 0 failed, 3 skipped\n"));
	free(text);
	/* A TCG VM: a SKIP line each, saying so (before: no line at all). */
	assert_int_equal(fx_standard_archive(c->root, &(struct fx_options){ .ftrace = true }), 0);
	assert_int_equal(check(c, &text), 0);
	assert_non_null(strstr(text, "\n" KVM_TSC_TCG));
	assert_non_null(strstr(text, "\n" WINDOWS_TCG));
	free(text);
	/* A VM whose VMM the recording did not know. */
	set_accel(c->root, "tcg", "unknown");
	assert_int_equal(check(c, &text), 0);
	assert_non_null(strstr(text, "\nSKIP kvm-tsc[demo]: whether the VM ran under KVM is not "
				     "known (info.json's accel is neither \"kvm\" nor \"tcg\": the "
				     "recording knew no VMM process of it)\n"));
	assert_non_null(strstr(text, "\nSKIP vcpu-windows[demo]: whether the VM ran under KVM"));
	free(text);
}

/*
 * vcpu-threads: the host runs QEMU thread 4321 on host CPU 1 from 1 ms to
 * 1.234567 ms (then it sleeps), and again from 1.3 ms to 200 ms. As vCPU
 * 1's thread, its guest events (both at 1.3 ms) are inside; as vCPU 0's,
 * the guest event at 1.24 ms is 5.433 us after the run and 60 us before the
 * next, far outside its bound of 0.05 us.
 */
static void write_host_runs(struct ctx *c)
{
	const struct fx_host_switch ev[] = {
		{ FX_HOST_TSC(1000000), 0, "swapper/1", 0, 120, 0, "qemu-system-x86", 4321, 120 },
		{ FX_HOST_TSC(1234567), 4321, "qemu-system-x86", 4321, 120, 1, "swapper/1", 0, 120 },
		{ FX_HOST_TSC(1300000), 0, "swapper/1", 0, 120, 0, "qemu-system-x86", 4321, 120 },
		{ FX_HOST_TSC(200000000), 4321, "qemu-system-x86", 4321, 120, 2, "swapper/1", 0,
		  120 },
	};
	char path[256];

	snprintf(path, sizeof(path), "%s/host/ftrace/cpu1.raw", c->root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(fx_write_ftrace_cpu(c->root, "host/ftrace/cpu1.raw", 4096, ev, 4), 0);
}

static void test_vcpu_threads(void **state)
{
	struct ctx *c = *state;
	struct fx_options o = { .ftrace = true, .vcpu_tids = "[0, 4321]" };
	char *text;

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	write_host_runs(c);
	assert_int_equal(check(c, &text), 0);
	/*
	 * vCPU 0's thread unknown: 3 of 5 events not judged, too many for a
	 * PASS (before: a PASS); the run's edge fed the fit with one bound.
	 */
	assert_non_null(strstr(text, "\nINFO host-sched[demo]: 4 sched_switch events of the vCPU "
				     "threads, each switch-out after a switch-in\n"
				     "SKIP vcpu-threads[demo]: 2 guest events inside their vCPU "
				     "thread's run intervals, but 3 not judged (no CPU, an unknown "
				     "thread, or where the host lost events): more than half, too "
				     "few judged to vouch for the alignment; these runs fed the "
				     "clock fit (1 bound at their edges), so this holds largely by "
				     "construction; too few bounds to hold any out of the fit and "
				     "test it\n"));
	free(text);

	o.vcpu_tids = "[4321]";
	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	write_host_runs(c);
	assert_int_equal(check(c, &text), 1);
	assert_non_null(strstr(text, "\nFAIL vcpu-threads[demo]: 1 of 3 guest events lie outside "
				     "every run interval of their vCPU's host thread by more than "
				     "their error bound; the first is event 1 of "
				     "vm/demo/kernel/stream-0 on vCPU 0 at 0.001240000 s: 5.433 us "
				     "after its vCPU thread's run and 60.000 us before its next "
				     "run, with an error bound of +/-0.050 us; the runs of 1 vCPU "
				     "were left out of the clock fit (1 guest event outside them); "
				     "the clock fit took no bound from the vCPU threads' runs (no "
				     "guest kernel event lies for certain near one of their edges): "
				     "this check is independent of it\n"));
	free(text);
	/*
	 * The same with host CPU 0's file missing: the thread may have run
	 * there, unseen. Its file fails; the alignment is not blamed.
	 */
	{
		char path[256];

		snprintf(path, sizeof(path), "%s/host/ftrace/cpu0.raw", c->root);
		assert_int_equal(unlink(path), 0);
	}
	assert_int_equal(check(c, &text), 1);
	assert_non_null(strstr(text, "\nFAIL stream-decodes[host/ftrace/cpu0.raw]: cannot be "
				     "opened\n"));
	assert_non_null(strstr(text, "\nSKIP vcpu-threads[demo]: 2 guest events inside their "
				     "vCPU thread's run intervals, but 3 not judged (no CPU, an "
				     "unknown thread, or where the host lost events; host CPU 0 "
				     "could not be read: a vCPU thread not seen running elsewhere "
				     "may have run there, so its time out is not known): more than "
				     "half, too few judged to vouch for the alignment; "));
	free(text);

	/* Not named, or named wrongly: skipped, with a warning for the latter. */
	o.vcpu_tids = "[-1]";
	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	assert_int_equal(check(c, &text), 1);	/* the manifest warning fails "manifest" */
	assert_non_null(strstr(text, "\nSKIP vcpu-threads[demo]: the manifest does not name the "
				     "VM's vCPU threads (vcpu_threads)\n"));
	free(text);
	/* No host layer. */
	o = (struct fx_options){ .vcpu_tids = "[4321]" };
	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	assert_int_equal(check(c, &text), 0);
	assert_non_null(strstr(text, "\nSKIP vcpu-threads[demo]: the host layer was not "
				     "recorded\n"));
	free(text);
}

/*
 * A host CPU file shorter than the manifest records (its last page gone):
 * said, and its stream-decodes line fails; what it holds is still used.
 */
static void test_short_host_cpu(void **state)
{
	struct ctx *c = *state;
	struct fx_options o = { .ftrace = true, .vcpu_tids = "[0, 4321]" };
	char *text, *manifest, *at;
	size_t len;

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	write_host_runs(c);
	{
		char path[256];

		snprintf(path, sizeof(path), "%s/hvtrace.json", c->root);
		assert_int_equal(hvt_read_file(path, 1 << 20, &manifest, &len), 0);
	}
	at = strstr(manifest, "\"cpu1.raw\", \"bytes\": 4096");
	assert_non_null(at);
	memcpy(strstr(at, "4096"), "8192", 4);	/* the collector wrote a page more */
	assert_int_equal(fx_write(c->root, "hvtrace.json", manifest, len), 0);
	free(manifest);
	assert_int_equal(check(c, &text), 1);
	assert_non_null(strstr(text, "\nFAIL stream-decodes[host/ftrace/cpu1.raw]: 1 problem "
				     "(see the warnings)\n"));
	assert_non_null(strstr(text, "\nSKIP vcpu-threads[demo]: 2 guest events inside their "
				     "vCPU thread's run intervals"));
	free(text);
}

/*
 * A host CPU file longer than the manifest of a complete recording records
 * (a sparse tail of 1 GiB, which took 20 s to read through): not read past
 * what the collector wrote, said, and its stream-decodes line fails; its
 * events are all used.
 */
static void test_long_host_cpu(void **state)
{
	struct ctx *c = *state;
	struct fx_options o = { .ftrace = true, .vcpu_tids = "[0, 4321]" };
	char *text, path[256];

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	write_host_runs(c);
	snprintf(path, sizeof(path), "%s/host/ftrace/cpu1.raw", c->root);
	assert_int_equal(truncate(path, 4096 + (1ll << 30)), 0);
	assert_int_equal(check(c, &text), 1);
	assert_non_null(strstr(text, "\nFAIL stream-decodes[host/ftrace/cpu1.raw]: 1 problem "
				     "(see the warnings)\n"));
	assert_non_null(strstr(text, "\nSKIP vcpu-threads[demo]: 2 guest events inside their "
				     "vCPU thread's run intervals"));
	free(text);
}

/* A host layer the manifest names that cannot be decoded: a failure, not "not recorded". */
static void test_host_layer_unreadable(void **state)
{
	struct ctx *c = *state;
	struct fx_options o = { .ftrace = true, .vcpu_tids = "[0, 4321]" };
	char *text, path[256];

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	snprintf(path, sizeof(path), "%s/host/ftrace/header_page", c->root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(check(c, &text), 1);
	assert_non_null(strstr(text, "\nFAIL stream-decodes[host/ftrace]: the manifest names a "
				     "host layer, and it cannot be decoded (see the errors): its 2 "
				     "CPU files are not read\n"));
	assert_non_null(strstr(text, "\nSKIP vcpu-threads[demo]: the host layer was recorded but "
				     "cannot be decoded (see the errors)\n"));
	assert_non_null(strstr(text, "\nFAIL layers-present: host=0 kernel=4 user=1; recorded, "
				     "but no event on the time line: host\n"));
	free(text);
}

/*
 * The host misses a switch-in (as this machine's kernel does for idle ->
 * task): the run is taken from the CPU's previous sched_switch, reported
 * in host-sched, and the events inside it stay inside.
 */
static void test_vcpu_threads_missing_switch_in(void **state)
{
	struct ctx *c = *state;
	const struct fx_options o = { .ftrace = true, .vcpu_tids = "[4321, 4400]" };
	const struct fx_host_switch ev[] = {
		{ FX_HOST_TSC(1234567), 4321, "qemu-system-x86", 4321, 120, 1, "swapper/1", 0, 120 },
		{ FX_HOST_TSC(1239000), 55, "kworker", 55, 120, 1, "swapper/1", 0, 120 },
		/* 4321 switched in here, unrecorded */
		{ FX_HOST_TSC(200000000), 4321, "qemu-system-x86", 4321, 120, 1, "swapper/1", 0,
		  120 },
	};
	char *text, path[256];

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	snprintf(path, sizeof(path), "%s/host/ftrace/cpu1.raw", c->root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(fx_write_ftrace_cpu(c->root, "host/ftrace/cpu1.raw", 4096, ev, 3), 0);
	assert_int_equal(check(c, &text), 0);
	assert_non_null(strstr(text, "\nINFO host-sched[demo]: incomplete: of 2 sched_switch "
				     "events of the vCPU threads, 1 switch-out had no switch-in "
				     "recorded before (the first on host CPU 1 at 0.200000000 s) "
				     "and 0 switch-outs were not recorded;"));
	/* vCPU 0's events at 1.24 ms, 1.3 ms and 100 ms: inside [1.239, 200] ms */
	assert_non_null(strstr(text, "\nPASS vcpu-threads[demo]: 3 guest events inside"));
	free(text);
}

/*
 * vcpu-threads where the runs fed the clock fit: vCPU 0's thread 4400 runs
 * on host CPU 0 for 40 ns around each of its events at 1.24 and 1.3 ms
 * (and around the one at 100 ms), vCPU 1's 4321 on host CPU 1 from 1 to
 * 200 ms. The brief runs' edges bound the clock, so the line says the runs
 * were used, and gives the held-out test of those bounds: without it (as
 * before) the PASS read as independent of the alignment, which the fit
 * made to agree with them.
 */
static void test_vcpu_threads_fit(void **state)
{
	struct ctx *c = *state;
	const struct fx_options o = { .ftrace = true, .vcpu_tids = "[4400, 4321]" };
#define AROUND(ns, in) { FX_HOST_TSC(ns) + ((in) ? -40 : 40), (in) ? 0 : 4400,	\
		(in) ? "swapper/0" : "vcpu0", (in) ? 0 : 4400, 120, (in) ? 0 : 1,	\
		(in) ? "vcpu0" : "swapper/0", (in) ? 4400 : 0, 120 }
	const struct fx_host_switch cpu0[] = {
		AROUND(1240000, true), AROUND(1240000, false), AROUND(1300000, true),
		AROUND(1300000, false), AROUND(100000000, true), AROUND(100000000, false),
	};
#undef AROUND
	const struct fx_host_switch cpu1[] = {
		{ FX_HOST_TSC(1000000), 0, "swapper/1", 0, 120, 0, "vcpu1", 4321, 120 },
		{ FX_HOST_TSC(200000000), 4321, "vcpu1", 4321, 120, 1, "swapper/1", 0, 120 },
	};
	char *text, path[256];
	int i;

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/host/ftrace/cpu%d.raw", c->root, i);
		assert_int_equal(unlink(path), 0);
	}
	assert_int_equal(fx_write_ftrace_cpu(c->root, "host/ftrace/cpu0.raw", 4096, cpu0, 6), 0);
	assert_int_equal(fx_write_ftrace_cpu(c->root, "host/ftrace/cpu1.raw", 4096, cpu1, 2), 0);
	assert_int_equal(check(c, &text), 0);
	/* each brief run gives two bounds; every other one is held out */
	assert_non_null(strstr(text, "\nPASS vcpu-threads[demo]: 5 guest events inside their "
				     "vCPU thread's run intervals, 0 not judged (no CPU, an unknown "
				     "thread, or where the host lost events); these runs fed the "
				     "clock fit (4 bounds at their edges), so this holds largely by "
				     "construction; the independent test: 2 of those bounds, each "
				     "held out of a fit of the others, lie within its guaranteed "
				     "interval\n"));
	free(text);
}

/* Exchanges @n, consistent with FX_OFFSET; exchange @bad (if < @n) received early. */
static void write_exchanges(struct ctx *c, unsigned int n, unsigned int bad)
{
	char text[8192];
	size_t len = (size_t)snprintf(text, sizeof(text), "seq\thost_send\tguest_recv\t"
				      "guest_send\thost_recv\tcpu_recv\tcpu_send\n");
	unsigned int k;

	for (k = 0; k < n; k++) {
		uint64_t hs = FX_T0 + k * 20000000ull;
		uint64_t gr = hs + 100 + (uint64_t)FX_OFFSET, gs = gr + 10, hr = hs + 210;

		if (k == bad)
			gr = gs = hs + (uint64_t)FX_OFFSET - 5000;
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"%u\t%llu\t%llu\t%llu\t%llu\t0\t0\n", k,
					(unsigned long long)hs, (unsigned long long)gr,
					(unsigned long long)gs, (unsigned long long)hr);
	}
	assert_int_equal(fx_write(c->root, "vm/demo/sync.tsv", text, len), 0);
}

/* sync-held-out: exchanges 7, 15 and 23 judged against a fit of the others. */
static void test_sync_held_out(void **state)
{
	struct ctx *c = *state;
	const struct fx_options o = { .ftrace = true };
	char *text;

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	write_exchanges(c, 24, 24);
	assert_int_equal(check(c, &text), 0);
	assert_non_null(strstr(text, "\nPASS sync-held-out[demo]: every 8th exchange kept out of "
				     "the fit: 3 judged, all within its guaranteed interval; 0 not "
				     "causal against its central line (by at most 0.000 us, inside "
				     "the bound), 0 in a change window or of guest values two "
				     "segments may have shown\n"));
	free(text);
	/* Exchange 15 received 2.5 us before it was sent: no line through the others allows it. */
	write_exchanges(c, 24, 15);
	assert_int_equal(check(c, &text), 1);
	assert_non_null(strstr(text, "\nFAIL sync-held-out[demo]: 1 of 3 exchanges kept out of "
				     "the fit lie outside its guaranteed interval, the first is seq "
				     "15: the clock model does not hold there\n"));
	free(text);
}

/* Quantiles are bucket ends: never below the value, at most 1/16 above. */
static void test_bound_hist(void **state)
{
	struct hvt_bound_hist *h = calloc(1, sizeof(*h));
	uint64_t v;

	(void)state;
	assert_int_equal(hvt_hist_quantile(h, 0.5), 0);
	for (v = 1; v <= 1000; v++)
		hvt_hist_add(h, v);
	assert_int_equal(h->n, 1000);
	assert_in_range(hvt_hist_quantile(h, 0.5), 500, 500 + 500 / 16);
	assert_in_range(hvt_hist_quantile(h, 0.9), 900, 900 + 900 / 16);
	assert_int_equal(hvt_hist_quantile(h, 1.0), 1000);
	assert_int_equal(hvt_hist_quantile(h, 0.001), 1);
	hvt_hist_add(h, UINT64_MAX);
	assert_int_equal(hvt_hist_quantile(h, 1.0), UINT64_MAX);
	free(h);
}

static void test_unreadable_and_empty(void **state)
{
	struct ctx *c = *state;
	char *argv[] = { "check", NULL, NULL, NULL };
	char *text;

	assert_int_equal(check(c, &text), 1);
	assert_string_equal(text, "FAIL manifest: hvtrace.json: No such file or directory; nothing "
				  "can be checked\n0 passed, 1 failed\n");
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
	argv[1] = "--no-such-option";
	argv[2] = c->root;
	assert_int_equal(capture_cmd(hvt_cmd_check, 3, argv, c->stdout_path, &text), 2);
	free(text);
	argv[1] = "--help";
	assert_int_equal(capture_cmd(hvt_cmd_check, 2, argv, c->stdout_path, &text), 0);
	assert_non_null(strstr(text, "usage: hvtrace check ARCHIVE"));
	free(text);
}

/*
 * An archive the opener refuses: the manifest line names the file at fault
 * (before: "the archive cannot be read", whatever it was), or, where that
 * is not what stopped it, points at the errors.
 */
static void test_unopened_cause(void **state)
{
	struct ctx *c = *state;
	const struct fx_options o = { .ftrace = true };
	char *argv[] = { "check", c->root, "--guest-trace", "demo=/nonexistent/guest.dat", NULL };
	char *text, path[128], *manifest, *at;
	size_t len;

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	/* --guest-trace of a file that is not there: the archive itself is fine */
	assert_int_equal(capture_cmd(hvt_cmd_check, 4, argv, c->stdout_path, &text), 1);
	assert_string_equal(text, "FAIL manifest: --guest-trace demo=/nonexistent/guest.dat: No "
				  "such file or directory; nothing can be checked\n"
				  "0 passed, 1 failed\n");
	free(text);
	snprintf(path, sizeof(path), "%s/host/clock.tsv", c->root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(check(c, &text), 1);
	assert_string_equal(text, "FAIL manifest: host/clock.tsv: No such file or directory; "
				  "nothing can be checked\n0 passed, 1 failed\n");
	free(text);
	/* not JSON */
	snprintf(path, sizeof(path), "%s/hvtrace.json", c->root);
	assert_int_equal(hvt_read_file(path, 1 << 20, &manifest, &len), 0);
	assert_int_equal(fx_write(c->root, "hvtrace.json", "{\n", 2), 0);
	assert_int_equal(check(c, &text), 1);
	assert_non_null(strstr(text, "FAIL manifest: hvtrace.json: line 2: "));
	free(text);
	/* JSON, but not a version 1 archive's: the opener's message says it */
	at = strstr(manifest, "\"version\": 1");
	assert_non_null(at);
	at[strlen("\"version\": ")] = '2';
	assert_int_equal(fx_write(c->root, "hvtrace.json", manifest, len), 0);
	free(manifest);
	assert_int_equal(check(c, &text), 1);
	assert_string_equal(text, "FAIL manifest: the archive cannot be read (see the errors)\n"
				  "0 passed, 1 failed\n");
	free(text);
}

/*
 * The metadata is what babeltrace2 reads: missing, garbled, short of an
 * event or with more than the registry's, it fails check (before: every
 * one of these passed).
 */
static void test_metadata_against_registry(void **state)
{
	struct ctx *c = *state;
	const struct fx_options o = { .ftrace = true };
	char path[160], *text, *meta, saved;
	size_t len;

	assert_int_equal(fx_standard_archive(c->root, &o), 0);
	snprintf(path, sizeof(path), "%s/vm/demo/kernel/metadata", c->root);
	assert_int_equal(hvt_read_file(path, 1 << 20, &meta, &len), 0);
	/* deleted */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(check(c, &text), 1);
	assert_non_null(strstr(text, "\nFAIL metadata[vm/demo/kernel]: vm/demo/kernel/metadata: "
				     "No such file or directory\n"));
	assert_non_null(strstr(text, "\nPASS metadata[vm/demo/user-1]\n"));
	free(text);
	/* garbled at its start */
	saved = meta[3];
	meta[3] = 'X';
	assert_int_equal(fx_write(c->root, "vm/demo/kernel/metadata", meta, len), 0);
	assert_int_equal(check(c, &text), 1);
	assert_non_null(strstr(text, "\nFAIL metadata[vm/demo/kernel]: vm/demo/kernel/metadata "
				     "does not begin as the collector writes it"));
	free(text);
	meta[3] = saved;
	/* an event short: the last declaration cut off */
	assert_int_equal(fx_write(c->root, "vm/demo/kernel/metadata", meta, len - 40), 0);
	assert_int_equal(check(c, &text), 1);
	assert_non_null(strstr(text, "\nFAIL metadata[vm/demo/kernel]: vm/demo/kernel/metadata "
				     "does not declare event "));
	free(text);
	/* something more */
	assert_int_equal(fx_write(c->root, "vm/demo/kernel/metadata", meta, len), 0);
	assert_int_equal(fx_append(c->root, "vm/demo/kernel/metadata", "/* x */\n", 8), 0);
	assert_int_equal(check(c, &text), 1);
	assert_non_null(strstr(text, "\nFAIL metadata[vm/demo/kernel]: vm/demo/kernel/metadata "
				     "holds 8 bytes more than the registry's events\n"));
	free(text);
	/* as written */
	assert_int_equal(fx_write(c->root, "vm/demo/kernel/metadata", meta, len), 0);
	assert_int_equal(check(c, &text), 0);
	free(text);
	free(meta);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sync_causal_verdict, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sound_archive, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unfinished_recording, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_layer_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_quiet, setup, teardown),
		cmocka_unit_test_setup_teardown(test_untraced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inconsistent_sync, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_apps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kvm_tsc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_layer_unreadable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sync_trimmed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged_archive, setup, teardown),
		cmocka_unit_test_setup_teardown(test_metadata_against_registry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vm_without_exchanges, setup, teardown),
		cmocka_unit_test_setup_teardown(test_io_causal_unplaced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable_and_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unopened_cause, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vcpu_windows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vcpu_windows_host_loss, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vcpu_windows_estimated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vcpu_windows_skipped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vcpu_threads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_short_host_cpu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_host_cpu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vcpu_threads_missing_switch_in, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_vcpu_threads_fit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sync_held_out, setup, teardown),
		cmocka_unit_test(test_bound_hist),
	};

	return cmocka_run_group_tests_name("check", tests, NULL, NULL);
}
