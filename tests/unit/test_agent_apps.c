// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_agent_apps.c - the agent's side of traced applications
 * (tools/agent/agent_apps.c): a well-behaved application's packets reach the host
 * link, a dead one's last events are recovered, and buffers or messages an
 * application could use to hurt the agent are refused while the agent
 * carries on. What goes untraced (a process past the ids or its user's
 * share, a thread refused) is said to the host.
 *
 * The test plays the host as host/vm_store.c does: every frame the agent
 * sends must pass the host's checks (the shared ones of lib/wire_io.c and
 * the ids' state), since the host ends the whole VM's link on the first one
 * that does not. What an application gets wrong must never get that far.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>
#include <hvtrace/event.h>
#include <hvtrace/ringbuf.h>

#include "lib/fdpass.h"
#include "tools/agent/agent_apps.h"
#include "tools/agent/agent_link.h"

#define SUBBUF 4096u
#define NR 4u

HVT_EVENT_FIELD_TABLE(fields_t, HVT_FIELDS((int, uint64_t, value)));

struct t {
	char dir[64];
	char path[128];
	struct agent_link link;		/* the agent's end of the link */
	struct agent_apps a;
	int host;			/* the host's end of the agent's link */
	struct hvt_frame_reader frames;
	int app;			/* the application's socket */
	int wake;			/* the eventfd the agent sent with WELCOME, or -1 */
	uint8_t uuid[HVT_UUID_LEN];
	/* the application's buffer */
	int memfd;
	unsigned char *map;
	struct hvt_rb rb;
	/* the host's view of the link */
	struct {
		bool open;
		uint8_t uuid[HVT_UUID_LEN];
		struct hvt_registry registry;
	} traces[HVT_W_MAX_TRACES];
	struct {
		bool open, closed;
		uint32_t trace, cpu;
		int32_t tid;
	} streams[HVT_W_MAX_STREAMS];
};

