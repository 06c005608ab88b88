// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_merge.c - `hvtrace merge` per event, against babeltrace2 reading the
 * same events in the same run.
 *
 * The archive: 20 M events (BENCH_MERGE_EVENTS in the environment changes
 * that) in 16 streams, made the way the real writers make them
 * (tests/unit/archive_fixture.h):
 *   - host: 4 CPUs of ftrace sched_switch pages, a quarter of the events;
 *   - two VMs, "demo" and "demo2", each with 3/8 of the events: 2 kernel
 *     streams of sched_switch (fixed-size payloads with text arrays) and
 *     test:far (extended headers), 4 user threads of hvdemo:send and
 *     test:kinds (a string and a blob: variable size).
 * It is converted once to CTF with `hvtrace merge --format=ctf` (timed too),
 * which keeps the 16 streams, for babeltrace2 to read and mux.
 *
 *   merge --format=null      decode, align, merge: the loop of every command
 *   merge, text              the same, printed to /dev/null
 *   merge --format=json      the same as Chrome trace-event JSON
 *   merge --format=sqlite    the same as an SQLite database (docs/sql.md):
 *                            against sqlite3's own .import of the same
 *                            rows as CSV, with the same pragmas, indexes
 *                            and ANALYZE (tests/bench/sql_import_ref.sh
 *                            dumps them, untimed); both once, with the
 *                            database's size against the archive's
 *
 * against `babeltrace2 -o dummy` (decode and mux only) and babeltrace2's
 * text output to /dev/null. Every program runs as a command, with output to
 * /dev/null, while the archive is in the page cache: hvtrace's best of 3,
 * babeltrace2's 1 (it takes a minute or two at this size). The peak RSS of
 * each is its VmHWM, sampled every millisecond. With BENCH_MERGE_KEEP set
 * the archive and its CTF are kept and their paths printed, for comparing
 * outputs or profiling.
 *
 * Last, one line of JSON with every number, for tracking across runs.
 */
#include <errno.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hvtrace/ctf.h>

#include "lib/fileio.h"
#include "tests/bench/bench.h"
#include "tests/bench/run_measure.h"
#include "tests/unit/archive_fixture.h"

#define DEFAULT_EVENTS	20000000ull
#define HOST_CPUS	4
#define USER_THREADS	4
#define SPAN_NS		350000000ull	/* within the fixture's exchanges */
#define OUR_ROUNDS	3
#define BT2_ROUNDS	1

static const char *const vm_names[2] = { "demo", "demo2" };
static const uint8_t kernel_uuid[2][16] = {
	{ 0x5c, 0x0f, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14 },
	{ 0x5c, 0x0f, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 0x24 },
};
static const uint8_t user_uuid[2][16] = {
	{ 0xaa, 0xbb, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15 },
	{ 0xaa, 0xbb, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 0x25 },
};

static void die(const char *what)
{
	fprintf(stderr, "bench_merge: %s\n", what);
	exit(1);
}

/* How many events each stream gets. */
struct sizes {
	uint64_t total, host, kernel, user;	/* per stream */
};

static struct sizes sizes_for(uint64_t total)
{
	struct sizes s;

	s.host = total / 4 / HOST_CPUS;
	s.kernel = total * 3 / 8 * 2 / 3 / 2;
	s.user = total * 3 / 8 / 3 / USER_THREADS;
	s.total = HOST_CPUS * s.host + 2 * (2 * s.kernel + USER_THREADS * s.user);
	return s;
}

/* Host TSC, ns after the first clock pair, of event @i of @n, a stream-specific phase added. */
static uint64_t when(uint64_t i, uint64_t n, uint64_t phase)
{
	return FX_HOST_TSC(1000000ull + SPAN_NS * i / n) + phase;
}

/* --- guest streams -------------------------------------------------------- */

struct kernel_gen {
	uint64_t n, phase;
	uint32_t cpu;
	struct fx_sched_switch sw[2];
	uint32_t far;
};

