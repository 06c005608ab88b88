// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_ctf_reader.c - decoding guest CTF streams made by the real ring-buffer
 * producer: compact and extended event headers, timestamps across a 2^27
 * wrap, several packets, every field kind; and damaged input (bad magic,
 * foreign UUID, sizes past the end, truncated events, unknown ids, garbage
 * registries) that must produce warnings, never a crash, and keep whatever is
 * still usable. Time going backwards is returned as recorded.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>

#include "tests/unit/archive_fixture.h"
#include "tools/read/ctf_reader.h"

static const uint8_t uuid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
static const uint8_t other_uuid[16] = { 9 };

#define MAX_OUT 4096

struct decoded {
	uint64_t ts;
	uint32_t id;
	uint32_t cpu;
	int32_t tid;
	char text[512];
	int b_rc, c_rc, arr_rc, none_rc;	/* hvt_ctf_field_u64() of these fields */
	uint64_t b, c;
};

struct result {
	size_t n;
	struct decoded ev[MAX_OUT];
	struct hvt_ctf_stats stats;
	unsigned long open_warnings;
};

struct ctx {
	char root[64];
	struct hvt_registry reg;
	struct result *r;
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));
	char err[128];
	size_t len;
	unsigned char *records = fx_registry(&len);

	assert_non_null(c);
	c->r = calloc(1, sizeof(*c->r));
	assert_int_equal(fx_mkdtemp(c->root, sizeof(c->root)), 0);
	hvt_registry_init(&c->reg);
	assert_int_equal(hvt_registry_add(&c->reg, records, len, err, sizeof(err)), 5);
	free(records);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	fx_rm_rf(c->root);
	hvt_registry_free(&c->reg);
	free(c->r);
	free(c);
	return 0;
}

/* Whether decode() tells the reader that the stream's times never step back. */
static bool monotonic;

/* Writes @bytes as a stream file and decodes all of it into c->r. */
static struct result *decode(struct ctx *c, const unsigned char *bytes, size_t len)
{
	struct result *r = c->r;
	struct hvt_ctf_types types;
	struct hvt_ctf_stream *s;
	struct hvt_ctf_event ev;
	char path[128];

	memset(r, 0, sizeof(*r));
	assert_int_equal(fx_write(c->root, "stream", bytes, len), 0);
	snprintf(path, sizeof(path), "%s/stream", c->root);
	assert_int_equal(hvt_ctf_types_init(&types, &c->reg), 0);
	s = hvt_ctf_open(path, "stream", uuid, &types, &r->open_warnings);
	assert_non_null(s);
	if (monotonic)
		hvt_ctf_time_monotonic(s);
	while (hvt_ctf_next(s, &ev)) {
		struct decoded *d;
		struct hvt_text t;
		char buf[HVT_TEXT_MIN];
		FILE *f;

		assert_true(r->n < MAX_OUT);
		d = &r->ev[r->n++];
		f = fmemopen(d->text, sizeof(d->text) - 1, "w");
		d->ts = ev.ts;
		d->id = ev.type->reg->id;
		d->cpu = ev.cpu;
		d->tid = ev.tid;
		d->b_rc = hvt_ctf_field_u64(&ev, "b", &d->b);
		d->c_rc = hvt_ctf_field_u64(&ev, "c", &d->c);
		d->arr_rc = hvt_ctf_field_u64(&ev, "arr", &d->b);
		d->none_rc = hvt_ctf_field_u64(&ev, "no_such_field", &d->b);
		hvt_text_init(&t, f, buf, sizeof(buf));	/* the smallest: flushed mid-event */
		hvt_ctf_print_fields(&t, &ev, NULL);
		hvt_text_flush(&t);
		fclose(f);
	}
	r->stats = *hvt_ctf_stats(s);
	hvt_ctf_close(s);
	hvt_ctf_types_free(&types);
	return r;
}

static unsigned char *make(const struct fx_event *ev, size_t n, size_t *len)
{
	return fx_make_stream(uuid, 4096, 0, 0, ev, n, len);
}

