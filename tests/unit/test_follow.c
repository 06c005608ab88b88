// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_follow.c - a recording followed as it is written (tools/merge/follow.h):
 *   - what is handed on while a stream has more to come is final: across
 *     the refreshes, the events come in the finished recording's order,
 *     none late, none twice, none missing; a stream that ran dry holds the
 *     others back from then on, within one pass too;
 *   - the lag rule: a stream that stalls holds the others back by the lag
 *     at most; what it brings later is handed on when it comes, counted
 *     as late;
 *   - a recording whose collector is gone (on this host) ends the follower
 *     once what it wrote is read; one whose collector runs does not.
 * The standard archive (archive_fixture.c) with its kernel stream-0
 * rewritten: sched_switch at guest 2.0 ms + i * 100 us, two a packet.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/fileio.h"
#include "tools/merge/follow.h"
#include "tests/unit/archive_fixture.h"
#include "tests/unit/open_timeline.h"

#define MAX_EVENTS	64
#define STREAM0		"vm/demo/kernel/stream-0"
#define MS		1000000ll

static const uint8_t kernel_uuid[16] = { 0x5c, 0x0f, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14 };

struct seen {
	char source[64];
	uint64_t host_tsc;
};

/* The sink: what it was handed, and after how many catch-ups it stops. */
struct handed {
	struct seen v[MAX_EVENTS];
	size_t n;
	struct hvt_session *ses;	/* if set: guest events without a bound counted */
	size_t unbounded;
	unsigned int caught_up, stop_after;
	volatile sig_atomic_t stop;
};

static int take(struct hvt_source *s, void *ctx)
{
	struct handed *h = ctx;

	assert_true(h->n < MAX_EVENTS);
	snprintf(h->v[h->n].source, sizeof(h->v[h->n].source), "%s", s->name);
	h->v[h->n++].host_tsc = s->host_tsc;
	if (h->ses && s->vm_number) {
		uint64_t b;

		h->unbounded += hvt_source_error_bound(&h->ses->vms[s->vm_number - 1], s, &b) != 0;
	}
	return 0;
}

static void caught_up(void *ctx)
{
	struct handed *h = ctx;

	if (++h->caught_up >= h->stop_after)
		h->stop = 1;
}

static const struct hvt_follow_sink sink = { .event = take, .caught_up = caught_up };

/* The follower's clock: CLOCK_REALTIME as the test sets it. */
static int64_t now_ns;

static int64_t test_clock(void)
{
	return now_ns;
}

/* "now - lag" at @ns after the trace start (fixture: realtime FX_REAL0), lag 1 s. */
#define LAG	(1000 * MS)
static void now_at(int64_t ns)
{
	now_ns = FX_REAL0 + ns + LAG;
}

static size_t packet_size(const unsigned char *p)
{
	uint64_t bits;

	memcpy(&bits, p + offsetof(struct hvt_ctf_packet, packet_size), sizeof(bits));
	return (size_t)(bits / 8);
}

/* Rewrites hvtrace.json's "status": "recording" as @with (status and more). */
static void manifest_says(const char *root, const char *with)
{
	char path[256], *json, *p, *out;
	size_t len;

	snprintf(path, sizeof(path), "%s/hvtrace.json", root);
	assert_int_equal(hvt_read_file(path, 1u << 20, &json, &len), 0);
	p = strstr(json, "\"status\": \"recording\"");
	assert_non_null(p);
	out = malloc(len + strlen(with) + 1);
	assert_non_null(out);
	memcpy(out, json, (size_t)(p - json));
	strcpy(out + (p - json), with);
	strcat(out, p + strlen("\"status\": \"recording\""));
	assert_int_equal(fx_write(root, "hvtrace.json", out, strlen(out)), 0);
	free(out);
	free(json);
}

