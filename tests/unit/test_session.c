// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_session.c - what a session holds (tools/session/): sync points and
 * KVM's TSC parameters found in the archive, traces and VMs that cannot be
 * placed, damaged or inconsistent inputs, streams judged against info.json,
 * files that are not regular, QEMU's and the host applications' events.
 * And a recording still being written, followed with hvt_session_refresh()
 * and its time line's hvt_timeline_refresh(): streams read on from where
 * they stopped and never into a packet being written, registries that
 * grow, a VM whose first clock exchanges come after the open, new streams,
 * the end of the recording; and what was returned across the refreshes
 * against a merge of the finished recording.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/fileio.h"
#include "tests/unit/archive_fixture.h"
#include "tests/unit/open_timeline.h"

#define MAX_EVENTS	256

/* The standard traces' UUIDs (archive_fixture.c's write_info()). */
static const uint8_t user_uuid[16] = { 0xaa, 0xbb, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15 };

/* ROOT/@rel, whole, NUL-terminated. */
static int read_rel(const char *root, const char *rel, char **data, size_t *len)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	return hvt_read_file(path, 1u << 20, data, len);
}

/* One event as a time line returned it. */
struct seen {
	char source[64];
	char name[32];
	uint64_t host_tsc, guest_ts;
	uint64_t value;			/* a sched_switch's next_tid, a send's round */
};

struct seen_list {
	struct seen v[MAX_EVENTS];
	size_t n;
};

/* Everything @tl returns now, appended to @l. */
static void drain(struct hvt_timeline *tl, struct seen_list *l)
{
	struct hvt_source *s;

	while ((s = hvt_timeline_next(tl))) {
		struct seen *e = &l->v[l->n];
		uint64_t v = 0;

		assert_true(l->n < MAX_EVENTS);
		snprintf(e->source, sizeof(e->source), "%s", s->name);
		snprintf(e->name, sizeof(e->name), "%s", hvt_source_event_name(s));
		e->host_tsc = s->host_tsc;
		e->guest_ts = s->ev.ts;
		if (hvt_source_field_u64(s, "next_tid", &v) && hvt_source_field_u64(s, "round", &v))
			v = 0;
		e->value = v;
		l->n++;
	}
}

static size_t count_of(const struct seen_list *l, const char *source)
{
	size_t i, n = 0;

	for (i = 0; i < l->n; i++)
		n += !strcmp(l->v[i].source, source);
	return n;
}

/* The size of the packet at @p. */
static size_t packet_size(const unsigned char *p)
{
	uint64_t bits;

	memcpy(&bits, p + offsetof(struct hvt_ctf_packet, packet_size), sizeof(bits));
	return (size_t)(bits / 8);
}

static void open_follow(struct fx_opened *m, const char *root)
{
	const struct hvt_session_opts o = { .follow = true };

	assert_int_equal(fx_open_with(m, root, &o), 0);
}

static void refresh(struct fx_opened *m)
{
	assert_int_equal(hvt_session_refresh(&m->ses), 0);
	assert_int_equal(hvt_timeline_refresh(&m->tl), 0);
}

/* Writes @manifest (@len bytes, "recording") as the archive's, now "complete". */
static void mark_complete(const char *root, char *manifest, size_t len)
{
	char *p = strstr(manifest, "\"recording\"");

	assert_non_null(p);
	memcpy(p, "\"complete\" ", 11);
	assert_int_equal(fx_write(root, "hvtrace.json", manifest, len), 0);
}

static void recording(const char *root, const struct fx_options *o)
{
	struct fx_options rec = *o;

	rec.status = "recording";
	assert_int_equal(fx_standard_archive(root, &rec), 0);
}

/*
 * A stream read on from where it stopped, never into a packet the
 * collector has not counted (a half-written one is neither read nor a
 * warning), each event once and in order.
 */
static void test_stream_grows(void **state)
{
	const char *root = *state, *rel = "vm/demo/kernel/stream-0";
	const struct fx_options o = { .ftrace = true };
	struct seen_list l = { .n = 0 };
	unsigned char *all;
	size_t len, first, i;
	struct fx_opened m;

	recording(root, &o);
	all = fx_kernel_packets(8, &len);
	first = packet_size(all);
	assert_true(first < len);
	assert_int_equal(fx_write(root, rel, all, first), 0);
	assert_int_equal(fx_refresh_info(root), 0);
	/* written, not counted yet: half a packet, at the open and at a refresh */
	assert_int_equal(fx_append(root, rel, all + first, 20), 0);
	open_follow(&m, root);
	drain(&m.tl, &l);
	assert_int_equal(count_of(&l, "vm/demo/kernel/stream-0"), 2);
	assert_int_equal(fx_append(root, rel, all + first + 20, 20), 0);
	refresh(&m);
	drain(&m.tl, &l);
	assert_int_equal(count_of(&l, "vm/demo/kernel/stream-0"), 2);
	assert_int_equal(hvt_session_warnings(&m.ses), 0);

	/* the rest written and counted */
	assert_int_equal(fx_write(root, rel, all, len), 0);
	assert_int_equal(fx_refresh_info(root), 0);
	refresh(&m);
	drain(&m.tl, &l);
	assert_int_equal(count_of(&l, "vm/demo/kernel/stream-0"), 8);
	for (i = 0; i < l.n; i++)
		if (!strcmp(l.v[i].source, "vm/demo/kernel/stream-0"))
			assert_int_equal(l.v[i].host_tsc, l.v[i].guest_ts - (uint64_t)FX_OFFSET);
	/* in stream order, each once: next_tid 100 .. 107 */
	for (i = 0, len = 0; i < l.n; i++)
		if (!strcmp(l.v[i].source, "vm/demo/kernel/stream-0"))
			assert_int_equal(l.v[i].value, 100 + len++);
	/* nothing more to come is nothing more */
	refresh(&m);
	assert_null(hvt_timeline_next(&m.tl));
	assert_int_equal(hvt_session_warnings(&m.ses), 0);
	fx_close(&m);
	free(all);
}

/* The first record of a registry, and its size. */
static size_t first_record(const unsigned char *reg)
{
	uint32_t size;

	memcpy(&size, reg + 4, sizeof(size));
	return size;
}

/*
 * A thread's stream and its trace's registry both grow: an event whose
 * type is registered after the open decodes, with its fields.
 */
