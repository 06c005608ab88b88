// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_relay_proto.c - the LTTng live viewer protocol of `hvtrace relay`
 * (tools/relay/relay_proto.h) over a live trace (relay_trace.h) built here
 * packet by packet, command by command as babeltrace2 sends them:
 *   - CONNECT agrees on 2.4 at most; LIST shows the session once it has
 *     metadata; ATTACH gives the metadata stream and the data streams,
 *     read from now ("seek last") or from the start;
 *   - GET_NEXT_INDEX: the packets in order with their index, the flags of
 *     new metadata and new streams, an inactivity beacon when the trace's
 *     beacon moved, else retry, and hang-up once everything is read;
 *   - GET_PACKET and GET_METADATA give the published bytes and nothing
 *     beyond; GET_NEW_STREAMS the streams published since;
 *   - what is not the protocol (unknown command, wrong payload size, no
 *     CONNECT first, another major version) is an error; a partial command
 *     waits for its bytes.
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

#include "lib/big_endian.h"
#include "tools/relay/relay_proto.h"

struct fx {
	char dir[64];
	struct hvt_relay_trace t;
	struct hvt_relay_viewer v;
	struct hvt_relay_out out;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/hvt-relay-test-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	assert_int_equal(hvt_relay_trace_init(&f->t, f->dir, "rec", "host1"), 0);
	hvt_relay_viewer_init(&f->v, 7);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	hvt_relay_viewer_free(&f->v);
	hvt_relay_out_free(&f->out);
	hvt_relay_trace_free(&f->t);
	assert_int_equal(access(f->dir, F_OK), -1);	/* removed, with its files */
	free(f);
	return 0;
}

static uint32_t at32(const struct fx *f, size_t off)
{
	assert_true(off + 4 <= f->out.len);
	return hvt_get_be32(f->out.buf + off);
}

static uint64_t at64(const struct fx *f, size_t off)
{
	assert_true(off + 8 <= f->out.len);
	return hvt_get_be64(f->out.buf + off);
}

/* Sends command @cmd with @len payload bytes; the reply is in f->out. */
static int send_cmd(struct fx *f, uint32_t cmd, const unsigned char *payload, size_t len)
{
	unsigned char buf[64];
	size_t used;
	int r;

	hvt_put_be64(buf, len);
	hvt_put_be32(buf + 8, cmd);
	hvt_put_be32(buf + 12, 0);
	if (len)
		memcpy(buf + 16, payload, len);
	f->out.len = 0;
	r = hvt_relay_command(&f->v, &f->t, buf, 16 + len, &used, &f->out);
	if (r > 0)
		assert_int_equal(used, 16 + len);
	return r;
}

static void connect_viewer(struct fx *f, uint32_t minor)
{
	unsigned char p[20] = { 0 };

	hvt_put_be32(p + 8, 2);
	hvt_put_be32(p + 12, minor);
	hvt_put_be32(p + 16, 1);
	assert_int_equal(send_cmd(f, 1, p, 20), 1);
	assert_int_equal(f->out.len, 20);
	assert_int_equal(at64(f, 0), 7);
	assert_int_equal(at32(f, 8), 2);
	assert_int_equal(at32(f, 12), minor < 4 ? minor : 4);
}

static int attach(struct fx *f, uint64_t id, uint32_t seek)
{
	unsigned char p[20] = { 0 };

	hvt_put_be64(p, id);
	hvt_put_be32(p + 16, seek);
	assert_int_equal(send_cmd(f, 3, p, 20), 1);
	return (int)at32(f, 0);
}

static void publish(struct fx *f, const char *stream, const char *bytes, uint64_t ts0,
		    uint64_t ts1)
{
	struct hvt_relay_index ix = { .packet_size = strlen(bytes) * 8,
				      .content_size = strlen(bytes) * 8,
				      .timestamp_begin = ts0, .timestamp_end = ts1 };

	assert_true(hvt_relay_trace_packet(&f->t, stream, bytes, strlen(bytes), &ix) >= 0);
}

static void metadata(struct fx *f, const char *text)
{
	assert_int_equal(hvt_relay_trace_metadata(&f->t, text, strlen(text)), 0);
}