/* A recording with stream-0's first packet (2.0 and 2.1 ms) written and counted. */
static unsigned char *recording_first_packet(const char *root, size_t *len)
{
	const struct fx_options o = { .ftrace = true, .status = "recording", .live = true };
	unsigned char *all;

	assert_int_equal(fx_standard_archive(root, &o), 0);
	all = fx_kernel_packets(8, len);
	assert_int_equal(fx_write(root, STREAM0, all, packet_size(all)), 0);
	assert_int_equal(fx_refresh_info(root), 0);
	return all;
}

/* The rest of stream-0, counted, and the recording complete. */
static void recording_finished(const char *root, const unsigned char *all, size_t len)
{
	assert_int_equal(fx_write(root, STREAM0, all, len), 0);
	assert_int_equal(fx_refresh_info(root), 0);
	manifest_says(root, "\"status\": \"complete\"");
}

static void open_follow(struct fx_opened *m, const char *root)
{
	const struct hvt_session_opts o = { .follow = true };

	assert_int_equal(fx_open_with(m, root, &o), 0);
}

/* What a merge of the finished recording returns, in order. */
static void offline(const char *root, struct handed *h)
{
	struct fx_opened m;
	struct hvt_source *s;

	assert_int_equal(fx_open(&m, root, false), 0);
	while ((s = hvt_timeline_next(&m.tl)))
		take(s, h);
	fx_close(&m);
}

static void follow_until_caught_up(struct hvt_follow *f, struct handed *h, unsigned int times)
{
	h->stop = 0;
	h->stop_after = h->caught_up + times;
	f->stopped = false;
	assert_int_equal(hvt_follow_run(f, &sink, h), 0);
}

/*
 * Handed on while stream-0 has more to come, then after the rest came:
 * the finished recording's order, none late. The first pass stops where
 * the streams that ran dry (kernel stream-1 and the user stream, at 1.3
 * ms) hold it: before stream-0's 2.0 ms, though stream-0 and the host CPU
 * still had events in the time line.
 */
static void test_final_order(void **state)
{
	const char *root = *state;
	struct handed got = { .n = 0 }, want = { .n = 0 };
	struct hvt_follow_opts o = { .lag_ns = LAG, .period_ns = 1000000, .realtime = test_clock };
	struct hvt_follow f;
	struct fx_opened m;
	unsigned char *all;
	size_t len, i, first;

	o.stop = &got.stop;
	now_at(-1000 * MS);	/* "now - lag" before the start: no event is that old */
	all = recording_first_packet(root, &len);
	open_follow(&m, root);
	hvt_follow_init(&f, &m.tl, &o);
	assert_false(f.complete);
	follow_until_caught_up(&f, &got, 1);
	first = got.n;
	assert_true(first > 0);
	for (i = 0; i < first; i++)
		assert_true(got.v[i].host_tsc <= FX_HOST_TSC(1300000));

	recording_finished(root, all, len);
	follow_until_caught_up(&f, &got, 100);
	assert_true(f.complete);
	assert_false(f.stopped);
	assert_int_equal(f.late, 0);
	assert_int_equal(f.events, got.n);

	offline(root, &want);
	assert_true(first < want.n);
	assert_int_equal(got.n, want.n);
	for (i = 0; i < want.n; i++) {
		assert_string_equal(got.v[i].source, want.v[i].source);
		assert_int_equal(got.v[i].host_tsc, want.v[i].host_tsc);
	}
	fx_close(&m);
	free(all);
}

/*
 * Stream-0 stalls after 2.1 ms; with "now - lag" at 250 ms the others go
 * on without it (the host's event at 200 ms); its six later events are
 * handed on when they come, late. Nothing is lost or doubled.
 */
