// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_ringbuf.c - the ring buffer core of include/hvtrace/ringbuf.h, as the
 * user library builds it: packets, event headers, overflow accounting and
 * recovery of a dead producer's open packet.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <hvtrace/ringbuf.h>

#include "lib/packet.h"

#define SUBBUF 4096u
#define NR 4u

/* Event v is stamped ts_of(v): gaps grow past 2^27 ticks (extended headers). */
static uint64_t ts_of(uint64_t v)
{
	return 1000 + v * v * 100000;
}

struct fixture {
	struct hvt_rb rb;
	struct hvt_rb_prod prod;
	struct hvt_rb_cons cons;
	unsigned char data[SUBBUF * NR];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	hvt_rb_init(&f->rb, &f->prod, &f->cons, f->data, SUBBUF, NR);
	memset(f->rb.uuid, 0xab, HVT_UUID_LEN);
	f->rb.cpu_id = 3;
	f->rb.stream_instance_id = 3;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	free(*state);
	return 0;
}

/* Writes one event with a u64 payload; 1 if recorded, 0 if discarded. */
static int emit(struct fixture *f, uint64_t ts, uint32_t id, uint64_t value)
{
	__u64 end;
	unsigned char *p = hvt_rb_reserve(&f->rb, id, ts, 3, 42, sizeof(value), &end);

	if (!p)
		return 0;
	memcpy(p, &value, sizeof(value));
	hvt_rb_commit(&f->rb, ts, end);
	return 1;
}

static unsigned int n_compact, n_extended;

/* Decodes the events of one packet; returns their count, checks ts/values. */
static unsigned int decode(const unsigned char *pkt, uint64_t *first_value)
{
	struct hvt_ctf_packet h;
	uint64_t ts, expect_v = *first_value, pos;
	unsigned int n = 0;

	memcpy(&h, pkt, sizeof(h));
	ts = h.timestamp_begin;
	for (pos = sizeof(h); pos < h.content_size / 8; n++) {
		uint32_t word = hvt_get_u32(pkt + pos), id;
		uint64_t v;

		if ((word & 31) == HVT_CTF_EXTENDED_ID) {
			id = hvt_get_u32(pkt + pos + 1);
			ts = hvt_get_u64(pkt + pos + 5);
			pos += HVT_CTF_EXTENDED_HEADER_SIZE;
			n_extended++;
		} else {
			id = word & 31;
			ts = hvt_ctf_expand_ts(ts, word >> 5);
			pos += HVT_CTF_COMPACT_HEADER_SIZE;
			n_compact++;
		}
		assert_int_equal(hvt_get_u32(pkt + pos), 3);		/* cpu_id */
		assert_int_equal((int32_t)hvt_get_u32(pkt + pos + 4), 42);	/* tid */
		pos += HVT_CTF_EVENT_CONTEXT_SIZE;
		v = hvt_get_u64(pkt + pos);
		pos += 8;
		assert_int_equal(v, expect_v);
		assert_int_equal(ts, ts_of(v));	/* and id v % 40 */
		assert_int_equal(id, v % 40);
		expect_v++;
	}
	assert_int_equal(pos, h.content_size / 8);
	assert_int_equal(h.timestamp_end, ts);
	*first_value = expect_v;
	return n;
}

static void consume_all(struct fixture *f, uint64_t *value, unsigned int *events,
			uint64_t *expect_seq)
{
	long long ready = hvt_rb_ready(&f->prod, f->cons.consumed, NR);

	assert_true(ready >= 0);
	while (ready-- > 0) {
		const unsigned char *pkt = hvt_rb_slot(f->data, SUBBUF, NR, f->cons.consumed);
		struct hvt_ctf_packet h;

		assert_null(hvt_packet_check(pkt, SUBBUF, f->rb.uuid, &h));
		assert_int_equal(h.packet_seq_num, *expect_seq);
		assert_int_equal(h.cpu_id, 3);
		assert_int_equal(h.packet_size, h.content_size);	/* stored as it stands */
		*events += decode(pkt, value);
		(*expect_seq)++;
		f->cons.consumed++;
	}
}