static int setup(void **state)
{
	struct t *t = calloc(1, sizeof(*t));
	int sv[2];

	assert_non_null(t);
	strcpy(t->dir, "/tmp/hvtrace-test-agent-XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	t->link = (struct agent_link){ .port = sv[0], .next_trace_id = 1 };
	t->a = (struct agent_apps){ .link = &t->link, .listen_fd = -1, .tracing = true };
	t->a.uids.limit_root = true;	/* the shares, for whoever runs the tests */
	t->host = sv[1];
	t->a.pkt = malloc(HVT_RB_MAX_SUBBUF);
	t->a.msg = malloc(HVT_APP_MAX_MSG);
	t->a.socket_path = strdup(strcat(strcpy(t->path, t->dir), "/agent.sock"));
	assert_int_equal(agent_apps_listen(&t->a), 0);
	assert_int_equal(hvt_frame_reader_init(&t->frames), 0);
	memset(t->uuid, 0x77, sizeof(t->uuid));
	t->app = -1;
	t->wake = -1;
	t->memfd = -1;
	*state = t;
	return 0;
}

static void host_accepts(struct t *t, const struct hvt_frame *f);

static int teardown(void **state)
{
	struct t *t = *state;
	struct hvt_frame f;
	const char *why;
	char cmd[128];
	unsigned int i;

	agent_apps_close_all(&t->a);
	/* whatever the test did not read, the host must accept too */
	while (hvt_frame_reader_fill(&t->frames, t->host) > 0)
		;
	while (hvt_frame_reader_next(&t->frames, 1, &f, &why) == 1)
		host_accepts(t, &f);
	assert_false(t->link.host_gone);
	for (i = 0; i < HVT_W_MAX_TRACES; i++)
		if (t->traces[i].open)
			hvt_registry_free(&t->traces[i].registry);
	if (t->app >= 0)
		close(t->app);
	if (t->wake >= 0)
		close(t->wake);
	if (t->map)
		munmap(t->map, HVT_APP_PROD_PAGE + SUBBUF * NR);
	if (t->memfd >= 0)
		close(t->memfd);
	close(t->link.port);
	close(t->host);
	hvt_frame_reader_free(&t->frames);
	free(t->a.pkt);
	free(t->a.msg);
	free((void *)t->a.socket_path);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", t->dir);
	assert_int_equal(system(cmd), 0);
	free(t);
	return 0;
}

static int slot_of_app(struct t *t)
{
	int i;

	for (i = 0; i < AGENT_MAX_APPS; i++)
		if (t->a.apps[i])
			return i;
	return -1;
}

/* Sends one message as the application and lets the agent handle it. */
static void app_send(struct t *t, uint16_t type, uint32_t id, const void *p, uint32_t len,
		     int fd)
{
	int slot = slot_of_app(t);

	assert_int_equal(hvt_app_send(t->app, type, id, p, len, fd, 0), 0);
	assert_true(slot >= 0);
	agent_apps_handle(&t->a, (unsigned int)slot);
}

/*
 * Reads the agent's reply, which must be @type; its fd, if any, in *fd.
 * Returns the payload length, -1 if there is no reply.
 */
static int app_recv(struct t *t, uint16_t type, void *payload, uint32_t size, int *fd)
{
	unsigned char buf[256];
	struct hvt_app_hdr h;
	int got, r = hvt_app_recv(t->app, buf, sizeof(buf), MSG_DONTWAIT, &h, &got);

	if (fd)
		*fd = got;
	else if (got >= 0)
		close(got);
	if (r != 1)
		return -1;
	assert_int_equal(h.type, type);
	assert_true(h.len <= size);
	if (h.len)
		memcpy(payload, buf + sizeof(h), h.len);
	return (int)h.len;
}

/* What host/vm_store.c checks before it stores a frame; fails the test if it would not. */
static void host_accepts(struct t *t, const struct hvt_frame *f)
{
	uint32_t id = f->hdr.id;
	const char *why = NULL;
	char err[HVT_WIRE_WHY_MAX];

	switch (f->hdr.type) {
	case HVT_W_TRACE_OPEN: {
		struct hvt_w_trace_open to;

		memcpy(&to, f->payload, sizeof(to));
		why = hvt_wire_trace_open_check(id, &to, err, sizeof(err));
		if (!why && t->traces[id].open)
			why = "trace opened twice";
		if (!why) {
			t->traces[id].open = true;
			memcpy(t->traces[id].uuid, to.uuid, HVT_UUID_LEN);
			hvt_registry_init(&t->traces[id].registry);
		}
		break;
	}
	case HVT_W_REGISTRY: {
		struct hvt_registry scratch;

		/* as the collector: the frame whole first, every record counted (vm_store.c) */
		hvt_registry_init(&scratch);
		if (id >= HVT_W_MAX_TRACES || !t->traces[id].open)
			why = "registry for an unknown trace";
		else if (hvt_registry_add(&scratch, f->payload, f->hdr.len, err, sizeof(err)) < 0 ||
			 hvt_registry_add(&t->traces[id].registry, f->payload, f->hdr.len, err,
					  sizeof(err)) < 0)
			why = err;
		hvt_registry_free(&scratch);
		break;
	}
	case HVT_W_STREAM_OPEN: {
		struct hvt_w_stream_open so;

		memcpy(&so, f->payload, sizeof(so));
		why = hvt_wire_stream_open_check(id, &so, err, sizeof(err));
		if (!why && t->streams[id].open)
			why = "stream opened twice";
		if (!why && !t->traces[so.trace_id].open)
			why = "stream of an unknown trace";
		if (!why) {
			t->streams[id].open = true;
			t->streams[id].trace = so.trace_id;
			t->streams[id].cpu = so.cpu;
			t->streams[id].tid = so.tid;
		}
		break;
	}
	case HVT_W_UNTRACED: {
		struct hvt_w_untraced u;

		memcpy(&u, f->payload, sizeof(u));
		why = hvt_wire_untraced_check(&u, err, sizeof(err));
		break;
	}
	case HVT_W_THREADS_UNTRACED:
		if (id >= HVT_W_MAX_TRACES || !t->traces[id].open)
			why = "untraced threads of an unknown trace";
		break;
	case HVT_W_PACKET:
	case HVT_W_STREAM_CLOSE:
		if (id >= HVT_W_MAX_STREAMS || !t->streams[id].open || t->streams[id].closed) {
			why = "stream not open";
		} else if (f->hdr.type == HVT_W_PACKET) {
			struct hvt_ctf_packet hdr;

			why = hvt_wire_packet_check(f->payload, f->hdr.len,
						    t->traces[t->streams[id].trace].uuid,
						    t->streams[id].cpu, t->streams[id].tid, &hdr,
						    err, sizeof(err));
		} else {
			t->streams[id].closed = true;
		}
		break;
	}
	if (why)
		fail_msg("the host would end the link at this %s %u: %s",
			 hvt_wire_type_name(f->hdr.type), id, why);
}

/* The next frame the agent sent to the host, which must be @type. */
static struct hvt_frame host_frame(struct t *t, uint16_t type)
{
	struct hvt_frame f;
	const char *why;
	int r;

	while ((r = hvt_frame_reader_next(&t->frames, 1, &f, &why)) == 0)
		assert_true(hvt_frame_reader_fill(&t->frames, t->host) > 0);
	assert_int_equal(r, 1);
	host_accepts(t, &f);
	if (f.hdr.type != type)
		fail_msg("expected %s, got %s", hvt_wire_type_name(type),
			 hvt_wire_type_name(f.hdr.type));
	return f;
}

/* Nothing more from the agent to the host (the agent held back). */
static void assert_no_host_frame(struct t *t)
{
	struct hvt_frame f;
	const char *why;

	assert_true(hvt_frame_reader_fill(&t->frames, t->host) < 0 && errno == EAGAIN);
	assert_int_equal(hvt_frame_reader_next(&t->frames, 1, &f, &why), 0);
}

/* Connects a new application (not yet said HELLO). */
static void app_connect(struct t *t)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };

	strcpy(addr.sun_path, t->a.socket_path);
	t->app = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	assert_int_equal(connect(t->app, (struct sockaddr *)&addr, sizeof(addr)), 0);
	agent_apps_accept(&t->a);
}

/* HELLO at @freq_hz; returns WELCOME's enabled, -1 without a WELCOME. */
static int app_hello(struct t *t, uint64_t freq_hz)
{
	struct hvt_a_hello h = { HVT_APP_VERSION, 4242, HVT_DOMAIN_GUEST_TSC, 0, freq_hz,
				 { 0 }, "testapp" };
	struct hvt_a_welcome w;

	memcpy(h.uuid, t->uuid, HVT_UUID_LEN);
	app_send(t, HVT_A_HELLO, 0, &h, sizeof(h), -1);
	if (t->wake >= 0)
		close(t->wake);
	if (app_recv(t, HVT_A_WELCOME, &w, sizeof(w), &t->wake) != sizeof(w))
		return -1;
	/* an eventfd comes with a traced process's WELCOME, none with the others' */
	assert_int_equal(t->wake >= 0, w.enabled == 1);
	return (int)w.enabled;
}

static uint32_t tick_record(unsigned char *rec)
{
	return hvt_reg_event_write(rec, 0, "test:tick", fields_t, 1, "value=%lu");
}