static void test_headers_and_wrap(void **state)
{
	struct ctx *c = *state;
	struct fx_sched_switch sw = fx_sched("hvdemo", 77, 1, "swapper/0", 0);
	uint32_t far = 42;
	const uint64_t wrap = 1ull << 27;
	/* t2's low 27 bits are just below the wrap, t3's just above. */
	const uint64_t t0 = 5 * wrap + 1000, t1 = t0 + 5, t2 = 9 * wrap - 10, t3 = t2 + 20;
	const struct fx_event ev[] = {
		{ FX_ID_SCHED_SWITCH, t0, 0, 77, &sw, sizeof(sw) },	/* compact */
		{ FX_ID_SCHED_SWITCH, t1, 0, 77, &sw, sizeof(sw) },	/* compact */
		{ FX_ID_SCHED_SWITCH, t2, 1, 78, &sw, sizeof(sw) },	/* far: extended */
		{ FX_ID_SCHED_SWITCH, t3, 1, 79, &sw, sizeof(sw) },	/* compact, wraps */
		{ FX_ID_FAR, t3 + 1, 1, 80, &far, sizeof(far) },	/* id 40: extended */
		{ FX_ID_SCHED_SWITCH, t3 + 2, 0, -1, &sw, sizeof(sw) },	/* compact again */
	};
	size_t len;
	unsigned char *bytes = make(ev, 6, &len);
	struct result *r;

	/* The producer chose the header forms this test is about. */
	assert_int_equal(bytes[84] & 31, FX_ID_SCHED_SWITCH);
	r = decode(c, bytes, len);
	assert_int_equal(r->n, 6);
	assert_int_equal(r->stats.warnings, 0);
	assert_int_equal(r->open_warnings, 0);
	assert_int_equal(r->stats.packets, 1);
	assert_int_equal(r->ev[0].ts, t0);
	assert_int_equal(r->ev[1].ts, t1);
	assert_int_equal(r->ev[2].ts, t2);
	assert_int_equal(r->ev[3].ts, t3);
	assert_int_equal(r->ev[4].ts, t3 + 1);
	assert_int_equal(r->ev[5].ts, t3 + 2);
	assert_int_equal(r->ev[4].id, FX_ID_FAR);
	assert_string_equal(r->ev[4].text, " value=42");
	assert_int_equal(r->ev[2].cpu, 1);
	assert_int_equal(r->ev[3].tid, 79);
	assert_int_equal(r->ev[5].tid, -1);
	assert_string_equal(r->ev[0].text,
			    " prev_comm=hvdemo prev_tid=77 prev_prio=120 prev_state=0x1"
			    " next_comm=swapper/0 next_tid=0 next_prio=120");
	free(bytes);
}

static void test_many_packets(void **state)
{
	struct ctx *c = *state;
	static struct fx_event ev[3000];
	struct fx_send send[3000];
	unsigned char *bytes;
	struct result *r;
	size_t i, len;

	for (i = 0; i < 3000; i++) {
		send[i] = fx_send(i, (int32_t)i);
		ev[i] = (struct fx_event){ FX_ID_SEND, 1000 + i * 1000 + (i % 7), (uint32_t)(i % 2),
					   (int32_t)i, &send[i], sizeof(send[i]) };
	}
	bytes = make(ev, 3000, &len);
	r = decode(c, bytes, len);
	assert_int_equal(r->n, 3000);
	assert_int_equal(r->stats.warnings, 0);
	assert_true(r->stats.packets > 10);
	assert_int_equal(r->stats.lost_packets, 0);
	for (i = 0; i < 3000; i++) {
		char want[64];

		snprintf(want, sizeof(want), " round=%zu to_tid=%zu", i, i);
		assert_int_equal(r->ev[i].ts, ev[i].ts);
		assert_string_equal(r->ev[i].text, want);
	}
	free(bytes);
}

