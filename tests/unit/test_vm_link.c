// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_vm_link.c - the collector's side of the guest link (host/vm_link.c,
 * host/vm_store.c), driven by a fake guest over a socketpair: a full
 * recording, then one violation per test. A violation must end the link
 * with a reason, and everything stored before it must stay stored.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <hvtrace/event.h>
#include <hvtrace/ringbuf.h>

#include "host/vm.h"
#include "lib/archive_format.h"
#include "lib/fileio.h"
#include "tests/common/wire_packet.h"

HVT_EVENT_FIELD_TABLE(fields_t, HVT_FIELDS((int, uint64_t, value)));

struct fake {
	char dir[64];
	struct hvt_archive_writer ar;
	struct hvt_vm vm;
	int guest;				/* the guest's end of the link */
	struct hvt_frame_reader from_host;
	uint8_t uuid[HVT_UUID_LEN];
	unsigned char packet[4096];
	uint32_t packet_len;
};

static const struct hvt_vm_limits test_limits = { 100, 1 << 20, HVT_VM_MAX_STREAMS, 0, 0 };

static int setup(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));
	char err[256], path[128];
	int sv[2];

	assert_non_null(f);
	strcpy(f->dir, "/tmp/hvtrace-test-link-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(path, sizeof(path), "%s/archive", f->dir);
	assert_int_equal(hvt_archive_writer_create(&f->ar, path, err, sizeof(err)), 0);
	assert_int_equal(hvt_vm_init(&f->vm, &f->ar, "guest0", 0, "tcg", &test_limits,
				     err, sizeof(err)), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	hvt_vm_attach(&f->vm, sv[0]);
	f->guest = sv[1];
	assert_int_equal(hvt_frame_reader_init(&f->from_host), 0);
	memset(f->uuid, 0x42, sizeof(f->uuid));
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fake *f = *state;
	char cmd[128];

	hvt_vm_end(&f->vm, "test over");
	hvt_vm_free(&f->vm);
	hvt_archive_writer_close(&f->ar);
	close(f->guest);
	hvt_frame_reader_free(&f->from_host);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

static void guest_send(struct fake *f, uint16_t type, uint32_t id, const void *p, uint32_t len)
{
	assert_int_equal(hvt_wire_send(f->guest, type, id, p, len), 0);
	hvt_vm_readable(&f->vm);
}

/* The next frame from the host, which must be @type. */
static struct hvt_frame host_frame(struct fake *f, uint16_t type)
{
	struct hvt_frame fr;
	const char *why;
	int r;

	while ((r = hvt_frame_reader_next(&f->from_host, 0, &fr, &why)) == 0)
		assert_true(hvt_frame_reader_fill(&f->from_host, f->guest) > 0);
	assert_int_equal(r, 1);
	if (fr.hdr.type != type)
		fail_msg("expected %s from the host, got %s", hvt_wire_type_name(type),
			 hvt_wire_type_name(fr.hdr.type));
	return fr;
}

/* Answers sync requests as a guest whose TSC runs @ahead ticks ahead of the host's. */
static void answer_syncs_at(struct fake *f, int n, uint64_t ahead)
{
	while (n--) {
		struct hvt_frame fr = host_frame(f, HVT_W_SYNC_REQ);
		struct hvt_w_sync_req req;
		struct hvt_w_sync_reply rep;

		memcpy(&req, fr.payload, sizeof(req));
		rep = (struct hvt_w_sync_reply){ req.seq, req.host_send,
						 req.host_send + ahead + 100,
						 req.host_send + ahead + 200, 0, 0 };
		guest_send(f, HVT_W_SYNC_REPLY, 0, &rep, sizeof(rep));
	}
}

static void answer_syncs(struct fake *f, int n)
{
	answer_syncs_at(f, n, 5000);
}

/* guest_tsc_base of the PARAMS in @fr: the host clock line's base TSC plus the offset. */
static uint64_t params_offset(const struct hvt_frame *fr)
{
	struct hvt_w_params p;

	memcpy(&p, fr->payload, sizeof(p));
	return p.params.guest_tsc_base;
}

/* HELLO, the initial burst, PARAMS and START: the guest may now trace. */
static void handshake(struct fake *f)
{
	struct hvt_w_hello h = { .version = HVT_WIRE_VERSION, .nr_cpus = 2, .tsc_khz = 2000000 };

	guest_send(f, HVT_W_HELLO, 0, &h, sizeof(h));
	host_frame(f, HVT_W_WELCOME);
	answer_syncs(f, HVT_SYNC_BURST);
	host_frame(f, HVT_W_PARAMS);
	host_frame(f, HVT_W_START);
	assert_int_equal(f->vm.state, HVT_VM_RUNNING);
}

/* A registry record for event @id; its size. */
static uint32_t make_record(unsigned char *rec, uint32_t id, const char *name)
{
	return hvt_reg_event_write(rec, id, name, fields_t, 1, "value=%lu");
}

static void open_kernel_stream(struct fake *f)
{
	struct hvt_w_trace_open to = { .layer = HVT_LAYER_KERNEL, .domain = HVT_DOMAIN_GUEST_TSC,
				       .freq_hz = 2000000000 };
	struct hvt_w_stream_open so = { 0, 1, 0, 0 };
	unsigned char rec[1024];
	uint32_t n = make_record(rec, 0, "tick");

	memcpy(to.uuid, f->uuid, HVT_UUID_LEN);
	guest_send(f, HVT_W_TRACE_OPEN, 0, &to, sizeof(to));
	guest_send(f, HVT_W_REGISTRY, 0, rec, n);
	guest_send(f, HVT_W_STREAM_OPEN, 7, &so, sizeof(so));
}

/* A real packet of CPU 1 holding three events, trimmed to its content. */
static void make_packet(struct fake *f)
{
	f->packet_len = hvt_test_wire_packet(f->uuid, f->packet);
}

static off_t file_size(struct fake *f, const char *rel)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/archive/vm/guest0/%s", f->dir, rel);
	return stat(path, &st) ? -1 : st.st_size;
}

static void test_full_recording(void **state)
{
	struct fake *f = *state;
	struct hvt_w_stream_close sc = { 0, 1 };
	struct hvt_w_finish fin = { 1, 0, 1, 1 };
	struct hvt_offset_estimate est;
	char *info;
	size_t len;
	char path[512];

	handshake(f);
	open_kernel_stream(f);
	make_packet(f);
	guest_send(f, HVT_W_PACKET, 7, f->packet, f->packet_len);
	guest_send(f, HVT_W_STREAM_CLOSE, 7, &sc, sizeof(sc));
	guest_send(f, HVT_W_FINISH, 0, &fin, sizeof(fin));
	answer_syncs(f, HVT_SYNC_BURST);
	host_frame(f, HVT_W_GOODBYE);
	assert_int_equal(f->vm.state, HVT_VM_ENDED);
	assert_string_equal(f->vm.end_reason, "guest finished");
	assert_true(f->vm.finished);
	assert_int_equal(f->vm.sync_seq, 2 * HVT_SYNC_BURST);
	assert_int_equal(file_size(f, "kernel/stream-7"), f->packet_len);
	assert_true(file_size(f, "kernel/metadata") > 0);
	assert_true(file_size(f, "kernel/hvtrace/registry") > 0);
	snprintf(path, sizeof(path), "%s/archive/vm/guest0/info.json", f->dir);
	assert_int_equal(hvt_read_file(path, 1 << 20, &info, &len), 0);
	assert_non_null(strstr(info, "\"finished\": true"));
	assert_non_null(strstr(info, "\"consistent\": true"));
	free(info);
	/* the fake guest runs 5000 ticks ahead: the interval must hold that */
	assert_int_equal(hvt_offset_fit_result(&f->vm.fit, &est), 0);
	assert_true(est.lo <= 5000 && 5000 <= est.hi && est.hi == 5100);
}

/* Each case: a guest that misbehaves after one good packet. */
static void after_one_packet(struct fake *f)
{
	handshake(f);
	open_kernel_stream(f);
	make_packet(f);
	guest_send(f, HVT_W_PACKET, 7, f->packet, f->packet_len);
	assert_int_equal(f->vm.state, HVT_VM_RUNNING);
}

static void expect_ended(struct fake *f, const char *needle)
{
	assert_int_equal(f->vm.state, HVT_VM_ENDED);
	if (!strstr(f->vm.end_reason, needle))
		fail_msg("end reason '%s' lacks '%s'", f->vm.end_reason, needle);
	/* what came before is kept */
	assert_int_equal(file_size(f, "kernel/stream-7"), f->packet_len);
}

static void test_garbage_bytes(void **state)
{
	struct fake *f = *state;
	const char junk[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";

	after_one_packet(f);
	assert_int_equal(write(f->guest, junk, sizeof(junk)), (ssize_t)sizeof(junk));
	hvt_vm_readable(&f->vm);
	expect_ended(f, "malformed frame");
}

static void test_packet_of_another_trace(void **state)
{
	struct fake *f = *state;

	after_one_packet(f);
	f->packet[5] ^= 0xff;	/* UUID */
	guest_send(f, HVT_W_PACKET, 7, f->packet, f->packet_len);
	expect_ended(f, "UUID");
}

static void test_packet_sizes_lie(void **state)
{
	struct fake *f = *state;

	after_one_packet(f);
	hvt_put_u64(f->packet + offsetof(struct hvt_ctf_packet, content_size),
		    (uint64_t)(f->packet_len + 64) * 8);
	guest_send(f, HVT_W_PACKET, 7, f->packet, f->packet_len);
	expect_ended(f, "stream 7: packet sizes inconsistent");
}

/* Archives hold packets that end where their content ends. */
static void test_packet_padded(void **state)
{
	struct fake *f = *state;

	after_one_packet(f);
	hvt_put_u64(f->packet + offsetof(struct hvt_ctf_packet, content_size),
		    (uint64_t)(f->packet_len - 8) * 8);
	guest_send(f, HVT_W_PACKET, 7, f->packet, f->packet_len);
	expect_ended(f, "content_size");
}

static void test_packet_of_another_cpu(void **state)
{
	struct fake *f = *state;

	after_one_packet(f);
	hvt_put_u32(f->packet + offsetof(struct hvt_ctf_packet, cpu_id), 0);
	guest_send(f, HVT_W_PACKET, 7, f->packet, f->packet_len);
	expect_ended(f, "stream 7: packet of cpu_id 0, not 1");
}

static void test_packet_of_another_instance(void **state)
{
	struct fake *f = *state;

	after_one_packet(f);
	hvt_put_u64(f->packet + offsetof(struct hvt_ctf_packet, stream_instance_id), 0);
	guest_send(f, HVT_W_PACKET, 7, f->packet, f->packet_len);
	expect_ended(f, "stream 7: packet of another stream instance: 0, not 1");
}

static void test_packet_for_unknown_stream(void **state)
{
	struct fake *f = *state;

	after_one_packet(f);
	guest_send(f, HVT_W_PACKET, 8, f->packet, f->packet_len);
	expect_ended(f, "not open");
}

static void test_stream_id_out_of_range(void **state)
{
	struct fake *f = *state;
	struct hvt_w_stream_open so = { 0, 0, 0, 0 };

	after_one_packet(f);
	guest_send(f, HVT_W_STREAM_OPEN, HVT_VM_MAX_STREAMS, &so, sizeof(so));
	expect_ended(f, "out of range");
}

/*
 * What went untraced reaches info.json: each refused process (the first
 * HVT_VM_UNTRACED_LISTED of them listed, all counted), each user trace's
 * count of untraced threads.
 */
static void test_untraced_recorded(void **state)
{
	struct fake *f = *state;
	struct hvt_w_trace_open to = { .layer = HVT_LAYER_USER, .domain = HVT_DOMAIN_GUEST_TSC,
				       .freq_hz = 2000000000, .pid = 77, .comm = "app" };
	struct hvt_w_untraced u = { .pid = 4711, .uid = 1000, .reason = HVT_UNTRACED_UID_SHARE,
				    .comm = "wor\tker" };
	struct hvt_w_threads_untraced t = { 872 };
	char path[512], *info;
	unsigned int i;
	size_t len;

	after_one_packet(f);
	guest_send(f, HVT_W_TRACE_OPEN, 1, &to, sizeof(to));
	guest_send(f, HVT_W_THREADS_UNTRACED, 1, &t, sizeof(t));
	for (i = 0; i < HVT_VM_UNTRACED_LISTED + 3; i++)
		guest_send(f, HVT_W_UNTRACED, 0, &u, sizeof(u));
	assert_int_equal(f->vm.state, HVT_VM_RUNNING);
	hvt_vm_tick(&f->vm);	/* info.json brought up to date */
	assert_int_equal(hvt_vm_settle(&f->vm), 0);
	snprintf(path, sizeof(path), "%s/archive/vm/guest0/info.json", f->dir);
	assert_int_equal(hvt_read_file(path, 1 << 20, &info, &len), 0);
	assert_non_null(strstr(info, "\"untraced_threads\": 872"));
	assert_non_null(strstr(info, "\"untraced_processes\": ["));
	assert_non_null(strstr(info, "\"pid\": 4711,"));
	assert_non_null(strstr(info, "\"uid\": 1000,"));
	assert_non_null(strstr(info, "\"comm\": \"wor?ker\","));	/* sanitised */
	assert_non_null(strstr(info, "\"reason\": \"uid share of trace ids\""));
	assert_non_null(strstr(info, "\"untraced_processes_total\": 259"));
	assert_int_equal(f->vm.nr_untraced_listed, HVT_VM_UNTRACED_LISTED);
	free(info);
	/* an unknown reason ends the link, as any violation does */
	u.reason = HVT_UNTRACED_REASON_MAX;
	guest_send(f, HVT_W_UNTRACED, 0, &u, sizeof(u));
	expect_ended(f, "untraced process 4711: unknown reason");
}

/* Untraced threads of a trace never opened (or the kernel's): a violation. */
static void test_untraced_threads_of_unknown_trace(void **state)
{
	struct fake *f = *state;
	struct hvt_w_threads_untraced t = { 1 };

	after_one_packet(f);
	guest_send(f, HVT_W_THREADS_UNTRACED, 0, &t, sizeof(t));	/* the kernel's */
	expect_ended(f, "untraced threads of unknown trace 0");
}

/*
 * A count of untraced threads past what a process can have (2^63 was
 * written into info.json as a negative number, which dropped the trace
 * from the archive's readers), or going down: the guest's link ends.
 */
static void test_untraced_threads_impossible(void **state)
{
	struct fake *f = *state;
	struct hvt_w_trace_open to = { .layer = HVT_LAYER_USER, .domain = HVT_DOMAIN_GUEST_TSC,
				       .freq_hz = 2000000000, .pid = 77, .comm = "app" };
	struct hvt_w_threads_untraced t = { 5 };

	after_one_packet(f);
	guest_send(f, HVT_W_TRACE_OPEN, 1, &to, sizeof(to));
	guest_send(f, HVT_W_THREADS_UNTRACED, 1, &t, sizeof(t));
	assert_int_equal(f->vm.state, HVT_VM_RUNNING);
	t.threads = 4;
	guest_send(f, HVT_W_THREADS_UNTRACED, 1, &t, sizeof(t));
	expect_ended(f, "untraced threads of trace 1: 4, after 5");
}

static char *read_info(struct fake *f);

/*
 * A packet of a stream already listed does not rewrite info.json for what
 * a cheap frame changed meanwhile: that waits for the tick (a guest could
 * otherwise make every packet rewrite and fsync the whole file).
 */
static void test_packet_leaves_info_to_tick(void **state)
{
	struct fake *f = *state;
	struct hvt_w_trace_open to = { .layer = HVT_LAYER_USER, .domain = HVT_DOMAIN_GUEST_TSC,
				       .freq_hz = 2000000000, .pid = 77, .comm = "app" };
	struct hvt_w_threads_untraced t = { 3 };
	char *info;

	after_one_packet(f);
	guest_send(f, HVT_W_TRACE_OPEN, 1, &to, sizeof(to));
	hvt_vm_tick(&f->vm);
	guest_send(f, HVT_W_THREADS_UNTRACED, 1, &t, sizeof(t));
	guest_send(f, HVT_W_PACKET, 7, f->packet, f->packet_len);
	assert_int_equal(f->vm.state, HVT_VM_RUNNING);
	assert_int_equal(file_size(f, "kernel/stream-7"), 2 * f->packet_len);
	info = read_info(f);
	assert_null(strstr(info, "\"untraced_threads\": 3"));
	free(info);
	hvt_vm_tick(&f->vm);
	info = read_info(f);
	assert_non_null(strstr(info, "\"untraced_threads\": 3"));
	free(info);
}

static void test_untraced_threads_huge(void **state)
{
	struct fake *f = *state;
	struct hvt_w_trace_open to = { .layer = HVT_LAYER_USER, .domain = HVT_DOMAIN_GUEST_TSC,
				       .freq_hz = 2000000000, .pid = 77, .comm = "app" };
	struct hvt_w_threads_untraced t = { 1ull << 63 };

	after_one_packet(f);
	guest_send(f, HVT_W_TRACE_OPEN, 1, &to, sizeof(to));
	guest_send(f, HVT_W_THREADS_UNTRACED, 1, &t, sizeof(t));
	expect_ended(f, "untraced threads of trace 1: 9223372036854775808");
	assert_int_equal(hvt_vm_threads_untraced_total(&f->vm), 0);
}

/* A pid readers would take for negative, or a pid on the kernel trace. */
static void test_trace_pid(void **state)
{
	struct fake *f = *state;
	struct hvt_w_trace_open to = { .layer = HVT_LAYER_USER, .domain = HVT_DOMAIN_GUEST_TSC,
				       .freq_hz = 2000000000, .pid = 0x80000000u };

	after_one_packet(f);
	to.pid = INT32_MAX;
	guest_send(f, HVT_W_TRACE_OPEN, 1, &to, sizeof(to));
	assert_int_equal(f->vm.state, HVT_VM_RUNNING);
	to.pid = 0x80000000u;
	guest_send(f, HVT_W_TRACE_OPEN, 2, &to, sizeof(to));
	expect_ended(f, "trace 2: invalid pid 2147483648 for a user trace");
}

static void test_kernel_trace_pid(void **state)
{
	struct fake *f = *state;
	struct hvt_w_trace_open to = { .layer = HVT_LAYER_KERNEL, .domain = HVT_DOMAIN_GUEST_TSC,
				       .freq_hz = 2000000000, .pid = 1 };

	handshake(f);
	guest_send(f, HVT_W_TRACE_OPEN, 0, &to, sizeof(to));
	assert_int_equal(f->vm.state, HVT_VM_ENDED);
	assert_non_null(strstr(f->vm.end_reason, "trace 0: invalid pid 1 for a kernel trace"));
	assert_int_equal(file_size(f, "kernel"), -1);
}

/* Only the host's own agent may send a trace on the host TSC. */
static void test_guest_claims_host_tsc(void **state)
{
	struct fake *f = *state;
	struct hvt_w_trace_open to = { .layer = HVT_LAYER_USER, .domain = HVT_DOMAIN_TSC,
				       .freq_hz = 2000000000, .pid = 42 };

	after_one_packet(f);
	guest_send(f, HVT_W_TRACE_OPEN, 1, &to, sizeof(to));
	expect_ended(f, "trace 1: a host TSC clock on a guest's link");
	assert_int_equal(file_size(f, "user-1"), -1);
}

/*
 * The host applications' link (record --host-apps): stored in host/apps,
 * its traces on the host TSC; a guest TSC there is refused.
 */
static void test_host_apps_link(void **state)
{
	struct fake *f = *state;
	struct hvt_w_trace_open to = { .layer = HVT_LAYER_USER, .domain = HVT_DOMAIN_TSC,
				       .freq_hz = 2000000000, .pid = 42 };
	char err[256], path[256], *info = NULL;
	size_t len;
	int sv[2];

	hvt_vm_end(&f->vm, "replaced");
	hvt_vm_free(&f->vm);
	close(f->guest);
	assert_int_equal(hvt_vm_init_host_apps(&f->vm, &f->ar, &test_limits, err, sizeof(err)),
			 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	hvt_vm_attach(&f->vm, sv[0]);
	f->guest = sv[1];
	handshake(f);
	guest_send(f, HVT_W_TRACE_OPEN, 1, &to, sizeof(to));
	assert_int_equal(f->vm.state, HVT_VM_RUNNING);
	hvt_vm_tick(&f->vm);	/* info.json brought up to date */
	assert_int_equal(hvt_vm_settle(&f->vm), 0);
	snprintf(path, sizeof(path), "%s/archive/host/apps/info.json", f->dir);
	assert_int_equal(hvt_read_file(path, 1 << 20, &info, &len), 0);
	assert_non_null(strstr(info, "\"domain\": \"host_tsc\""));
	free(info);
	snprintf(path, sizeof(path), "%s/archive/host/apps/user-1/hvtrace/registry", f->dir);
	assert_int_equal(access(path, F_OK), 0);
	to.domain = HVT_DOMAIN_GUEST_TSC;
	guest_send(f, HVT_W_TRACE_OPEN, 2, &to, sizeof(to));
	assert_int_equal(f->vm.state, HVT_VM_ENDED);
	assert_non_null(strstr(f->vm.end_reason,
			       "trace 2: a guest TSC clock on the host applications' link"));
}

/* The summary line of @f's VM. */
static char *summary_of(struct fake *f)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	hvt_vm_summary(&f->vm, out);
	assert_int_equal(fclose(out), 0);
	return text;
}

/*
 * record --host-apps: an agent that ended before its HELLO traced nothing,
 * and the summary says so, not only why it ended; one that ended later
 * traced until then.
 */
static void test_host_apps_not_traced_said(void **state)
{
	struct fake *f = *state;
	char err[256], *text;
	int sv[2];

	hvt_vm_end(&f->vm, "replaced");
	hvt_vm_free(&f->vm);
	close(f->guest);
	assert_int_equal(hvt_vm_init_host_apps(&f->vm, &f->ar, &test_limits, err, sizeof(err)),
			 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	hvt_vm_attach(&f->vm, sv[0]);
	f->guest = sv[1];
	hvt_vm_end(&f->vm, "the host agent exited (status 1)");
	text = summary_of(f);
	assert_non_null(strstr(text, "  host applications: NOT traced: the host agent exited "
				     "(status 1)\n"));
	free(text);
	f->vm.frames[HVT_W_HELLO] = 1;
	text = summary_of(f);
	assert_non_null(strstr(text, "  host applications: traced until the host agent exited "
				     "(status 1); those started after NOT traced\n"));
	free(text);
}

/* Out of file descriptors: the reason says which limit to raise. */
static void test_stream_fd_limit(void **state)
{
	struct fake *f = *state;
	struct hvt_w_stream_open so = { 0, 0, 0, 0 };
	struct rlimit saved, rl;
	uint32_t id;
	int fd;

	after_one_packet(f);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &saved), 0);
	fd = dup(0);
	assert_true(fd >= 0);
	close(fd);
	rl = saved;
	rl.rlim_cur = (rlim_t)fd + 3;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	for (id = 100; id < 110 && f->vm.state == HVT_VM_RUNNING; id++) {
		so.cpu = id - 100;
		guest_send(f, HVT_W_STREAM_OPEN, id, &so, sizeof(so));
	}
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &saved), 0);
	expect_ended(f, "open-file limit");
}