static void connect_app(struct t *t)
{
	unsigned char rec[1024];
	uint32_t n = tick_record(rec);
	struct hvt_w_trace_open to;
	struct hvt_frame f;

	app_connect(t);
	assert_int_equal(app_hello(t, 2000000000), 1);
	f = host_frame(t, HVT_W_TRACE_OPEN);
	memcpy(&to, f.payload, sizeof(to));
	assert_int_equal(to.layer, HVT_LAYER_USER);
	/* the kernel's word (SO_PEERCRED), not the 4242 the application claimed */
	assert_int_equal(to.pid, (uint32_t)getpid());
	app_send(t, HVT_A_REGISTRY, 0, rec, n, -1);
	host_frame(t, HVT_W_REGISTRY);
}

/* A ring buffer in a memfd, sealed (or not) as libhvtrace does. */
static void make_buffer(struct t *t, int seal, size_t size)
{
	t->memfd = memfd_create("test-ring", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	assert_true(t->memfd >= 0);
	assert_int_equal(ftruncate(t->memfd, (off_t)size), 0);
	if (seal)
		assert_int_equal(fcntl(t->memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), 0);
	t->map = mmap(NULL, HVT_APP_PROD_PAGE + SUBBUF * NR, PROT_READ | PROT_WRITE, MAP_SHARED,
		      t->memfd, 0);
	assert_true(t->map != MAP_FAILED);
	memset(&t->rb, 0, sizeof(t->rb));
	hvt_rb_init(&t->rb, (struct hvt_rb_prod *)t->map, NULL, t->map + HVT_APP_PROD_PAGE,
		    SUBBUF, NR);
	memcpy(t->rb.uuid, t->uuid, HVT_UUID_LEN);
	t->rb.cpu_id = HVT_CTF_NO_CPU;
	t->rb.stream_instance_id = 99;
}

/*
 * Registers the buffer as thread @tid; returns 1 if the agent accepted it,
 * 0 if it refused it (STREAM_ACK without a memfd), -1 without an answer.
 */
static int register_buffer_as(struct t *t, int32_t tid)
{
	struct hvt_a_stream m = { tid, SUBBUF, NR, 0, HVT_APP_PROD_PAGE + SUBBUF * NR };
	int cfd = -1;

	app_send(t, HVT_A_STREAM, 1, &m, sizeof(m), t->memfd);
	if (app_recv(t, HVT_A_STREAM_ACK, NULL, 0, &cfd) < 0)
		return -1;
	if (cfd < 0)
		return 0;
	t->rb.cons = mmap(NULL, sizeof(struct hvt_rb_cons), PROT_READ, MAP_SHARED, cfd, 0);
	assert_true(t->rb.cons != MAP_FAILED);
	close(cfd);
	host_frame(t, HVT_W_STREAM_OPEN);
	return 1;
}

static int register_buffer(struct t *t)
{
	return register_buffer_as(t, 99) == 1;
}

static void write_events(struct t *t, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		__u64 end;
		uint64_t v = (uint64_t)i;
		unsigned char *p = hvt_rb_reserve(&t->rb, 0, 1000 + v, 0, 99, 8, &end);

		assert_non_null(p);
		memcpy(p, &v, 8);
		hvt_rb_commit(&t->rb, 1000 + v, end);
	}
}

static void test_packets_flow_and_slots_come_back(void **state)
{
	struct t *t = *state;
	struct hvt_frame f;
	int round;

	connect_app(t);
	make_buffer(t, 1, HVT_APP_PROD_PAGE + SUBBUF * NR);
	assert_true(register_buffer(t));
	/* Many times the buffer's size: only possible if consumed slots return. */
	for (round = 0; round < 3 * (int)NR; round++) {
		write_events(t, 10);
		hvt_rb_close_packet(&t->rb);
		agent_apps_drain(&t->a);
		f = host_frame(t, HVT_W_PACKET);
		assert_int_equal(f.hdr.len, HVT_CTF_PACKET_HEADER_SIZE + 10 * (4 + 8 + 8));
		assert_int_equal(t->rb.cons->consumed, (uint64_t)round + 1);
	}
	assert_int_equal(t->rb.prod->lost, 0);
}

static bool readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

/*
 * The eventfd of WELCOME is the agent's: a packet the application closes and
 * signals there is forwarded by agent_apps_wake(), with no periodic drain,
 * and the agent's fd is quiet again until the next packet.
 */
static void test_wakeup_forwards_packet(void **state)
{
	struct t *t = *state;
	const uint64_t one = 1;
	char link[64], target[64] = "";
	struct app *app;
	struct hvt_frame f;
	int round, slot;

	connect_app(t);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", t->wake);
	assert_true(readlink(link, target, sizeof(target) - 1) > 0);
	assert_string_equal(target, "anon_inode:[eventfd]");
	make_buffer(t, 1, HVT_APP_PROD_PAGE + SUBBUF * NR);
	assert_true(register_buffer(t));
	slot = slot_of_app(t);
	app = t->a.apps[slot];
	assert_true(app->wake_fd >= 0);
	assert_false(readable(app->wake_fd));
	for (round = 0; round < 2 * (int)NR; round++) {
		write_events(t, 10);
		hvt_rb_close_packet(&t->rb);
		assert_int_equal(write(t->wake, &one, sizeof(one)), sizeof(one));
		assert_true(readable(app->wake_fd));
		agent_apps_wake(&t->a, (unsigned int)slot);
		f = host_frame(t, HVT_W_PACKET);
		assert_int_equal(f.hdr.len, HVT_CTF_PACKET_HEADER_SIZE + 10 * (4 + 8 + 8));
		assert_int_equal(t->rb.cons->consumed, (uint64_t)round + 1);
		assert_false(readable(app->wake_fd));
	}
	assert_no_host_frame(t);
}