static void test_lag_rule(void **state)
{
	const char *root = *state;
	struct handed got = { .n = 0 }, want = { .n = 0 };
	struct hvt_follow_opts o = { .lag_ns = LAG, .period_ns = 1000000, .realtime = test_clock };
	struct hvt_follow f;
	struct fx_opened m;
	unsigned char *all;
	size_t len, i;

	o.stop = &got.stop;
	all = recording_first_packet(root, &len);
	open_follow(&m, root);
	hvt_follow_init(&f, &m.tl, &o);
	/* at 1.5 ms: the user stream's 1.3 ms too, not stream-0's 2.0 ms */
	now_at(1 * MS + 500000);
	follow_until_caught_up(&f, &got, 1);
	for (i = 0; i < got.n; i++)
		assert_true(got.v[i].host_tsc < FX_HOST_TSC(1500000));
	assert_string_equal(got.v[got.n - 1].source, "vm/demo/user-1/stream-0");

	now_at(250 * MS);
	follow_until_caught_up(&f, &got, 1);
	assert_int_equal(got.v[got.n - 1].host_tsc, FX_HOST_TSC(200000000));
	assert_int_equal(f.late, 0);

	recording_finished(root, all, len);
	follow_until_caught_up(&f, &got, 100);
	assert_true(f.complete);
	assert_int_equal(f.late, 6);
	offline(root, &want);
	assert_int_equal(got.n, want.n);
	for (i = got.n - 6; i < got.n; i++) {
		assert_string_equal(got.v[i].source, STREAM0);
		assert_true(got.v[i].host_tsc < FX_HOST_TSC(200000000));
	}
	fx_close(&m);
	free(all);
}

/* info.json with every stream but stream-0 closed: they hold nothing. */
static void close_all_but_stream0(const char *root)
{
	static const char *const others[] = { "\"kernel/stream-1\"", "\"user-1/stream-0\"" };
	char path[256], *info, *c;
	size_t len, i;

	snprintf(path, sizeof(path), "%s/vm/demo/info.json", root);
	assert_int_equal(hvt_read_file(path, 1u << 20, &info, &len), 0);
	for (i = 0; i < 2; i++) {
		c = strstr(info, others[i]);
		assert_non_null(c);
		c = strstr(c, "\"closed\": false");
		assert_non_null(c);
		memcpy(c, "\"closed\":  true", 15);
	}
	assert_int_equal(fx_write(root, "vm/demo/info.json", info, len), 0);
	free(info);
}

/*
 * A guest event is final only where its VM's alignment reaches: with
 * exchanges up to 100 ms, stream-0's events at 150 and 160 ms wait though
 * nothing else holds them (the other guest streams closed); once the later
 * exchanges are there and the VMs refitted, they come, each with its
 * bound, none late.
 */
