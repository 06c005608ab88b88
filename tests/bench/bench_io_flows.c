// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_io_flows.c - `hvtrace analyze --io` (each guest block request
 * followed through QEMU's log and back, model/io_flows.h) per event of the
 * archive, against `hvtrace merge --format=null` (decode, align and merge
 * alone) on the same archive in the same run, with each one's peak memory,
 * at 2 M and at 20 M events (BENCH_IO_EVENTS in the environment changes
 * the larger).
 *
 * The archive: the fixture's (tests/unit/archive_fixture.h), its VM "demo"
 * given a kernel trace of two CPU streams made the way hvtrace.ko makes
 * them, and a QEMU log kept as record --qemu-log keeps it. A request every
 * 4 us over 350 ms (87,500): on guest CPU 0 its block_rq_issue by dd, dd
 * switched out asleep, its block_rq_complete and dd switched in again; in
 * QEMU's log virtio_blk_handle_read, thread_pool_submit and _complete,
 * virtio_blk_req_complete and virtio_notify_irqfd (stamped to the
 * microsecond). Guest CPU 1 has the rest: sched_switch events, as a busy
 * guest's trace is mostly scheduling. So the larger archive has as many
 * requests and ten times the events: the flow analysis must stream, its
 * memory the requests in flight and its fixed histograms, whatever the
 * archive's size. QEMU's log is read whole and sorted (read/qemu_log.c):
 * its memory is the log's size, the same at both sizes here.
 *
 * Each command runs as a process of its own, output to /dev/null, while the
 * archive is in the page cache: best of 3. Before timing, analyze --io's
 * report must say every request was linked end to end.
 */
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvtrace/ctf.h>

#include "lib/fileio.h"
#include "tests/bench/bench.h"
#include "tests/bench/run_measure.h"
#include "tests/unit/archive_fixture.h"

#define SMALL_EVENTS	2000000ull
#define DEFAULT_EVENTS	20000000ull
#define SPAN_NS		350000000ull	/* within the fixture's exchanges */
#define GAP_NS		4000ull		/* between requests */
#define REQUESTS	(SPAN_NS / GAP_NS)
#define GUEST_PER_REQ	4		/* issue, switch out, complete, switch in */
#define QEMU_PER_REQ	5
#define ROUNDS		3
#define DD		77
#define QEMU_TID	4321

static const uint8_t kernel_uuid[16] = { 0x10, 0xf1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
					 14 };

static void die(const char *what)
{
	fprintf(stderr, "bench_io_flows: %s\n", what);
	exit(1);
}

/* Guest TSC of @ns after the first clock pair. */
static uint64_t guest_tsc(uint64_t ns)
{
	return FX_GUEST_TSC(1000000ull + ns);
}

struct cpu0_gen {
	struct fx_block_rq_issue issue;
	struct fx_block_rq_complete complete;
	struct fx_sched_switch out, in;
};

/* Request i/4's events in turn: its issue at 0, dd out at 0.1 us, done at 3, dd in at 3.2. */
static void cpu0_event(size_t i, void *ctx, struct fx_event *ev)
{
	static const uint64_t at[GUEST_PER_REQ] = { 0, 100, 3000, 3200 };
	struct cpu0_gen *g = ctx;
	uint64_t req = i / GUEST_PER_REQ, t = guest_tsc(req * GAP_NS + at[i % GUEST_PER_REQ]);

	switch (i % GUEST_PER_REQ) {
	case 0:
		g->issue.sector = req * 8;
		*ev = (struct fx_event){ FX_ID_BLOCK_RQ_ISSUE, t, 0, DD, &g->issue,
					 sizeof(g->issue) };
		break;
	case 1:
		*ev = (struct fx_event){ FX_ID_SCHED_SWITCH, t, 0, DD, &g->out, sizeof(g->out) };
		break;
	case 2:
		g->complete.sector = req * 8;
		*ev = (struct fx_event){ FX_ID_BLOCK_RQ_COMPLETE, t, 0, 0, &g->complete,
					 sizeof(g->complete) };
		break;
	default:
		*ev = (struct fx_event){ FX_ID_SCHED_SWITCH, t, 0, 0, &g->in, sizeof(g->in) };
		break;
	}
}

struct cpu1_gen {
	uint64_t n;
	struct fx_sched_switch sw[2];
};

static void cpu1_event(size_t i, void *ctx, struct fx_event *ev)
{
	struct cpu1_gen *g = ctx;

	*ev = (struct fx_event){ FX_ID_SCHED_SWITCH, guest_tsc(SPAN_NS * i / g->n + 7), 1,
				 i % 2 ? 0 : 90, &g->sw[i % 2], sizeof(g->sw[0]) };
}