static void test_field_kinds(void **state)
{
	struct ctx *c = *state;
	uint32_t plen;
	unsigned char *payload = fx_kinds("he\"llo\n\x01\\", "abc", 3, &plen);
	const struct fx_event ev[] = { { FX_ID_KINDS, 100, 0, 1, payload, plen } };
	size_t len;
	unsigned char *bytes = make(ev, 1, &len);
	struct result *r = decode(c, bytes, len);

	assert_int_equal(r->n, 1);
	assert_string_equal(r->ev[0].text,
			    " a=7 b=-5 c=0xbeef d=-1 s=\"he\\\"llo\\n\\x01\\\\\" arr=[1,2,65535]"
			    " data=<3 bytes>");
	/* Integer fields by name, signed ones sign-extended; arrays are not integers. */
	assert_int_equal(r->ev[0].b_rc, 0);
	assert_int_equal(r->ev[0].b, (uint64_t)-5);
	assert_int_equal(r->ev[0].c_rc, 0);
	assert_int_equal(r->ev[0].c, 0xbeef);
	assert_int_equal(r->ev[0].arr_rc, -1);
	assert_int_equal(r->ev[0].none_rc, -1);
	free(bytes);
	free(payload);
	/* A string longer than decode()'s whole text buffer (HVT_TEXT_MIN bytes). */
	{
		char text[200], want[320];
		struct fx_event big;

		memset(text, 'x', sizeof(text) - 1);
		text[sizeof(text) - 1] = '\0';
		payload = fx_kinds(text, "", 0, &plen);
		big = (struct fx_event){ FX_ID_KINDS, 100, 0, 1, payload, plen };
		bytes = make(&big, 1, &len);
		r = decode(c, bytes, len);
		snprintf(want, sizeof(want), " a=7 b=-5 c=0xbeef d=-1 s=%s arr=[1,2,65535]"
			 " data=<0 bytes>", text);
		assert_string_equal(r->ev[0].text, want);
		free(bytes);
		free(payload);
	}
}

/* Fixed-size types are sized once, by the registry; the others field by field. */
static void test_payload_sizes(void **state)
{
	struct ctx *c = *state;
	const struct hvt_event_type *sw = hvt_registry_get(&c->reg, FX_ID_SCHED_SWITCH);
	const struct hvt_event_type *kinds = hvt_registry_get(&c->reg, FX_ID_KINDS);
	uint32_t plen;
	unsigned char *payload = fx_kinds("text", "xyz", 3, &plen);

	assert_int_equal(sw->fixed_size, sizeof(struct fx_sched_switch));
	assert_int_equal(hvt_registry_get(&c->reg, FX_ID_SEND)->fixed_size, 12);
	assert_int_equal(hvt_registry_get(&c->reg, FX_ID_FAR)->fixed_size, 4);
	assert_int_equal(kinds->fixed_size, -1);
	assert_int_equal(hvt_event_payload_size(sw, payload, 52), 52);
	assert_int_equal(hvt_event_payload_size(sw, payload, 51), -1);
	assert_int_equal(hvt_event_payload_size(kinds, payload, plen + 10), plen);
	assert_int_equal(hvt_event_payload_size(kinds, payload, plen - 1), -1);
	free(payload);
}

#define SW_EVENT_SIZE	(4 + 8 + sizeof(struct fx_sched_switch))	/* compact header */

/*
 * A stream of three packets of 150 sched_switch events in all: the offsets
 * of packets 2 and 3, and how many events packet 1 holds.
 */
static unsigned char *three_packets(size_t *len, size_t *p2, size_t *p3, size_t *first)
{
	static struct fx_event ev[150];
	static struct fx_sched_switch sw;
	unsigned char *bytes;
	size_t i;

	sw = fx_sched("a", 1, 0, "b", 2);
	for (i = 0; i < 150; i++)
		ev[i] = (struct fx_event){ FX_ID_SCHED_SWITCH, 10 + i, 0, 1, &sw, sizeof(sw) };
	bytes = make(ev, 150, len);
	*p2 = hvt_get_u64(bytes + offsetof(struct hvt_ctf_packet, packet_size)) / 8;
	*p3 = *p2 + hvt_get_u64(bytes + *p2 + offsetof(struct hvt_ctf_packet, packet_size)) / 8;
	*first = (*p2 - HVT_CTF_PACKET_HEADER_SIZE) / SW_EVENT_SIZE;
	assert_true(*p3 < *len);
	return bytes;
}

static void test_bad_magic(void **state)
{
	struct ctx *c = *state;
	size_t len, p2, p3, first;
	unsigned char *bytes = three_packets(&len, &p2, &p3, &first);
	struct result *r;

	bytes[p2] ^= 0xff;	/* packet 2: nothing after it can be found */
	r = decode(c, bytes, len);
	assert_int_equal(r->n, first);
	assert_int_equal(r->stats.warnings, 1);
	bytes[p2] ^= 0xff;
	bytes[0] ^= 0xff;	/* packet 1: nothing at all */
	r = decode(c, bytes, len);
	assert_int_equal(r->n, 0);
	assert_int_equal(r->stats.warnings, 1);
	free(bytes);
}