static void test_dead_application_last_events_recovered(void **state)
{
	struct t *t = *state;
	struct hvt_frame f;
	struct hvt_ctf_packet h;
	struct hvt_w_stream_close sc;

	connect_app(t);
	make_buffer(t, 1, HVT_APP_PROD_PAGE + SUBBUF * NR);
	assert_true(register_buffer(t));
	write_events(t, 7);			/* never closed: the app "crashes" */
	close(t->app);
	t->app = -1;
	agent_apps_handle(&t->a, (unsigned int)slot_of_app(t));
	f = host_frame(t, HVT_W_PACKET);
	memcpy(&h, f.payload, sizeof(h));
	assert_int_equal(h.content_size / 8, HVT_CTF_PACKET_HEADER_SIZE + 7 * (4 + 8 + 8));
	assert_int_equal(h.timestamp_end, 1006);
	f = host_frame(t, HVT_W_STREAM_CLOSE);
	memcpy(&sc, f.payload, sizeof(sc));
	assert_int_equal(sc.packets, 1);
	assert_int_equal(slot_of_app(t), -1);
}

/*
 * The buffer stays full until the thread ends: the events discarded after
 * its last packet are in no packet, so the agent ends the stream with an
 * empty packet that carries the final count.
 */
static void test_losses_after_last_packet_counted(void **state)
{
	struct t *t = *state;
	struct hvt_w_stream_close sc;
	struct hvt_ctf_packet h;
	struct hvt_frame f;
	__u64 end;
	unsigned int i;

	connect_app(t);
	make_buffer(t, 1, HVT_APP_PROD_PAGE + SUBBUF * NR);
	assert_true(register_buffer(t));
	for (i = 0; i < NR; i++) {		/* every slot closed, none consumed */
		write_events(t, 10);
		hvt_rb_close_packet(&t->rb);
	}
	for (i = 0; i < 5; i++)
		assert_null(hvt_rb_reserve(&t->rb, 0, 2000 + i, 0, 99, 8, &end));
	assert_int_equal(t->rb.prod->lost, 5);
	close(t->app);
	t->app = -1;
	agent_apps_handle(&t->a, (unsigned int)slot_of_app(t));
	for (i = 0; i < NR; i++) {
		f = host_frame(t, HVT_W_PACKET);
		memcpy(&h, f.payload, sizeof(h));
		assert_int_equal(h.packet_seq_num, i);
		assert_int_equal(h.events_discarded, 0);
	}
	f = host_frame(t, HVT_W_PACKET);
	assert_int_equal(f.hdr.len, HVT_CTF_PACKET_HEADER_SIZE);
	memcpy(&h, f.payload, sizeof(h));
	assert_int_equal(h.packet_seq_num, NR);
	assert_int_equal(h.events_discarded, 5);
	assert_int_equal(h.content_size, HVT_CTF_PACKET_HEADER_SIZE * 8);
	assert_int_equal(h.timestamp_begin, 1009);	/* the last packet's end */
	assert_int_equal(h.timestamp_end, 1009);
	assert_int_equal(h.stream_instance_id, 99);
	f = host_frame(t, HVT_W_STREAM_CLOSE);
	memcpy(&sc, f.payload, sizeof(sc));
	assert_int_equal(sc.lost, 5);
	assert_int_equal(sc.packets, NR + 1);
}

/* The application was dropped; one of the LOG frames up to the one that says so has @needle. */
static void expect_dropped_with_log(struct t *t, const char *needle)
{
	static const char dropped[] = "application dropped";
	struct hvt_frame f;
	int found = 0;

	do {
		f = host_frame(t, HVT_W_LOG);
		found |= memmem(f.payload, f.hdr.len, needle, strlen(needle)) != NULL;
	} while (!memmem(f.payload, f.hdr.len, dropped, strlen(dropped)));
	if (!found)
		fail_msg("no log up to '%.*s' has '%s'", (int)f.hdr.len, f.payload, needle);
	assert_int_equal(slot_of_app(t), -1);
}

static void test_unsealed_buffer_refused(void **state)
{
	struct t *t = *state;

	connect_app(t);
	make_buffer(t, 0, HVT_APP_PROD_PAGE + SUBBUF * NR);
	assert_false(register_buffer(t));
	expect_dropped_with_log(t, "buffer refused");
}

static void test_wrong_size_buffer_refused(void **state)
{
	struct t *t = *state;

	connect_app(t);
	make_buffer(t, 1, HVT_APP_PROD_PAGE + SUBBUF * NR + 4096);
	assert_false(register_buffer(t));
	expect_dropped_with_log(t, "buffer refused");
}

static void test_corrupt_producer_state(void **state)
{
	struct t *t = *state;
	struct hvt_frame f;

	connect_app(t);
	make_buffer(t, 1, HVT_APP_PROD_PAGE + SUBBUF * NR);
	assert_true(register_buffer(t));
	write_events(t, 3);
	hvt_rb_close_packet(&t->rb);
	t->rb.prod->produced = 1000;	/* claims packets that cannot exist */
	agent_apps_drain(&t->a);
	f = host_frame(t, HVT_W_LOG);
	assert_non_null(memmem(f.payload, f.hdr.len, "buffer dropped", 14));
	host_frame(t, HVT_W_STREAM_CLOSE);
	assert_true(slot_of_app(t) >= 0);	/* the application itself stays */
}

static void test_corrupt_packet(void **state)
{
	struct t *t = *state;

	connect_app(t);
	make_buffer(t, 1, HVT_APP_PROD_PAGE + SUBBUF * NR);
	assert_true(register_buffer(t));
	write_events(t, 3);
	hvt_rb_close_packet(&t->rb);
	t->map[HVT_APP_PROD_PAGE + 4] ^= 0xff;		/* the packet's UUID */
	agent_apps_drain(&t->a);
	host_frame(t, HVT_W_LOG);
	host_frame(t, HVT_W_STREAM_CLOSE);
}

/* A traced thread's buffer holding @n closed packets of 5 events each. */
static void registered_buffer_with_packets(struct t *t, unsigned int n)
{
	unsigned int i;

	connect_app(t);
	make_buffer(t, 1, HVT_APP_PROD_PAGE + SUBBUF * NR);
	assert_true(register_buffer(t));
	for (i = 0; i < n; i++) {
		write_events(t, 5);
		hvt_rb_close_packet(&t->rb);
	}
}