/* QEMU's lines of every request, stamped as its log trace backend stamps them. */
static void write_qemu_log(const char *root)
{
	static const uint64_t at[QEMU_PER_REQ] = { 1000, 1200, 2000, 2200, 2300 };
	char path[128];
	uint64_t r;
	FILE *f;
	int k;

	snprintf(path, sizeof(path), "%s/vm/demo/qemu-trace.log", root);
	f = fopen(path, "w");
	if (!f)
		die("cannot write the QEMU log");
	for (r = 0; r < REQUESTS; r++)
		for (k = 0; k < QEMU_PER_REQ; k++) {
			uint64_t real = (uint64_t)FX_REAL0 + 1000000ull + r * GAP_NS + at[k];

			fprintf(f, "%d@%llu.%06llu:", QEMU_TID, (unsigned long long)(real / 1000000000ull),
				(unsigned long long)(real % 1000000000ull / 1000));
			if (k == 0)
				fprintf(f, "virtio_blk_handle_read vdev 0x5500 req 0x5600 sector %llu "
					"nsectors 8\n", (unsigned long long)r * 8);
			else if (k == 1)
				fprintf(f, "thread_pool_submit pool 0x7700 req 0x7800 opaque 0x1\n");
			else if (k == 2)
				fprintf(f, "thread_pool_complete pool 0x7700 req 0x7800 opaque 0x1 ret 0\n");
			else if (k == 3)
				fprintf(f, "virtio_blk_req_complete vdev 0x5500 req 0x5600 status 0\n");
			else
				fprintf(f, "virtio_notify_irqfd vdev 0x5500 vq 0x5700\n");
		}
	if (fclose(f))
		die("cannot write the QEMU log");
}

static void write_info(const char *root)
{
	if (fx_printf(root, "vm/demo/info.json",
		"{ \"name\": \"demo\", \"qemu_pid\": %d, \"accel\": \"tcg\",\n"
		"  \"guest\": { \"nr_cpus\": 2, \"tsc_khz\": 2000000, \"clock_flags\": 4,"
		" \"kernel_release\": \"6.1.0\" },\n"
		"  \"sync\": { \"file\": \"sync.tsv\", \"exchanges\": 5, \"offset\": %lld,"
		" \"bound\": 100, \"consistent\": true },\n"
		"  \"traces\": [\n"
		"  { \"id\": 0, \"layer\": \"kernel\", \"dir\": \"kernel\", \"domain\": \"guest_tsc\","
		" \"freq_hz\": 2000000000, \"uuid\": \"10f10102-0304-0506-0708-090a0b0c0d0e\","
		" \"pid\": 0, \"comm\": \"\" } ],\n"
		"  \"streams\": [\n"
		"  { \"id\": 0, \"trace\": 0, \"file\": \"kernel/stream-0\", \"cpu\": 0, \"tid\": 0,"
		" \"lost\": 0, \"closed\": true },\n"
		"  { \"id\": 1, \"trace\": 0, \"file\": \"kernel/stream-1\", \"cpu\": 1, \"tid\": 0,"
		" \"lost\": 0, \"closed\": true } ],\n"
		"  \"finished\": true, \"end_reason\": \"guest finished\" }\n",
		QEMU_TID, (long long)FX_OFFSET))
		die("cannot write info.json");
}