/* GET_NEXT_INDEX of viewer stream @id: its status; the reply in f->out. */
static uint32_t next_index(struct fx *f, uint64_t id)
{
	unsigned char p[8];

	hvt_put_be64(p, id);
	assert_int_equal(send_cmd(f, 4, p, 8), 1);
	assert_int_equal(f->out.len, 64);
	return at32(f, 56);
}

static uint32_t get_packet(struct fx *f, uint64_t id, uint64_t off, uint32_t len)
{
	unsigned char p[20];

	hvt_put_be64(p, id);
	hvt_put_be64(p + 8, off);
	hvt_put_be32(p + 16, len);
	assert_int_equal(send_cmd(f, 5, p, 20), 1);
	return at32(f, 0);
}

static uint32_t get_metadata(struct fx *f, uint64_t id)
{
	unsigned char p[8];

	hvt_put_be64(p, id);
	assert_int_equal(send_cmd(f, 6, p, 8), 1);
	return at32(f, 8);
}

static uint32_t new_streams(struct fx *f)
{
	unsigned char p[8];

	hvt_put_be64(p, 1);
	assert_int_equal(send_cmd(f, 7, p, 8), 1);
	return at32(f, 0);
}

static void test_list_and_attach(void **state)
{
	struct fx *f = *state;

	connect_viewer(f, 15);
	assert_int_equal(send_cmd(f, 8, NULL, 0), 1);	/* CREATE_SESSION */
	assert_int_equal(at32(f, 0), 1);
	assert_int_equal(send_cmd(f, 2, NULL, 0), 1);	/* LIST: nothing before metadata */
	assert_int_equal(at32(f, 0), 0);
	assert_int_equal(attach(f, 1, 2), 3);		/* unknown yet */
	metadata(f, "/* CTF 1.8 */ trace {};\n");
	assert_int_equal(send_cmd(f, 2, NULL, 0), 1);	/* nor before a data stream */
	assert_int_equal(at32(f, 0), 0);
	publish(f, "host-cpu-0", "AAAA", 100, 200);
	assert_int_equal(send_cmd(f, 2, NULL, 0), 1);
	assert_int_equal(at32(f, 0), 1);
	assert_int_equal(f->out.len, 4 + 339);
	assert_int_equal(at64(f, 4), 1);		/* session id */
	assert_int_equal(at32(f, 4 + 16), 2);		/* streams: metadata and one */
	assert_string_equal((const char *)f->out.buf + 4 + 20, "host1");
	assert_string_equal((const char *)f->out.buf + 4 + 20 + 64, "rec");
	assert_int_equal(attach(f, 2, 2), 3);		/* no such session */
	assert_int_equal(attach(f, 1, 9), 5);		/* no such seek */
	assert_int_equal(attach(f, 1, 2), 1);
	assert_int_equal(at32(f, 4), 2);
	assert_int_equal(f->out.len, 8 + 2 * 4371);
	assert_int_equal(at64(f, 8), 1);		/* the metadata stream first */
	assert_int_equal(at32(f, 8 + 16), 1);
	assert_int_equal(at64(f, 8 + 4371), 2);
	assert_int_equal(at32(f, 8 + 4371 + 16), 0);
	assert_string_equal((const char *)f->out.buf + 8 + 4371 + 20, "host1/rec");
	assert_string_equal((const char *)f->out.buf + 8 + 4371 + 20 + 4096, "host-cpu-0");
}

