// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_agent_apps.c - the agent's side of traced applications
 * (tools/agent_apps.c): a well-behaved application's packets reach the host
 * link, a dead one's last events are recovered, and buffers or messages an
 * application could use to hurt the agent are refused while the agent
 * carries on.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>
#include <hvtrace/event.h>
#include <hvtrace/ringbuf.h>

#include "lib/fdpass.h"
#include "tools/agent.h"

#define SUBBUF 4096u
#define NR 4u

HVT_EVENT_FIELD_TABLE(fields_t, HVT_FIELDS((int, uint64_t, value)));

struct t {
	char dir[64];
	char path[128];
	struct agent a;
	int host;			/* the host's end of the agent's link */
	struct hvt_frame_reader frames;
	int app;			/* the application's socket */
	uint8_t uuid[HVT_UUID_LEN];
	/* the application's buffer */
	int memfd;
	unsigned char *map;
	struct hvt_rb rb;
};

static int setup(void **state)
{
	struct t *t = calloc(1, sizeof(*t));
	int sv[2];

	assert_non_null(t);
	strcpy(t->dir, "/tmp/hvtrace-test-agent-XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	t->a = (struct agent){ .port = sv[0], .dev = -1, .listen_fd = -1, .subbuf_size = 65536,
			       .nr_subbufs = 8, .next_trace_id = 1, .started = true,
			       .kernel.session = -1 };
	t->host = sv[1];
	t->a.pkt = malloc(t->a.subbuf_size);
	t->a.msg = malloc(HVT_APP_MAX_MSG);
	t->a.socket_path = strdup(strcat(strcpy(t->path, t->dir), "/agent.sock"));
	assert_int_equal(agent_apps_listen(&t->a), 0);
	assert_int_equal(hvt_frame_reader_init(&t->frames), 0);
	memset(t->uuid, 0x77, sizeof(t->uuid));
	t->app = -1;
	t->memfd = -1;
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct t *t = *state;
	char cmd[128];

	agent_apps_close_all(&t->a);
	if (t->app >= 0)
		close(t->app);
	if (t->map)
		munmap(t->map, HVT_APP_PROD_PAGE + SUBBUF * NR);
	if (t->memfd >= 0)
		close(t->memfd);
	close(t->a.port);
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

/* The next frame the agent sent to the host, which must be @type. */
static struct hvt_frame host_frame(struct t *t, uint16_t type)
{
	struct hvt_frame f;
	const char *why;
	int r;

	while ((r = hvt_frame_reader_next(&t->frames, 1, &f, &why)) == 0)
		assert_true(hvt_frame_reader_fill(&t->frames, t->host) > 0);
	assert_int_equal(r, 1);
	if (f.hdr.type != type)
		fail_msg("expected %s, got %s", hvt_wire_type_name(type),
			 hvt_wire_type_name(f.hdr.type));
	return f;
}

static void connect_app(struct t *t)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct hvt_a_hello h = { HVT_APP_VERSION, 4242, HVT_DOMAIN_GUEST_TSC, 0, 2000000000,
				 { 0 }, "testapp" };
	unsigned char rec[1024];
	uint32_t n = hvt_reg_event_write(rec, 0, "test:tick", fields_t, 1, "value=%lu");
	struct hvt_w_trace_open to;
	struct hvt_a_welcome w;
	struct hvt_frame f;

	memcpy(h.uuid, t->uuid, HVT_UUID_LEN);
	strcpy(addr.sun_path, t->a.socket_path);
	t->app = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	assert_int_equal(connect(t->app, (struct sockaddr *)&addr, sizeof(addr)), 0);
	agent_apps_accept(&t->a);
	app_send(t, HVT_A_HELLO, 0, &h, sizeof(h), -1);
	assert_int_equal(app_recv(t, HVT_A_WELCOME, &w, sizeof(w), NULL), sizeof(w));
	assert_int_equal(w.enabled, 1);
	f = host_frame(t, HVT_W_TRACE_OPEN);
	memcpy(&to, f.payload, sizeof(to));
	assert_int_equal(to.layer, HVT_LAYER_USER);
	assert_int_equal(to.pid, 4242);
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

/* Registers the buffer; returns 1 if the agent accepted it. */
static int register_buffer(struct t *t)
{
	struct hvt_a_stream m = { 99, SUBBUF, NR, 0, HVT_APP_PROD_PAGE + SUBBUF * NR };
	int cfd = -1;

	app_send(t, HVT_A_STREAM, 1, &m, sizeof(m), t->memfd);
	if (app_recv(t, HVT_A_STREAM_ACK, NULL, 0, &cfd) < 0 || cfd < 0)
		return 0;
	t->rb.cons = mmap(NULL, sizeof(struct hvt_rb_cons), PROT_READ, MAP_SHARED, cfd, 0);
	assert_true(t->rb.cons != MAP_FAILED);
	close(cfd);
	host_frame(t, HVT_W_STREAM_OPEN);
	return 1;
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

static void expect_dropped_with_log(struct t *t, const char *needle)
{
	struct hvt_frame f = host_frame(t, HVT_W_LOG);

	if (!memmem(f.payload, f.hdr.len, needle, strlen(needle)))
		fail_msg("log '%.*s' lacks '%s'", (int)f.hdr.len, f.payload, needle);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_packets_flow_and_slots_come_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dead_application_last_events_recovered, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_unsealed_buffer_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_size_buffer_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt_producer_state, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt_packet, setup, teardown),
		cmocka_unit_test_setup_teardown(test_garbage_message, setup, teardown),
		cmocka_unit_test_setup_teardown(test_registry_garbage, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_framing, setup, teardown),
	};

	return cmocka_run_group_tests_name("agent_apps", tests, NULL, NULL);
}