static void test_registry_grows(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .ftrace = true };
	struct seen_list l = { .n = 0 };
	struct fx_send send = fx_send(9, 77);
	const struct fx_event ev[] = {
		{ FX_ID_SEND, FX_GUEST_TSC(3000000), HVT_CTF_NO_CPU, 78, &send, sizeof(send) },
	};
	unsigned char *reg, *stream;
	size_t reg_len, len, first;
	struct fx_opened m;

	recording(root, &o);
	reg = fx_registry(&reg_len);
	first = first_record(reg);	/* sched_switch's: FX_ID_SEND comes later */
	assert_int_equal(fx_write(root, "vm/demo/user-1/hvtrace/registry", reg, first), 0);
	assert_int_equal(fx_write(root, "vm/demo/user-1/stream-0", "", 0), 0);
	assert_int_equal(fx_refresh_info(root), 0);
	open_follow(&m, root);
	drain(&m.tl, &l);
	assert_int_equal(count_of(&l, "vm/demo/user-1/stream-0"), 0);

	/* half a record: not read, not a warning */
	assert_int_equal(fx_append(root, "vm/demo/user-1/hvtrace/registry", reg + first, 12), 0);
	refresh(&m);
	assert_int_equal(hvt_session_warnings(&m.ses), 0);

	assert_int_equal(fx_write(root, "vm/demo/user-1/hvtrace/registry", reg, reg_len), 0);
	stream = fx_make_stream(user_uuid, 4096, HVT_CTF_NO_CPU, 78, ev, 1, &len);
	assert_int_equal(fx_write(root, "vm/demo/user-1/stream-0", stream, len), 0);
	assert_int_equal(fx_refresh_info(root), 0);
	refresh(&m);
	drain(&m.tl, &l);
	assert_int_equal(count_of(&l, "vm/demo/user-1/stream-0"), 1);
	assert_string_equal(l.v[l.n - 1].name, "hvdemo:send");
	assert_int_equal(l.v[l.n - 1].value, 9);
	assert_int_equal(hvt_session_warnings(&m.ses), 0);
	fx_close(&m);
	free(reg);
	free(stream);
}

/*
 * No clock exchange yet at the open: the VM cannot be placed and its
 * streams are not sources. Once exchanges come, they are, and their events
 * land where the exchanges put them.
 */
static void test_alignment_arrives(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .ftrace = true };
	struct seen_list l = { .n = 0 };
	char *sync;
	size_t sync_len, i, guest = 0;
	struct fx_opened m;

	recording(root, &o);
	assert_int_equal(read_rel(root, "vm/demo/sync.tsv", &sync, &sync_len), 0);
	assert_int_equal(fx_write(root, "vm/demo/sync.tsv", sync, strchr(sync, '\n') + 1 - sync),
			 0);
	open_follow(&m, root);
	assert_false(m.ses.vms[0].al.aligned);
	drain(&m.tl, &l);
	for (i = 0; i < l.n; i++)
		assert_null(strstr(l.v[i].source, "vm/"));

	assert_int_equal(fx_write(root, "vm/demo/sync.tsv", sync, sync_len), 0);
	refresh(&m);
	assert_true(m.ses.vms[0].al.aligned);
	drain(&m.tl, &l);
	for (i = 0; i < l.n; i++) {
		if (!strstr(l.v[i].source, "vm/demo/kernel"))
			continue;
		guest++;
		assert_int_equal(l.v[i].host_tsc, l.v[i].guest_ts - (uint64_t)FX_OFFSET);
	}
	assert_true(guest >= 3);
	fx_close(&m);
	free(sync);
}

/* A stream that appears after the open, and the end of the recording. */
static void test_new_stream_and_end(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .ftrace = true, .monotonic_user = false };
	struct seen_list l = { .n = 0 }, offline = { .n = 0 };
	char *info, *json, *manifest, *p;
	size_t len, i;
	struct fx_opened m;

	recording(root, &o);
	/* at the open, info.json lists the kernel trace's stream 1 not yet */
	assert_int_equal(read_rel(root, "vm/demo/info.json", &info, &len), 0);
	json = strdup(info);
	p = strstr(json, "  { \"id\": 1, \"trace\": 0,");
	assert_non_null(p);
	memmove(p, strstr(p, "},\n") + 3, strlen(strstr(p, "},\n") + 3) + 1);
	assert_int_equal(fx_write(root, "vm/demo/info.json", json, strlen(json)), 0);
	open_follow(&m, root);
	drain(&m.tl, &l);
	assert_int_equal(count_of(&l, "vm/demo/kernel/stream-1"), 0);
	assert_false(m.ses.archive.complete);

	assert_int_equal(fx_write(root, "vm/demo/info.json", info, len), 0);
	assert_int_equal(read_rel(root, "hvtrace.json", &manifest, &len), 0);
	mark_complete(root, manifest, len);
	refresh(&m);
	assert_true(m.ses.archive.complete);
	drain(&m.tl, &l);
	assert_true(count_of(&l, "vm/demo/kernel/stream-1") > 0);
	assert_int_equal(hvt_session_warnings(&m.ses), 0);
	fx_close(&m);

	/* everything the follower returned, and nothing else, is the finished recording's */
	assert_int_equal(fx_open(&m, root, false), 0);
	drain(&m.tl, &offline);
	fx_close(&m);
	assert_int_equal(l.n, offline.n);
	for (i = 0; i < offline.n; i++) {
		size_t j;

		for (j = 0; j < l.n; j++)
			if (!strcmp(l.v[j].source, offline.v[i].source) &&
			    l.v[j].guest_ts == offline.v[i].guest_ts &&
			    l.v[j].host_tsc == offline.v[i].host_tsc &&
			    !strcmp(l.v[j].name, offline.v[i].name))
				break;
		assert_true(j < l.n);
	}
	free(info);
	free(json);
	free(manifest);
}

/*
 * The bytes the manifest gives each host CPU file are taken again at each
 * refresh: once complete, a file is read no further than they say (the
 * run and switch passes), and the count from the open, made while the
 * collector wrote, would cut the host's scheduling short (a follower's
 * last refit then had no vCPU run edge).
 */