/* --max-streams: counted over the recording; the one over it cuts the guest off. */
static void test_stream_quota(void **state)
{
	struct fake *f = *state;
	struct hvt_w_stream_open so = { 0, 0, 0, 0 };
	uint32_t id;

	after_one_packet(f);	/* stream 7 */
	f->vm.limits.max_streams = 3;
	for (id = 100; id < 102; id++) {
		so.cpu = id - 100;
		guest_send(f, HVT_W_STREAM_OPEN, id, &so, sizeof(so));
		assert_int_equal(f->vm.state, HVT_VM_RUNNING);
	}
	so.cpu = 0;
	guest_send(f, HVT_W_STREAM_OPEN, 102, &so, sizeof(so));
	expect_ended(f, "stream quota of 3 exceeded");
	assert_int_equal(f->vm.nr_streams, 3);
	assert_int_equal(file_size(f, "kernel/stream-102"), -1);
}

/*
 * --rate: every byte read takes credit; without credit the link is not
 * read (nor are exchanges started, their replies would wait behind the
 * data); credit comes back at the rate, at most a second's worth.
 */
static void test_rate_quota(void **state)
{
	struct fake *f = *state;
	struct timespec now;
	int64_t credit;

	after_one_packet(f);
	f->vm.limits.rate = 1 << 20;
	f->vm.rate_credit = 100;
	assert_true(hvt_vm_wants_input(&f->vm));
	guest_send(f, HVT_W_PACKET, 7, f->packet, f->packet_len);
	assert_int_equal(f->vm.rate_credit, 100 - (int64_t)(f->packet_len + sizeof(struct hvt_wire_hdr)));
	assert_false(hvt_vm_wants_input(&f->vm));
	f->vm.next_sync_ns = 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	f->vm.rate_refilled_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	hvt_vm_tick(&f->vm);
	assert_false(f->vm.sync_outstanding);	/* still in debt: no exchange */
	assert_int_equal(f->vm.throttled_ticks, 1);
	/* Half a second later: half a second's credit, less the debt. */
	f->vm.rate_refilled_ns -= 500000000;
	credit = f->vm.rate_credit;
	hvt_vm_tick(&f->vm);
	assert_in_range(f->vm.rate_credit - credit, (1 << 19), (1 << 19) + (1 << 14));
	assert_true(hvt_vm_wants_input(&f->vm));
	assert_true(f->vm.sync_outstanding);
	/* Ten seconds idle: one second's worth, no more. */
	f->vm.rate_refilled_ns -= 10000000000ll;
	hvt_vm_tick(&f->vm);
	assert_int_equal(f->vm.rate_credit, 1 << 20);
	assert_int_equal(f->vm.state, HVT_VM_RUNNING);
	/*
	 * Deep in debt with an exchange outstanding: its reply waits behind data
	 * the host does not read, and that wait does not count against the guest.
	 */
	f->vm.next_sync_ns = 0;
	hvt_vm_tick(&f->vm);
	assert_true(f->vm.sync_outstanding);
	f->vm.rate_credit = -(30ll << 20);	/* 30 s at 1 MiB/s */
	f->vm.sync_sent_ns -= 20000000000ll;
	f->vm.rate_refilled_ns -= 20000000000ll;
	hvt_vm_tick(&f->vm);
	assert_int_equal(f->vm.state, HVT_VM_RUNNING);
	assert_false(hvt_vm_wants_input(&f->vm));
}