static void kernel_event(size_t i, void *ctx, struct fx_event *ev)
{
	struct kernel_gen *g = ctx;
	uint64_t ts = when(i, g->n, g->phase) + (uint64_t)FX_OFFSET;

	if (i % 10 == 9)
		*ev = (struct fx_event){ FX_ID_FAR, ts, g->cpu, 77, &g->far, sizeof(g->far) };
	else
		*ev = (struct fx_event){ FX_ID_SCHED_SWITCH, ts, g->cpu, i % 2 ? 0 : 77,
					 &g->sw[i % 2], sizeof(g->sw[0]) };
}

struct user_gen {
	uint64_t n, phase;
	int32_t tid;
	uint32_t cpu;
	struct fx_send send;
	unsigned char *kinds;
	uint32_t kinds_len;
};

static void user_event(size_t i, void *ctx, struct fx_event *ev)
{
	struct user_gen *g = ctx;
	uint64_t ts = when(i, g->n, g->phase) + (uint64_t)FX_OFFSET;

	if (i % 4 == 3)
		*ev = (struct fx_event){ FX_ID_KINDS, ts, g->cpu, g->tid, g->kinds, g->kinds_len };
	else
		*ev = (struct fx_event){ FX_ID_SEND, ts, g->cpu, g->tid, &g->send,
					 sizeof(g->send) };
}

/* info.json of VM @v: a kernel trace of 2 CPU streams, a user trace of USER_THREADS threads. */
static void write_info(const char *root, int v)
{
	char rel[64], streams[2048], ku[37], uu[37];
	size_t len = 0;
	int k;

	for (k = 0; k < 2 + USER_THREADS; k++)
		len += (size_t)snprintf(streams + len, sizeof(streams) - len,
			"%s  { \"id\": %d, \"trace\": %d, \"file\": \"%s/stream-%d\", \"cpu\": %d, "
			"\"tid\": %d, \"lost\": 0, \"closed\": true }",
			k ? ",\n" : "", k, k < 2 ? 0 : 1, k < 2 ? "kernel" : "user-1", k,
			k < 2 ? k : -1, k < 2 ? 0 : 76 + k);
	snprintf(ku, sizeof(ku), "%02x%02x0102-0304-0506-0708-090a0b0c0d%02x", kernel_uuid[v][0],
		 kernel_uuid[v][1], kernel_uuid[v][15]);
	snprintf(uu, sizeof(uu), "%02x%02x0102-0304-0506-0708-090a0b0c0d%02x", user_uuid[v][0],
		 user_uuid[v][1], user_uuid[v][15]);
	snprintf(rel, sizeof(rel), "vm/%s/info.json", vm_names[v]);
	if (fx_printf(root, rel,
		"{ \"name\": \"%s\", \"qemu_pid\": %d, \"accel\": \"tcg\",\n"
		"  \"guest\": { \"nr_cpus\": 2, \"tsc_khz\": 2000000, \"clock_flags\": 4,"
		" \"kernel_release\": \"6.1.0\" },\n"
		"  \"sync\": { \"file\": \"sync.tsv\", \"exchanges\": 5, \"offset\": %lld,"
		" \"bound\": 100, \"consistent\": true },\n"
		"  \"traces\": [\n"
		"  { \"id\": 0, \"layer\": \"kernel\", \"dir\": \"kernel\", \"domain\": \"guest_tsc\","
		" \"freq_hz\": 2000000000, \"uuid\": \"%s\", \"pid\": 0, \"comm\": \"\" },\n"
		"  { \"id\": 1, \"layer\": \"user\", \"dir\": \"user-1\", \"domain\": \"guest_tsc\","
		" \"freq_hz\": 2000000000, \"uuid\": \"%s\", \"pid\": 78, \"comm\": \"hvdemo\" } ],\n"
		"  \"streams\": [\n%s ],\n"
		"  \"finished\": true, \"end_reason\": \"guest finished\" }\n",
		vm_names[v], 4321 + v, (long long)FX_OFFSET, ku, uu, streams))
		die("cannot write info.json");
}