static void test_cpu_bytes_refreshed(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .ftrace = true, .monotonic_user = false };
	char *manifest, *early, *p;
	struct fx_opened m;
	size_t len, i;

	recording(root, &o);
	assert_int_equal(read_rel(root, "hvtrace.json", &manifest, &len), 0);
	early = strdup(manifest);
	p = strstr(early, "\"bytes\": 4096");
	assert_non_null(p);
	memcpy(p, "\"bytes\": 0   ", 13);
	assert_int_equal(fx_write(root, "hvtrace.json", early, len), 0);
	open_follow(&m, root);
	for (i = 0; i < m.ses.archive.nr_cpus && m.ses.archive.cpus[i].cpu != 1; i++)
		;
	assert_true(i < m.ses.archive.nr_cpus);
	assert_int_equal(m.ses.archive.cpus[i].bytes, 0);
	mark_complete(root, manifest, len);
	refresh(&m);
	assert_true(m.ses.archive.complete);
	assert_int_equal(m.ses.archive.cpus[i].bytes, 4096);
	fx_close(&m);
	free(manifest);
	free(early);
}

/* The source named @name of @ses. */
static struct hvt_source *source_named(const struct hvt_session *ses, const char *name)
{
	size_t i;

	for (i = 0; i < ses->nr_sources; i++)
		if (!strcmp(ses->sources[i]->name, name))
			return ses->sources[i];
	fail_msg("no source %s", name);
	return NULL;
}

/*
 * After a refit (hvt_session_refresh()), a source's next event that the new
 * alignment would place before its last one is held at the last one's time,
 * its bound widened by as much; an event past it is placed as it is.
 */
static void test_held_after_refit(void **state)
{
	const struct fx_options o = { .ftrace = true };
	struct hvt_source *s, *r;
	struct fx_opened m, ref;
	uint64_t b0, b1;

	assert_int_equal(fx_standard_archive(*state, &o), 0);
	open_follow(&m, *state);
	assert_int_equal(fx_open(&ref, *state, false), 0);
	s = source_named(&m.ses, "vm/demo/kernel/stream-0");
	r = source_named(&ref.ses, "vm/demo/kernel/stream-0");
	assert_int_equal(s->host_tsc, r->host_tsc);	/* both at their first event */
	assert_int_equal(hvt_source_next(r), 1);
	assert_int_equal(hvt_source_error_bound(&ref.ses.vms[0], r, &b0), 0);
	s->held = r->host_tsc + 5000;	/* as a refit that moved its line back leaves it */
	assert_int_equal(hvt_source_next(s), 1);
	assert_int_equal(s->host_tsc, r->host_tsc + 5000);
	assert_int_equal(s->ev.ts, r->ev.ts);
	assert_int_equal(hvt_source_error_bound(&m.ses.vms[0], s, &b1), 0);
	assert_int_equal(b1, b0 + 5000);
	/* far past it: as placed */
	assert_int_equal(hvt_source_next(s), 1);
	assert_int_equal(hvt_source_next(r), 1);
	assert_int_equal(s->host_tsc, r->host_tsc);
	assert_int_equal(s->shift, 0);
	fx_close(&m);
	fx_close(&ref);
}

/* Only a session opened to follow is refreshed; a refresh of one is said. */
static void test_refresh_needs_follow(void **state)
{
	const struct fx_options o = { .ftrace = true };
	struct fx_opened m;

	assert_int_equal(fx_standard_archive(*state, &o), 0);
	assert_int_equal(fx_open(&m, *state, false), 0);
	assert_int_equal(hvt_session_refresh(&m.ses), -1);
	fx_close(&m);
}

/* --- opening: what a recording holds, and what cannot be placed ------------ */

/* Rewrites info.json's "accel": "kvm" into @accel. */
static void rewrite_accel(const char *root, const char *accel)
{
	char path[256], *text, *at;
	size_t len;

	snprintf(path, sizeof(path), "%s/vm/demo/info.json", root);
	assert_int_equal(hvt_read_file(path, 1 << 20, &text, &len), 0);
	at = strstr(text, "\"accel\": \"kvm\"");
	assert_non_null(at);
	memcpy(at + 10, accel, 3);
	assert_int_equal(fx_write(root, "vm/demo/info.json", text, len), 0);
	free(text);
}

/*
 * The archive's sync points: the host's kvm_hypercall records joined with the
 * guest's hvtrace_sync_end events. The one the host did not record and the
 * hypercall of another number are not used; the ones used pin the clock to
 * +/-FX_SYNC_HALF ticks where the exchanges allow +/-100.
 */
static void test_sync_points_from_archive(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .ftrace = true, .sync_points = true };
	struct hvt_tsc_cursor cur = { 0, 0, 0 };
	struct fx_opened tl;
	struct hvt_source *s;
	struct hvt_est_value v;
	size_t calls = 0, ends = 0;
	uint64_t h;

	assert_int_equal(fx_standard_archive(root, &o), 0);
	assert_int_equal(fx_open(&tl, root, false), 0);
	assert_true(tl.ses.vms[0].al.aligned);
	assert_int_equal(tl.ses.vms[0].al.clock.nr_points, FX_SYNC_POINTS);
	assert_int_equal(tl.ses.align_host.calls.n, FX_SYNC_POINTS);
	h = hvt_vm_clock_to_host(&tl.ses.vms[0].al.clock, &cur, FX_GUEST_TSC(3000000));
	assert_true(h + FX_SYNC_HALF >= FX_HOST_TSC(3000000) &&
		    h <= FX_HOST_TSC(3000000) + FX_SYNC_HALF);
	/* the guaranteed interval there: the sync point's, not the exchanges' 200 ticks */
	assert_int_equal(hvt_est_eval(tl.ses.vms[0].al.clock.est, FX_HOST_TSC(3000000), &v), 0);
	assert_true(v.bounded);
	assert_true(v.hi - v.lo <= 2 * FX_SYNC_HALF);
	while ((s = hvt_timeline_next(&tl.tl))) {
		const char *name = hvt_source_event_name(s);

		calls += !strcmp(name, "kvm_hypercall");
		ends += !strcmp(name, "hvtrace_sync_end");
	}
	assert_int_equal(calls, FX_SYNC_POINTS + 1);
	assert_int_equal(ends, FX_SYNC_POINTS + 1);
	assert_int_equal(hvt_session_warnings(&tl.ses), 0);
	fx_close(&tl);

	/* without the host layer there is nothing to join: exchanges alone */
	fx_rm_rf(root);
	assert_int_equal(mkdir(root, 0700), 0);
	assert_int_equal(fx_standard_archive(root, &(struct fx_options){ .sync_points = true }), 0);
	assert_int_equal(fx_open(&tl, root, false), 0);
	assert_true(tl.ses.vms[0].al.aligned);
	assert_int_equal(tl.ses.vms[0].al.clock.nr_points, 0);
	fx_close(&tl);

	/* under TCG the module makes no sync points: not even looked for */
	fx_rm_rf(root);
	assert_int_equal(mkdir(root, 0700), 0);
	assert_int_equal(fx_standard_archive(root, &o), 0);
	rewrite_accel(root, "tcg");
	assert_int_equal(fx_open(&tl, root, false), 0);
	assert_int_equal(tl.ses.vms[0].al.clock.nr_points, 0);
	assert_false(tl.ses.align_host.calls_read);
	fx_close(&tl);
}