/*
 * LOG lines: at most HVT_LOG_BURST shown at once, then HVT_LOG_PER_S a
 * second; the rest are counted, said, and kept in info.json. The guest's
 * recording goes on.
 */
static void test_log_flood(void **state)
{
	struct fake *f = *state;
	const char line[] = "flooding the host's stderr";
	char path[256];
	json_t *info;
	int i;

	after_one_packet(f);
	for (i = 0; i < 1000; i++)
		guest_send(f, HVT_W_LOG, 0, line, sizeof(line) - 1);
	assert_int_equal(f->vm.state, HVT_VM_RUNNING);
	assert_int_equal(f->vm.logs_dropped, 1000 - HVT_LOG_BURST);
	assert_int_equal(f->vm.log_credit, 0);
	/* half a second later: ten more lines may be shown, and the drop is said */
	f->vm.log_refilled_ns -= 500000000;
	hvt_vm_tick(&f->vm);
	assert_int_equal(f->vm.log_credit, HVT_LOG_PER_S / 2);
	assert_int_equal(f->vm.logs_dropped_said, 1000 - HVT_LOG_BURST);
	for (i = 0; i < 20; i++)
		guest_send(f, HVT_W_LOG, 0, line, sizeof(line) - 1);
	assert_int_equal(f->vm.logs_dropped, 1000 - HVT_LOG_BURST + 10);
	/* a minute idle: the burst again, no more */
	f->vm.log_refilled_ns -= 60000000000ll;
	hvt_vm_tick(&f->vm);
	assert_int_equal(f->vm.log_credit, HVT_LOG_BURST);
	hvt_vm_end(&f->vm, "test over");
	snprintf(path, sizeof(path), "%s/archive/vm/guest0/info.json", f->dir);
	info = json_load_file(path, 0, NULL);
	assert_non_null(info);
	assert_int_equal(json_integer_value(json_object_get(info, "logs_dropped")),
			 1000 - HVT_LOG_BURST + 10);
	json_decref(info);
}