static void write_vm(const char *root, int v, const struct sizes *n)
{
	struct kernel_gen kg = { .n = n->kernel, .far = 42 };
	struct user_gen ug = { .n = n->user, .cpu = 1 };
	char rel[96], *sync;
	size_t len;
	int k;

	/* the fixture wrote vm/demo's clock exchanges; demo2 gets the same */
	snprintf(rel, sizeof(rel), "%s/vm/demo/sync.tsv", root);
	if (hvt_read_file(rel, 1 << 20, &sync, &len))
		die("cannot read the fixture's sync.tsv");
	snprintf(rel, sizeof(rel), "vm/%s/sync.tsv", vm_names[v]);
	if (fx_write(root, rel, sync, len))
		die("cannot write sync.tsv");
	free(sync);
	write_info(root, v);
	/* the fixture's own user stream, which this info.json does not list */
	snprintf(rel, sizeof(rel), "%s/vm/%s/user-1/stream-0", root, vm_names[v]);
	if (unlink(rel) && errno != ENOENT)
		die("cannot remove the fixture's user stream");
	snprintf(rel, sizeof(rel), "vm/%s/kernel", vm_names[v]);
	if (fx_write_trace(root, rel, kernel_uuid[v], vm_names[v], HVT_LAYER_KERNEL,
			   HVT_DOMAIN_GUEST_TSC, 2000000000ull, 0))
		die("cannot write the kernel registry");
	snprintf(rel, sizeof(rel), "vm/%s/user-1", vm_names[v]);
	if (fx_write_trace(root, rel, user_uuid[v], vm_names[v], HVT_LAYER_USER,
			   HVT_DOMAIN_GUEST_TSC, 2000000000ull, 78))
		die("cannot write the user registry");

	kg.sw[0] = fx_sched("hvdemo", 77, 1, "swapper/0", 0);
	kg.sw[1] = fx_sched("swapper/0", 0, 0, "hvdemo", 77);
	for (k = 0; k < 2; k++) {
		kg.cpu = (uint32_t)k;
		kg.phase = 3u * (uint64_t)k + (uint64_t)v;
		snprintf(rel, sizeof(rel), "vm/%s/kernel/stream-%d", vm_names[v], k);
		if (fx_write_stream_gen(root, rel, kernel_uuid[v], 65536, kg.cpu, kg.cpu,
					n->kernel, kernel_event, &kg))
			die("cannot write a kernel stream");
	}
	ug.send = fx_send(3, 77);
	ug.kinds = fx_kinds("a string of some length", "blob", 4, &ug.kinds_len);
	for (k = 0; k < USER_THREADS; k++) {
		ug.tid = 78 + k;
		ug.phase = 7u + 5u * (uint64_t)k + (uint64_t)v;
		snprintf(rel, sizeof(rel), "vm/%s/user-1/stream-%d", vm_names[v], 2 + k);
		if (fx_write_stream_gen(root, rel, user_uuid[v], 65536, HVT_CTF_NO_CPU,
					(uint64_t)ug.tid, n->user, user_event, &ug))
			die("cannot write a user stream");
	}
	free(ug.kinds);
}

/* --- host ----------------------------------------------------------------- */

static void write_host(const char *root, const struct sizes *n)
{
	struct fx_host_switch *ev = calloc(n->host, sizeof(*ev));
	char rel[64];
	uint64_t i;
	int cpu;

	if (!ev)
		die("out of memory");
	for (cpu = 0; cpu < HOST_CPUS; cpu++) {
		int32_t tid = 4321 + cpu;	/* a thread of its own: 4321, vCPU 0's, on CPU 0 */

		/*
		 * In at even events, out 10 ns before the next one: vCPU 0's
		 * guest kernel events (stream 0, a few ns after host times)
		 * all lie in runs of 4321, as a real vCPU's do.
		 */
		for (i = 0; i < n->host; i++)
			ev[i] = i % 2 == 0 ?
				(struct fx_host_switch){ when(i, n->host, 11u * (uint64_t)cpu), 0,
							 "swapper/1", 0, 120, 0, "qemu-system-x86",
							 tid, 120 } :
				(struct fx_host_switch){ when(i + 1, n->host, 11u * (uint64_t)cpu) -
							 20, tid, "qemu-system-x86", tid, 120, 1,
							 "swapper/1", 0, 120 };
		snprintf(rel, sizeof(rel), "host/ftrace/cpu%d.raw", cpu);
		if (fx_write_ftrace_cpu(root, rel, 4096, ev, n->host))
			die("cannot write a host CPU's pages");
	}
	free(ev);
}

