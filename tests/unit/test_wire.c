// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_wire.c - the frame reader: frames arrive whole whatever the split,
 * and every malformed header is refused before its payload is used.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include <hvtrace/ringbuf.h>

#include "lib/wire_io.h"

static size_t frame(unsigned char *out, uint16_t type, uint32_t id, const void *p, uint32_t len)
{
	struct hvt_wire_hdr h = { HVT_WIRE_MAGIC, type, 0, len, id };

	memcpy(out, &h, sizeof(h));
	memcpy(out + sizeof(h), p, len);
	return sizeof(h) + len;
}

/* A byte at a time: no frame before the last byte, then exactly one. */
static void test_split_delivery(void **state)
{
	struct hvt_frame_reader r;
	struct hvt_w_sync_reply rep = { .seq = 9, .guest_recv = 123 };
	unsigned char bytes[256];
	struct hvt_frame f;
	const char *why;
	size_t n = frame(bytes, HVT_W_SYNC_REPLY, 0, &rep, sizeof(rep)), i;

	(void)state;
	assert_int_equal(hvt_frame_reader_init(&r), 0);
	for (i = 0; i < n; i++) {
		assert_int_equal(hvt_frame_reader_next(&r, 1, &f, &why), 0);
		assert_int_equal(hvt_frame_reader_feed(&r, bytes + i, 1), 0);
	}
	assert_int_equal(hvt_frame_reader_next(&r, 1, &f, &why), 1);
	assert_int_equal(f.hdr.type, HVT_W_SYNC_REPLY);
	assert_memory_equal(f.payload, &rep, sizeof(rep));
	assert_int_equal(hvt_frame_reader_next(&r, 1, &f, &why), 0);
	hvt_frame_reader_free(&r);
}

static void expect_malformed(struct hvt_wire_hdr h, int from_guest, const char *needle)
{
	struct hvt_frame_reader r;
	unsigned char payload[64] = { 0 };
	struct hvt_frame f;
	const char *why = NULL;

	assert_int_equal(hvt_frame_reader_init(&r), 0);
	assert_int_equal(hvt_frame_reader_feed(&r, &h, sizeof(h)), 0);
	assert_int_equal(hvt_frame_reader_feed(&r, payload, sizeof(payload)), 0);
	assert_int_equal(hvt_frame_reader_next(&r, from_guest, &f, &why), -1);
	assert_non_null(why);
	assert_non_null(strstr(why, needle));
	hvt_frame_reader_free(&r);
}

static void test_malformed_headers(void **state)
{
	struct hvt_wire_hdr ok = { HVT_WIRE_MAGIC, HVT_W_SYNC_REPLY, 0,
				   sizeof(struct hvt_w_sync_reply), 0 };
	struct hvt_wire_hdr h;

	(void)state;
	h = ok; h.magic = 0x12345678;
	expect_malformed(h, 1, "magic");
	h = ok; h.type = 0;
	expect_malformed(h, 1, "unknown frame type");
	h = ok; h.type = HVT_W_TYPE_MAX;
	expect_malformed(h, 1, "unknown frame type");
	h = ok; h.type = HVT_W_START;	/* host-only frame from a guest */
	h.len = 0;
	expect_malformed(h, 1, "direction");
	h = ok; h.flags = 1;
	expect_malformed(h, 1, "flags");
	h = ok; h.len = sizeof(struct hvt_w_sync_reply) - 1;
	expect_malformed(h, 1, "length");
	h = ok; h.type = HVT_W_PACKET; h.len = HVT_WIRE_MAX_PAYLOAD + 1;
	expect_malformed(h, 1, "length");
	h = ok; h.type = HVT_W_PACKET; h.len = 10;	/* shorter than a packet header */
	expect_malformed(h, 1, "length");
	h = ok; h.type = HVT_W_LOG; h.len = 0;
	expect_malformed(h, 1, "length");
}

static void test_send_and_read_over_a_socket(void **state)
{
	struct hvt_frame_reader r;
	struct hvt_frame f;
	const char *why;
	unsigned char big[100000];
	int sv[2];

	(void)state;
	memset(big, 0x5a, sizeof(big));
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(hvt_frame_reader_init(&r), 0);
	assert_int_equal(hvt_wire_send(sv[0], HVT_W_REGISTRY, 5, big, 60000), 0);
	assert_int_equal(hvt_wire_send(sv[0], HVT_W_FINISH, 0, big,
				       sizeof(struct hvt_w_finish)), 0);
	close(sv[0]);
	while (hvt_frame_reader_fill(&r, sv[1]) > 0)
		;
	assert_int_equal(hvt_frame_reader_next(&r, 1, &f, &why), 1);
	assert_int_equal(f.hdr.type, HVT_W_REGISTRY);
	assert_int_equal(f.hdr.id, 5);
	assert_int_equal(f.hdr.len, 60000);
	assert_memory_equal(f.payload, big, 60000);
	assert_int_equal(hvt_frame_reader_next(&r, 1, &f, &why), 1);
	assert_int_equal(f.hdr.type, HVT_W_FINISH);
	assert_int_equal(hvt_frame_reader_next(&r, 1, &f, &why), 0);
	close(sv[1]);
	hvt_frame_reader_free(&r);
}