static void test_registry_garbage(void **state)
{
	struct fake *f = *state;
	unsigned char junk[200];

	after_one_packet(f);
	memset(junk, 0x41, sizeof(junk));
	guest_send(f, HVT_W_REGISTRY, 0, junk, sizeof(junk));
	expect_ended(f, "registry");
}

/* A guest resending records: each is stored once, and counted once. */
static void test_registry_resent(void **state)
{
	struct fake *f = *state;
	unsigned char frame[4096], expect[4096], *file;
	uint32_t n0, n1, len = 0;
	uint64_t bytes;
	size_t got;
	char path[512];
	int i;

	after_one_packet(f);
	bytes = f->vm.bytes;
	n0 = make_record(expect, 0, "tick");
	for (i = 0; i < 100; i++)
		guest_send(f, HVT_W_REGISTRY, 0, expect, n0);
	assert_int_equal(f->vm.state, HVT_VM_RUNNING);
	assert_int_equal(file_size(f, "kernel/hvtrace/registry"), n0);
	assert_int_equal(f->vm.bytes, bytes);
	/* old, new, new again: only the new one is appended */
	len = make_record(frame, 0, "tick");
	n1 = make_record(frame + len, 1, "tock");
	memcpy(expect + n0, frame + len, n1);
	len += n1;
	memcpy(frame + len, frame + n0, n1);
	len += n1;
	guest_send(f, HVT_W_REGISTRY, 0, frame, len);
	assert_int_equal(f->vm.state, HVT_VM_RUNNING);
	assert_int_equal(file_size(f, "kernel/hvtrace/registry"), n0 + n1);
	assert_int_equal(f->vm.bytes, bytes + n1);
	snprintf(path, sizeof(path), "%s/archive/vm/guest0/kernel/hvtrace/registry", f->dir);
	assert_int_equal(hvt_read_file(path, 1 << 20, (char **)&file, &got), 0);
	assert_int_equal(got, n0 + n1);
	assert_memory_equal(file, expect, got);
	free(file);
}

/* An id sent again with another definition ends the link; the file keeps the first. */
static void test_registry_redefined(void **state)
{
	struct fake *f = *state;
	unsigned char rec[1024];
	uint32_t n = hvt_reg_event_write(rec, 0, "tick", fields_t, 1, "v=%lu");

	after_one_packet(f);
	guest_send(f, HVT_W_REGISTRY, 0, rec, n);
	expect_ended(f, "event id 0 redefined differently");
	assert_int_equal(file_size(f, "kernel/hvtrace/registry"), make_record(rec, 0, "tick"));
}

/* Registry records count against the quota like packets. */
static void test_registry_quota(void **state)
{
	struct fake *f = *state;
	unsigned char frame[8192];
	uint32_t len = 0, id;
	off_t before;

	after_one_packet(f);
	before = file_size(f, "kernel/hvtrace/registry");
	for (id = 1; id <= 8; id++)
		len += make_record(frame + len, id, "more");
	f->vm.limits.byte_quota = f->vm.bytes + len - 1;
	guest_send(f, HVT_W_REGISTRY, 0, frame, len);
	expect_ended(f, "quota");
	assert_int_equal(file_size(f, "kernel/hvtrace/registry"), before);
}

static void test_unsolicited_sync_reply(void **state)
{
	struct fake *f = *state;
	struct hvt_w_sync_reply rep = { 999, 1, 2, 3, 0, 0 };

	after_one_packet(f);
	guest_send(f, HVT_W_SYNC_REPLY, 0, &rep, sizeof(rep));
	expect_ended(f, "does not answer");
}

/*
 * A guest that stops answering clock exchanges (stalled, paused) is said
 * to after HVT_SYNC_SLOW_S and waited for: once it answers, exchanges go
 * on. It is cut off once it has not answered for HVT_SYNC_STALL_S.
 */
static void test_sync_timeout(void **state)
{
	struct fake *f = *state;
	struct hvt_w_sync_req req;
	struct hvt_w_sync_reply rep;
	struct hvt_frame fr;

	after_one_packet(f);
	f->vm.next_sync_ns = 0;
	hvt_vm_tick(&f->vm);
	fr = host_frame(f, HVT_W_SYNC_REQ);
	memcpy(&req, fr.payload, sizeof(req));
	assert_true(f->vm.sync_outstanding);
	f->vm.sync_sent_ns -= (HVT_SYNC_SLOW_S + 1) * 1000000000ll;
	hvt_vm_tick(&f->vm);
	assert_int_equal(f->vm.state, HVT_VM_RUNNING);
	assert_true(f->vm.sync_stall_said);
	/* the stall ends: its late answer is an exchange like any other */
	rep = (struct hvt_w_sync_reply){ req.seq, req.host_send, req.host_send + 5100,
					 req.host_send + 5200, 0, 0 };
	guest_send(f, HVT_W_SYNC_REPLY, 0, &rep, sizeof(rep));
	assert_int_equal(f->vm.state, HVT_VM_RUNNING);
	assert_false(f->vm.sync_outstanding);
	assert_false(f->vm.sync_stall_said);
	assert_int_equal(f->vm.sync_seq, req.seq + 1);
	/* the next one never answered */
	f->vm.next_sync_ns = 0;
	hvt_vm_tick(&f->vm);
	host_frame(f, HVT_W_SYNC_REQ);
	f->vm.sync_sent_ns -= (HVT_SYNC_STALL_S - 1) * 1000000000ll;
	hvt_vm_tick(&f->vm);
	assert_int_equal(f->vm.state, HVT_VM_RUNNING);
	f->vm.sync_sent_ns -= 2 * 1000000000ll;
	hvt_vm_tick(&f->vm);
	expect_ended(f, "did not answer clock exchange 17 within 120 s");
}

