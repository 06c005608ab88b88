// SPDX-License-Identifier: GPL-2.0-only
/*
 * guest_link_seeds.c - writes the seed inputs of fuzz_guest_link into DIR:
 * a well-behaved guest's whole conversation, in the input format of
 * guest_link.h, so that the fuzzer starts from frames the collector accepts.
 * usage: guest_link_seeds DIR
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <hvtrace/event.h>

#include "lib/wire_io.h"
#include "tests/common/wire_packet.h"
#include "tests/fuzz/guest_link.h"

HVT_EVENT_FIELD_TABLE(fields_t, HVT_FIELDS((int, uint64_t, value)));

static const uint8_t uuid[HVT_UUID_LEN] = { 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42,
					    0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42 };

static int open_seed(const char *dir, const char *name, uint8_t start)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, &start, 1) != 1) {
		perror(path);
		exit(1);
	}
	return fd;
}

static void send_or_die(int fd, uint16_t type, uint32_t id, const void *p, uint32_t len)
{
	if (hvt_wire_send(fd, type, id, p, len)) {
		perror("write");
		exit(1);
	}
}

/* TRACE_OPEN, REGISTRY, STREAM_OPEN, a PACKET, STREAM_CLOSE and FINISH. */
static void tracing(int fd)
{
	struct hvt_w_trace_open to = { .layer = HVT_LAYER_KERNEL, .domain = HVT_DOMAIN_GUEST_TSC,
				       .freq_hz = 2000000000 };
	struct hvt_w_stream_open so = { 0, 1, 0, 0 };
	struct hvt_w_stream_close sc = { 0, 1 };
	struct hvt_w_finish fin = { 1, 0, 1, 1 };
	unsigned char rec[1024], packet[4096];
	uint32_t n = hvt_reg_event_write(rec, 0, "tick", fields_t, 1, "value=%lu");
	uint32_t len = hvt_test_wire_packet(uuid, packet);

	memcpy(to.uuid, uuid, HVT_UUID_LEN);
	send_or_die(fd, HVT_W_TRACE_OPEN, 0, &to, sizeof(to));
	send_or_die(fd, HVT_W_REGISTRY, 0, rec, n);
	send_or_die(fd, HVT_W_STREAM_OPEN, 1, &so, sizeof(so));
	send_or_die(fd, HVT_W_PACKET, 1, packet, len);
	send_or_die(fd, HVT_W_STREAM_CLOSE, 1, &sc, sizeof(sc));
	send_or_die(fd, HVT_W_LOG, 0, "done", 4);
	send_or_die(fd, HVT_W_FINISH, 0, &fin, sizeof(fin));
}

/* A user trace, its untraced threads, and processes the agent refused. */
static void untraced(int fd)
{
	struct hvt_w_trace_open to = { .layer = HVT_LAYER_USER, .domain = HVT_DOMAIN_GUEST_TSC,
				       .freq_hz = 2000000000, .pid = 77, .comm = "app" };
	struct hvt_w_untraced u = { .pid = 78, .uid = 1000, .reason = HVT_UNTRACED_UID_SHARE,
				    .comm = "worker" };
	struct hvt_w_threads_untraced t = { 3 };

	memcpy(to.uuid, uuid, HVT_UUID_LEN);
	send_or_die(fd, HVT_W_TRACE_OPEN, 1, &to, sizeof(to));
	send_or_die(fd, HVT_W_THREADS_UNTRACED, 1, &t, sizeof(t));
	send_or_die(fd, HVT_W_UNTRACED, 0, &u, sizeof(u));
	u.reason = HVT_UNTRACED_CONNECTIONS;
	send_or_die(fd, HVT_W_UNTRACED, 0, &u, sizeof(u));
}

/*
 * A packet of event id 2, registered only after it came (it waits, then is
 * stored), one of id 3, never registered (dropped at the end), and one of
 * id 2 whose last payload runs past its content (the link ends).
 */
static void late_and_garbage_events(int fd)
{
	struct hvt_w_trace_open to = { .layer = HVT_LAYER_KERNEL, .domain = HVT_DOMAIN_GUEST_TSC,
				       .freq_hz = 2000000000 };
	struct hvt_w_stream_open so = { 0, 1, 0, 0 };
	unsigned char rec[1024], packet[4096];
	uint32_t n, len;

	memcpy(to.uuid, uuid, HVT_UUID_LEN);
	send_or_die(fd, HVT_W_TRACE_OPEN, 0, &to, sizeof(to));
	send_or_die(fd, HVT_W_STREAM_OPEN, 1, &so, sizeof(so));
	len = hvt_test_wire_packet_of(uuid, 2, packet);
	send_or_die(fd, HVT_W_PACKET, 1, packet, len);
	n = hvt_reg_event_write(rec, 2, "late", fields_t, 1, "value=%lu");
	send_or_die(fd, HVT_W_REGISTRY, 0, rec, n);
	len = hvt_test_wire_packet_of(uuid, 3, packet);
	send_or_die(fd, HVT_W_PACKET, 1, packet, len);
	len = hvt_test_wire_packet_of(uuid, 2, packet) - 3;
	hvt_put_u64(packet + offsetof(struct hvt_ctf_packet, content_size), (uint64_t)len * 8);
	hvt_put_u64(packet + offsetof(struct hvt_ctf_packet, packet_size), (uint64_t)len * 8);
	send_or_die(fd, HVT_W_PACKET, 1, packet, len);
}

int main(int argc, char **argv)
{
	struct hvt_w_hello h = { .version = HVT_WIRE_VERSION, .nr_cpus = 2, .tsc_khz = 2000000 };
	int fd, i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	fd = open_seed(argv[1], "hello", GL_FROM_HELLO);
	send_or_die(fd, HVT_W_HELLO, 0, &h, sizeof(h));
	close(fd);
	fd = open_seed(argv[1], "session", GL_TRACING);
	tracing(fd);
	close(fd);
	fd = open_seed(argv[1], "untraced", GL_TRACING);
	untraced(fd);
	close(fd);
	fd = open_seed(argv[1], "late-and-garbage-events", GL_TRACING);
	late_and_garbage_events(fd);
	close(fd);
	fd = open_seed(argv[1], "garbage", GL_TRACING);
	if (write(fd, "HVTW\x07", 5) != 5)
		return 1;
	close(fd);
	/* a guest TSC at half the host's rate, 200 replies, then one true to it */
	fd = open_seed(argv[1], "half-rate-clock", GL_CLOCK);
	for (i = 0; i < 201; i++) {
		uint8_t reply[GL_CLOCK_REPLY_BYTES] = { 0 };
		uint16_t rate = i < 200 ? 2048 : 4096;
		int32_t off = i * 997;

		memcpy(reply, &rate, sizeof(rate));
		memcpy(reply + 2, &off, sizeof(off));
		reply[6] = (uint8_t)(i * 31);
		if (write(fd, reply, sizeof(reply)) != sizeof(reply))
			return 1;
	}
	close(fd);
	return 0;
}