/*
 * Closed packets go out together; one whose header is bad ends the stream
 * there, after the good ones before it, and none after it is sent.
 */
static void test_batch_stops_at_corrupt_packet(void **state)
{
	struct t *t = *state;
	struct hvt_ctf_packet h;
	struct hvt_frame f;

	registered_buffer_with_packets(t, 3);
	t->map[HVT_APP_PROD_PAGE + SUBBUF + 4] ^= 0xff;	/* packet 1's UUID */
	agent_apps_drain(&t->a);
	f = host_frame(t, HVT_W_PACKET);
	memcpy(&h, f.payload, sizeof(h));
	assert_int_equal(h.packet_seq_num, 0);
	assert_int_equal(f.hdr.len, HVT_CTF_PACKET_HEADER_SIZE + 5 * (4 + 8 + 8));
	host_frame(t, HVT_W_LOG);
	host_frame(t, HVT_W_STREAM_CLOSE);
	assert_int_equal(t->rb.cons->consumed, 1);
	assert_no_host_frame(t);
}

/* A full buffer's packets in one drain, in order, each as the host takes it. */
static void test_batch_of_packets(void **state)
{
	struct t *t = *state;
	struct hvt_ctf_packet h;
	struct hvt_frame f;
	uint64_t i;

	registered_buffer_with_packets(t, NR);
	agent_apps_drain(&t->a);
	for (i = 0; i < NR; i++) {
		f = host_frame(t, HVT_W_PACKET);
		memcpy(&h, f.payload, sizeof(h));
		assert_int_equal(h.packet_seq_num, i);
		assert_int_equal(f.hdr.len, HVT_CTF_PACKET_HEADER_SIZE + 5 * (4 + 8 + 8));
		assert_memory_equal(f.payload, t->map + HVT_APP_PROD_PAGE + i * SUBBUF, f.hdr.len);
	}
	assert_int_equal(t->rb.cons->consumed, NR);
	assert_no_host_frame(t);
}

static void test_garbage_message(void **state)
{
	struct t *t = *state;
	const char junk[] = "not a message";

	connect_app(t);
	assert_int_equal(send(t->app, junk, sizeof(junk), 0), (ssize_t)sizeof(junk));
	agent_apps_handle(&t->a, (unsigned int)slot_of_app(t));
	expect_dropped_with_log(t, "protocol violation");
}

/* Sends a header as given, with @len payload bytes after it, and lets the agent read it. */
static void send_raw(struct t *t, struct hvt_app_hdr h, size_t len)
{
	unsigned char msg[sizeof(h) + 64] = { 0 };

	assert_true(len <= 64);
	memcpy(msg, &h, sizeof(h));
	assert_int_equal(send(t->app, msg, sizeof(h) + len, 0), (ssize_t)(sizeof(h) + len));
	agent_apps_handle(&t->a, (unsigned int)slot_of_app(t));
}

/*
 * The framing hvt_app_recv() checks: flags 0, len = the bytes that came. A
 * well-framed BYE ends the application quietly; these must be violations.
 */
static void test_bad_framing(void **state)
{
	struct t *t = *state;
	struct hvt_app_hdr h = { HVT_APP_MAGIC, HVT_A_BYE, 1, 0, 0 };

	connect_app(t);
	send_raw(t, h, 0);
	expect_dropped_with_log(t, "protocol violation");
	close(t->app);
	connect_app(t);
	h.flags = 0;
	h.len = 8;		/* claims more than came */
	send_raw(t, h, 4);
	expect_dropped_with_log(t, "protocol violation");
}

static void test_registry_garbage(void **state)
{
	struct t *t = *state;
	unsigned char junk[300];

	connect_app(t);
	memset(junk, 0x41, sizeof(junk));
	app_send(t, HVT_A_REGISTRY, 0, junk, sizeof(junk), -1);
	expect_dropped_with_log(t, "bad event registry");
}

/* ---- what the host would refuse never leaves the agent ---- */

/* An empty REGISTRY (the wire requires >= 1 byte) is a violation; a repeat is not sent. */
static void test_registry_empty_or_repeated(void **state)
{
	struct t *t = *state;
	unsigned char rec[1024];
	uint32_t n = tick_record(rec);

	connect_app(t);
	app_send(t, HVT_A_REGISTRY, 0, rec, n, -1);	/* nothing new: not forwarded */
	assert_no_host_frame(t);
	assert_true(slot_of_app(t) >= 0);
	app_send(t, HVT_A_REGISTRY, 0, NULL, 0, -1);
	expect_dropped_with_log(t, "protocol violation");
	assert_no_host_frame(t);
}

/* Writes records of ids @from..@to (small ones) into @msg; their bytes. */
static uint32_t small_records(unsigned char *msg, uint32_t from, uint32_t to)
{
	uint32_t used = 0, id;
	char name[32];

	for (id = from; id <= to; id++) {
		snprintf(name, sizeof(name), "mix:e%u", id);
		used += hvt_reg_event_write(msg + used, id, name, fields_t, 0, "x");	/* none */
	}
	return used;
}

/*
 * A REGISTRY of 300 known records and 300 new ones: the agent counts the
 * new against one update's limit (512), the collector every record of the
 * frame. Only the new ones are forwarded, so the frame passes there too.
 */