/* An archive of @events events at @root (a fresh directory); its event count. */
static uint64_t write_archive(char *root, size_t len, uint64_t events)
{
	const struct fx_options o = { .ftrace = true };
	struct cpu0_gen g0;
	struct cpu1_gen g1;
	unsigned char *records;
	size_t reg_len;
	uint64_t guest0 = REQUESTS * GUEST_PER_REQ, qemu = REQUESTS * QEMU_PER_REQ;

	if (events < guest0 + qemu + 1000)
		die("too few events for the requests");
	if (fx_mkdtemp(root, len) || fx_standard_archive(root, &o))
		die("cannot create the archive");
	write_info(root);
	records = fx_registry_io(&reg_len);
	if (fx_write_trace_records(root, "vm/demo/kernel", kernel_uuid, "demo", HVT_LAYER_KERNEL,
				   HVT_DOMAIN_GUEST_TSC, 2000000000ull, 0, records, reg_len))
		die("cannot write the kernel registry");
	free(records);
	memset(&g0, 0, sizeof(g0));
	g0.issue.dev = g0.complete.dev = 0xfe00000;	/* 254:0 */
	g0.issue.nr_sector = g0.complete.nr_sector = 8;
	g0.issue.bytes = 4096;
	strcpy(g0.issue.rwbs, "R");
	strcpy(g0.complete.rwbs, "R");
	g0.out = fx_sched("dd", DD, 2, "swapper/0", 0);		/* D: waits on its read */
	g0.in = fx_sched("swapper/0", 0, 0, "dd", DD);
	if (fx_write_stream_gen(root, "vm/demo/kernel/stream-0", kernel_uuid, 65536, 0, 0,
				guest0, cpu0_event, &g0))
		die("cannot write guest CPU 0's stream");
	g1.n = events - guest0 - qemu;
	g1.sw[0] = fx_sched("worker", 90, 1, "swapper/1", 0);
	g1.sw[1] = fx_sched("swapper/1", 0, 0, "worker", 90);
	if (fx_write_stream_gen(root, "vm/demo/kernel/stream-1", kernel_uuid, 65536, 1, 1, g1.n,
				cpu1_event, &g1))
		die("cannot write guest CPU 1's stream");
	write_qemu_log(root);
	return guest0 + qemu + g1.n;
}

/* analyze --io's report on @root says every request was linked. */
static void check_linked(const char *hv, const char *root)
{
	char cmd[512], want[128], line[512];
	bool found = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "%s analyze --io -q %s 2>&1", hv, root);
	snprintf(want, sizeof(want), "%llu requests, %llu linked end to end",
		 (unsigned long long)REQUESTS, (unsigned long long)REQUESTS);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p))
		found |= strstr(line, want) != NULL;
	if (!p || pclose(p) != 0 || !found) {
		fprintf(stderr, "bench_io_flows: kept %s for a look\n", root);
		die("analyze --io did not link every request of the benchmark archive");
	}
}

static uint64_t events_wanted(void)
{
	const char *e = getenv("BENCH_IO_EVENTS");
	uint64_t n = e ? strtoull(e, NULL, 10) : DEFAULT_EVENTS;

	return n >= SMALL_EVENTS ? n : DEFAULT_EVENTS;
}

static int remove_file(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void run_size(const char *hv, uint64_t wanted)
{
	char root[64], label[96];
	char *null_argv[] = { (char *)hv, "merge", root, "--format=null", NULL };
	char *io_argv[] = { (char *)hv, "analyze", "--io", root, NULL };
	char *tsv_argv[] = { (char *)hv, "analyze", "--io", "--format", "tsv", root, NULL };
	struct bench_measure null_m, io_m, tsv_m;
	uint64_t n = write_archive(root, sizeof(root), wanted);

	check_linked(hv, root);
	null_m = bench_measure(null_argv, ROUNDS, n);
	io_m = bench_measure(io_argv, ROUNDS, n);
	tsv_m = bench_measure(tsv_argv, ROUNDS, n);
	if (null_m.ns <= 0 || io_m.ns <= 0 || tsv_m.ns <= 0)
		die("hvtrace failed on the benchmark archive");
	snprintf(label, sizeof(label), "%.0f M events, %llu requests (ns per event)", n / 1e6,
		 (unsigned long long)REQUESTS);
	bench_header(label);
	bench_measure_row("analyze --io (text)", io_m, "merge --format=null", null_m);
	bench_measure_row("analyze --io --format tsv", tsv_m, "merge --format=null", null_m);
	printf("analyze --io: %.2f M events/s; peak RSS %.1f MiB (merge --format=null: %.1f MiB)\n",
	       1e3 / io_m.ns, io_m.rss_mib, null_m.rss_mib);
	printf("{\"bench\":\"io_flows\",\"events\":%llu,\"requests\":%llu,\"io_ns\":%.3f,"
	       "\"tsv_ns\":%.3f,\"null_ns\":%.3f,\"io_rss_mib\":%.1f,\"null_rss_mib\":%.1f}\n",
	       (unsigned long long)n, (unsigned long long)REQUESTS, io_m.ns, tsv_m.ns, null_m.ns,
	       io_m.rss_mib, null_m.rss_mib);
	if (nftw(root, remove_file, 16, FTW_DEPTH | FTW_PHYS))
		die("cannot remove the benchmark archive");
}

int main(void)
{
	char *hv = bench_hvtrace_path();

	if (!hv)
		die("no hvtrace beside this program's directory (make builds it)");
	run_size(hv, SMALL_EVENTS);
	run_size(hv, events_wanted());
	return 0;
}