/*
 * hvtrace.json: the host's 4 CPUs and the two VMs; with @vcpu_threads, the
 * VMs' vCPU 0 is host thread 4321, whose runs merge then reads once more,
 * with the guest kernel streams, to bound the clock (the run pre-pass).
 */
static void write_manifest(const char *root, bool vcpu_threads)
{
	const char *threads = vcpu_threads ?
		", \"vcpu_threads\": { \"source\": \"proc\", \"tids\": [4321, 0] }" : "";
	long long bytes[HOST_CPUS];
	char path[128];
	struct stat st;
	int cpu;

	/* a complete recording's manifest has each CPU file's length: merge reads that much */
	for (cpu = 0; cpu < HOST_CPUS; cpu++) {
		snprintf(path, sizeof(path), "%s/host/ftrace/cpu%d.raw", root, cpu);
		if (stat(path, &st))
			die("cannot measure a host CPU file");
		bytes[cpu] = (long long)st.st_size;
	}

	if (fx_printf(root, "hvtrace.json",
		"{ \"format\": \"hvtrace-archive\", \"version\": 1, \"status\": \"complete\",\n"
		"  \"started\": \"2026-11-22T00:00:00Z\", \"hostname\": \"bench\",\n"
		"  \"host\": { \"clock\": \"x86-tsc\", \"clock_pairs\": \"host/clock.tsv\",\n"
		"            \"tsc_freq_hz\": 2000000000, \"ftrace\": { \"dir\": \"host/ftrace\","
		" \"instance\": \"hvtrace-1\", \"page_size\": 4096, \"events\": "
		"[\"sched:sched_switch\"], \"pids\": [4321, 4322], \"cpus\": [\n"
		"    { \"cpu\": 0, \"file\": \"cpu0.raw\", \"bytes\": %lld },"
		" { \"cpu\": 1, \"file\": \"cpu1.raw\", \"bytes\": %lld },\n"
		"    { \"cpu\": 2, \"file\": \"cpu2.raw\", \"bytes\": %lld },"
		" { \"cpu\": 3, \"file\": \"cpu3.raw\", \"bytes\": %lld } ] } },\n"
		"  \"vms\": [ { \"name\": \"demo\", \"dir\": \"vm/demo\"%s },"
		" { \"name\": \"demo2\", \"dir\": \"vm/demo2\"%s } ] }\n", bytes[0], bytes[1],
		bytes[2], bytes[3], threads, threads))
		die("cannot write hvtrace.json");
}

/* --- running and measuring ------------------------------------------------ */

static uint64_t tree_bytes;

static int add_file(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (flag == FTW_F)
		tree_bytes += (uint64_t)st->st_size;
	return 0;
}

/* The bytes of the files under @path (a file: its own). */
static uint64_t bytes_of(const char *path)
{
	tree_bytes = 0;
	if (nftw(path, add_file, 16, FTW_PHYS))
		die("cannot measure a file's size");
	return tree_bytes;
}

static uint64_t events_wanted(void)
{
	const char *e = getenv("BENCH_MERGE_EVENTS");
	uint64_t n = e ? strtoull(e, NULL, 10) : DEFAULT_EVENTS;

	return n >= 1000 ? n : DEFAULT_EVENTS;
}