/*
 * A VM without exchanges, opened as check opens it: every guest stream is
 * opened, none merged, and each decodes on its own with its raw guest times.
 */
static void check_unaligned_vm(const char *root)
{
	static const uint64_t first_ts[] = {
		FX_GUEST_TSC(1240000), FX_GUEST_TSC(1300000), FX_GUEST_TSC(1300000), 5000,
	};
	static const size_t events[] = { 3, 1, 1, 1 };
	struct fx_opened tl;
	size_t i, n;

	assert_int_equal(fx_open(&tl, root, true), 0);
	assert_false(tl.ses.vms[0].al.aligned);
	assert_int_equal(tl.ses.nr_sources, 4);
	assert_null(hvt_timeline_next(&tl.tl));
	for (i = 0; i < tl.ses.nr_sources; i++) {
		struct hvt_source *s = tl.ses.sources[i];

		assert_false(s->aligned);
		assert_null(s->guest_tl);
		assert_int_equal(hvt_source_next(s), 1);
		assert_int_equal(s->host_tsc, first_ts[i]);
		assert_int_equal(s->host_tsc, s->ev.ts);
		for (n = 1; hvt_source_next(s); n++)
			;
		assert_int_equal(n, events[i]);
		assert_int_equal(hvt_source_warnings(s), 0);
	}
	fx_close(&tl);
}

static void test_unalignable_traces(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .monotonic_user = true };
	struct fx_opened tl;
	struct hvt_source *raw;
	char path[128];
	size_t n = 0;

	assert_int_equal(fx_standard_archive(root, &o), 0);
	/* merge: the monotonic_raw trace is not even opened. */
	assert_int_equal(fx_open(&tl, root, false), 0);
	assert_int_equal(tl.ses.nr_sources, 3);
	while (hvt_timeline_next(&tl.tl))
		n++;
	assert_int_equal(n, 5);
	assert_int_equal(hvt_session_warnings(&tl.ses), 1);
	fx_close(&tl);
	/* check: opened, not merged, decodable on its own. */
	assert_int_equal(fx_open(&tl, root, true), 0);
	assert_int_equal(tl.ses.nr_sources, 4);
	raw = tl.ses.sources[3];
	assert_false(raw->aligned);
	assert_string_equal(raw->name, "vm/demo/user-2/stream-0");
	n = 0;
	while (hvt_timeline_next(&tl.tl))
		n++;
	assert_int_equal(n, 5);
	assert_int_equal(hvt_source_next(raw), 1);
	assert_int_equal(raw->ev.ts, 5000);
	assert_int_equal(hvt_source_next(raw), 0);
	fx_close(&tl);
	/* No exchanges at all: the whole VM cannot be aligned. */
	assert_int_equal(fx_printf(root, "vm/demo/sync.tsv", "seq\thost_send\tguest_recv\t"
				   "guest_send\thost_recv\tcpu_recv\tcpu_send\n"), 0);
	assert_int_equal(fx_open(&tl, root, false), 0);
	assert_false(tl.ses.vms[0].al.aligned);
	assert_null(hvt_timeline_next(&tl.tl));
	fx_close(&tl);
	check_unaligned_vm(root);
	/* Nor without sync.tsv at all. */
	snprintf(path, sizeof(path), "%s/vm/demo/sync.tsv", root);
	assert_int_equal(unlink(path), 0);
	check_unaligned_vm(root);
}

static void test_inconsistent_sync_still_merges(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .inconsistent_sync = true };
	struct fx_opened tl;
	size_t n = 0;

	assert_int_equal(fx_standard_archive(root, &o), 0);
	assert_int_equal(fx_open(&tl, root, false), 0);
	assert_true(tl.ses.vms[0].al.aligned);
	/* the exchange behind the glitch is left out, said: one segment again */
	assert_false(tl.ses.vms[0].al.clock.glitch);
	assert_int_equal(hvt_vm_clock_segments(&tl.ses.vms[0].al.clock), 1);
	assert_int_equal(tl.ses.vms[0].vm.nr_sync, 5);	/* the archive's list keeps it */
	while (hvt_timeline_next(&tl.tl))
		n++;
	assert_int_equal(n, 5);
	assert_int_equal(hvt_session_warnings(&tl.ses), 1);
	fx_close(&tl);
}

static void test_damaged_archive_still_merges(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .ftrace = true, .status = "recording" };
	struct fx_opened tl;
	char path[128];
	size_t n = 0;

	assert_int_equal(fx_standard_archive(root, &o), 0);
	snprintf(path, sizeof(path), "%s/vm/demo/kernel/stream-1", root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(fx_write(root, "vm/demo/user-1/hvtrace/registry", "junk", 4), 0);
	assert_int_equal(fx_write(root, "host/ftrace/cpu1.raw", "short", 5), 0);
	assert_int_equal(fx_open(&tl, root, false), 0);
	while (hvt_timeline_next(&tl.tl))
		n++;
	assert_int_equal(n, 3);		/* kernel stream-0 only */
	/* unfinished, missing stream, bad registry + unknown event, short page */
	assert_int_equal(hvt_session_warnings(&tl.ses), 5);
	/* the missing stream, and the user stream whose event ids lost their registry */
	assert_int_equal(hvt_session_incomplete_sources(&tl.ses, NULL, NULL), 2);
	fx_close(&tl);
	/* Unreadable: no manifest, or no usable clock. */
	assert_int_equal(fx_printf(root, "host/clock.tsv", "tsc\tmono_ns\trealtime_ns\t"
				   "uncertainty\n"), 0);
	assert_int_equal(fx_open(&tl, root, false), -1);
	snprintf(path, sizeof(path), "%s/hvtrace.json", root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(fx_open(&tl, root, false), -1);
}

/* Copies @from over @to in @root. */
static void copy_file(const char *root, const char *from, const char *to)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "cp %s/%s %s/%s", root, from, root, to);
	assert_int_equal(system(cmd), 0);
}