static void test_registry_known_and_new(void **state)
{
	static unsigned char msg[HVT_APP_MAX_MSG];
	struct t *t = *state;
	struct hvt_frame f;
	uint32_t len;

	connect_app(t);
	len = small_records(msg, 1, 300);
	app_send(t, HVT_A_REGISTRY, 0, msg, len, -1);
	f = host_frame(t, HVT_W_REGISTRY);
	assert_int_equal(f.hdr.len, len);
	len = small_records(msg, 1, 600);
	assert_true(len <= sizeof(msg));
	app_send(t, HVT_A_REGISTRY, 0, msg, len, -1);
	f = host_frame(t, HVT_W_REGISTRY);		/* the collector's check inside */
	assert_int_equal(f.hdr.len, small_records(msg, 301, 600));
	assert_true(slot_of_app(t) >= 0);
}

/*
 * A process that sends ever more event descriptions (each new, each large)
 * is dropped once they pass AGENT_APP_REGISTRY_MAX, with a log; what came
 * before was forwarded.
 */
static void test_registry_flood(void **state)
{
	static struct hvt_reg_field fields[HVT_REG_MAX_FIELDS];
	static unsigned char msg[HVT_APP_MAX_MSG];
	struct t *t = *state;
	char name[32], fmt[HVT_REG_MAX_FMT];
	uint32_t used, sent = 0, ev = 0, rec;
	unsigned int i, forwarded = 0;

	for (i = 0; i < HVT_REG_MAX_FIELDS; i++) {
		snprintf(fields[i].name, sizeof(fields[i].name), "f%u", i);
		fields[i].kind = HVT_FIELD_INT;
		fields[i].int_bits = 64;
	}
	memset(fmt, 'x', sizeof(fmt) - 1);
	fmt[sizeof(fmt) - 1] = '\0';
	connect_app(t);
	while (sent <= AGENT_APP_REGISTRY_MAX) {
		for (used = 0; used + 8192 < sizeof(msg); used += rec) {
			snprintf(name, sizeof(name), "flood:e%u", ++ev);
			rec = hvt_reg_event_write(msg + used, ev, name, fields, HVT_REG_MAX_FIELDS,
						  fmt);
		}
		app_send(t, HVT_A_REGISTRY, 0, msg, used, -1);
		sent += used;
		if (sent <= AGENT_APP_REGISTRY_MAX) {
			host_frame(t, HVT_W_REGISTRY);
			forwarded++;
		}
	}
	assert_true(forwarded > 10);
	expect_dropped_with_log(t, "of event descriptions (a flood?)");
}

/* HELLO with a clock the host would call implausible: refused, no TRACE_OPEN. */
static void test_hello_implausible_frequency(void **state)
{
	struct t *t = *state;
	const uint64_t bad[] = { 1, HVT_WIRE_MIN_FREQ_HZ - 1, HVT_WIRE_MAX_FREQ_HZ + 1 };
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		app_connect(t);
		assert_int_equal(app_hello(t, bad[i]), -1);
		expect_dropped_with_log(t, "implausible clock frequency");
		close(t->app);
		t->app = -1;
	}
	assert_no_host_frame(t);
	connect_app(t);		/* the link carries on */
}

/* A thread id the host would refuse (<= 0): buffer refused, no STREAM_OPEN. */
static void test_stream_bad_tid(void **state)
{
	struct t *t = *state;

	connect_app(t);
	make_buffer(t, 1, HVT_APP_PROD_PAGE + SUBBUF * NR);
	assert_int_equal(register_buffer_as(t, 0), -1);
	expect_dropped_with_log(t, "thread id 0");
	close(t->app);
	connect_app(t);
	assert_int_equal(register_buffer_as(t, -5), -1);
	expect_dropped_with_log(t, "thread id -5");
	assert_no_host_frame(t);
}

/* Packets of another thread than the stream's, closed or recovered, are not forwarded. */
static void test_packet_of_another_thread(void **state)
{
	struct t *t = *state;
	struct hvt_frame f;

	connect_app(t);
	make_buffer(t, 1, HVT_APP_PROD_PAGE + SUBBUF * NR);
	t->rb.stream_instance_id = 98;		/* the stream is thread 99 */
	assert_true(register_buffer(t));
	write_events(t, 3);
	hvt_rb_close_packet(&t->rb);
	agent_apps_drain(&t->a);
	f = host_frame(t, HVT_W_LOG);
	assert_non_null(memmem(f.payload, f.hdr.len, "another stream instance", 23));
	host_frame(t, HVT_W_STREAM_CLOSE);
	assert_true(slot_of_app(t) >= 0);

	/* the same in a packet recovered from a dead application */
	munmap(t->map, HVT_APP_PROD_PAGE + SUBBUF * NR);
	close(t->memfd);
	make_buffer(t, 1, HVT_APP_PROD_PAGE + SUBBUF * NR);
	t->rb.stream_instance_id = 98;
	assert_true(register_buffer(t));
	write_events(t, 3);
	close(t->app);
	t->app = -1;
	agent_apps_handle(&t->a, (unsigned int)slot_of_app(t));
	f = host_frame(t, HVT_W_LOG);
	assert_non_null(memmem(f.payload, f.hdr.len, "last packet not recovered", 25));
	host_frame(t, HVT_W_STREAM_CLOSE);
	assert_int_equal(slot_of_app(t), -1);
}

/* The next frame to the host is UNTRACED for this process, for @reason. */
static void assert_untraced(struct t *t, uint32_t reason, const char *comm)
{
	struct hvt_w_untraced u;
	struct hvt_frame f;

	f = host_frame(t, HVT_W_LOG);
	assert_non_null(memmem(f.payload, f.hdr.len, "not traced", 10));
	f = host_frame(t, HVT_W_UNTRACED);
	memcpy(&u, f.payload, sizeof(u));
	assert_int_equal(u.pid, (uint32_t)getpid());
	assert_int_equal(u.uid, (uint32_t)getuid());
	assert_int_equal(u.reason, reason);
	assert_string_equal(u.comm, comm);
}

/*
 * The recording's last trace id is used; the next application is told
 * tracing is off, and the host is told it went untraced (once: the same
 * process trying again is refused without another word).
 */