/*
 * A peer that stops reading: the send gives up after its timeout with
 * ETIMEDOUT instead of blocking forever (the agent hung that way once).
 */
static void test_send_gives_up_on_a_peer_that_does_not_read(void **state)
{
	static unsigned char payload[64 * 1024];
	int sv[2], sent = 0;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(fcntl(sv[0], F_SETFL, O_NONBLOCK), 0);
	/* fill the socket: nobody reads sv[1] */
	while (hvt_wire_send_within(sv[0], 50, HVT_W_PACKET, 0, payload, sizeof(payload)) == 0)
		assert_true(++sent < 1000);
	assert_int_equal(errno, ETIMEDOUT);
	/* once the reader drains the socket, sending works again */
	assert_int_equal(fcntl(sv[1], F_SETFL, O_NONBLOCK), 0);
	while (read(sv[1], payload, sizeof(payload)) > 0)
		;
	assert_int_equal(hvt_wire_send_within(sv[0], 50, HVT_W_PACKET, 0, payload, 16), 0);
	close(sv[0]);
	close(sv[1]);
}

/* The payload checks the host applies and the agent applies before forwarding. */
static char why[HVT_WIRE_WHY_MAX];

static const char *trace_why(uint32_t id, const struct hvt_w_trace_open *to)
{
	return hvt_wire_trace_open_check(id, to, why, sizeof(why));
}

static const char *stream_why(uint32_t id, const struct hvt_w_stream_open *so)
{
	return hvt_wire_stream_open_check(id, so, why, sizeof(why));
}

static const char *packet_why(const void *p, size_t len, const __u8 *uuid, uint32_t cpu,
			      int32_t tid, struct hvt_ctf_packet *out)
{
	return hvt_wire_packet_check(p, len, uuid, cpu, tid, out, why, sizeof(why));
}

/* UNTRACED: a known reason and a pid readers take as signed; its frame exact, guest to host. */
static void test_untraced_check(void **state)
{
	struct hvt_w_untraced u = { 4711, 1000, HVT_UNTRACED_IDS, 0, "worker" };
	struct hvt_wire_hdr h;
	uint32_t r;

	(void)state;
	for (r = HVT_UNTRACED_IDS; r < HVT_UNTRACED_REASON_MAX; r++) {
		u.reason = r;
		assert_null(hvt_wire_untraced_check(&u, why, sizeof(why)));
		assert_non_null(hvt_untraced_reason_name(r));
	}
	u.reason = 0;
	assert_non_null(strstr(hvt_wire_untraced_check(&u, why, sizeof(why)), "reason"));
	u.reason = HVT_UNTRACED_REASON_MAX;
	assert_non_null(hvt_wire_untraced_check(&u, why, sizeof(why)));
	u.reason = HVT_UNTRACED_IDS;
	u.pid = 0x80000000u;
	assert_non_null(strstr(hvt_wire_untraced_check(&u, why, sizeof(why)), "pid"));
	hvt_wire_hdr_init(&h, HVT_W_UNTRACED, 0, sizeof(u));
	assert_null(hvt_wire_check(&h, 1));
	assert_non_null(hvt_wire_check(&h, 0));		/* never from the host */
	h.len = sizeof(u) - 1;
	assert_non_null(hvt_wire_check(&h, 1));
	hvt_wire_hdr_init(&h, HVT_W_THREADS_UNTRACED, 1, sizeof(struct hvt_w_threads_untraced));
	assert_null(hvt_wire_check(&h, 1));
	assert_string_equal(hvt_wire_type_name(HVT_W_THREADS_UNTRACED), "THREADS_UNTRACED");
}