/*
 * Packets the collector dropped at the end of a recording (their events'
 * ids never registered, info.json's dropped_packets) are a warning, which
 * makes check fail; the stored events are all there.
 */
static void test_dropped_packets_warned(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .ftrace = true };
	char path[200], *text, *at, *out;
	struct fx_opened tl;
	struct hvt_source *s;
	size_t kernel = 0, len;

	assert_int_equal(fx_standard_archive(root, &o), 0);
	snprintf(path, sizeof(path), "%s/vm/demo/info.json", root);
	assert_int_equal(hvt_read_file(path, 1 << 20, &text, &len), 0);
	at = strstr(text, "kernel/stream-1");
	assert_non_null(at);
	at = strstr(at, "\"packets\": ");
	assert_non_null(at);
	assert_true(asprintf(&out, "%.*s\"dropped_packets\": 2, %s", (int)(at - text), text,
			     at) > 0);
	assert_int_equal(fx_write(root, "vm/demo/info.json", out, strlen(out)), 0);
	free(out);
	free(text);
	assert_int_equal(fx_open(&tl, root, false), 0);
	while ((s = hvt_timeline_next(&tl.tl)))
		kernel += s->layer == HVT_LAYER_KERNEL;
	assert_int_equal(kernel, 4);
	assert_int_equal(hvt_session_warnings(&tl.ses), 1);
	fx_close(&tl);
}

/*
 * The host's own applications (host/apps): their events on the host TSC
 * come out at their raw values, as user events of no VM, after a host
 * event of the same instant (layer order); on another domain their trace
 * is skipped with one warning.
 */
static void test_host_apps(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .ftrace = true, .host_apps = true };
	static const char *const domains[] = { "host_tsc", "monotonic_raw", "guest_tsc" };
	struct fx_opened tl;
	struct hvt_source *s;
	size_t d;

	assert_int_equal(fx_standard_archive(root, &o), 0);
	for (d = 0; d < 3; d++) {
		uint64_t prev_host_at_2 = 0;
		size_t n = 0;

		assert_int_equal(fx_write_host_apps_info(root, domains[d]), 0);
		assert_int_equal(fx_open(&tl, root, false), 0);
		while ((s = hvt_timeline_next(&tl.tl))) {
			if (s->layer == HVT_LAYER_HOST && s->host_tsc == FX_HOST_TSC(FX_APP_NS_2))
				prev_host_at_2 = s->host_tsc;
			if (s->layer != HVT_LAYER_USER || s->vm)
				continue;
			assert_true(n < 2);
			assert_int_equal(s->host_tsc, FX_HOST_TSC(n ? FX_APP_NS_2 : FX_APP_NS_1));
			assert_int_equal(hvt_source_tid(s), FX_APP_TID);
			assert_int_equal(s->vm_number, 0);
			assert_string_equal(hvt_source_event_name(s), "hvdemo:send");
			if (n == 1)	/* the host's sched_switch of that instant came first */
				assert_int_equal(prev_host_at_2, FX_HOST_TSC(FX_APP_NS_2));
			n++;
		}
		assert_int_equal(n, d ? 0 : 2);
		assert_int_equal(hvt_session_warnings(&tl.ses), d ? 1 : 0);
		fx_close(&tl);
	}
}

/*
 * merge --qemu-trace: QEMU's log trace backend lines, written out of
 * order and with a line of other output, come out sorted as vmm events,
 * each at the host TSC its CLOCK_REALTIME microsecond maps to (stamped on
 * the middle of the microsecond), with one warning for the other line.
 */
static void test_qemu_trace(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .ftrace = true };
	static const char *const names[] = { "kvm_run_exit", "virtio_notify", "qemu_mutex_lock" };
	struct fx_opened tl;
	struct hvt_session_opts opts = { 0 };
	struct hvt_host_clock clock;
	const char *paths[1];
	char path[200], text[600], args[64];
	uint64_t tsc[3];
	int64_t real[3];
	struct hvt_source *s;
	size_t n = 0, i;

	assert_int_equal(fx_standard_archive(root, &o), 0);
	assert_int_equal(fx_open(&tl, root, false), 0);
	for (i = 0; i < 3; i++) {
		tsc[i] = tl.ses.archive.pairs[0].tsc + (i + 1) * 1234567;
		real[i] = hvt_host_clock_realtime(&tl.ses.clock, tsc[i]) / 1000 * 1000;
	}
	assert_int_equal(hvt_host_clock_init(&clock, tl.ses.archive.pairs, tl.ses.archive.nr_pairs,
					     tl.ses.archive.tsc_freq_hz), 0);
	fx_close(&tl);
	snprintf(text, sizeof(text),
		 "77@%lld.%06lld:%s vdev 0x1 vq 2\n"
		 "76@%lld.%06lld:%s cpu_index 0, reason 2\n"
		 "qemu-system-x86_64: some other message\n"
		 "77@%lld.%06lld:%s\r\n",	/* a CRLF line is taken too */
		 (long long)(real[1] / 1000000000), (long long)(real[1] % 1000000000 / 1000), names[1],
		 (long long)(real[0] / 1000000000), (long long)(real[0] % 1000000000 / 1000), names[0],
		 (long long)(real[2] / 1000000000), (long long)(real[2] % 1000000000 / 1000), names[2]);
	assert_int_equal(fx_write(root, "qemu.log", text, strlen(text)), 0);
	snprintf(path, sizeof(path), "%s/qemu.log", root);
	paths[0] = path;
	opts.qemu_traces = paths;
	opts.nr_qemu_traces = 1;
	assert_int_equal(fx_open_with(&tl, root, &opts), 0);
	while ((s = hvt_timeline_next(&tl.tl))) {
		uint64_t want;

		if (s->layer != HVT_LAYER_VMM)
			continue;
		assert_true(n < 3);
		assert_string_equal(hvt_source_event_name(s), names[n]);
		assert_string_equal(s->vm, "demo");	/* given beside one VM: its QEMU's */
		assert_int_equal(hvt_source_tid(s), n == 0 ? 76 : 77);
		assert_int_equal(hvt_source_field_text(s, "args", args, sizeof(args)), 0);
		assert_string_equal(args, n == 0 ? "cpu_index 0, reason 2" :
				    n == 1 ? "vdev 0x1 vq 2" : "");
		/* where CLOCK_REALTIME read the middle of its microsecond, within a tick */
		want = hvt_realtime_tsc(&tl.ses.realtime, real[n] + 500);
		assert_true(s->host_tsc + 1 >= want && s->host_tsc <= want + 1);
		assert_true(hvt_host_clock_realtime(&clock, s->host_tsc) - (real[n] + 500) <= 1 &&
			    hvt_host_clock_realtime(&clock, s->host_tsc) - (real[n] + 500) >= -1);
		n++;
	}
	assert_int_equal(n, 3);
	assert_int_equal(tl.tl.events[HVT_LAYER_VMM], 3);
	assert_int_equal(hvt_session_warnings(&tl.ses), 1);
	fx_close(&tl);
	hvt_host_clock_free(&clock);
}