static void test_foreign_uuid_skips_one_packet(void **state)
{
	struct ctx *c = *state;
	size_t len, p2, p3, first;
	unsigned char *bytes = three_packets(&len, &p2, &p3, &first);
	struct result *r;

	memcpy(bytes + p2 + 4, other_uuid, 16);
	r = decode(c, bytes, len);
	assert_int_equal(r->stats.warnings, 1);
	assert_int_equal(r->stats.packets, 2);
	assert_int_equal(r->n, 150 - (p3 - p2 - HVT_CTF_PACKET_HEADER_SIZE) / SW_EVENT_SIZE);
	assert_true(r->n > first);
	free(bytes);
}

static void test_sizes_past_the_end(void **state)
{
	struct ctx *c = *state;
	size_t len, p2, p3, first;
	unsigned char *bytes = three_packets(&len, &p2, &p3, &first);
	struct result *r;

	/*
	 * The file ends in the middle of packet 2: its whole events before the
	 * cut are kept (said), the one cut in two ends it (said).
	 */
	r = decode(c, bytes, p2 + 100);
	assert_int_equal(r->n, first + (100 - HVT_CTF_PACKET_HEADER_SIZE) / SW_EVENT_SIZE);
	assert_int_equal(r->stats.warnings, 2);
	r = decode(c, bytes, p2 + 500);
	assert_int_equal(r->n, first + (500 - HVT_CTF_PACKET_HEADER_SIZE) / SW_EVENT_SIZE);
	assert_true((500 - HVT_CTF_PACKET_HEADER_SIZE) / SW_EVENT_SIZE > 0);
	/* Fewer bytes than a packet header at the end. */
	r = decode(c, bytes, p2 + 20);
	assert_int_equal(r->n, first);
	assert_int_equal(r->stats.warnings, 1);
	/* content_size beyond packet_size: that packet is skipped, its size still trusted. */
	hvt_put_u64(bytes + p2 + offsetof(struct hvt_ctf_packet, content_size),
		    (p3 - p2 + 8) * 8);
	r = decode(c, bytes, len);
	assert_int_equal(r->stats.warnings, 1);
	assert_int_equal(r->stats.packets, 2);
	/* A packet claiming more than 1 MiB. */
	hvt_put_u64(bytes + p2 + offsetof(struct hvt_ctf_packet, packet_size), 8ull << 21);
	r = decode(c, bytes, len);
	assert_int_equal(r->n, first);
	assert_int_equal(r->stats.warnings, 1);
	free(bytes);
}

static void test_truncated_event(void **state)
{
	struct ctx *c = *state;
	size_t len, p2, p3, first;
	unsigned char *bytes = three_packets(&len, &p2, &p3, &first);
	uint64_t content = hvt_get_u64(bytes + offsetof(struct hvt_ctf_packet, content_size));
	struct result *r;

	/* Packet 1 now ends 10 bytes into its last event's payload. */
	hvt_put_u64(bytes + offsetof(struct hvt_ctf_packet, content_size),
		    content - (sizeof(struct fx_sched_switch) - 10) * 8);
	r = decode(c, bytes, len);
	assert_int_equal(r->stats.warnings, 1);
	assert_int_equal(r->n, 149);	/* all but that event */
	assert_true(first > 1);
	/* Cut inside an event header. */
	hvt_put_u64(bytes + offsetof(struct hvt_ctf_packet, content_size),
		    content - (sizeof(struct fx_sched_switch) + 8 + 2) * 8);
	r = decode(c, bytes, len);
	assert_int_equal(r->stats.warnings, 1);
	assert_int_equal(r->n, 149);
	free(bytes);
}

static void test_unknown_id(void **state)
{
	struct ctx *c = *state;
	struct fx_send s = fx_send(1, 2);
	const struct fx_event ev[] = {
		{ FX_ID_SEND, 100, 0, 1, &s, sizeof(s) },
		{ 7, 110, 0, 1, &s, sizeof(s) },	/* compact, not in the registry */
		{ FX_ID_SEND, 120, 0, 1, &s, sizeof(s) },
		{ 1000, 130, 0, 1, &s, sizeof(s) },	/* extended, not in the registry */
	};
	size_t len;
	unsigned char *bytes = fx_make_stream(uuid, 4096, 0, 0, ev, 2, &len);
	struct result *r = decode(c, bytes, len);

	assert_int_equal(r->n, 1);
	assert_int_equal(r->stats.warnings, 1);
	free(bytes);
	bytes = fx_make_stream(uuid, 4096, 0, 0, ev + 2, 2, &len);
	r = decode(c, bytes, len);
	assert_int_equal(r->n, 1);
	assert_int_equal(r->stats.warnings, 1);
	free(bytes);
}