static void test_trace_open_check(void **state)
{
	struct hvt_w_trace_open ok = { HVT_LAYER_USER, HVT_DOMAIN_GUEST_TSC, 2000000000, 1, 0,
				       { 0 }, "app" }, to;

	(void)state;
	assert_null(trace_why(HVT_W_MAX_TRACES - 1, &ok));
	assert_non_null(strstr(trace_why(HVT_W_MAX_TRACES, &ok), "id"));
	to = ok; to.layer = HVT_LAYER_HOST;
	assert_non_null(strstr(trace_why(1, &to), "layer"));
	to = ok; to.domain = HVT_DOMAIN_TSC;	/* which links may send it is the host's rule */
	assert_null(trace_why(1, &to));
	to = ok; to.domain = 4;
	assert_non_null(strstr(trace_why(1, &to), "domain"));
	to = ok; to.domain = 0;
	assert_non_null(strstr(trace_why(1, &to), "domain"));
	to = ok; to.freq_hz = HVT_WIRE_MIN_FREQ_HZ;
	assert_null(trace_why(1, &to));
	to.freq_hz--;
	assert_non_null(strstr(trace_why(1, &to), "frequency"));
	to.freq_hz = HVT_WIRE_MAX_FREQ_HZ;
	assert_null(trace_why(1, &to));
	to.freq_hz++;
	assert_non_null(strstr(trace_why(1, &to), "frequency"));
	/* pids readers take as signed 32-bit; the kernel trace has none */
	to = ok; to.pid = 0x80000000u;
	assert_non_null(strstr(trace_why(1, &to), "invalid pid 2147483648 for a user trace"));
	to = ok; to.layer = HVT_LAYER_KERNEL;
	assert_non_null(strstr(trace_why(0, &to), "invalid pid 1 for a kernel trace"));
	to.pid = 0;
	assert_null(trace_why(0, &to));
}

static void test_stream_open_check(void **state)
{
	struct hvt_w_stream_open thread = { 1, HVT_CTF_NO_CPU, 77, 0 }, cpu = { 0, 3, 0, 0 }, so;

	(void)state;
	assert_null(stream_why(HVT_W_MAX_STREAMS - 1, &thread));
	assert_null(stream_why(0, &cpu));
	assert_non_null(stream_why(HVT_W_MAX_STREAMS, &thread));
	so = thread; so.trace_id = HVT_W_MAX_TRACES;
	assert_non_null(stream_why(0, &so));
	so = thread; so.tid = 0;		/* neither CPU nor thread */
	assert_non_null(stream_why(0, &so));
	so = thread; so.tid = -1;
	assert_non_null(stream_why(0, &so));
	so = cpu; so.tid = 5;			/* both */
	assert_non_null(stream_why(0, &so));
	so = cpu; so.cpu = HVT_W_MAX_CPUS;
	assert_non_null(stream_why(0, &so));
}

static void test_packet_check(void **state)
{
	static unsigned char data[2 * 4096];
	struct hvt_rb_prod prod = { 0 };
	struct hvt_rb_cons cons = { 0 };
	struct hvt_rb rb = { 0 };
	struct hvt_ctf_packet h;
	unsigned char pkt[4096];
	uint64_t len;
	__u64 end = 0;

	(void)state;
	hvt_rb_init(&rb, &prod, &cons, data, 4096, 2);
	memset(rb.uuid, 0x42, HVT_UUID_LEN);
	rb.cpu_id = HVT_CTF_NO_CPU;
	rb.stream_instance_id = 77;
	assert_non_null(hvt_rb_reserve(&rb, 1, 100, 0, 77, 8, &end));
	hvt_rb_commit(&rb, 100, end);
	hvt_rb_close_packet(&rb);
	len = hvt_get_u64(data + offsetof(struct hvt_ctf_packet, content_size)) / 8;
	memcpy(pkt, data, len);
	/* a closed packet as it stands passes, for its thread only */
	assert_null(packet_why(pkt, len, rb.uuid, HVT_CTF_NO_CPU, 77, &h));
	assert_non_null(strstr(packet_why(pkt, len, rb.uuid, HVT_CTF_NO_CPU, 78, &h),
			       "instance"));
	assert_non_null(packet_why(pkt, len, rb.uuid, 5, 0, &h));	/* CPU 5 stream */
	/* sizes must be the frame's length */
	assert_non_null(packet_why(pkt, len + 8, rb.uuid, HVT_CTF_NO_CPU, 77, &h));
	hvt_put_u64(pkt + offsetof(struct hvt_ctf_packet, content_size), (len - 8) * 8);
	assert_non_null(strstr(packet_why(pkt, len, rb.uuid, HVT_CTF_NO_CPU, 77, &h),
			       "sizes"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_delivery),
		cmocka_unit_test(test_untraced_check),
		cmocka_unit_test(test_malformed_headers),
		cmocka_unit_test(test_send_and_read_over_a_socket),
		cmocka_unit_test(test_send_gives_up_on_a_peer_that_does_not_read),
		cmocka_unit_test(test_trace_open_check),
		cmocka_unit_test(test_stream_open_check),
		cmocka_unit_test(test_packet_check),
	};

	return cmocka_run_group_tests_name("wire", tests, NULL, NULL);
}