/* hvtrace.json records that vm/demo kept QEMU's log, of @bytes, as record --qemu-log writes. */
static void kept_log_recorded(const char *root, size_t bytes)
{
	char path[200], *text, *at, *out;
	size_t len;

	snprintf(path, sizeof(path), "%s/hvtrace.json", root);
	assert_int_equal(hvt_read_file(path, 1 << 20, &text, &len), 0);
	at = strstr(text, "\"dir\": \"vm/demo\"");
	assert_non_null(at);
	at += strlen("\"dir\": \"vm/demo\"");
	assert_true(asprintf(&out, "%.*s, \"qemu_log\": { \"file\": \"qemu-trace.log\", "
			     "\"bytes\": %zu }%s", (int)(at - text), text, bytes, at) > 0);
	assert_int_equal(fx_write(root, "hvtrace.json", out, strlen(out)), 0);
	free(out);
	free(text);
}

/*
 * The log the recording kept (vm/demo/qemu-trace.log, record --qemu-log)
 * is read without being given, named by its place; given as well, it is
 * read once.
 */
static void test_qemu_trace_kept(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .ftrace = true };
	struct hvt_session_opts opts = { 0 };
	struct fx_opened tl;
	const char *paths[1];
	char text[200], path[300];
	struct hvt_source *s;
	int64_t real;
	size_t n, i, vmm;

	assert_int_equal(fx_standard_archive(root, &o), 0);
	assert_int_equal(fx_open(&tl, root, false), 0);
	real = hvt_host_clock_realtime(&tl.ses.clock, tl.ses.archive.pairs[0].tsc + 1234567);
	fx_close(&tl);
	snprintf(text, sizeof(text), "77@%lld.%06lld:virtio_blk_handle_read vdev 0x1 req 0x2 "
		 "sector 8 nsectors 8\n", (long long)(real / 1000000000),
		 (long long)(real % 1000000000 / 1000));
	assert_int_equal(fx_write(root, "vm/demo/qemu-trace.log", text, strlen(text)), 0);
	snprintf(path, sizeof(path), "%s/vm/demo/qemu-trace.log", root);
	paths[0] = path;
	for (i = 0; i < 2; i++) {
		opts.qemu_traces = i ? paths : NULL;
		opts.nr_qemu_traces = i;
		assert_int_equal(fx_open_with(&tl, root, &opts), 0);
		for (n = 0, vmm = 0; n < tl.ses.nr_sources; n++)
			vmm += tl.ses.sources[n]->layer == HVT_LAYER_VMM;
		assert_int_equal(vmm, 1);
		n = 0;
		while ((s = hvt_timeline_next(&tl.tl)))
			if (s->layer == HVT_LAYER_VMM) {
				assert_string_equal(hvt_source_event_name(s), "virtio_blk_handle_read");
				assert_string_equal(s->name, i ? "qemu-trace.log" :
						    "vm/demo/qemu-trace.log");
				assert_string_equal(s->vm, "demo");	/* its VM's QEMU */
				n++;
			}
		assert_int_equal(n, 1);
		fx_close(&tl);
	}
	kept_log_recorded(root, strlen(text));
	/* recorded in the manifest, then cut short or gone: lacking, never silent */
	assert_int_equal(truncate(path, 10), 0);
	assert_int_equal(fx_open(&tl, root, false), 0);
	while (hvt_timeline_next(&tl.tl))
		;
	assert_int_equal(hvt_session_incomplete_sources(&tl.ses, NULL, NULL), 1);
	fx_close(&tl);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(fx_open(&tl, root, false), 0);
	for (n = 0, vmm = 0; n < tl.ses.nr_sources; n++)
		vmm += tl.ses.sources[n]->layer == HVT_LAYER_VMM;
	assert_int_equal(vmm, 1);
	assert_int_equal(hvt_session_incomplete_sources(&tl.ses, NULL, NULL), 1);
	fx_close(&tl);
}

/*
 * A QEMU log line stamped a day before the recording (another run's) is
 * placed by the clock's line extended, but claims no bound, and the lines
 * so placed are said once; a line inside the recording keeps its bound.
 */
static void test_qemu_trace_outside(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .ftrace = true };
	struct fx_opened tl;
	struct hvt_session_opts opts = { 0 };
	const char *paths[1];
	char path[200], text[400];
	int64_t inside, before;
	struct hvt_source *s;
	size_t n = 0;

	assert_int_equal(fx_standard_archive(root, &o), 0);
	assert_int_equal(fx_open(&tl, root, false), 0);
	inside = hvt_host_clock_realtime(&tl.ses.clock, tl.ses.archive.pairs[0].tsc + 1234567);
	before = inside - 86400ll * 1000000000;
	fx_close(&tl);
	snprintf(text, sizeof(text), "77@%lld.%06lld:virtio_notify vdev 0x1\n"
		 "77@%lld.%06lld:virtio_notify vdev 0x2\n",
		 (long long)(before / 1000000000), (long long)(before % 1000000000 / 1000),
		 (long long)(inside / 1000000000), (long long)(inside % 1000000000 / 1000));
	assert_int_equal(fx_write(root, "qemu.log", text, strlen(text)), 0);
	snprintf(path, sizeof(path), "%s/qemu.log", root);
	paths[0] = path;
	opts.qemu_traces = paths;
	opts.nr_qemu_traces = 1;
	assert_int_equal(fx_open_with(&tl, root, &opts), 0);
	while ((s = hvt_timeline_next(&tl.tl))) {
		if (s->layer != HVT_LAYER_VMM)
			continue;
		if (n++ == 0)	/* the day-old line, first in time */
			assert_int_equal(hvt_session_event_bound_ns(&tl.ses, s), -1);
		else
			assert_true(hvt_session_event_bound_ns(&tl.ses, s) >= 0);
	}
	assert_int_equal(n, 2);
	assert_int_equal(hvt_session_warnings(&tl.ses), 1);
	fx_close(&tl);
}