static void test_seek_last_then_packets(void **state)
{
	struct fx *f = *state;
	const char *meta = "/* CTF 1.8 */ trace {};\n";

	metadata(f, meta);
	publish(f, "s0", "old.", 100, 200);
	connect_viewer(f, 4);
	assert_int_equal(attach(f, 1, 2), 1);		/* from now: "old." is not given */
	assert_int_equal(next_index(f, 2), 2);		/* retry: no beacon yet */
	f->t.beacon = 300;
	assert_int_equal(next_index(f, 2), 5);		/* inactive until 300 */
	assert_int_equal(at64(f, 32), 300);
	assert_int_equal(next_index(f, 2), 2);		/* the same beacon is not sent again */
	publish(f, "s0", "new packet", 400, 500);
	assert_int_equal(next_index(f, 2), 1);
	assert_int_equal(at64(f, 0), 4);		/* offset */
	assert_int_equal(at64(f, 8), 80);		/* bits */
	assert_int_equal(at64(f, 24), 400);
	assert_int_equal(at64(f, 32), 500);
	assert_int_equal(at32(f, 60) & 1, 1);		/* metadata not read yet */
	assert_int_equal(get_packet(f, 2, 4, 10), 3);	/* not before the metadata */
	assert_int_equal(at32(f, 8) & 1, 1);
	assert_int_equal(get_metadata(f, 1), 1);
	assert_int_equal(at64(f, 0), strlen(meta));
	assert_memory_equal(f->out.buf + 12, meta, strlen(meta));
	assert_int_equal(get_metadata(f, 1), 2);	/* no new */
	assert_int_equal(get_metadata(f, 2), 3);	/* a data stream */
	assert_int_equal(get_packet(f, 2, 4, 10), 1);
	assert_int_equal(at32(f, 4), 10);
	assert_memory_equal(f->out.buf + 12, "new packet", 10);
	assert_int_equal(get_packet(f, 2, 4, 11), 3);	/* past what is published */
	assert_int_equal(get_packet(f, 2, UINT64_MAX, 1), 3);
	assert_int_equal(get_packet(f, 3, 0, 1), 3);	/* no such stream */
	assert_int_equal(get_packet(f, 2, 0, HVT_LIVE_MAX_PACKET_READ + 1), 3);
	assert_int_equal(next_index(f, 9), 4);		/* no such stream */
	assert_false(hvt_relay_viewer_finished(&f->v, &f->t));
	f->t.done = true;
	assert_int_equal(new_streams(f), 2);		/* not all read: no hang-up yet */
	assert_int_equal(next_index(f, 2), 3);		/* hung up */
	assert_true(hvt_relay_viewer_finished(&f->v, &f->t));
	assert_int_equal(new_streams(f), 4);
}

static void test_seek_beginning_and_new_streams(void **state)
{
	struct fx *f = *state;

	metadata(f, "a;\n");
	publish(f, "s0", "p0", 1, 2);
	connect_viewer(f, 4);
	assert_int_equal(attach(f, 1, 1), 1);
	assert_int_equal(next_index(f, 2), 1);		/* the first packet */
	assert_int_equal(at64(f, 24), 1);
	assert_int_equal(new_streams(f), 2);		/* none new */
	publish(f, "s1", "q0", 5, 6);
	metadata(f, "b;\n");
	f->t.beacon = 9;	/* past s1's start, which the viewer has not heard of */
	assert_int_equal(next_index(f, 2), 5);
	assert_int_equal(at64(f, 32), 5);		/* held at s1's start */
	f->t.beacon = 0;
	assert_int_equal(next_index(f, 2), 2);		/* s0: no beacon past its packet */
	assert_int_equal(at32(f, 60), 3);		/* new metadata, new stream */
	assert_int_equal(new_streams(f), 1);
	assert_int_equal(at32(f, 4), 1);
	assert_int_equal(at64(f, 8), 3);
	assert_int_equal(next_index(f, 3), 1);		/* a new stream: from its start */
	assert_int_equal(at64(f, 24), 5);
	assert_int_equal(get_metadata(f, 1), 1);
	assert_int_equal(at64(f, 0), 6);		/* both parts at once */
	assert_int_equal(send_cmd(f, 9, (const unsigned char *)"\0\0\0\0\0\0\0\1", 8), 1);
	assert_int_equal(at32(f, 0), 1);		/* detached */
	assert_int_equal(next_index(f, 2), 4);		/* no stream known now */
	assert_int_equal(send_cmd(f, 9, (const unsigned char *)"\0\0\0\0\0\0\0\1", 8), 1);
	assert_int_equal(at32(f, 0), 2);
}