/*
 * Time going back is judged after alignment (test_timeline.c): the reader
 * returns every event as recorded, in stream order, and the compact
 * timestamp after a step back still expands against the event before it.
 */
static void test_time_going_backwards(void **state)
{
	struct ctx *c = *state;
	struct fx_send s = fx_send(1, 2);
	const struct fx_event ev[] = {
		{ FX_ID_SEND, 1000, 0, 1, &s, sizeof(s) },
		{ FX_ID_SEND, 500, 0, 1, &s, sizeof(s) },	/* extended, earlier */
		{ FX_ID_SEND, 1001, 0, 1, &s, sizeof(s) },	/* compact after it */
	};
	size_t len;
	unsigned char *bytes = make(ev, 3, &len);
	struct result *r = decode(c, bytes, len);

	assert_int_equal(r->n, 3);
	assert_int_equal(r->ev[0].ts, 1000);
	assert_int_equal(r->ev[1].ts, 500);
	assert_int_equal(r->ev[2].ts, 1001);
	assert_int_equal(r->stats.warnings, 0);
	free(bytes);
}

/* Whether the decoded events' times never decrease. */
static bool in_order(const struct result *r)
{
	size_t i;

	for (i = 1; i < r->n; i++)
		if (r->ev[i].ts < r->ev[i - 1].ts)
			return false;
	return true;
}

/*
 * Packet 2's times damaged far into the future (begin and end alike, so
 * that the packet itself checks out): on a stream whose times never step
 * back, only packet 2 is lost, with one warning, and what is left is in
 * order. Unjudged, its events come out with those times, every later one
 * looking earlier (the merge then dropped them all).
 */
static void test_damaged_packet_times_stay_in_their_packet(void **state)
{
	struct ctx *c = *state;
	size_t len, p2, p3, first, in_p2;
	unsigned char *bytes = three_packets(&len, &p2, &p3, &first);
	uint64_t far = UINT64_C(1) << 60;
	struct result *r;

	in_p2 = (p3 - p2 - HVT_CTF_PACKET_HEADER_SIZE) / SW_EVENT_SIZE;
	hvt_put_u64(bytes + p2 + offsetof(struct hvt_ctf_packet, timestamp_begin), far);
	hvt_put_u64(bytes + p2 + offsetof(struct hvt_ctf_packet, timestamp_end), far + 1000);
	r = decode(c, bytes, len);
	assert_int_equal(r->n, 150);
	assert_false(in_order(r));
	monotonic = true;
	r = decode(c, bytes, len);
	monotonic = false;
	assert_int_equal(r->n, 150 - in_p2);
	assert_int_equal(r->stats.warnings, 1);
	assert_int_equal(r->stats.packets, 2);
	assert_true(in_order(r));
	free(bytes);
}

/*
 * One event's timestamp far in the future (an extended header): the rest
 * of its packet is dropped, with one warning, and the next packets are
 * read as they are. A step back of a few ticks, which a thread moved
 * between CPUs may show, is no damage.
 */