/*
 * A stream file is judged against what info.json recorded of it: emptied
 * or cut short, the events it lost are a warning (before: silently gone);
 * holding another stream's packets (a copied or swapped file), those
 * packets are skipped with a warning instead of being merged twice.
 */
/* Writes @packets as the packets info.json records of stream @file. */
static void set_stream_packets(const char *root, const char *file, int packets)
{
	char path[200], *text, *at, *p, *out;
	size_t len;

	snprintf(path, sizeof(path), "%s/vm/demo/info.json", root);
	assert_int_equal(hvt_read_file(path, 1 << 20, &text, &len), 0);
	at = strstr(text, file);
	assert_non_null(at);
	p = strstr(at, "\"packets\": ");
	assert_non_null(p);
	p += strlen("\"packets\": ");
	assert_true(asprintf(&out, "%.*s%d%s", (int)(p - text), text, packets,
			     p + strspn(p, "0123456789")) > 0);
	assert_int_equal(fx_write(root, "vm/demo/info.json", out, strlen(out)), 0);
	free(out);
	free(text);
}

static void test_streams_against_info_json(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .ftrace = true };
	struct fx_opened tl;
	struct hvt_source *s;
	size_t kernel = 0;
	char path[160], lacks[128];

	assert_int_equal(fx_standard_archive(root, &o), 0);
	assert_int_equal(fx_open(&tl, root, false), 0);
	while ((s = hvt_timeline_next(&tl.tl)))
		kernel += s->layer == HVT_LAYER_KERNEL;
	assert_int_equal(kernel, 4);
	assert_int_equal(hvt_session_warnings(&tl.ses), 0);
	assert_int_equal(hvt_session_incomplete_sources(&tl.ses, NULL, NULL), 0);
	assert_null(hvt_session_lacks(&tl.ses, lacks, sizeof(lacks)));
	fx_close(&tl);
	/* emptied: the output lacks its events, which is said for the exit status */
	snprintf(path, sizeof(path), "%s/vm/demo/kernel/stream-1", root);
	assert_int_equal(truncate(path, 0), 0);
	assert_int_equal(fx_open(&tl, root, false), 0);
	for (kernel = 0; (s = hvt_timeline_next(&tl.tl));)
		kernel += s->layer == HVT_LAYER_KERNEL;
	assert_int_equal(kernel, 3);
	assert_int_equal(hvt_session_warnings(&tl.ses), 1);
	assert_int_equal(hvt_session_incomplete_sources(&tl.ses, NULL, NULL), 1);
	assert_string_equal(hvt_session_lacks(&tl.ses, lacks, sizeof(lacks)),
			    "1 stream is missing, cut short or damaged");
	fx_close(&tl);
	/* CPU 0's stream copied over CPU 1's, info.json agreeing on the size */
	copy_file(root, "vm/demo/kernel/stream-0", "vm/demo/kernel/stream-1");
	assert_int_equal(fx_refresh_info(root), 0);
	assert_int_equal(fx_open(&tl, root, false), 0);
	for (kernel = 0; (s = hvt_timeline_next(&tl.tl));)
		kernel += s->layer == HVT_LAYER_KERNEL;
	assert_int_equal(kernel, 3);	/* stream-0's, once */
	assert_int_equal(hvt_session_warnings(&tl.ses), 1);	/* its one packet, skipped */
	/* stream-1's own events are gone, its file another's: lacking */
	assert_int_equal(hvt_session_incomplete_sources(&tl.ses, NULL, NULL), 1);
	fx_close(&tl);
	/*
	 * The sizes agree but info.json counts another packet: the packets
	 * themselves say nothing is missing, info.json does (one warning);
	 * and one fewer than the file holds, in a complete recording.
	 */
	assert_int_equal(fx_standard_archive(root, &o), 0);
	set_stream_packets(root, "kernel/stream-0", 2);
	assert_int_equal(fx_open(&tl, root, false), 0);
	for (kernel = 0; (s = hvt_timeline_next(&tl.tl));)
		kernel += s->layer == HVT_LAYER_KERNEL;
	assert_int_equal(kernel, 4);
	assert_int_equal(hvt_session_warnings(&tl.ses), 1);
	assert_int_equal(hvt_session_incomplete_sources(&tl.ses, NULL, NULL), 1);	/* a packet short */
	fx_close(&tl);
	set_stream_packets(root, "kernel/stream-0", 0);
	assert_int_equal(fx_open(&tl, root, false), 0);
	while (hvt_timeline_next(&tl.tl))
		;
	assert_int_equal(hvt_session_warnings(&tl.ses), 1);
	fx_close(&tl);
}

/*
 * info.json counts the events of each stream's packets: a packet whose
 * content size was cut to its header reads as whole but empty, and the
 * events it held are said missing (before: silently gone).
 */