/* A packet needs only the metadata published before it: what came later waits. */
static void test_packet_needs_its_metadata_only(void **state)
{
	struct fx *f = *state;

	metadata(f, "a;\n");
	publish(f, "s0", "p0", 1, 2);
	connect_viewer(f, 4);
	assert_int_equal(attach(f, 1, 1), 1);
	assert_int_equal(get_metadata(f, 1), 1);
	assert_int_equal(next_index(f, 2), 1);
	metadata(f, "b;\n");			/* a class of a packet to come */
	assert_int_equal(get_packet(f, 2, 0, 2), 1);	/* p0 does not need it */
	assert_memory_equal(f->out.buf + 12, "p0", 2);
	assert_int_equal(at32(f, 8) & 1, 1);	/* but it is said to be there */
	publish(f, "s0", "p1", 3, 4);
	assert_int_equal(next_index(f, 2), 1);
	assert_int_equal(get_packet(f, 2, 2, 2), 3);	/* p1 does: read it first */
	assert_int_equal(at32(f, 8) & 1, 1);
	assert_int_equal(get_metadata(f, 1), 1);
	assert_int_equal(get_packet(f, 2, 2, 2), 1);
}

static void test_protocol_errors(void **state)
{
	struct fx *f = *state;
	unsigned char p[20] = { 0 }, buf[40];
	size_t used = 99;

	assert_int_equal(send_cmd(f, 2, NULL, 0), -1);	/* before CONNECT */
	assert_non_null(strstr(f->v.why, "before CONNECT"));
	hvt_put_be32(p + 8, 3);
	hvt_put_be32(p + 16, 1);
	assert_int_equal(send_cmd(f, 1, p, 20), -1);	/* major 3 */
	hvt_put_be32(p + 8, 2);
	hvt_put_be32(p + 16, 2);
	assert_int_equal(send_cmd(f, 1, p, 20), -1);	/* a notification connection */
	connect_viewer(f, 4);
	assert_int_equal(send_cmd(f, 1, p, 20), -1);	/* CONNECT again */
	assert_int_equal(send_cmd(f, 10, NULL, 0), -1);
	assert_non_null(strstr(f->v.why, "unknown command 10"));
	assert_int_equal(send_cmd(f, 4, p, 4), -1);	/* a payload of the wrong size */
	/* a payload size the header announces too large is refused at once */
	hvt_put_be64(buf, 1ull << 40);
	hvt_put_be32(buf + 8, 4);
	assert_int_equal(hvt_relay_command(&f->v, &f->t, buf, 16, &used, &f->out), -1);
	/* a partial command waits */
	hvt_put_be64(buf, 8);
	hvt_put_be32(buf + 8, 4);
	hvt_put_be32(buf + 12, 0);
	assert_int_equal(hvt_relay_command(&f->v, &f->t, buf, 20, &used, &f->out), 0);
	assert_int_equal(used, 0);
	assert_int_equal(hvt_relay_command(&f->v, &f->t, buf, 15, &used, &f->out), 0);
}

static void test_trace_reads_stay_published(void **state)
{
	struct fx *f = *state;
	struct hvt_relay_index ix;
	char buf[8];

	publish(f, "s0", "abcd", 1, 2);
	assert_int_equal(hvt_relay_trace_read(&f->t, 0, 0, buf, 4), 0);
	assert_memory_equal(buf, "abcd", 4);
	assert_int_equal(hvt_relay_trace_read(&f->t, 0, 1, buf, 4), -1);
	assert_int_equal(hvt_relay_trace_read(&f->t, 1, 0, buf, 1), -1);
	assert_int_equal(hvt_relay_trace_read_index(&f->t, 0, 0, &ix), 0);
	assert_int_equal(ix.timestamp_end, 2);
	assert_int_equal(hvt_relay_trace_read_index(&f->t, 0, 1, &ix), -1);
	assert_int_equal(hvt_relay_trace_read_metadata(&f->t, 0, buf, 1), -1);
	/* a stream file name that would leave the directory is refused */
	ix = (struct hvt_relay_index){ 0 };
	assert_int_equal(hvt_relay_trace_packet(&f->t, "../x", "a", 1, &ix), -1);
	assert_int_equal(hvt_relay_trace_packet(&f->t, ".hidden", "a", 1, &ix), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_list_and_attach, setup, teardown),
		cmocka_unit_test_setup_teardown(test_seek_last_then_packets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_seek_beginning_and_new_streams, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_packet_needs_its_metadata_only, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_protocol_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trace_reads_stay_published, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