static void test_damaged_event_time_ends_its_packet(void **state)
{
	struct ctx *c = *state;
	struct fx_sched_switch sw = fx_sched("a", 1, 0, "b", 2);
	static struct fx_event ev[150];
	size_t len, i, p2, in_p1;
	unsigned char *bytes;
	struct result *r;

	for (i = 0; i < 150; i++)
		ev[i] = (struct fx_event){ FX_ID_SCHED_SWITCH, 1000000 + 10 * i, 0, 1, &sw, sizeof(sw) };
	ev[5].ts = UINT64_C(1) << 60;
	bytes = make(ev, 150, &len);
	p2 = hvt_get_u64(bytes + offsetof(struct hvt_ctf_packet, packet_size)) / 8;
	r = decode(c, bytes, p2);		/* packet 1 alone */
	in_p1 = r->n;
	assert_true(in_p1 > 6 && in_p1 < 150);
	monotonic = true;
	r = decode(c, bytes, len);
	assert_int_equal(r->n, 150 - (in_p1 - 5));
	assert_int_equal(r->stats.warnings, 1);
	assert_true(in_order(r));
	free(bytes);
	/* the next packet begins 5 ticks before packet 1's last event: kept */
	ev[5].ts = 1000000 + 50;
	bytes = make(ev, 150, &len);
	p2 = hvt_get_u64(bytes + offsetof(struct hvt_ctf_packet, packet_size)) / 8;
	hvt_put_u64(bytes + p2 + offsetof(struct hvt_ctf_packet, timestamp_begin),
		    hvt_get_u64(bytes + p2 + offsetof(struct hvt_ctf_packet, timestamp_begin)) - 5);
	r = decode(c, bytes, len);
	monotonic = false;
	assert_int_equal(r->n, 150);
	assert_int_equal(r->stats.warnings, 0);
	free(bytes);
}

static void test_empty_and_missing(void **state)
{
	struct ctx *c = *state;
	unsigned long warnings = 0;
	struct result *r = decode(c, (const unsigned char *)"", 0);
	struct hvt_ctf_types types;

	assert_int_equal(r->n, 0);
	assert_int_equal(r->stats.warnings, 0);
	assert_int_equal(hvt_ctf_types_init(&types, &c->reg), 0);
	assert_null(hvt_ctf_open("/nonexistent/stream", "missing", uuid, &types, &warnings));
	hvt_ctf_types_free(&types);
	assert_int_equal(warnings, 1);
}

static void test_lost_packets_are_counted(void **state)
{
	struct ctx *c = *state;
	size_t len, p2, p3, first;
	unsigned char *bytes = three_packets(&len, &p2, &p3, &first);
	struct result *r;

	hvt_put_u64(bytes + p3 + offsetof(struct hvt_ctf_packet, packet_seq_num), 5);
	hvt_put_u64(bytes + p3 + offsetof(struct hvt_ctf_packet, events_discarded), 9);
	r = decode(c, bytes, len);
	assert_int_equal(r->n, 150);
	assert_int_equal(r->stats.warnings, 0);
	assert_int_equal(r->stats.lost_packets, 3);
	assert_int_equal(r->stats.lost_events, 9);
	free(bytes);
}

/* A count of discarded events that goes back, or past one per tick, is damage: said, not taken. */
static void test_impossible_discarded_counts(void **state)
{
	struct ctx *c = *state;
	size_t len, p2, p3, first;
	unsigned char *bytes = three_packets(&len, &p2, &p3, &first);
	struct result *r;

	hvt_put_u64(bytes + p3 + offsetof(struct hvt_ctf_packet, events_discarded), UINT64_MAX);
	r = decode(c, bytes, len);
	assert_int_equal(r->n, 150);		/* every event still there */
	assert_int_equal(r->stats.warnings, 1);
	assert_int_equal(r->stats.lost_events, 0);
	hvt_put_u64(bytes + p2 + offsetof(struct hvt_ctf_packet, events_discarded), 9);
	hvt_put_u64(bytes + p3 + offsetof(struct hvt_ctf_packet, events_discarded), 5);
	r = decode(c, bytes, len);
	assert_int_equal(r->n, 150);
	assert_int_equal(r->stats.warnings, 1);
	assert_int_equal(r->stats.lost_events, 9);
	free(bytes);
}