/* --guest-timeout's limit, not the default, when given. */
static void test_sync_timeout_given(void **state)
{
	struct fake *f = *state;

	after_one_packet(f);
	f->vm.limits.stall_timeout_s = 30;
	f->vm.next_sync_ns = 0;
	hvt_vm_tick(&f->vm);
	host_frame(f, HVT_W_SYNC_REQ);
	f->vm.sync_sent_ns -= 31 * 1000000000ll;
	hvt_vm_tick(&f->vm);
	expect_ended(f, "did not answer clock exchange 16 within 30 s");
}

/* The same during the first burst, before any data. */
static void test_sync_timeout_in_burst(void **state)
{
	struct fake *f = *state;
	struct hvt_w_hello h = { .version = HVT_WIRE_VERSION, .nr_cpus = 2, .tsc_khz = 2000000 };

	guest_send(f, HVT_W_HELLO, 0, &h, sizeof(h));
	host_frame(f, HVT_W_WELCOME);
	answer_syncs(f, 3);
	host_frame(f, HVT_W_SYNC_REQ);
	f->vm.sync_sent_ns -= (HVT_SYNC_STALL_S + 1) * 1000000000ll;
	hvt_vm_tick(&f->vm);
	assert_int_equal(f->vm.state, HVT_VM_ENDED);
	assert_non_null(strstr(f->vm.end_reason, "did not answer clock exchange 3 within"));
}

/* LOG text of the longest size, none of it printable: shown, not fatal. */
static void test_log_frame(void **state)
{
	struct fake *f = *state;
	char text[HVT_W_LOG_MAX], out[HVT_W_LOG_MAX + 1];

	after_one_packet(f);
	memset(text, 0xff, sizeof(text));
	guest_send(f, HVT_W_LOG, 0, text, sizeof(text));
	assert_int_equal(f->vm.state, HVT_VM_RUNNING);
	hvt_vm_sanitize(out, "ok\n\0rest", 10);
	assert_string_equal(out, "ok?");
}

static void test_trace_before_start(void **state)
{
	struct fake *f = *state;
	struct hvt_w_trace_open to = { .layer = HVT_LAYER_KERNEL };

	guest_send(f, HVT_W_TRACE_OPEN, 0, &to, sizeof(to));
	assert_int_equal(f->vm.state, HVT_VM_ENDED);
	assert_non_null(strstr(f->vm.end_reason, "unexpected TRACE_OPEN"));
}

static void test_quota(void **state)
{
	struct fake *f = *state;
	int i;

	after_one_packet(f);
	f->vm.limits.byte_quota = f->vm.bytes + 2 * (uint64_t)f->packet_len;
	for (i = 0; i < 3 && f->vm.state == HVT_VM_RUNNING; i++)
		guest_send(f, HVT_W_PACKET, 7, f->packet, f->packet_len);
	assert_int_equal(f->vm.state, HVT_VM_ENDED);
	assert_non_null(strstr(f->vm.end_reason, "quota"));
	assert_int_equal(file_size(f, "kernel/stream-7"), 3 * f->packet_len);
}

/* The VM's info.json as a string (free it). */
static char *read_info(struct fake *f)
{
	char path[512], *info;
	size_t len;

	assert_int_equal(hvt_vm_settle(&f->vm), 0);	/* the tick's rewrite is on disk */
	snprintf(path, sizeof(path), "%s/archive/vm/guest0/info.json", f->dir);
	assert_int_equal(hvt_read_file(path, 1 << 20, &info, &len), 0);
	return info;
}

static bool file_has(struct fake *f, const char *rel, const char *needle)
{
	char path[512], *text;
	size_t len;
	bool found;

	assert_int_equal(hvt_vm_settle(&f->vm), 0);	/* the tick's rewrite is on disk */
	snprintf(path, sizeof(path), "%s/archive/vm/guest0/%s", f->dir, rel);
	if (hvt_read_file(path, 1 << 20, &text, &len))
		return false;
	found = strstr(text, needle) != NULL;
	free(text);
	return found;
}

/* Registers event @id (named @name) in trace 0. */
static void register_event(struct fake *f, uint32_t id, const char *name)
{
	unsigned char rec[1024];
	uint32_t n = make_record(rec, id, name);

	guest_send(f, HVT_W_REGISTRY, 0, rec, n);
}

static bool file_is(struct fake *f, const char *rel, const void *a, uint32_t na,
		    const void *b, uint32_t nb)
{
	char path[512], *text;
	size_t len;
	bool same;

	assert_int_equal(hvt_vm_settle(&f->vm), 0);	/* the tick's rewrite is on disk */
	snprintf(path, sizeof(path), "%s/archive/vm/guest0/%s", f->dir, rel);
	if (hvt_read_file(path, 1 << 20, &text, &len))
		return false;
	same = len == (size_t)na + nb && !memcmp(text, a, na) && !memcmp(text + na, b, nb);
	free(text);
	return same;
}

/*
 * A packet may come before the registry record of an event in it (the
 * agent's last drain): it waits, and so do the packets of its stream after
 * it, until the registry has the id; then they are stored in stream order.
 */
static void test_packet_before_its_registry(void **state)
{
	struct fake *f = *state;
	unsigned char early[4096];
	uint32_t early_len;

	handshake(f);
	open_kernel_stream(f);
	make_packet(f);
	early_len = hvt_test_wire_packet_of(f->uuid, 1, early);
	guest_send(f, HVT_W_PACKET, 7, early, early_len);
	guest_send(f, HVT_W_PACKET, 7, f->packet, f->packet_len);	/* id 0: known, waits behind */
	assert_int_equal(f->vm.state, HVT_VM_RUNNING);
	assert_int_equal(file_size(f, "kernel/stream-7"), 0);
	assert_int_equal(f->vm.pending_bytes, early_len + f->packet_len);
	register_event(f, 1, "late");
	assert_int_equal(f->vm.state, HVT_VM_RUNNING);
	assert_true(file_is(f, "kernel/stream-7", early, early_len, f->packet, f->packet_len));
	assert_true(file_has(f, "kernel/metadata", "late"));
	assert_int_equal(f->vm.pending_bytes, 0);
	assert_int_equal(f->vm.streams[7]->packets, 2);
}

/* A closed stream takes no packet, even while some of its own wait. */
static void test_packet_after_stream_close(void **state)
{
	struct fake *f = *state;
	struct hvt_w_stream_close sc = { 0, 1 };
	unsigned char early[4096];
	uint32_t early_len;

	handshake(f);
	open_kernel_stream(f);
	early_len = hvt_test_wire_packet_of(f->uuid, 40, early);	/* extended headers */
	guest_send(f, HVT_W_PACKET, 7, early, early_len);
	guest_send(f, HVT_W_STREAM_CLOSE, 7, &sc, sizeof(sc));
	guest_send(f, HVT_W_PACKET, 7, early, early_len);	/* closed is closed */
	assert_int_equal(f->vm.state, HVT_VM_ENDED);
	assert_non_null(strstr(f->vm.end_reason, "packet for stream 7, which is not open"));
}

/* A stream closed before the registry came: its waiting packets are stored, then it closes. */
static void test_registry_after_stream_close(void **state)
{
	struct fake *f = *state;
	struct hvt_w_stream_close sc = { 0, 1 };
	unsigned char early[4096];
	uint32_t early_len;

	handshake(f);
	open_kernel_stream(f);
	early_len = hvt_test_wire_packet_of(f->uuid, 40, early);
	guest_send(f, HVT_W_PACKET, 7, early, early_len);
	guest_send(f, HVT_W_STREAM_CLOSE, 7, &sc, sizeof(sc));
	assert_true(f->vm.streams[7]->fd >= 0);
	register_event(f, 40, "last");
	assert_int_equal(f->vm.state, HVT_VM_RUNNING);
	assert_true(file_is(f, "kernel/stream-7", early, early_len, "", 0));
	assert_int_equal(f->vm.streams[7]->fd, -1);
}

/* Packets whose ids never come are dropped at the end, counted in info.json. */
static void test_packet_never_registered(void **state)
{
	struct fake *f = *state;
	struct hvt_w_stream_close sc = { 0, 1 };
	struct hvt_w_finish fin = { 1, 0, 1, 1 };
	unsigned char early[4096];
	uint32_t early_len;
	char *info;

	after_one_packet(f);
	early_len = hvt_test_wire_packet_of(f->uuid, 2, early);
	guest_send(f, HVT_W_PACKET, 7, early, early_len);
	guest_send(f, HVT_W_STREAM_CLOSE, 7, &sc, sizeof(sc));
	guest_send(f, HVT_W_FINISH, 0, &fin, sizeof(fin));
	answer_syncs(f, HVT_SYNC_BURST);
	host_frame(f, HVT_W_GOODBYE);
	assert_string_equal(f->vm.end_reason, "guest finished");
	assert_int_equal(file_size(f, "kernel/stream-7"), f->packet_len);
	info = read_info(f);
	assert_non_null(strstr(info, "\"dropped_packets\": 1"));
	assert_non_null(strstr(info, "\"packets\": 1,"));
	free(info);
}

