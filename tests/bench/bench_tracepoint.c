// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_tracepoint.c - the user tracepoint write path as an application
 * pays it: the shared libhvtrace (its TLS model and calls between its
 * objects are what differ from a static link), a clock page so the clock is
 * RDTSCP as in a guest with the module, and an agent that keeps consuming,
 * so no event takes the cheaper discard path.
 *
 * The library is the build's libhvtrace.so.1, loaded with dlopen() because
 * the bench binary carries no run path. The call sites are the real
 * HVT_TRACEPOINT_EVENT inline functions; their calls into the library go
 * through the functions below, each one indirect jump through a pointer:
 * the same instruction shape as a call through the PLT.
 *
 * The agent is a thread of this process: it answers the application
 * protocol (docs/format.md, section 6) and releases every closed packet
 * about once a millisecond; the 64 MiB buffer takes tens of milliseconds to
 * fill, so a briefly descheduled agent costs no events.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <x86intrin.h>
#include <hvtrace/app_proto.h>
#include <hvtrace/clock_page.h>
#include <hvtrace/hvtrace.h>
#include <hvtrace/ringbuf.h>
#include <hvtrace/wire.h>

#include "lib/fdpass.h"
#include "tests/bench/bench.h"

#define N 2000000ull
#define MAX_STREAMS 8

HVT_TRACEPOINT_EVENT(bench, three,
	HVT_PROTO(uint64_t a, uint64_t b, uint64_t c),
	HVT_ARGS(a, b, c),
	HVT_FIELDS((int, uint64_t, a), (int, uint64_t, b), (int, uint64_t, c)),
	HVT_ASSIGN(__entry->a = a; __entry->b = b; __entry->c = c;),
	HVT_PRINT("a=%lu b=%lu c=%lu"))

HVT_TRACEPOINT_EVENT(bench, off,
	HVT_PROTO(uint64_t a),
	HVT_ARGS(a),
	HVT_FIELDS((int, uint64_t, a)),
	HVT_ASSIGN(__entry->a = a;),
	HVT_PRINT("a=%lu"))

/* ---- the library, loaded at run time ---- */

static void (*p_register)(struct hvt_event *);
static void (*p_unregister)(struct hvt_event *);
static void *(*p_reserve)(struct hvt_event *, unsigned int, struct hvt_write *);
static void (*p_commit)(struct hvt_write *);
static uint64_t (*p_clock_read)(void);

static void die(const char *what)
{
	fprintf(stderr, "bench_tracepoint: %s\n", what);
	exit(1);
}

/* ---- the agent ---- */

static char dir[] = "/tmp/hvtrace-bench-tp-XXXXXX";
static int listen_fd = -1;
static pthread_t agent_thread;
static volatile int agent_stop;

struct stream {
	const struct hvt_rb_prod *prod;
	size_t map_size;
	struct hvt_rb_cons *cons;
};

static struct stream streams[MAX_STREAMS];
static unsigned int nr_streams;

static void reply(int fd, uint16_t type, uint32_t id, const void *p, uint32_t len, int pass)
{
	if (hvt_app_send(fd, type, id, p, len, pass, 0))
		die("agent: cannot reply");
}

static void on_stream(int conn, const struct hvt_app_hdr *h, const void *p, int memfd)
{
	struct hvt_a_stream m;
	struct stream *s;
	int cfd;

	if (h->len != sizeof(m) || memfd < 0 || nr_streams == MAX_STREAMS)
		die("agent: bad STREAM");
	memcpy(&m, p, sizeof(m));
	s = &streams[nr_streams];
	s->map_size = m.map_size;
	s->prod = mmap(NULL, m.map_size, PROT_READ, MAP_SHARED, memfd, 0);
	cfd = memfd_create("bench-consumer", MFD_CLOEXEC);
	if (s->prod == MAP_FAILED || cfd < 0 || ftruncate(cfd, 4096))
		die("agent: cannot map a buffer");
	s->cons = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, cfd, 0);
	if (s->cons == MAP_FAILED)
		die("agent: cannot map the consumer page");
	/* Published before the ACK: the thread writes only after it. */
	__atomic_store_n(&nr_streams, nr_streams + 1, __ATOMIC_RELEASE);
	reply(conn, HVT_A_STREAM_ACK, h->id, NULL, 0, cfd);
	close(cfd);
}

/* One message; 0 once the application hung up. */
static int serve(int conn)
{
	static union { struct hvt_app_hdr h; unsigned char b[HVT_APP_MAX_MSG]; } m;
	struct hvt_app_hdr h;
	int fd, r = hvt_app_recv(conn, &m, sizeof(m), MSG_DONTWAIT, &h, &fd);

	if (r == 0)
		return 0;	/* the application hung up */
	if (r == -1)
		return 1;	/* nothing yet */
	if (r != 1)
		die("agent: malformed message");
	if (h.type == HVT_A_HELLO) {
		struct hvt_a_welcome w = { HVT_APP_VERSION, 1 };

		reply(conn, HVT_A_WELCOME, 0, &w, sizeof(w), -1);
	} else if (h.type == HVT_A_STREAM) {
		on_stream(conn, &h, m.b + sizeof(h), fd);
	}
	if (fd >= 0)
		close(fd);
	return 1;
}