static void test_registry_files(void **state)
{
	struct ctx *c = *state;
	struct hvt_registry reg;
	size_t len;
	unsigned char *records = fx_registry(&len), *bad = malloc(len + 40);
	char path[128];

	snprintf(path, sizeof(path), "%s/registry", c->root);
	/* Valid. */
	assert_int_equal(fx_write(c->root, "registry", records, len), 0);
	hvt_registry_init(&reg);
	assert_int_equal(hvt_ctf_registry_load(&reg, path, "registry"), 0);
	assert_int_equal(reg.nr_events, 5);
	hvt_registry_free(&reg);
	/* Valid records, then garbage: the records before it are kept. */
	memcpy(bad, records, len);
	memset(bad + len, 0x5a, 40);
	assert_int_equal(fx_write(c->root, "registry", bad, len + 40), 0);
	hvt_registry_init(&reg);
	assert_int_equal(hvt_ctf_registry_load(&reg, path, "registry"), 1);
	assert_int_equal(reg.nr_events, 5);
	hvt_registry_free(&reg);
	/* A broken second record (a field kind that does not exist). */
	memcpy(bad, records, len);
	bad[hvt_get_u32(bad + 4) + 80 + 32] = 9;
	assert_int_equal(fx_write(c->root, "registry", bad, len), 0);
	hvt_registry_init(&reg);
	assert_int_equal(hvt_ctf_registry_load(&reg, path, "registry"), 1);
	assert_int_equal(reg.nr_events, 1);
	hvt_registry_free(&reg);
	/* Truncated in a header, and missing. */
	assert_int_equal(fx_write(c->root, "registry", records, 6), 0);
	hvt_registry_init(&reg);
	assert_int_equal(hvt_ctf_registry_load(&reg, path, "registry"), 1);
	assert_int_equal(reg.nr_events, 0);
	assert_int_equal(hvt_ctf_registry_load(&reg, "/nonexistent", "missing"), 1);
	hvt_registry_free(&reg);
	free(bad);
	free(records);
}

/*
 * A registry file of garbage yields no event type at all: every event is
 * unknown, one warning per packet, no crash.
 */
static void test_stream_with_garbage_registry(void **state)
{
	struct ctx *c = *state;
	struct hvt_registry saved = c->reg;
	size_t len, p2, p3, first;
	unsigned char *bytes = three_packets(&len, &p2, &p3, &first);
	unsigned char garbage[512];
	struct result *r;
	char path[128];
	size_t i;

	for (i = 0; i < sizeof(garbage); i++)
		garbage[i] = (unsigned char)(i * 37 + 11);
	snprintf(path, sizeof(path), "%s/registry", c->root);
	assert_int_equal(fx_write(c->root, "registry", garbage, sizeof(garbage)), 0);
	hvt_registry_init(&c->reg);
	assert_int_equal(hvt_ctf_registry_load(&c->reg, path, "registry"), 1);
	assert_int_equal(c->reg.nr_events, 0);
	r = decode(c, bytes, len);
	assert_int_equal(r->n, 0);
	assert_int_equal(r->stats.warnings, 3);	/* one per packet */
	hvt_registry_free(&c->reg);
	c->reg = saved;
	free(bytes);
}

/* Every single-byte corruption of a small stream: the reader must survive. */
static void test_fuzz_bytes(void **state)
{
	struct ctx *c = *state;
	uint32_t plen;
	unsigned char *payload = fx_kinds("text", "xyz", 3, &plen);
	struct fx_send s = fx_send(1, 2);
	const struct fx_event ev[] = {
		{ FX_ID_KINDS, 100, 0, 1, payload, plen },
		{ FX_ID_SEND, 200, 0, 1, &s, sizeof(s) },
		{ FX_ID_FAR, 300, 0, 1, &s, 4 },
	};
	size_t len, i;
	unsigned char *bytes = make(ev, 3, &len);
	static const unsigned char values[] = { 0x00, 0xff, 0x1f, 0x80, 0x7f };
	int saved_stderr = dup(2), devnull = open("/dev/null", O_WRONLY);

	/* Thousands of expected warnings would bury the test output. */
	assert_true(saved_stderr >= 0 && devnull >= 0);
	dup2(devnull, 2);
	for (i = 0; i < len; i++) {
		unsigned char saved = bytes[i];
		size_t v;

		for (v = 0; v < sizeof(values); v++) {
			bytes[i] = values[v];
			decode(c, bytes, len);
		}
		bytes[i] = saved;
	}
	dup2(saved_stderr, 2);
	close(saved_stderr);
	close(devnull);
	free(bytes);
	free(payload);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_headers_and_wrap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_packets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_field_kinds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_payload_sizes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_magic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_uuid_skips_one_packet, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sizes_past_the_end, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated_event, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_time_going_backwards, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged_packet_times_stay_in_their_packet, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_damaged_event_time_ends_its_packet, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_empty_and_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lost_packets_are_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_impossible_discarded_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_registry_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream_with_garbage_registry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fuzz_bytes, setup, teardown),
	};

	return cmocka_run_group_tests_name("ctf_reader", tests, NULL, NULL);
}