static void test_trace_ids_run_out(void **state)
{
	struct t *t = *state;

	t->link.next_trace_id = HVT_W_MAX_TRACES - 1;
	connect_app(t);				/* gets the last id */
	close(t->app);
	agent_apps_handle(&t->a, (unsigned int)slot_of_app(t));
	app_connect(t);
	assert_int_equal(app_hello(t, 2000000000), 0);
	assert_untraced(t, HVT_UNTRACED_IDS, "testapp");
	assert_no_host_frame(t);
	assert_int_equal(t->link.next_trace_id, HVT_W_MAX_TRACES);
	close(t->app);
	agent_apps_handle(&t->a, (unsigned int)slot_of_app(t));
	app_connect(t);
	assert_int_equal(app_hello(t, 2000000000), 0);
	assert_no_host_frame(t);
}

/* Ends the application's connection (as its exit does) and lets the agent see it. */
static void app_exit(struct t *t)
{
	close(t->app);
	t->app = -1;
	agent_apps_handle(&t->a, (unsigned int)slot_of_app(t));
	assert_int_equal(slot_of_app(t), -1);
}

/*
 * Far more short-lived processes than the 63 a recording used to trace,
 * one after the other, of several users: all traced, each with a trace
 * id of its own (ids are never reused), up to each user's share.
 */
static void test_many_processes_traced(void **state)
{
	struct t *t = *state;
	uint32_t i, share = agent_uid_share(&t->a.uids, HVT_W_MAX_TRACES);
	struct hvt_w_trace_open to;
	struct hvt_frame f;

	assert_int_equal(share, HVT_W_MAX_TRACES / 4);
	for (i = 1; i <= share; i++) {
		app_connect(t);
		assert_int_equal(app_hello(t, 2000000000), 1);
		f = host_frame(t, HVT_W_TRACE_OPEN);
		assert_int_equal(f.hdr.id, i);		/* a fresh id each */
		memcpy(&to, f.payload, sizeof(to));
		assert_int_equal(to.pid, (uint32_t)getpid());
		app_exit(t);
	}
	assert_true(share > 63);
	assert_int_equal(t->link.next_trace_id, share + 1);
}

/*
 * One user cannot leave the others untraced: past its share of trace ids
 * its processes are refused (and said), another user's is traced.
 */
static void test_uid_share_of_trace_ids(void **state)
{
	struct t *t = *state;
	uint32_t me = (uint32_t)getuid();
	struct agent_uids *u = &t->a.uids;

	u->percent = 1;			/* 10 of the 1024 */
	assert_int_equal(agent_uid_share(u, HVT_W_MAX_TRACES), 10);
	while (!agent_uid_take(u, me, AGENT_UID_TRACES, HVT_W_MAX_TRACES))
		;			/* this user's share taken */
	app_connect(t);
	assert_int_equal(app_hello(t, 2000000000), 0);
	assert_untraced(t, HVT_UNTRACED_UID_SHARE, "testapp");
	assert_no_host_frame(t);
	assert_int_equal(t->link.next_trace_id, 1);	/* the others' ids are left */
	/* another user still takes ids, and gives connections back */
	assert_int_equal(agent_uid_take(u, me + 1, AGENT_UID_TRACES, HVT_W_MAX_TRACES), 0);
	assert_int_equal(agent_uid_take(u, me + 1, AGENT_UID_CONNECTIONS, 4), 0);
	assert_int_equal(agent_uid_take(u, me + 1, AGENT_UID_CONNECTIONS, 4), -1);
	agent_uid_put(u, me + 1, AGENT_UID_CONNECTIONS);
	assert_int_equal(agent_uid_take(u, me + 1, AGENT_UID_CONNECTIONS, 4), 0);
}

/* Root is not limited by default: it could stop the agent anyway. */
static void test_root_not_limited(void **state)
{
	struct agent_uids u = { .percent = 1 };
	uint32_t i;

	(void)state;
	for (i = 0; i < HVT_W_MAX_TRACES; i++)
		assert_int_equal(agent_uid_take(&u, 0, AGENT_UID_TRACES, HVT_W_MAX_TRACES), 0);
	for (i = 0; i < 10; i++)
		assert_int_equal(agent_uid_take(&u, 1000, AGENT_UID_TRACES, HVT_W_MAX_TRACES), 0);
	assert_int_equal(agent_uid_take(&u, 1000, AGENT_UID_TRACES, HVT_W_MAX_TRACES), -1);
	agent_uids_free(&u);
}

/* Past its user's share of the connections, a connection is refused at once, and said. */
static void test_uid_share_of_connections(void **state)
{
	struct t *t = *state;
	uint32_t i, share = agent_uid_share(&t->a.uids, AGENT_MAX_APPS);
	int *fds = calloc(share, sizeof(*fds));

	assert_non_null(fds);
	for (i = 0; i < share; i++) {
		app_connect(t);
		fds[i] = t->app;
	}
	app_connect(t);			/* one too many */
	assert_int_equal(app_recv(t, HVT_A_WELCOME, NULL, 0, NULL), -1);
	assert_untraced(t, HVT_UNTRACED_UID_CONNECTIONS, "test_agent_apps");
	close(t->app);
	t->app = -1;
	for (i = 0; i < share; i++)
		close(fds[i]);
	free(fds);
}