static void *agent(void *arg)
{
	int conn = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
	int open = 1;

	(void)arg;
	if (conn < 0)
		die("agent: accept failed");
	while (!__atomic_load_n(&agent_stop, __ATOMIC_ACQUIRE)) {
		struct pollfd p = { conn, POLLIN, 0 };
		unsigned int i;

		if (open && poll(&p, 1, 1) > 0)
			open = serve(conn);
		else if (!open)
			usleep(1000);
		for (i = 0; i < __atomic_load_n(&nr_streams, __ATOMIC_ACQUIRE); i++)
			hvt_store_release(&streams[i].cons->consumed,
					  hvt_load_acquire(&streams[i].prod->produced));
	}
	close(conn);
	return NULL;
}

/* A clock page as the module publishes it, so the library reads the TSC. */
static void write_clock_page(const char *path)
{
	static struct hvt_clock_page page;
	FILE *f = fopen(path, "w");

	page.magic = HVT_CLOCK_PAGE_MAGIC;
	page.version = HVT_CLOCK_PAGE_VERSION;
	page.tsc_khz = 2000000;
	if (!f || fwrite(&page, sizeof(page), 1, f) != 1 ||
	    fseek(f, HVT_CLOCK_PAGE_SIZE - 1, SEEK_SET) || fputc(0, f) == EOF || fclose(f))
		die("cannot write a clock page");
}

/* Runs once, from the first event's constructor: agent first, then the library. */
static void load(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char exe[PATH_MAX], lib[PATH_MAX + 32], page[64];
	ssize_t n;
	void *h;

	if (p_register)
		return;
	if (!mkdtemp(dir))
		die("cannot create a temporary directory");
	snprintf(page, sizeof(page), "%s/page", dir);
	write_clock_page(page);
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/agent.sock", dir);
	listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (listen_fd < 0 || bind(listen_fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    listen(listen_fd, 1) || pthread_create(&agent_thread, NULL, agent, NULL))
		die("cannot start the agent");
	setenv("HVTRACE_DEVICE", page, 1);
	setenv(HVT_APP_SOCKET_ENV, addr.sun_path, 1);
	setenv("HVTRACE_SUBBUF_SIZE", "1048576", 1);
	setenv("HVTRACE_NR_SUBBUFS", "64", 1);

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		die("cannot find this program");
	exe[n] = '\0';
	snprintf(lib, sizeof(lib), "%s/../libhvtrace.so.1", dirname(exe));
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "bench_tracepoint: %s\n", dlerror());
		exit(1);
	}
	p_reserve = (void *(*)(struct hvt_event *, unsigned int, struct hvt_write *))
		    dlsym(h, "hvt_event_reserve");
	p_commit = (void (*)(struct hvt_write *))dlsym(h, "hvt_event_commit");
	p_clock_read = (uint64_t (*)(void))dlsym(h, "hvt_clock_read");
	p_register = (void (*)(struct hvt_event *))dlsym(h, "hvt_event_register");
	p_unregister = (void (*)(struct hvt_event *))dlsym(h, "hvt_event_unregister");
	if (!p_reserve || !p_commit || !p_clock_read || !p_register || !p_unregister)
		die("libhvtrace lacks an exported function");
}

void hvt_event_register(struct hvt_event *event)
{
	load();
	p_register(event);
}

void hvt_event_unregister(struct hvt_event *event)
{
	p_unregister(event);
}

void *hvt_event_reserve(struct hvt_event *event, unsigned int size, struct hvt_write *w)
{
	return p_reserve(event, size, w);
}

void hvt_event_commit(struct hvt_write *w)
{
	p_commit(w);
}

int main(void)
{
	double rdtsc_ns, rdtscp_ns, gettime_ns, ns;
	uint64_t lost = 0, produced = 0;
	unsigned int i;
	char cmd[64];

	BENCH_NS_PER_OP(rdtsc_ns, N, bench_sink += __rdtsc());
	BENCH_NS_PER_OP(rdtscp_ns, N, {
		unsigned int aux;

		bench_sink += __rdtscp(&aux) + aux;
	});
	BENCH_NS_PER_OP(gettime_ns, N / 4, {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		bench_sink += (uint64_t)ts.tv_nsec;
	});
	if (!hvt_event_bench_three.enabled)
		die("events are not enabled: the library did not reach the agent");
	hvt_event_bench_off.enabled = 0;

	bench_header("libhvtrace (shared): user tracepoints, RDTSCP clock");
	BENCH_NS_PER_OP(ns, N, bench_sink += p_clock_read());
	bench_row("hvt_clock_read()", ns, "rdtsc", rdtsc_ns);
	BENCH_NS_PER_OP(ns, N, hvt_tracepoint(bench, off, i_));
	bench_row("tracepoint, disabled", ns, "rdtsc", rdtsc_ns);
	BENCH_NS_PER_OP(ns, N, hvt_tracepoint(bench, three, i_, 2 * i_, 3 * i_));
	bench_row("tracepoint, enabled, 3 x u64", ns, "rdtscp", rdtscp_ns);
	bench_row("tracepoint, enabled, 3 x u64", ns, "clock_gettime(MONOTONIC)", gettime_ns);

	__atomic_store_n(&agent_stop, 1, __ATOMIC_RELEASE);
	pthread_join(agent_thread, NULL);
	for (i = 0; i < nr_streams; i++) {
		lost += hvt_load_acquire(&streams[i].prod->lost);
		produced += hvt_load_acquire(&streams[i].prod->produced);
	}
	printf("%llu packets closed, %llu events discarded%s\n", (unsigned long long)produced,
	       (unsigned long long)lost,
	       lost ? " (the agent fell behind: the enabled rows include the discard path)" : "");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? 1 : 0;
}