/* A guest that keeps sending packets of an id it never registers is cut off. */
static void test_pending_limit(void **state)
{
	struct fake *f = *state;
	unsigned char early[4096];
	uint32_t early_len, i;

	after_one_packet(f);
	f->vm.limits.byte_quota = UINT64_MAX / 2;
	early_len = hvt_test_wire_packet_of(f->uuid, 3, early);
	for (i = 0; i <= HVT_VM_PENDING_MAX / early_len && f->vm.state == HVT_VM_RUNNING; i++)
		guest_send(f, HVT_W_PACKET, 7, early, early_len);
	expect_ended(f, "packets wait for events never registered (event id 3)");
	assert_int_equal(i, HVT_VM_PENDING_MAX / early_len + 1);
}

/*
 * Well-framed packets of garbage events, which babeltrace2 cannot read:
 * each ends the link, naming the event, and nothing of it is stored.
 */
static void garbage_events(struct fake *f, void (*damage)(unsigned char *p, uint32_t *len),
			   const char *why)
{
	unsigned char bad[4096];
	uint32_t len;

	after_one_packet(f);
	register_event(f, 40, "wide");
	len = hvt_test_wire_packet_of(f->uuid, 40, bad);
	damage(bad, &len);
	guest_send(f, HVT_W_PACKET, 7, bad, len);
	expect_ended(f, why);
}

static void set_content(unsigned char *p, uint32_t len)
{
	hvt_put_u64(p + offsetof(struct hvt_ctf_packet, content_size), (uint64_t)len * 8);
	hvt_put_u64(p + offsetof(struct hvt_ctf_packet, packet_size), (uint64_t)len * 8);
}

static void cut_last_payload(unsigned char *p, uint32_t *len)
{
	*len -= 3;
	set_content(p, *len);
}

static void cut_last_header(unsigned char *p, uint32_t *len)
{
	*len -= 8 + HVT_CTF_EVENT_CONTEXT_SIZE + 2;	/* 11 of the 13 header bytes left */
	set_content(p, *len);
}

/* event 1's extended header: its id, then its timestamp */
#define EVENT1	(HVT_CTF_PACKET_HEADER_SIZE + HVT_CTF_EXTENDED_HEADER_SIZE + \
		 HVT_CTF_EVENT_CONTEXT_SIZE + 8)

static void id_out_of_range(unsigned char *p, uint32_t *len)
{
	(void)len;
	hvt_put_u32(p + EVENT1 + 1, 0x7fffffff);
}

static void time_far_away(unsigned char *p, uint32_t *len)
{
	(void)len;
	hvt_put_u64(p + EVENT1 + 5, 1ull << 60);
}

/* A packet that waited for its ids and is damaged past them: dropped, and the link ends. */
static void test_waiting_packet_found_damaged(void **state)
{
	struct fake *f = *state;
	unsigned char bad[4096];
	uint32_t len;

	handshake(f);
	open_kernel_stream(f);
	len = hvt_test_wire_packet_of(f->uuid, 40, bad);
	cut_last_payload(bad, &len);
	guest_send(f, HVT_W_PACKET, 7, bad, len);
	assert_int_equal(f->vm.state, HVT_VM_RUNNING);
	assert_int_equal(f->vm.pending_bytes, len);
	register_event(f, 40, "wide");
	assert_int_equal(f->vm.state, HVT_VM_ENDED);
	assert_non_null(strstr(f->vm.end_reason, "payload runs past content_size"));
	assert_int_equal(f->vm.pending_bytes, 0);
	assert_int_equal(file_size(f, "kernel/stream-7"), 0);
}

/*
 * Waiting packets count in the quota while the registry grows: a record
 * and its metadata that fit only if they are forgotten end the link, and
 * the archive never holds more than the quota.
 */
static void test_pending_in_quota(void **state)
{
	struct fake *f = *state;
	unsigned char early[4096], rec[1024];
	uint32_t early_len, n;
	uint64_t before, grown;

	handshake(f);
	open_kernel_stream(f);
	/* what one more event costs: its record and its metadata (same-length name) */
	assert_int_equal(hvt_vm_flush(&f->vm), 0);
	before = f->vm.bytes;
	register_event(f, 2, "lat2");
	assert_int_equal(hvt_vm_flush(&f->vm), 0);
	grown = f->vm.bytes - before;
	early_len = hvt_test_wire_packet_of(f->uuid, 1, early);
	guest_send(f, HVT_W_PACKET, 7, early, early_len);
	n = make_record(rec, 1, "late");
	f->vm.limits.byte_quota = f->vm.bytes + grown + early_len - 1;
	guest_send(f, HVT_W_REGISTRY, 0, rec, n);
	assert_int_equal(f->vm.state, HVT_VM_ENDED);
	assert_non_null(strstr(f->vm.end_reason, "byte quota"));
	assert_true(f->vm.bytes <= f->vm.limits.byte_quota);
	assert_int_equal(file_size(f, "kernel/stream-7"), 0);
}

static void test_events_past_content(void **state)
{
	garbage_events(*state, cut_last_payload,
		       "packet 0: event 2 at byte 142 (id 40): payload runs past content_size");
}

static void test_event_header_cut(void **state)
{
	garbage_events(*state, cut_last_header, "event 2 at byte 142 (id 31): truncated event header");
}

static void test_event_id_out_of_range(void **state)
{
	garbage_events(*state, id_out_of_range, "event 1 at byte 113 (id 2147483647): event id beyond any registry");
}

static void test_event_time_far_away(void **state)
{
	garbage_events(*state, time_far_away, "event 1 at byte 113 (id 40): timestamp far outside");
}

/*
 * metadata and info.json are brought up to date on the tick, but a packet is
 * only stored once they describe it.
 */
static void test_described_before_stored(void **state)
{
	struct fake *f = *state;
	struct hvt_w_stream_close sc = { 0, 1 };
	unsigned char rec[1024];
	uint32_t n;

	handshake(f);
	f->vm.next_sync_ns = INT64_MAX;
	open_kernel_stream(f);
	assert_false(file_has(f, "info.json", "kernel/stream-7"));
	assert_int_equal(file_size(f, "kernel/metadata"), -1);
	make_packet(f);
	guest_send(f, HVT_W_PACKET, 7, f->packet, f->packet_len);
	assert_int_equal(file_size(f, "kernel/stream-7"), f->packet_len);
	assert_true(file_has(f, "info.json", "kernel/stream-7"));
	assert_true(file_has(f, "kernel/metadata", "tick"));
	/* lagging, then caught up on the tick */
	n = make_record(rec, 1, "tock");
	guest_send(f, HVT_W_REGISTRY, 0, rec, n);
	guest_send(f, HVT_W_STREAM_CLOSE, 7, &sc, sizeof(sc));
	assert_false(file_has(f, "kernel/metadata", "tock"));
	assert_true(file_has(f, "info.json", "\"closed\": false"));
	hvt_vm_tick(&f->vm);
	assert_int_equal(f->vm.state, HVT_VM_RUNNING);
	assert_true(file_has(f, "kernel/metadata", "tock"));
	assert_true(file_has(f, "info.json", "\"closed\": true"));
}

/*
 * A tick that queued info.json's rewrite (for the thread, not on disk yet)
 * does not stand for the stream's listing: the first packet is written
 * only after an info.json that lists its stream is on disk. Read here
 * without waiting for the thread.
 */
static void test_listed_on_disk_before_first_packet(void **state)
{
	struct fake *f = *state;
	char path[512], *info;
	size_t len;

	handshake(f);
	f->vm.next_sync_ns = INT64_MAX;
	open_kernel_stream(f);
	hvt_vm_tick(&f->vm);	/* queued: the thread writes it within 50 ms */
	make_packet(f);
	guest_send(f, HVT_W_PACKET, 7, f->packet, f->packet_len);
	assert_int_equal(file_size(f, "kernel/stream-7"), f->packet_len);
	snprintf(path, sizeof(path), "%s/archive/vm/guest0/info.json", f->dir);
	assert_int_equal(hvt_read_file(path, 1 << 20, &info, &len), 0);
	assert_non_null(strstr(info, "kernel/stream-7"));
	free(info);
}

/*
 * A guest that registers its events one at a time, a packet after each:
 * the metadata file only grows (same inode, each step longer), declares
 * every event once, and its bytes count in the guest's quota. Before, each
 * registration rewrote the whole file: quadratic writes (3.35 GB for a
 * 39 MB archive) outside the quota.
 */