/* THREAD_UNTRACED (the library's cap) and the agent's own refusals: one count, sent once. */
static void test_untraced_threads_counted(void **state)
{
	struct t *t = *state;
	struct hvt_a_thread_untraced m = { 101, HVT_A_UNTRACED_BUFFER_CAP };
	struct hvt_w_threads_untraced n;
	struct hvt_frame f;

	connect_app(t);
	app_send(t, HVT_A_THREAD_UNTRACED, 0, &m, sizeof(m), -1);
	m.tid = 102;
	app_send(t, HVT_A_THREAD_UNTRACED, 0, &m, sizeof(m), -1);
	make_buffer(t, 1, HVT_APP_PROD_PAGE + SUBBUF * NR);
	t->link.next_stream_id = HVT_W_MAX_STREAMS;	/* the agent refuses the next */
	assert_int_equal(register_buffer_as(t, 99), 0);
	host_frame(t, HVT_W_LOG);
	assert_no_host_frame(t);			/* counted, sent at the drain */
	agent_apps_drain(&t->a);
	f = host_frame(t, HVT_W_THREADS_UNTRACED);
	assert_int_equal(f.hdr.id, 1);
	memcpy(&n, f.payload, sizeof(n));
	assert_int_equal(n.threads, 3);
	agent_apps_drain(&t->a);
	assert_no_host_frame(t);			/* unchanged: not sent again */
	m.tid = 103;
	app_send(t, HVT_A_THREAD_UNTRACED, 0, &m, sizeof(m), -1);
	app_exit(t);					/* the count goes with the process */
	f = host_frame(t, HVT_W_THREADS_UNTRACED);
	memcpy(&n, f.payload, sizeof(n));
	assert_int_equal(n.threads, 4);
}

/* THREAD_UNTRACED from a process that is not traced, or malformed: a violation. */
static void test_thread_untraced_violations(void **state)
{
	struct t *t = *state;
	struct hvt_a_thread_untraced m = { 0, HVT_A_UNTRACED_BUFFER_CAP };

	connect_app(t);
	app_send(t, HVT_A_THREAD_UNTRACED, 0, &m, sizeof(m), -1);	/* tid 0 */
	host_frame(t, HVT_W_LOG);
	assert_int_equal(slot_of_app(t), -1);
	close(t->app);
	app_connect(t);
	m.tid = 5;
	app_send(t, HVT_A_THREAD_UNTRACED, 0, &m, sizeof(m), -1);	/* before HELLO */
	host_frame(t, HVT_W_LOG);
	assert_int_equal(slot_of_app(t), -1);
}

/* The recording's last stream id is used; the next thread is refused, the application stays. */
static void test_stream_ids_run_out(void **state)
{
	struct t *t = *state;
	struct hvt_frame f;

	connect_app(t);
	make_buffer(t, 1, HVT_APP_PROD_PAGE + SUBBUF * NR);
	t->link.next_stream_id = HVT_W_MAX_STREAMS;
	assert_int_equal(register_buffer_as(t, 99), 0);
	f = host_frame(t, HVT_W_LOG);
	assert_non_null(memmem(f.payload, f.hdr.len, "not traced", 10));
	assert_no_host_frame(t);
	assert_true(slot_of_app(t) >= 0);
	/* an id free again (a test's shortcut): the same application goes on */
	t->link.next_stream_id = HVT_W_MAX_STREAMS - 1;
	assert_true(register_buffer(t));
	write_events(t, 3);
	hvt_rb_close_packet(&t->rb);
	agent_apps_drain(&t->a);
	host_frame(t, HVT_W_THREADS_UNTRACED);		/* the refused thread, counted */
	host_frame(t, HVT_W_PACKET);
}

/*
 * The applications' socket takes the place of nothing but a stale socket:
 * not a regular file (which it used to unlink), and not the socket of an
 * agent that is still listening (which it used to take over silently).
 */
static void test_socket_path_is_not_taken(void **state)
{
	struct t *t = *state;
	struct agent_apps second = { .listen_fd = -1 };
	char path[sizeof(t->path) + 16];
	struct stat st;
	int fd;

	/* the setup's agent listens at t->a.socket_path */
	second.socket_path = t->a.socket_path;
	assert_int_equal(agent_apps_listen(&second), -1);
	assert_int_equal(second.listen_fd, -1);
	assert_int_equal(stat(t->a.socket_path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	/* a regular file is left as it is */
	snprintf(path, sizeof(path), "%s/file", t->dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "keep", 4), 4);
	close(fd);
	second.socket_path = path;
	assert_int_equal(agent_apps_listen(&second), -1);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode) && st.st_size == 4);
	/* a socket nobody listens on any more is replaced */
	close(t->a.listen_fd);
	t->a.listen_fd = -1;
	second.socket_path = t->a.socket_path;
	assert_int_equal(agent_apps_listen(&second), 0);
	assert_true(second.listen_fd >= 0);
	close(second.listen_fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_packets_flow_and_slots_come_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wakeup_forwards_packet, setup, teardown),
		cmocka_unit_test_setup_teardown(test_batch_of_packets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_socket_path_is_not_taken, setup, teardown),
		cmocka_unit_test_setup_teardown(test_batch_stops_at_corrupt_packet, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dead_application_last_events_recovered, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_losses_after_last_packet_counted, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_unsealed_buffer_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_size_buffer_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt_producer_state, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt_packet, setup, teardown),
		cmocka_unit_test_setup_teardown(test_garbage_message, setup, teardown),
		cmocka_unit_test_setup_teardown(test_registry_garbage, setup, teardown),
		cmocka_unit_test_setup_teardown(test_registry_known_and_new, setup, teardown),
		cmocka_unit_test_setup_teardown(test_registry_flood, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_framing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_registry_empty_or_repeated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hello_implausible_frequency, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream_bad_tid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_packet_of_another_thread, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trace_ids_run_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream_ids_run_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_processes_traced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_uid_share_of_trace_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_uid_share_of_connections, setup, teardown),
		cmocka_unit_test(test_root_not_limited),
		cmocka_unit_test_setup_teardown(test_untraced_threads_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_thread_untraced_violations, setup, teardown),
	};

	return cmocka_run_group_tests_name("agent_apps", tests, NULL, NULL);
}