int main(void)
{
	const struct fx_options o = { .ftrace = true };
	const struct sizes n = sizes_for(events_wanted());
	char root[64], ctf[80], db[80], ref_dir[80], ref_db[88], ref_sql[112], *hv = bench_hvtrace_path();
	char *null_argv[] = { hv, "merge", root, "--format=null", NULL };
	char *analyze_argv[] = { hv, "analyze", "--format", "tsv", root, NULL };
	char *text_argv[] = { hv, "merge", root, "--output", "/dev/null", NULL };
	char *json_argv[] = { hv, "merge", root, "--format=json", "--output", "/dev/null", NULL };
	char *ctf_argv[] = { hv, "merge", root, "--format=ctf", "--output", ctf, NULL };
	char *sql_argv[] = { hv, "merge", root, "--format=sqlite", "--force", "--output", db, NULL };
	char *ref_prepare[] = { "tests/bench/sql_import_ref.sh", db, ref_dir, NULL };
	char *ref_argv[] = { "sqlite3", ref_db, ref_sql, NULL };
	char *bt_dummy[] = { "babeltrace2", ctf, "-o", "dummy", NULL };
	char *bt_text[] = { "babeltrace2", ctf, NULL };
	struct bench_measure null_m, text_m, json_m, ctf_m, bt_dummy_m, bt_text_m, runs_m, sql_m, ref_m;
	struct bench_measure analyze_m;
	uint64_t archive_bytes, db_bytes;
	long kib;
	int v;

	if (!hv)
		die("no hvtrace beside this program's directory (make builds it)");
	if (fx_mkdtemp(root, sizeof(root)) || fx_standard_archive(root, &o))
		die("cannot create the archive");
	snprintf(ctf, sizeof(ctf), "%s.ctf", root);
	snprintf(db, sizeof(db), "%s.db", root);
	snprintf(ref_dir, sizeof(ref_dir), "%s.csv", root);
	snprintf(ref_db, sizeof(ref_db), "%s.ref.db", root);
	snprintf(ref_sql, sizeof(ref_sql), ".read %s/import.sql", ref_dir);
	write_host(root, &n);
	for (v = 0; v < 2; v++)
		write_vm(root, v, &n);
	write_manifest(root, false);

	ctf_m = bench_measure(ctf_argv, 1, n.total);		/* the conversion, once */
	if (ctf_m.ns <= 0)
		die("hvtrace merge --format=ctf failed on the benchmark archive");
	null_m = bench_measure(null_argv, OUR_ROUNDS, n.total);
	text_m = bench_measure(text_argv, OUR_ROUNDS, n.total);
	json_m = bench_measure(json_argv, OUR_ROUNDS, n.total);
	if (null_m.ns <= 0 || text_m.ns <= 0 || json_m.ns <= 0)
		die("hvtrace merge failed on the benchmark archive");
	archive_bytes = bytes_of(root);
	sql_m = bench_measure(sql_argv, 1, n.total);
	if (sql_m.ns <= 0)
		die("hvtrace merge --format=sqlite failed on the benchmark archive");
	db_bytes = bytes_of(db);
	if (bench_run_rss(ref_prepare, &kib))
		die("tests/bench/sql_import_ref.sh failed (run make bench from the top directory)");
	unlink(ref_db);
	ref_m = bench_measure(ref_argv, 1, n.total);
	bt_dummy_m = bench_measure(bt_dummy, BT2_ROUNDS, n.total);
	bt_text_m = bench_measure(bt_text, BT2_ROUNDS, n.total);
	write_manifest(root, true);	/* the same, with the run pre-pass */
	runs_m = bench_measure(null_argv, OUR_ROUNDS, n.total);
	if (runs_m.ns <= 0)
		die("hvtrace merge failed on the benchmark archive with vcpu_threads");
	analyze_m = bench_measure(analyze_argv, OUR_ROUNDS, n.total);
	if (analyze_m.ns <= 0)
		die("hvtrace analyze failed on the benchmark archive");

	printf("\nmerge: %llu events in 16 streams (host: 4 CPUs; 2 VMs: 2 kernel and %d user "
	       "streams each), ns per event\n", (unsigned long long)n.total, USER_THREADS);
	bench_header("merge: one event");
	bench_measure_row("merge --format=null (decode, align, merge)", null_m, "babeltrace2 -o dummy",
	    bt_dummy_m);
	bench_measure_row("merge, text to /dev/null", text_m, "babeltrace2 text", bt_text_m);
	bench_measure_row("merge --format=json to /dev/null", json_m, "babeltrace2 text", bt_text_m);
	bench_measure_row("merge --format=ctf (the conversion)", ctf_m, "-", (struct bench_measure){ 0, 0 });
	bench_measure_row("merge --format=sqlite (the database)", sql_m, "sqlite3 .import, same rows", ref_m);
	/*
	 * The fixture's exchanges bound the clock to +/-50 ns, closer than any
	 * guest event lies to a run's edge: the pass reads the host's
	 * sched_switch and the guest kernel streams and bounds nothing. Its
	 * reading is what a real archive pays too; its refits are not here
	 * (bench_clocksync has its per-event core).
	 */
	bench_measure_row("merge --format=null, vcpu_threads named (runs read)", runs_m,
	    "merge --format=null", null_m);
	/* the same pass, each VM analysed: states, pieces, wake chains */
	bench_measure_row("analyze --format tsv (vCPU states, wake chains)", analyze_m,
	    "merge --format=null, vcpu_threads", runs_m);
	if (bt_dummy_m.ns <= 0 || bt_text_m.ns <= 0)
		printf("(babeltrace2 did not run: no reference)\n");
	printf("merge --format=sqlite: %.0f k events/s, the database %.1f MiB, %.2f x the archive's "
	       "%.1f MiB; peak RSS %.1f MiB (sqlite3 .import %.1f MiB)\n", 1e6 / sql_m.ns,
	       db_bytes / 1048576.0, (double)db_bytes / (double)archive_bytes,
	       archive_bytes / 1048576.0, sql_m.rss_mib, ref_m.rss_mib);
	printf("peak RSS (VmHWM, sampled), MiB: merge --format=null %.1f, text %.1f, json %.1f, "
	       "ctf %.1f, null with vcpu_threads %.1f, analyze %.1f; babeltrace2 -o dummy %.1f, "
	       "text %.1f\n", null_m.rss_mib, text_m.rss_mib, json_m.rss_mib, ctf_m.rss_mib,
	       runs_m.rss_mib, analyze_m.rss_mib, bt_dummy_m.rss_mib, bt_text_m.rss_mib);
	printf("{\"bench\":\"merge\",\"events\":%llu,\"streams\":16,\"null_ns\":%.2f,"
	       "\"runs_ns\":%.2f,\"analyze_ns\":%.2f,\"analyze_rss_mib\":%.1f,"
	       "\"text_ns\":%.2f,\"json_ns\":%.2f,\"ctf_ns\":%.2f,\"bt2_dummy_ns\":%.2f,"
	       "\"bt2_text_ns\":%.2f,\"sqlite_ns\":%.2f,\"sqlite_import_ns\":%.2f,"
	       "\"sqlite_size_ratio\":%.3f,\"sqlite_rss_mib\":%.1f,"
	       "\"null_rss_mib\":%.1f,\"text_rss_mib\":%.1f,"
	       "\"json_rss_mib\":%.1f,\"ctf_rss_mib\":%.1f,\"runs_rss_mib\":%.1f,"
	       "\"bt2_dummy_rss_mib\":%.1f,"
	       "\"bt2_text_rss_mib\":%.1f}\n", (unsigned long long)n.total, null_m.ns, runs_m.ns,
	       analyze_m.ns, analyze_m.rss_mib,
	       text_m.ns, json_m.ns, ctf_m.ns, bt_dummy_m.ns, bt_text_m.ns, sql_m.ns, ref_m.ns,
	       (double)db_bytes / (double)archive_bytes, sql_m.rss_mib, null_m.rss_mib,
	       text_m.rss_mib, json_m.rss_mib, ctf_m.rss_mib, runs_m.rss_mib, bt_dummy_m.rss_mib,
	       bt_text_m.rss_mib);
	if (getenv("BENCH_MERGE_KEEP")) {
		printf("archive kept in %s (with vcpu_threads), its CTF in %s, its database in "
		       "%s\n", root, ctf, db);
	} else {
		fx_rm_rf(root);
		fx_rm_rf(ctf);
		unlink(db);
	}
	fx_rm_rf(ref_dir);
	unlink(ref_db);
	return 0;
}