static void test_metadata_appended(void **state)
{
	struct fake *f = *state;
	const struct hvt_vm_trace *t = &f->vm.traces[0];
	unsigned char rec[1024];
	char path[512], name[32], *text, *p;
	struct stat st;
	ino_t ino = 0;
	off_t last = 0;
	size_t len, found;
	uint32_t id, n;

	handshake(f);
	f->vm.next_sync_ns = INT64_MAX;
	open_kernel_stream(f);
	make_packet(f);
	snprintf(path, sizeof(path), "%s/archive/vm/guest0/kernel/metadata", f->dir);
	for (id = 1; id <= 100; id++) {
		snprintf(name, sizeof(name), "ev%u", id);
		n = make_record(rec, id, name);
		guest_send(f, HVT_W_REGISTRY, 0, rec, n);
		guest_send(f, HVT_W_PACKET, 7, f->packet, f->packet_len);
		assert_int_equal(stat(path, &st), 0);
		if (id > 1)
			assert_true(st.st_ino == ino);	/* appended to, not replaced */
		assert_true(st.st_size > last);
		ino = st.st_ino;
		last = st.st_size;
	}
	assert_int_equal(f->vm.state, HVT_VM_RUNNING);
	assert_int_equal((uint64_t)last, t->metadata_bytes);
	assert_int_equal(f->vm.bytes, t->registry_bytes + t->metadata_bytes +
			 100 * (uint64_t)f->packet_len);
	assert_int_equal(hvt_read_file(path, 1 << 22, &text, &len), 0);
	assert_non_null(strstr(text, "/* CTF 1.8 */"));
	assert_null(strstr(strstr(text, "/* CTF 1.8 */") + 1, "/* CTF 1.8 */"));
	for (id = 0, found = 0; id <= 100; id++) {
		if (id)
			snprintf(name, sizeof(name), "name = \"ev%u\";", id);
		else
			snprintf(name, sizeof(name), "name = \"tick\";");
		p = strstr(text, name);
		found += p && !strstr(p + 1, name);
	}
	assert_int_equal(found, 101);
	free(text);
}

/* The metadata is in the byte quota: a registration it cannot pay for ends the link. */
static void test_metadata_quota(void **state)
{
	struct fake *f = *state;
	unsigned char rec[1024];
	uint32_t n;

	handshake(f);
	f->vm.next_sync_ns = INT64_MAX;
	open_kernel_stream(f);
	make_packet(f);
	guest_send(f, HVT_W_PACKET, 7, f->packet, f->packet_len);
	assert_int_equal(f->vm.state, HVT_VM_RUNNING);
	/* room for the next record and a packet, not for the record's declaration too */
	n = make_record(rec, 1, "costly");
	f->vm.limits.byte_quota = f->vm.bytes + n + f->packet_len + 8;
	guest_send(f, HVT_W_REGISTRY, 0, rec, n);
	guest_send(f, HVT_W_PACKET, 7, f->packet, f->packet_len);
	assert_int_equal(f->vm.state, HVT_VM_ENDED);
	assert_non_null(strstr(f->vm.why, "byte quota"));
	assert_non_null(strstr(f->vm.why, "metadata"));
}

static void test_guest_hangs_up(void **state)
{
	struct fake *f = *state;
	char *info;

	after_one_packet(f);
	/* while the link lasts, nothing has ended */
	info = read_info(f);
	assert_non_null(strstr(info, "\"finished\": false"));
	assert_null(strstr(info, "end_reason"));
	free(info);
	shutdown(f->guest, SHUT_WR);
	hvt_vm_readable(&f->vm);
	expect_ended(f, "before it finished");
	assert_false(f->vm.finished);
	info = read_info(f);
	assert_non_null(strstr(info, "\"finished\": false"));
	assert_non_null(strstr(info, "\"end_reason\": \"guest disconnected before it finished\""));
	free(info);
}

static void test_guest_hangs_up_before_hello(void **state)
{
	struct fake *f = *state;

	shutdown(f->guest, SHUT_WR);
	hvt_vm_readable(&f->vm);
	assert_int_equal(f->vm.state, HVT_VM_ENDED);
	assert_string_equal(f->vm.end_reason, "guest disconnected before it said hello");
	assert_false(f->vm.finished);
}

#define JUMP 1000000000ull

/* Offsets of two PARAMS differ by @d, give or take the host clock line's move. */
static void assert_moved(uint64_t before, uint64_t after, uint64_t d)
{
	assert_true(after - before > d - 2000000ull);
	assert_true(after - before < d + 2000000ull);
}

/*
 * The guest's TSC jumps by 10^9 ticks (a pause under TCG): the first
 * exchange that contradicts the old offset starts a burst into an empty
 * fit, after which the guest gets a new transform, 10^9 further on. A
 * second jump during a burst restarts it; a jump right after a resync waits
 * for the hold-off. A refresh is sent when its time comes.
 */
static void test_clock_change_resync(void **state)
{
	struct fake *f = *state;
	struct hvt_frame fr;
	uint64_t first, second;

	guest_send(f, HVT_W_HELLO, 0, &(struct hvt_w_hello){ .version = HVT_WIRE_VERSION,
		   .nr_cpus = 2, .tsc_khz = 2000000 }, sizeof(struct hvt_w_hello));
	host_frame(f, HVT_W_WELCOME);
	answer_syncs(f, HVT_SYNC_BURST);
	fr = host_frame(f, HVT_W_PARAMS);
	first = params_offset(&fr);
	host_frame(f, HVT_W_START);
	assert_int_equal(f->vm.params_sent, 1);

	f->vm.next_sync_ns = 0;
	f->vm.next_params_ns = INT64_MAX;
	hvt_vm_tick(&f->vm);
	answer_syncs_at(f, 1, 5000 + JUMP);		/* contradicts: a burst starts */
	assert_int_equal(f->vm.resyncs, 1);
	assert_true(f->vm.resync);
	answer_syncs_at(f, HVT_SYNC_BURST - 1, 5000 + JUMP);
	answer_syncs_at(f, 1, 5000 + 2 * JUMP);		/* and again, within the burst */
	assert_true(f->vm.resync);
	answer_syncs_at(f, HVT_SYNC_BURST, 5000 + 2 * JUMP);	/* the burst again */
	fr = host_frame(f, HVT_W_PARAMS);
	second = params_offset(&fr);
	assert_false(f->vm.resync);
	assert_int_equal(f->vm.resyncs, 1);
	assert_int_equal(f->vm.params_sent, 2);
	assert_moved(first, second, 2 * JUMP);

	/* Another jump at once: held off, no burst, no transform. */
	f->vm.next_sync_ns = 0;
	hvt_vm_tick(&f->vm);
	answer_syncs_at(f, 1, 5000 + 3 * JUMP);
	assert_false(f->vm.resync);
	assert_int_equal(f->vm.resyncs, 1);
	/* Once the hold-off is over, the next exchange starts it. */
	f->vm.next_resync_ns = 0;
	f->vm.next_sync_ns = 0;
	hvt_vm_tick(&f->vm);
	answer_syncs_at(f, 1, 5000 + 3 * JUMP);
	assert_true(f->vm.resync);
	assert_int_equal(f->vm.resyncs, 2);
	answer_syncs_at(f, HVT_SYNC_BURST, 5000 + 3 * JUMP);
	fr = host_frame(f, HVT_W_PARAMS);
	assert_moved(second, params_offset(&fr), JUMP);

	/* The refresh: due, with a consistent fit and nothing outstanding. */
	f->vm.next_sync_ns = INT64_MAX;
	f->vm.next_params_ns = 0;
	hvt_vm_tick(&f->vm);
	host_frame(f, HVT_W_PARAMS);
	assert_int_equal(f->vm.params_sent, 4);
	assert_int_equal(f->vm.state, HVT_VM_RUNNING);
}

/*
 * A guest clock that never keeps a constant offset (here each reply a JUMP
 * further ahead, a TSC far faster than it says): the collector tries
 * HVT_RESYNC_MAX_BURSTS bursts, then gives up until the hold-off ends; the
 * link is not turned into a stream of exchanges (before: burst after burst,
 * 600 k exchanges in 20 s).
 */
