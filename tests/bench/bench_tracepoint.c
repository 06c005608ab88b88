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
 *
 * With HVT_BENCH_HOST=1 there is no clock page: the library runs as on the
 * host, on the TSC read without the page (HVT_CLOCK_TSC, where the kernel
 * keeps the TSC as its clocksource), and only the clock and single-thread
 * rows are measured. make bench runs both.
 *
 * The table has the targets in its last column. LTTng-UST's cost for
 * the same event comes from tests/bench/lttng_ref.sh, which `make bench`
 * runs just before and whose result file HVT_BENCH_LTTNG names; without it
 * that row says "not measured".
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <x86intrin.h>
#include <hvtrace/app_proto.h>
#include <hvtrace/hvtrace.h>
#include <hvtrace/ringbuf.h>
#include <hvtrace/wire.h>

#include "lib/fdpass.h"
#include "tests/bench/bench.h"
#include "tests/common/clock_page_file.h"

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
static int (*p_clock_info)(struct hvt_clock_info *);

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
	/* sealed as the agent seals it: the library refuses any other */
	cfd = memfd_create("bench-consumer", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (s->prod == MAP_FAILED || cfd < 0 || ftruncate(cfd, 4096) ||
	    fcntl(cfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL))
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
		/* as the agent does: the writers' wakeup per packet is part of the path */
		int wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

		if (wake < 0)
			die("agent: no eventfd");
		reply(conn, HVT_A_WELCOME, 0, &w, sizeof(w), wake);
		close(wake);	/* the application holds it; its count is not read */
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

/* HVT_BENCH_HOST=1: no clock page, the library as on the host. */
static int host_mode(void)
{
	const char *v = getenv("HVT_BENCH_HOST");

	return v && !strcmp(v, "1");
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
	if (hvt_test_write_clock_page(page, 2000000))
		die("cannot write a clock page");
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/agent.sock", dir);
	listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (listen_fd < 0 || bind(listen_fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    listen(listen_fd, 1) || pthread_create(&agent_thread, NULL, agent, NULL))
		die("cannot start the agent");
	setenv("HVTRACE_DEVICE", host_mode() ? "/nonexistent" : page, 1);
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
	p_clock_info = (int (*)(struct hvt_clock_info *))dlsym(h, "hvt_clock_info");
	p_register = (void (*)(struct hvt_event *))dlsym(h, "hvt_event_register");
	p_unregister = (void (*)(struct hvt_event *))dlsym(h, "hvt_event_unregister");
	if (!p_reserve || !p_commit || !p_clock_read || !p_clock_info || !p_register ||
	    !p_unregister)
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

/* Events the library discarded so far, over every thread's buffer. */
static uint64_t discarded(void)
{
	unsigned int i, n = __atomic_load_n(&nr_streams, __ATOMIC_ACQUIRE);
	uint64_t lost = 0;

	for (i = 0; i < n; i++)
		lost += hvt_load_acquire(&streams[i].prod->lost);
	return lost;
}

/* ---- two threads on two CPUs ---- */

struct emitter {
	pthread_t thread;
	double start[BENCH_ROUNDS], end[BENCH_ROUNDS];
};

static pthread_barrier_t round_start, round_end;

/*
 * Each thread times its own rounds: the main thread may wait for a CPU
 * while both are busy, so its clock would start late.
 */
static void *emit(void *arg)
{
	struct emitter *e = arg;
	int r;

	hvt_tracepoint(bench, three, 0, 0, 0);	/* creates this thread's buffer, untimed */
	for (r = 0; r < BENCH_ROUNDS; r++) {
		pthread_barrier_wait(&round_start);
		e->start[r] = bench_now();
		for (uint64_t i = 0; i < N; i++)
			hvt_tracepoint(bench, three, i, 2 * i, 3 * i);
		e->end[r] = bench_now();
		pthread_barrier_wait(&round_end);
	}
	return NULL;
}

static void start_emitter(struct emitter *e, int cpu)
{
	pthread_attr_t attr;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_attr_init(&attr) || pthread_attr_setaffinity_np(&attr, sizeof(set), &set) ||
	    pthread_create(&e->thread, &attr, emit, e))
		die("cannot start a thread on its CPU");
	pthread_attr_destroy(&attr);
}

/* Events per second of @nr threads, thread k on CPU k: the best round's first start to last end. */
static double throughput(int nr)
{
	struct emitter e[2];
	double best = 1e300;
	int k, r;

	pthread_barrier_init(&round_start, NULL, (unsigned int)nr + 1);
	pthread_barrier_init(&round_end, NULL, (unsigned int)nr + 1);
	for (k = 0; k < nr; k++)
		start_emitter(&e[k], k);
	for (r = 0; r < BENCH_ROUNDS; r++) {
		pthread_barrier_wait(&round_start);
		pthread_barrier_wait(&round_end);
	}
	for (k = 0; k < nr; k++)
		pthread_join(e[k].thread, NULL);
	for (r = 0; r < BENCH_ROUNDS; r++) {
		double t0 = e[0].start[r], t1 = e[0].end[r];

		for (k = 1; k < nr; k++) {
			t0 = e[k].start[r] < t0 ? e[k].start[r] : t0;
			t1 = e[k].end[r] > t1 ? e[k].end[r] : t1;
		}
		best = t1 - t0 < best ? t1 - t0 : best;
	}
	pthread_barrier_destroy(&round_start);
	pthread_barrier_destroy(&round_end);
	return (double)nr * (double)N / best * 1e9;
}

static int have_two_cpus(void)
{
	cpu_set_t set;

	return !sched_getaffinity(0, sizeof(set), &set) && CPU_ISSET(0, &set) && CPU_ISSET(1, &set);
}

/* ---- the LTTng-UST reference, measured by tests/bench/lttng_ref.sh ---- */

struct lttng_ref {
	double enabled_ns, disabled_ns;
	unsigned long long emitted, recorded, discarded;
	char version[32];
};

/* 1 if HVT_BENCH_LTTNG names a complete result of this run. */
static int read_lttng(struct lttng_ref *r)
{
	const char *path = getenv("HVT_BENCH_LTTNG");
	char line[128];
	int keys = 0;
	FILE *f;

	if (!path || !(f = fopen(path, "r")))
		return 0;
	while (fgets(line, sizeof(line), f))
		keys += sscanf(line, "enabled_ns=%lf", &r->enabled_ns) +
			sscanf(line, "disabled_ns=%lf", &r->disabled_ns) +
			sscanf(line, "emitted=%llu", &r->emitted) +
			sscanf(line, "recorded=%llu", &r->recorded) +
			sscanf(line, "discarded=%llu", &r->discarded) +
			sscanf(line, "version=%31s", r->version);
	fclose(f);
	return keys == 6;
}

/* ---- the table ---- */

/*
 * bench_row()'s shape with the target, if the row has one, and
 * whether this run met it.
 */
static void header(const char *title)
{
	printf("\n%s\n%-40s %10s  %-30s %9s %6s  %s\n", title, "operation", "hvtrace ns",
	       "reference", "ref ns", "ratio", "target");
}

static void row(const char *op, double ns, const char *ref, double ref_ns, const char *target,
		int met)
{
	printf("%-40s %10.2f  %-30s %9.2f %6.2f  %s%s\n", op, ns, ref, ref_ns, ns / ref_ns,
	       target ? target : "", target ? (met ? ": met" : ": NOT met") : "");
}

struct refs {
	double rdtsc_ns, rdtscp_ns, gettime_ns;
};

static void measure_refs(struct refs *r)
{
	BENCH_NS_PER_OP(r->rdtsc_ns, N, bench_sink += __rdtsc());
	BENCH_NS_PER_OP(r->rdtscp_ns, N, {
		unsigned int aux;

		bench_sink += __rdtscp(&aux) + aux;
	});
	BENCH_NS_PER_OP(r->gettime_ns, N / 4, {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		bench_sink += (uint64_t)ts.tv_nsec;
	});
}

static void clock_rows(const struct refs *r)
{
	double ns;

	BENCH_NS_PER_OP(ns, N, bench_sink += p_clock_read());
	row("hvt_clock_read()", ns, "rdtsc", r->rdtsc_ns, NULL, 0);
	row("hvt_clock_read()", ns, "clock_gettime(MONOTONIC)", r->gettime_ns,
	    "ratio <= 0.7", ns <= 0.7 * r->gettime_ns);
}

/*
 * The library turns its events off when the agent's answers do not suit it
 * (a consumer page it refuses, say): a row timed then measures the
 * disabled path. No row is printed from such a run.
 */
static void still_recording(const char *what)
{
	unsigned int n = __atomic_load_n(&nr_streams, __ATOMIC_ACQUIRE);
	char why[160];

	if (hvt_event_bench_three.enabled && n && hvt_load_acquire(&streams[n - 1].prod->produced))
		return;
	snprintf(why, sizeof(why), "%s: no event reached a buffer (the library turned its events "
		 "off; HVTRACE_DEBUG=1 says why)", what);
	die(why);
}

static void tracepoint_rows(const struct refs *r, const struct lttng_ref *lt, int have_lt)
{
	const char *on = "tracepoint, enabled, 3 x u64";
	char label[64];
	double ns;

	snprintf(label, sizeof(label), "LTTng-UST %s, recording", have_lt ? lt->version : "");
	BENCH_NS_PER_OP(ns, N, hvt_tracepoint(bench, off, i_));
	row("tracepoint, disabled", ns, "rdtsc", r->rdtsc_ns, "< 1 ns", ns < 1.0);
	if (have_lt)
		row("tracepoint, disabled", ns, "LTTng-UST, disabled", lt->disabled_ns, NULL, 0);

	BENCH_NS_PER_OP(ns, N, hvt_tracepoint(bench, three, i_, 2 * i_, 3 * i_));
	still_recording("the enabled tracepoint row");
	row(on, ns, "rdtsc", r->rdtsc_ns, NULL, 0);
	row(on, ns, "rdtscp", r->rdtscp_ns, NULL, 0);
	row(on, ns, "clock_gettime(MONOTONIC)", r->gettime_ns, NULL, 0);
	if (have_lt)
		row(on, ns, label, lt->enabled_ns, "ratio <= 0.2", ns <= 0.2 * lt->enabled_ns);
	else
		printf("%-40s %10.2f  LTTng-UST: not measured (HVT_BENCH_LTTNG; make bench)  "
		       "ratio <= 0.2: NOT measured\n", on, ns);
}

static void scaling_row(void)
{
	uint64_t lost = discarded();
	double one, two;
	char target[64];

	if (!have_two_cpus()) {
		printf("2 threads on CPUs 0 and 1: skipped, this process may not run on both\n");
		return;
	}
	one = throughput(1);
	two = throughput(2);
	still_recording("the two-thread row");
	lost = discarded() - lost;
	snprintf(target, sizeof(target), "events/s %.2f x >= 1.8", two / one);
	row("enabled 3 x u64, 2 threads (CPU 0, 1)", 1e9 / two, "1 thread (CPU 0), ns/event",
	    1e9 / one, target, two >= 1.8 * one);
	printf("  %.1f M events/s with 2 threads, %.1f M with 1; %llu events discarded meanwhile%s\n",
	       two / 1e6, one / 1e6, (unsigned long long)lost,
	       lost ? " (the agent fell behind: the row includes the discard path)" : "");
}

static void lttng_line(const struct lttng_ref *lt, int have_lt)
{
	if (!have_lt)
		return;
	printf("LTTng-UST: %llu events emitted, %llu recorded in the trace, %llu discarded%s\n",
	       lt->emitted, lt->recorded, lt->discarded,
	       lt->discarded ? " (its row includes the cheaper discard path)" : "");
}

int main(void)
{
	struct lttng_ref lt = { 0 };
	int have_lt = read_lttng(&lt);
	uint64_t produced = 0, lost;
	struct refs r;
	unsigned int i;
	char cmd[64];

	measure_refs(&r);
	if (!hvt_event_bench_three.enabled)
		die("events are not enabled: the library did not reach the agent");
	hvt_event_bench_off.enabled = 0;

	if (host_mode()) {
		struct hvt_clock_info info;

		p_clock_info(&info);
		if (info.source != HVT_CLOCK_TSC) {
			printf("libhvtrace on the host: skipped, the kernel's clocksource is not "
			       "the TSC here (the library stays on CLOCK_MONOTONIC_RAW)\n");
		} else {
			header("libhvtrace (shared) on the host: the TSC without the module's "
			       "page");
			clock_rows(&r);
			tracepoint_rows(&r, &lt, have_lt);
		}
	} else {
		header("libhvtrace (shared): user tracepoints, TSC clock (RDTSC + rseq CPU)");
		clock_rows(&r);
		tracepoint_rows(&r, &lt, have_lt);
		scaling_row();
	}

	__atomic_store_n(&agent_stop, 1, __ATOMIC_RELEASE);
	pthread_join(agent_thread, NULL);
	lost = discarded();
	for (i = 0; i < nr_streams; i++)
		produced += hvt_load_acquire(&streams[i].prod->produced);
	lttng_line(&lt, have_lt);
	printf("hvtrace: %llu packets closed, %llu events discarded%s\n",
	       (unsigned long long)produced, (unsigned long long)lost,
	       lost ? " (the agent fell behind: the enabled rows include the discard path)" : "");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? 1 : 0;
}