/* Growing gaps force both header forms; every event comes back in order. */
static void test_events_roundtrip(void **state)
{
	struct fixture *f = *state;
	uint64_t v, next = 0, seq = 0;
	unsigned int events = 0;

	n_compact = n_extended = 0;
	for (v = 0; v < 2000; v++) {
		assert_true(emit(f, ts_of(v), (uint32_t)(v % 40), v));
		consume_all(f, &next, &events, &seq);
	}
	hvt_rb_close_packet(&f->rb);
	consume_all(f, &next, &events, &seq);
	assert_int_equal(events, 2000);
	assert_int_equal(f->prod.lost, 0);
	assert_true(n_compact > 100 && n_extended > 100);
}

/*
 * Nobody consumes: exactly the events that did not fit are counted as lost,
 * and the next packet to close after the consumer caught up carries them.
 */
static void test_overflow_accounting(void **state)
{
	struct fixture *f = *state;
	unsigned int recorded = 0, events = 0, v;
	uint64_t next = 0, seq = 0;
	const unsigned int emitted = 5000;
	struct hvt_ctf_packet last;

	for (v = 0; v < emitted; v++)
		recorded += (unsigned int)emit(f, ts_of(v), v % 40, v);
	assert_true(recorded < emitted);
	assert_int_equal(recorded + f->prod.lost, emitted);
	consume_all(f, &next, &events, &seq);
	assert_int_equal(events, recorded);
	assert_int_equal(f->cons.consumed, NR);
	/* The last packet closed before anything was lost (closing it filled the ring). */
	memcpy(&last, hvt_rb_slot(f->data, SUBBUF, NR, f->cons.consumed - 1), sizeof(last));
	assert_int_equal(last.events_discarded, 0);
	/* Room again: the next packet records, closes and reports every loss. */
	next = emitted;
	for (v = emitted; v < emitted + 3; v++)
		assert_true(emit(f, ts_of(v), v % 40, v));
	hvt_rb_close_packet(&f->rb);
	consume_all(f, &next, &events, &seq);
	assert_int_equal(events, recorded + 3);
	memcpy(&last, hvt_rb_slot(f->data, SUBBUF, NR, f->cons.consumed - 1), sizeof(last));
	assert_true(f->prod.lost > 0);
	assert_int_equal(last.events_discarded, f->prod.lost);
	assert_int_equal(last.events_discarded, emitted - recorded);
}

/* A producer that died mid-packet: its committed events are recoverable. */
static void test_open_packet_recovery(void **state)
{
	struct fixture *f = *state;
	unsigned int v, events = 0;
	uint64_t next = 0;
	long long len;
	unsigned char copy[SUBBUF];
	struct hvt_ctf_packet h;

	for (v = 0; v < 10; v++)
		assert_true(emit(f, ts_of(v), v % 40, v));
	assert_int_equal(hvt_rb_ready(&f->prod, 0, NR), 0);
	len = hvt_rb_recover_open_packet(&f->prod, f->data, SUBBUF, NR, f->prod.produced, copy);
	assert_true(len > (long long)HVT_CTF_PACKET_HEADER_SIZE);
	assert_int_equal(len, hvt_rb_open_packet_len(&f->prod, SUBBUF));
	/* complete as a closed packet would be, sizes and all */
	assert_null(hvt_packet_check(copy, (size_t)len, f->rb.uuid, &h));
	assert_int_equal(h.content_size, (uint64_t)len * 8);
	assert_int_equal(h.packet_size, (uint64_t)len * 8);
	assert_int_equal(h.events_discarded, f->prod.lost);
	events = decode(copy, &next);
	assert_int_equal(events, 10);
	/* closing it writes the same bytes in place */
	hvt_rb_close_packet(&f->rb);
	assert_memory_equal(hvt_rb_slot(f->data, SUBBUF, NR, 0), copy, (size_t)len);
	/* nothing open, nothing to recover */
	assert_int_equal(hvt_rb_recover_open_packet(&f->prod, f->data, SUBBUF, NR,
						    f->prod.produced, copy), 0);
}

/* Corrupt producer state is reported, not trusted. */
static void test_consumer_rejects_corruption(void **state)
{
	struct fixture *f = *state;
	unsigned char copy[SUBBUF];

	f->prod.produced = 100;		/* more than nr_subbufs ahead */
	assert_int_equal(hvt_rb_ready(&f->prod, 0, NR), -1);
	f->prod.produced = 0;
	assert_int_equal(hvt_rb_ready(&f->prod, 5, NR), -1);	/* behind the consumer */
	f->prod.write_pos = SUBBUF + 1;
	assert_int_equal(hvt_rb_open_packet_len(&f->prod, SUBBUF), -1);
	f->prod.write_pos = 3;
	assert_int_equal(hvt_rb_open_packet_len(&f->prod, SUBBUF), -1);
	assert_int_equal(hvt_rb_recover_open_packet(&f->prod, f->data, SUBBUF, NR, 0, copy), -1);
}