static void test_clock_never_settles(void **state)
{
	struct fake *f = *state;
	uint64_t ahead = 5000;
	unsigned int replies = 0;

	handshake(f);
	f->vm.next_params_ns = INT64_MAX;
	f->vm.next_sync_ns = 0;
	hvt_vm_tick(&f->vm);
	while (f->vm.sync_outstanding) {
		ahead += JUMP;
		answer_syncs_at(f, 1, ahead);
		assert_true(++replies <= HVT_RESYNC_MAX_BURSTS * (HVT_SYNC_BURST + 1) + 1);
	}
	assert_int_equal(replies, 1 + HVT_RESYNC_MAX_BURSTS * HVT_SYNC_BURST);
	assert_false(f->vm.resync);
	assert_int_equal(f->vm.resyncs, 1);
	assert_int_equal(f->vm.resyncs_abandoned, 1);
	assert_int_equal(f->vm.params_sent, 1);		/* the first transform stays */
	assert_int_equal(f->vm.state, HVT_VM_RUNNING);
	/* The next exchange at its period contradicts again: held off, no burst. */
	f->vm.next_sync_ns = 0;
	hvt_vm_tick(&f->vm);
	answer_syncs_at(f, 1, ahead + JUMP);
	assert_false(f->vm.sync_outstanding);
	assert_false(f->vm.resync);
	f->vm.next_sync_ns = INT64_MAX;
	hvt_vm_tick(&f->vm);
	assert_true(file_has(f, "info.json", "\"clock_unsettled\": 1"));
}

static uint32_t params_flags(const struct hvt_frame *fr)
{
	struct hvt_w_params p;

	memcpy(&p, fr->payload, sizeof(p));
	return p.params.flags;
}

/*
 * KVM's offset from debugfs goes to the tracing guest at once, flagged
 * exact, when the exchanges allow it (guest 5000 ahead: 5050 lies within
 * what they allow); an offset they rule out gives the estimate instead. An
 * unchanged offset sends nothing.
 */
static void test_kvm_offset_params(void **state)
{
	struct fake *f = *state;
	struct hvt_frame fr;
	unsigned int sent;

	handshake(f);
	hvt_vm_kvm_offset(&f->vm, true, 5050);
	fr = host_frame(f, HVT_W_PARAMS);
	assert_int_equal(params_flags(&fr), HVT_CLOCK_P_EXACT);
	assert_true(f->vm.params_exact);
	sent = f->vm.params_sent;
	hvt_vm_kvm_offset(&f->vm, true, 5050);
	assert_int_equal(f->vm.params_sent, sent);

	hvt_vm_kvm_offset(&f->vm, true, 5000 + JUMP);	/* e.g. a debugfs showing nothing */
	fr = host_frame(f, HVT_W_PARAMS);
	assert_int_equal(params_flags(&fr), HVT_CLOCK_P_ESTIMATED);
	assert_false(f->vm.params_exact);
	assert_true(f->vm.kvm_contradicted);

	hvt_vm_kvm_offset(&f->vm, false, 0);		/* vCPUs differ: the estimate */
	fr = host_frame(f, HVT_W_PARAMS);
	assert_int_equal(params_flags(&fr), HVT_CLOCK_P_ESTIMATED);
}

static bool exists(const struct fake *f, const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/archive/vm/%s", f->dir, rel);
	return access(path, F_OK) == 0;
}

/*
 * The tick's rewrite of info.json runs on a thread of its own; one that
 * fails ends the VM at the next tick, as a rewrite on the collector's own
 * thread did, and nothing written before it is lost.
 */
static void test_tick_rewrite_failure(void **state)
{
	struct fake *f = *state;
	struct hvt_w_untraced u = { .pid = 4711, .uid = 1000, .reason = HVT_UNTRACED_UID_SHARE,
				    .comm = "worker" };
	char path[512];

	after_one_packet(f);
	hvt_vm_tick(&f->vm);
	assert_true(file_has(f, "info.json", "\"packets\": 1"));
	/* rename() cannot replace a directory that is not empty */
	snprintf(path, sizeof(path), "%s/archive/vm/guest0/info.json", f->dir);
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/archive/vm/guest0/info.json/x", f->dir);
	assert_int_equal(hvt_mkdir_p(path), 0);
	guest_send(f, HVT_W_UNTRACED, 0, &u, sizeof(u));	/* info.json lags */
	hvt_vm_tick(&f->vm);
	assert_int_equal(hvt_vm_settle(&f->vm), -1);
	assert_int_equal(f->vm.state, HVT_VM_RUNNING);	/* not known to the link yet */
	hvt_vm_tick(&f->vm);
	expect_ended(f, "cannot write info.json");	/* the stored packet stays */
}

/*
 * A VM that cannot be set up takes back what it made and nothing else:
 * a second VM of the same name is refused and leaves the first one's
 * files as they were; one whose info.json cannot be written leaves no
 * sync.tsv. ASan's leak check sees the frame reader and the open file.
 */
static void test_init_refused(void **state)
{
	struct fake *f = *state;
	struct hvt_vm vm;
	char err[512], path[256];
	struct stat st;

	assert_int_equal(hvt_vm_init(&vm, &f->ar, "guest0", 0, "tcg", &test_limits, err,
				     sizeof(err)), -1);
	assert_non_null(strstr(err, "guest0/sync.tsv: File exists"));
	snprintf(path, sizeof(path), "%s/archive/vm/guest0/sync.tsv", f->dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, strlen(HVT_SYNC_TSV_HEADER "\n"));
	assert_true(exists(f, "guest0/info.json"));

	snprintf(path, sizeof(path), "%s/archive/vm/guest1/info.json/x", f->dir);
	assert_int_equal(hvt_mkdir_p(path), 0);	/* rename() cannot replace it */
	assert_int_equal(hvt_vm_init(&vm, &f->ar, "guest1", 0, "tcg", &test_limits, err,
				     sizeof(err)), -1);
	assert_non_null(strstr(err, "guest1/info.json"));
	assert_false(exists(f, "guest1/sync.tsv"));
	assert_true(exists(f, "guest1/info.json/x"));

	assert_int_equal(hvt_vm_init(&vm, &f->ar, "guest2", 0, "tcg", &test_limits, err,
				     sizeof(err)), 0);
	assert_true(exists(f, "guest2/sync.tsv"));
	hvt_vm_end(&vm, "test over");
	hvt_vm_free(&vm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_full_recording, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clock_change_resync, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tick_rewrite_failure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_listed_on_disk_before_first_packet, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_clock_never_settles, setup, teardown),
		cmocka_unit_test_setup_teardown(test_metadata_appended, setup, teardown),
		cmocka_unit_test_setup_teardown(test_metadata_quota, setup, teardown),
		cmocka_unit_test_setup_teardown(test_packet_before_its_registry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_packet_after_stream_close, setup, teardown),
		cmocka_unit_test_setup_teardown(test_registry_after_stream_close, setup, teardown),
		cmocka_unit_test_setup_teardown(test_packet_never_registered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pending_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_events_past_content, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pending_in_quota, setup, teardown),
		cmocka_unit_test_setup_teardown(test_waiting_packet_found_damaged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_header_cut, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_id_out_of_range, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_time_far_away, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kvm_offset_params, setup, teardown),
		cmocka_unit_test_setup_teardown(test_garbage_bytes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_packet_of_another_trace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_packet_sizes_lie, setup, teardown),
		cmocka_unit_test_setup_teardown(test_packet_padded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_packet_of_another_cpu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_packet_of_another_instance, setup, teardown),
		cmocka_unit_test_setup_teardown(test_packet_for_unknown_stream, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream_id_out_of_range, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trace_pid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_untraced_recorded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_untraced_threads_of_unknown_trace, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_kernel_trace_pid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_guest_claims_host_tsc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_apps_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_untraced_threads_impossible, setup, teardown),
		cmocka_unit_test_setup_teardown(test_untraced_threads_huge, setup, teardown),
		cmocka_unit_test_setup_teardown(test_packet_leaves_info_to_tick, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_apps_not_traced_said, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream_fd_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_registry_garbage, setup, teardown),
		cmocka_unit_test_setup_teardown(test_registry_resent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_registry_redefined, setup, teardown),
		cmocka_unit_test_setup_teardown(test_registry_quota, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unsolicited_sync_reply, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sync_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sync_timeout_given, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sync_timeout_in_burst, setup, teardown),
		cmocka_unit_test_setup_teardown(test_log_frame, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trace_before_start, setup, teardown),
		cmocka_unit_test_setup_teardown(test_quota, setup, teardown),
		cmocka_unit_test_setup_teardown(test_described_before_stored, setup, teardown),
		cmocka_unit_test_setup_teardown(test_guest_hangs_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream_quota, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rate_quota, setup, teardown),
		cmocka_unit_test_setup_teardown(test_log_flood, setup, teardown),
		cmocka_unit_test_setup_teardown(test_guest_hangs_up_before_hello, setup, teardown),
		cmocka_unit_test_setup_teardown(test_init_refused, setup, teardown),
	};

	return cmocka_run_group_tests_name("vm_link", tests, NULL, NULL);
}