static void test_alignment_reach(void **state)
{
	const char *root = *state;
	const struct fx_options fo = { .ftrace = true, .status = "recording", .live = true };
	struct handed got = { .n = 0 };
	struct hvt_follow_opts o = { .lag_ns = LAG, .period_ns = 1000000, .realtime = test_clock };
	struct fx_sched_switch sw[2] = { fx_sched("a", 1, 1, "b", 100), fx_sched("b", 100, 1, "a", 1) };
	const struct fx_event ev[2] = {
		{ FX_ID_SCHED_SWITCH, FX_GUEST_TSC(150000000), 0, 1, &sw[0], sizeof(sw[0]) },
		{ FX_ID_SCHED_SWITCH, FX_GUEST_TSC(160000000), 0, 100, &sw[1], sizeof(sw[1]) } };
	struct hvt_follow f;
	struct fx_opened m;
	char *sync, *cut;
	size_t len, i;

	o.stop = &got.stop;
	assert_int_equal(fx_standard_archive(root, &fo), 0);
	assert_int_equal(fx_write_stream(root, STREAM0, kernel_uuid, 256, 0, 0, ev, 2), 0);
	assert_int_equal(fx_refresh_info(root), 0);
	close_all_but_stream0(root);
	/* sync.tsv: the first two exchanges only (0 and 100 ms), the rest later */
	{
		char path[256];

		snprintf(path, sizeof(path), "%s/vm/demo/sync.tsv", root);
		assert_int_equal(hvt_read_file(path, 1u << 20, &sync, &len), 0);
	}
	cut = strchr(strchr(strchr(sync, '\n') + 1, '\n') + 1, '\n') + 1;
	assert_int_equal(fx_write(root, "vm/demo/sync.tsv", sync, (size_t)(cut - sync)), 0);

	now_at(-1000 * MS);	/* "now - lag" before the start: the lag holds nothing back */
	open_follow(&m, root);
	got.ses = &m.ses;
	hvt_follow_init(&f, &m.tl, &o);
	follow_until_caught_up(&f, &got, 1);
	assert_true(m.ses.vms[0].al.aligned);
	for (i = 0; i < got.n; i++)
		assert_true(got.v[i].host_tsc <= FX_HOST_TSC(100000000));
	assert_int_equal(got.unbounded, 0);

	assert_int_equal(fx_write(root, "vm/demo/sync.tsv", sync, len), 0);
	manifest_says(root, "\"status\": \"complete\"");
	follow_until_caught_up(&f, &got, 100);
	assert_true(f.complete);
	assert_int_equal(f.late, 0);
	assert_int_equal(got.unbounded, 0);
	for (i = 0; i < got.n && strcmp(got.v[i].source, STREAM0); i++)
		;
	assert_true(i < got.n);		/* stream-0's events came, at the end */
	assert_int_equal(got.v[i].host_tsc, FX_HOST_TSC(150000000));
	free(sync);
	fx_close(&m);
}

/* A pid no process has: a child's, reaped. */
static pid_t gone_pid(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return pid;
}

static void follow_collector(const char *root, pid_t pid, bool ends)
{
	char host[256] = "", with[512];
	struct handed got = { .n = 0 }, want = { .n = 0 };
	struct hvt_follow_opts o = { .lag_ns = LAG, .period_ns = 1000000, .realtime = test_clock };
	struct hvt_follow f;
	struct fx_opened m;
	unsigned char *all;
	size_t len;

	o.stop = &got.stop;
	now_at(-1000 * MS);
	all = recording_first_packet(root, &len);
	assert_int_equal(gethostname(host, sizeof(host) - 1), 0);
	snprintf(with, sizeof(with), "\"status\": \"recording\", \"collector_pid\": %d",
		 (int)pid);
	manifest_says(root, with);
	/* the fixture's hostname is "test": this host's */
	{
		char path[256], *json, *p;
		size_t n;

		snprintf(path, sizeof(path), "%s/hvtrace.json", root);
		assert_int_equal(hvt_read_file(path, 1u << 20, &json, &n), 0);
		p = strstr(json, "\"hostname\": \"test\"");
		assert_non_null(p);
		*p = 0;
		assert_int_equal(fx_printf(root, "hvtrace.json", "%s\"hostname\": \"%s\"%s", json,
					   host, p + strlen("\"hostname\": \"test\"")), 0);
		free(json);
	}
	open_follow(&m, root);
	hvt_follow_init(&f, &m.tl, &o);
	follow_until_caught_up(&f, &got, 5);
	assert_int_equal(f.ended, ends);
	assert_int_equal(f.stopped, !ends);
	assert_false(f.complete);
	if (ends) {	/* all it wrote: stream-0's first packet */
		offline(root, &want);
		assert_int_equal(got.n, want.n);
	}
	fx_close(&m);
	free(all);
}

/* The collector is gone: the follower ends with what it wrote. */
static void test_collector_gone(void **state)
{
	follow_collector(*state, gone_pid(), true);
}

/* The collector runs (this process, on this host): the follower waits on. */
static void test_collector_alive(void **state)
{
	follow_collector(*state, getpid(), false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_final_order, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_lag_rule, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_alignment_reach, fx_setup_root,
						fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_collector_gone, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_collector_alive, fx_setup_root,
						fx_teardown_root),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