static void test_too_big_event_is_lost(void **state)
{
	struct fixture *f = *state;
	__u64 end;

	assert_null(hvt_rb_reserve(&f->rb, 1, 10, 0, 0, SUBBUF, &end));
	assert_int_equal(f->prod.lost, 1);
}

static void test_geometry(void **state)
{
	(void)state;
	assert_true(hvt_rb_geometry_ok(4096, 2));
	assert_true(hvt_rb_geometry_ok(1u << 20, 1024));
	assert_false(hvt_rb_geometry_ok(4096, 1));
	assert_false(hvt_rb_geometry_ok(4096, 3));
	assert_false(hvt_rb_geometry_ok(6000, 4));
	assert_false(hvt_rb_geometry_ok(2048, 4));
	assert_false(hvt_rb_geometry_ok(1u << 21, 4));
	assert_false(hvt_rb_geometry_ok(4096, 2048));
}

/* CTF 1.8 compact timestamps: low bits replace, one wrap when they went back. */
static void test_expand_ts(void **state)
{
	const uint64_t wrap = 1ull << HVT_CTF_COMPACT_TS_BITS;

	(void)state;
	assert_int_equal(hvt_ctf_expand_ts(5 * wrap + 100, 200), 5 * wrap + 200);
	assert_int_equal(hvt_ctf_expand_ts(5 * wrap + 100, 50), 6 * wrap + 50);
	assert_int_equal(hvt_ctf_expand_ts(5 * wrap + 100, 100), 5 * wrap + 100);
	assert_true(hvt_ctf_can_compact(30, 0, wrap - 1));
	assert_false(hvt_ctf_can_compact(30, 0, wrap));
	assert_false(hvt_ctf_can_compact(31, 0, 1));
	assert_false(hvt_ctf_can_compact(0, 10, 9));	/* backwards: extended */
}

static uint64_t closed_seen;

static void count_closed(struct hvt_rb *rb)
{
	/* called after the packet was handed over: produced already counts it */
	assert_int_equal(rb->prod->produced, closed_seen + 1);
	assert_int_equal(rb->prod->write_pos, 0);
	closed_seen++;
}

/*
 * packet_closed runs once per packet a writer fills, never per event, not
 * for a packet closed by hand (the caller knows it did), and not while the
 * buffer is full and events are discarded.
 */
static void test_packet_closed_once_per_packet(void **state)
{
	struct fixture *f = *state;
	uint64_t v, emitted = 0;

	closed_seen = 0;
	f->rb.packet_closed = count_closed;
	for (v = 0; v < 4 * SUBBUF; v++)	/* far more than NR packets' worth */
		emitted += (uint64_t)emit(f, 1000 + v, 1, v);
	assert_int_equal(f->prod.produced, NR);		/* no consumer: the buffer filled */
	assert_int_equal(closed_seen, NR);
	assert_true(f->prod.lost > 0);
	assert_int_equal(emitted + f->prod.lost, 4 * SUBBUF);
	f->cons.consumed = NR;				/* a consumer took them all */
	assert_int_equal(emit(f, 1000 + v, 1, v), 1);
	assert_int_equal(closed_seen, NR);		/* a packet opened, none closed */
	hvt_rb_close_packet(&f->rb);
	assert_int_equal(closed_seen, NR);		/* closed by hand: no call */
	hvt_rb_init(&f->rb, &f->prod, &f->cons, f->data, SUBBUF, NR);
	assert_null(f->rb.packet_closed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_events_roundtrip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_packet_closed_once_per_packet, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overflow_accounting, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_packet_recovery, setup, teardown),
		cmocka_unit_test_setup_teardown(test_consumer_rejects_corruption, setup, teardown),
		cmocka_unit_test_setup_teardown(test_too_big_event_is_lost, setup, teardown),
		cmocka_unit_test(test_geometry),
		cmocka_unit_test(test_expand_ts),
	};

	return cmocka_run_group_tests_name("ringbuf", tests, NULL, NULL);
}