static void test_events_against_info_json(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .ftrace = true };
	char path[200], *text, *at, *out;
	struct fx_opened tl;
	unsigned char hdr[8];
	size_t len;
	int fd;

	assert_int_equal(fx_standard_archive(root, &o), 0);
	snprintf(path, sizeof(path), "%s/vm/demo/info.json", root);
	assert_int_equal(hvt_read_file(path, 1 << 20, &text, &len), 0);
	at = strstr(text, "\"file\": \"kernel/stream-0\", ");
	assert_non_null(at);
	at += strlen("\"file\": \"kernel/stream-0\", ");
	assert_true(asprintf(&out, "%.*s\"events\": 3, %s", (int)(at - text), text, at) > 0);
	assert_int_equal(fx_write(root, "vm/demo/info.json", out, strlen(out)), 0);
	free(out);
	free(text);
	assert_int_equal(fx_open(&tl, root, false), 0);
	while (hvt_timeline_next(&tl.tl))
		;
	assert_int_equal(hvt_session_warnings(&tl.ses), 0);
	assert_int_equal(hvt_session_incomplete_sources(&tl.ses, NULL, NULL), 0);
	fx_close(&tl);
	/* its one packet's content cut to the header */
	snprintf(path, sizeof(path), "%s/vm/demo/kernel/stream-0", root);
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	hvt_put_u64(hdr, (uint64_t)HVT_CTF_PACKET_HEADER_SIZE * 8);
	assert_int_equal(pwrite(fd, hdr, 8, offsetof(struct hvt_ctf_packet, content_size)), 8);
	close(fd);
	assert_int_equal(fx_open(&tl, root, false), 0);
	while (hvt_timeline_next(&tl.tl))
		;
	assert_int_equal(hvt_session_incomplete_sources(&tl.ses, NULL, NULL), 1);
	assert_true(hvt_session_warnings(&tl.ses) >= 1);
	fx_close(&tl);
}

/* Replaces @rel in @root with a FIFO (no writer: opening it to read would block) or a link. */
static void replace_with(const char *root, const char *rel, const char *link_to)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(unlink(path), 0);
	if (link_to)
		assert_int_equal(symlink(link_to, path), 0);
	else
		assert_int_equal(mkfifo(path, 0600), 0);
}

/*
 * Every archive file is opened as a regular file: a FIFO (which blocked
 * every reader forever) or a device (/dev/zero grew the TSV reader without
 * end) is refused with a warning naming it, and the rest still merges.
 * alarm(): a reader that blocks fails the test instead of hanging it.
 */
static void test_files_that_are_not_regular(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .ftrace = true };
	struct fx_opened tl;
	size_t n = 0;

	assert_int_equal(fx_standard_archive(root, &o), 0);
	replace_with(root, "vm/demo/kernel/stream-1", NULL);
	replace_with(root, "host/ftrace/cpu1.raw", "/dev/zero");
	replace_with(root, "vm/demo/user-1/hvtrace/registry", NULL);
	alarm(20);
	assert_int_equal(fx_open(&tl, root, false), 0);
	while (hvt_timeline_next(&tl.tl))
		n++;
	alarm(0);
	/* kernel stream-0's (the host's are on cpu1; the user stream's of no known type) */
	assert_int_equal(n, 3);
	/* the two streams skipped, the registry, the user stream's unknown event */
	assert_int_equal(hvt_session_warnings(&tl.ses), 4);
	fx_close(&tl);
	/* The VM's exchanges: the VM cannot be aligned, the host still merges. */
	replace_with(root, "vm/demo/sync.tsv", "/dev/zero");
	alarm(20);
	assert_int_equal(fx_open(&tl, root, false), 0);
	alarm(0);
	fx_close(&tl);
	/* The host's clock pairs or the manifest: nothing can be merged. */
	replace_with(root, "host/clock.tsv", NULL);
	alarm(20);
	assert_int_equal(fx_open(&tl, root, false), -1);
	replace_with(root, "hvtrace.json", NULL);
	assert_int_equal(fx_open(&tl, root, false), -1);
	alarm(0);
}

/* Every guest event at exactly guest TSC - @offset, in both kernel streams and the user one. */
static void assert_guest_events_at(struct hvt_timeline *tl, uint64_t offset)
{
	struct hvt_source *s;
	size_t guest = 0;

	while ((s = hvt_timeline_next(tl))) {
		if (s->layer == HVT_LAYER_HOST)
			continue;
		assert_int_equal(s->host_tsc, s->ev.ts - offset);
		guest++;
	}
	assert_true(guest >= 5);
}

/*
 * A KVM VM whose debugfs snapshots give an offset 50 ticks off the centre of
 * the exchanges' +/-100 band: still consistent with every exchange, so the
 * guest events land exactly there, not where the estimate would put them. At
 * 500 ticks off the exchanges contradict it and the estimate stays; so it
 * does when a guest CPU has no vCPU in the recording.
 */
static void test_kvm_exact_from_archive(void **state)
{
	const char *root = *state;
	const struct fx_options o = { .ftrace = true, .sync_points = true };
	const uint64_t near = (uint64_t)FX_OFFSET + 50, far = (uint64_t)FX_OFFSET + 500;
	struct fx_opened tl;

	assert_int_equal(fx_standard_archive(root, &o), 0);
	assert_int_equal(fx_write_kvm_snapshots(root, 2, near), 0);
	assert_int_equal(fx_open(&tl, root, false), 0);
	assert_true(tl.ses.vms[0].al.exact);
	assert_int_equal(tl.ses.vms[0].al.kvm.nr_vcpus, 2);
	assert_guest_events_at(&tl.tl, near);
	assert_int_equal(hvt_session_warnings(&tl.ses), 0);
	fx_close(&tl);

	assert_int_equal(fx_write_kvm_snapshots(root, 2, far), 0);
	assert_int_equal(fx_open(&tl, root, false), 0);
	assert_false(tl.ses.vms[0].al.exact);
	assert_true(tl.ses.vms[0].al.aligned);
	assert_int_equal(hvt_session_warnings(&tl.ses), 1);
	fx_close(&tl);

	assert_int_equal(fx_write_kvm_snapshots(root, 1, near), 0);	/* stream-1: CPU 1 */
	assert_int_equal(fx_open(&tl, root, false), 0);
	assert_false(tl.ses.vms[0].al.exact);
	assert_true(tl.ses.vms[0].al.aligned);
	fx_close(&tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sync_points_from_archive, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_kvm_exact_from_archive, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_unalignable_traces, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_inconsistent_sync_still_merges, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_damaged_archive_still_merges, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_files_that_are_not_regular, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_streams_against_info_json, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_events_against_info_json, fx_setup_root,
						fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_qemu_trace, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_qemu_trace_kept, fx_setup_root,
						fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_qemu_trace_outside, fx_setup_root,
						fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_host_apps, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_dropped_packets_warned, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_stream_grows, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_registry_grows, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_alignment_arrives, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_new_stream_and_end, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_cpu_bytes_refreshed, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_held_after_refit, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_refresh_needs_follow, fx_setup_root, fx_teardown_root),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
