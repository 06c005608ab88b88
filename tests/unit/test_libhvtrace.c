// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_libhvtrace.c - libhvtrace as applications use it.
 *
 * The library decides its clock and connects to the agent once per process,
 * so each scenario runs in a child process (this binary, re-executed with a
 * scenario name). The test itself plays the agent, strictly: it checks every
 * message, maps the buffers as the agent does, and decodes what the child
 * wrote, including the packets it never closed.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>
#include <cmocka.h>
#include <hvtrace/app_proto.h>
#include <hvtrace/clock_page.h>
#include <hvtrace/hvtrace.h>
#include <hvtrace/ringbuf.h>
#include <hvtrace/wire.h>

#include "tests/common/tmpdir.h"
#include "lib/fdpass.h"
#include "lib/event_registry.h"
#include "lib/tsc.h"

HVT_TRACEPOINT_EVENT(t, three,
	HVT_PROTO(uint64_t a, uint64_t b, uint64_t c),
	HVT_ARGS(a, b, c),
	HVT_FIELDS((int, uint64_t, a), (int, uint64_t, b), (int, uint64_t, c)),
	HVT_ASSIGN(__entry->a = a; __entry->b = b; __entry->c = c;),
	HVT_PRINT("a=%lu b=%lu c=%lu"))

HVT_TRACEPOINT_EVENT(t, word,
	HVT_PROTO(const char *s),
	HVT_ARGS(s),
	HVT_FIELDS((text, s, 8)),
	HVT_ASSIGN(hvt_text_copy(__entry->s, s, sizeof(__entry->s));),
	HVT_PRINT("s=%s"))

static const char *const dir = hvt_test_dir;

/* ---- scenarios, run in a child process ---- */

#define CHILD_FAIL(...) do { fprintf(stderr, "child: " __VA_ARGS__); fputc('\n', stderr); \
			     return 1; } while (0)

static int scenario_clock_fallback(void)
{
	struct hvt_clock_info info;
	uint64_t a = hvt_clock_read(), b = hvt_clock_read();
	struct timespec ts;

	hvt_clock_info(&info);
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	if (info.source != HVT_CLOCK_MONOTONIC_RAW || info.freq_hz != 1000000000 || info.synced)
		CHILD_FAIL("fallback not reported");
	if (b < a || a > (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec)
		CHILD_FAIL("fallback clock is not CLOCK_MONOTONIC_RAW");
	if (hvt_clock_host_ns() != -1)
		CHILD_FAIL("host ns without a transform");
	return 0;
}

static int scenario_clock_page(void)
{
	struct hvt_clock_info info;
	uint64_t before, t, after;
	int64_t ns, lo, hi;

	hvt_clock_info(&info);
	if (info.source != HVT_CLOCK_GUEST_TSC || info.freq_hz != 2000000000ull || !info.synced ||
	    info.error_ns != 250 || info.generation != 7)
		CHILD_FAIL("clock info does not describe the page");
	before = __rdtsc();
	t = hvt_clock_read();
	after = __rdtsc();
	if (t < before || t > after)
		CHILD_FAIL("hvt_clock_read is not the TSC");
	/* page transform: ns = 1000 + (tsc - 0) / 2 */
	lo = 1000 + (int64_t)(__rdtsc() / 2);
	ns = hvt_clock_host_ns();
	hi = 1000 + (int64_t)(__rdtsc() / 2);
	if (ns < lo || ns > hi)
		CHILD_FAIL("host ns %lld not in [%lld, %lld]", (long long)ns, (long long)lo,
			   (long long)hi);
	return 0;
}

/* Whether the kernel's clocksource is the TSC: libhvtrace then reads it without a page. */
static int kernel_uses_tsc(void)
{
	char buf[16] = "";
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");

	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return !strcmp(buf, "tsc\n");
}

/*
 * No page, and the kernel keeps the TSC as its clocksource: the raw TSC
 * (the host's timeline on the host), its rate measured at the first
 * hvt_clock_info(), no host transform.
 */
static int scenario_clock_tsc(void)
{
	struct hvt_clock_info info;
	uint64_t before, t, after, hz;

	before = __rdtsc();
	t = hvt_clock_read();
	after = __rdtsc();
	if (t < before || t > after)
		CHILD_FAIL("hvt_clock_read is not the TSC");
	hvt_clock_info(&info);
	if (info.source != HVT_CLOCK_TSC || info.synced || info.error_ns != UINT64_MAX)
		CHILD_FAIL("clock info does not say TSC without a transform");
	hz = hvt_tsc_measure_hz(50000000);	/* the test's own measure, over 50 ms */
	if (info.freq_hz < hz - hz / 100 || info.freq_hz > hz + hz / 100)
		CHILD_FAIL("rate %llu Hz, where 50 ms measure %llu Hz",
			   (unsigned long long)info.freq_hz, (unsigned long long)hz);
	errno = 0;
	if (hvt_clock_host_ns() != -1 || errno != ENODATA)
		CHILD_FAIL("host ns without a transform");
	return 0;
}

/* A synced page whose per-CPU entry for this CPU was never written. */
static int scenario_clock_page_unset(void)
{
	struct hvt_clock_info info;

	hvt_clock_info(&info);
	if (info.source != HVT_CLOCK_GUEST_TSC || info.synced || info.error_ns != UINT64_MAX)
		CHILD_FAIL("an unset entry reads as synced (error %llu)",
			   (unsigned long long)info.error_ns);
	errno = 0;
	if (hvt_clock_host_ns() != -1 || errno != ENODATA)
		CHILD_FAIL("host ns from an unset entry");
	return 0;
}

static void *thread_body(void *arg)
{
	uint64_t i;

	(void)arg;
	for (i = 0; i < 50; i++)
		hvt_tracepoint(t, three, 1000 + i, 2 * (1000 + i), 3 * (1000 + i));
	return NULL;
}

/* Two threads (one exits early), and a forked child of its own. */
static int scenario_trace(void)
{
	pthread_t th;
	uint64_t i;
	pid_t pid;
	int status;

	for (i = 0; i < 100; i++)
		hvt_tracepoint(t, three, i, 2 * i, 3 * i);
	pthread_create(&th, NULL, thread_body, NULL);
	pthread_join(th, NULL);
	pid = fork();
	if (pid == 0) {
		for (i = 0; i < 10; i++)
			hvt_tracepoint(t, word, "child");
		_exit(0);
	}
	waitpid(pid, &status, 0);
	hvt_tracepoint(t, word, "end");
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

/* An event as a loaded library holds it: in memory that goes away with the library. */
struct lib_event {
	struct hvt_event ev;
	char name[16];
	char fmt[16];
	struct hvt_reg_field fields[1];
};

HVT_EVENT_FIELD_TABLE(fields_v, HVT_FIELDS((int, uint64_t, v)));

static struct lib_event *lib_event(const char *name)
{
	struct lib_event *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				   -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	strcpy(p->name, name);
	strcpy(p->fmt, "v=%lu");
	memcpy(p->fields, fields_v, sizeof(fields_v));
	p->ev = (struct hvt_event){ p->name, p->fields, 1, p->fmt, 8, 0, 0, NULL };
	return p;
}

/* Unregistering, as a library's destructors do before it is unmapped. */
static int scenario_unregister(void)
{
	struct lib_event *a = lib_event("lib:a"), *b = lib_event("lib:b");
	uint32_t id_a, id_word = hvt_event_t_word.id;

	if (!a || !b)
		CHILD_FAIL("mmap");
	hvt_event_register(&a->ev);
	id_a = a->ev.id;
	hvt_event_unregister(&a->ev);
	hvt_event_unregister(&a->ev);		/* twice: harmless */
	munmap(a, 4096);			/* the library is gone */
	hvt_event_register(&b->ev);		/* walks every registered event */
	if (b->ev.id == id_a)
		CHILD_FAIL("a retired id went to another event");
	a = lib_event("lib:a");			/* the library loaded again */
	hvt_event_register(&a->ev);
	if (a->ev.id != id_a)
		CHILD_FAIL("reloaded event got id %u, had %u", a->ev.id, id_a);
	/* what HVT_TRACEPOINT_EVENT generates */
	hvt_unregister_t_word();
	if (hvt_event_t_word.enabled)
		CHILD_FAIL("unregistered event still enabled");
	hvt_register_t_word();
	if (hvt_event_t_word.id != id_word)
		CHILD_FAIL("re-registered event got id %u, had %u", hvt_event_t_word.id, id_word);
	return 0;
}

/*
 * Copies of one name defined with layouts A, B, A (three translation
 * units): B stays disabled, and the second A shares the first A's id
 * rather than being compared with B.
 */
static int scenario_layouts(void)
{
	struct lib_event *a1 = lib_event("lib:l"), *b = lib_event("lib:l"), *a2 = lib_event("lib:l");

	if (!a1 || !b || !a2)
		CHILD_FAIL("mmap");
	strcpy(b->fmt, "v=%#lx");		/* another layout */
	hvt_event_register(&a1->ev);
	hvt_event_register(&b->ev);
	hvt_event_register(&a2->ev);
	if (a1->ev.id == UINT32_MAX || b->ev.id != UINT32_MAX || a2->ev.id != a1->ev.id)
		CHILD_FAIL("ids %u, %u, %u: want A's id, none, A's id", a1->ev.id, b->ev.id,
			   a2->ev.id);
	return 0;
}

/* A library with an event, loaded and unloaded three times (test_dlclose builds it). */
static int scenario_dlopen(void)
{
	const char *lib = getenv("HVT_TEST_LIBHVTRACE"), *plugin = getenv("HVT_TEST_PLUGIN");
	uint32_t id = 0;
	int i;

	if (!lib || !plugin || !dlopen(lib, RTLD_NOW | RTLD_GLOBAL))
		CHILD_FAIL("no libhvtrace: %s", dlerror());
	for (i = 0; i < 3; i++) {
		void *h = dlopen(plugin, RTLD_NOW | RTLD_LOCAL), *ev, *page;
		uint32_t (*fire)(uint64_t);
		void *(*event)(void);

		if (!h)
			CHILD_FAIL("%s", dlerror());
		fire = (uint32_t (*)(uint64_t))dlsym(h, "plugin_fire");
		event = (void *(*)(void))dlsym(h, "plugin_event");
		if (!fire || !event)
			CHILD_FAIL("no plugin_fire or plugin_event");
		if (i && fire((uint64_t)i) != id)
			CHILD_FAIL("the reloaded event changed id");
		id = fire((uint64_t)i);
		ev = event();
		if (dlclose(h))
			CHILD_FAIL("%s", dlerror());
		/*
		 * Keep the unloaded event's page unmapped: the next load goes
		 * elsewhere, so a list entry left behind faults instead of
		 * finding the library mapped again at the same address.
		 */
		page = (void *)((uintptr_t)ev & ~(uintptr_t)4095);
		if (mmap(page, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			 -1, 0) != page)
			CHILD_FAIL("dlclose left the library mapped");
	}
	return 0;
}

/*
 * Fills packet after packet of a 64 x 4 KiB buffer (HVTRACE_SUBBUF_SIZE and
 * HVTRACE_NR_SUBBUFS, set by the test): the agent's eventfd must count one
 * wakeup per packet closed. errno stays as the program left it, also
 * across the write that closes a packet and wakes the agent.
 */
static int scenario_wake(void)
{
	uint64_t i;

	for (i = 0; i < 5000; i++) {
		errno = EDOM;
		hvt_tracepoint(t, three, i, 2 * i, 3 * i);
		if (errno != EDOM)
			CHILD_FAIL("event %llu changed errno to %d", (unsigned long long)i, errno);
	}
	return 0;
}

static pthread_barrier_t both_traced;

static void *one_event_then_wait(void *arg)
{
	hvt_tracepoint(t, word, arg);
	pthread_barrier_wait(&both_traced);
	return NULL;
}

/*
 * HVTRACE_BUFFER_CAP_MB=3 with the default 16 x 128 KiB per thread: the
 * main thread gets 2 MiB, a second thread half as many sub-buffers (1 MiB,
 * the cap reached), returned when it exits, so that a third gets 1 MiB
 * too, and a fourth, alive beside the third, none (whichever of the two
 * asks first gets the buffer).
 */
static int scenario_cap(void)
{
	pthread_t a, b;

	hvt_tracepoint(t, word, "main");
	pthread_barrier_init(&both_traced, NULL, 1);
	pthread_create(&a, NULL, one_event_then_wait, "first");
	pthread_join(a, NULL);
	pthread_barrier_destroy(&both_traced);
	pthread_barrier_init(&both_traced, NULL, 2);
	pthread_create(&a, NULL, one_event_then_wait, "second");
	pthread_create(&b, NULL, one_event_then_wait, "third");
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}

/* Waits up to 20 s for t:three to be enabled (@on) or disabled. */
static int wait_enabled(int on)
{
	int ms;

	for (ms = 0; ms < 20000; ms++) {
		if (!hvt_event_t_three.enabled == !on)
			return 0;
		usleep(1000);
	}
	return -1;
}

/*
 * Started before any agent: 100 events and a word in each of two
 * connections, waiting between them while no agent is there.
 */
static int scenario_late(void)
{
	static const char *const words[] = { "first", "second" };
	uint64_t seq = 0, i;
	unsigned int period;

	if (hvt_event_t_three.enabled)
		CHILD_FAIL("enabled before any agent exists");
	for (period = 0; period < 2; period++) {
		if (wait_enabled(1))
			CHILD_FAIL("no agent took the process (connection %u)", period + 1);
		for (i = 0; i < 100; i++, seq++)
			hvt_tracepoint(t, three, seq, 2 * seq, 3 * seq);
		hvt_tracepoint(t, word, words[period]);
		if (period == 0 && wait_enabled(0))
			CHILD_FAIL("still enabled after the agent went");
	}
	return 0;
}

/*
 * The same from a child forked before any agent, as a daemon's is: its
 * first event (which finds no agent) starts its own watcher. The parent
 * exits at once, before any agent appears, as a daemon's does.
 */
static int scenario_late_fork(void)
{
	pid_t pid;

	/*
	 * Not while the watcher thread starts: under the sanitizers (GCC 12's),
	 * a fork while another thread is inside their allocator leaves the
	 * child's allocator locked for ever.
	 */
	usleep(100 * 1000);
	pid = fork();
	if (pid == 0) {
		hvt_tracepoint(t, word, "probe");
		exit(scenario_late());
	}
	return pid < 0;
}

static int run_scenario(const char *name)
{
	if (!strcmp(name, "clock-fallback"))
		return scenario_clock_fallback();
	if (!strcmp(name, "clock-page"))
		return scenario_clock_page();
	if (!strcmp(name, "clock-tsc"))
		return scenario_clock_tsc();
	if (!strcmp(name, "clock-page-unset"))
		return scenario_clock_page_unset();
	if (!strcmp(name, "trace"))
		return scenario_trace();
	if (!strcmp(name, "unregister"))
		return scenario_unregister();
	if (!strcmp(name, "layouts"))
		return scenario_layouts();
	if (!strcmp(name, "dlopen"))
		return scenario_dlopen();
	if (!strcmp(name, "wake"))
		return scenario_wake();
	if (!strcmp(name, "cap"))
		return scenario_cap();
	if (!strcmp(name, "late"))
		return scenario_late();
	if (!strcmp(name, "late-fork"))
		return scenario_late_fork();
	return 2;
}

/* ---- the test's side ---- */

/* @clock: HVTRACE_CLOCK in the child, NULL for none. */
static pid_t spawn_clock(const char *scenario, const char *device, const char *socket_path,
			 const char *clock)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		setenv("HVTRACE_DEVICE", device, 1);
		setenv(HVT_APP_SOCKET_ENV, socket_path, 1);
		if (clock)
			setenv("HVTRACE_CLOCK", clock, 1);
		else
			unsetenv("HVTRACE_CLOCK");
		execl("/proc/self/exe", "test_libhvtrace", scenario, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static pid_t spawn(const char *scenario, const char *device, const char *socket_path)
{
	return spawn_clock(scenario, device, socket_path, NULL);
}

/* CLOCK_MONOTONIC_RAW, whatever the kernel's clocksource */
static pid_t spawn_fallback(const char *device)
{
	return spawn_clock("clock-fallback", device, "/nonexistent", "monotonic_raw");
}

static int wait_exit(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void test_clock_fallback(void **state)
{
	(void)state;
	assert_int_equal(wait_exit(spawn_fallback("/nonexistent")), 0);
}

static void test_clock_tsc(void **state)
{
	(void)state;
	if (!kernel_uses_tsc()) {
		print_message("skipped: the kernel's clocksource is not the TSC here\n");
		skip();
	}
	assert_int_equal(wait_exit(spawn("clock-tsc", "/nonexistent", "/nonexistent")), 0);
	/* an HVTRACE_CLOCK it does not understand is ignored */
	assert_int_equal(wait_exit(spawn_clock("clock-tsc", "/nonexistent", "/nonexistent",
					       "bogus")), 0);
}

static void write_page(const struct hvt_clock_page *page, char *path, size_t size)
{
	FILE *f;

	snprintf(path, size, "%s/page", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(page, sizeof(*page), 1, f), 1);
	assert_int_equal(fseek(f, HVT_CLOCK_PAGE_SIZE - 1, SEEK_SET), 0);
	fputc(0, f);
	assert_int_equal(fclose(f), 0);
}

static void test_clock_page(void **state)
{
	static struct hvt_clock_page page;
	char path[128];

	(void)state;
	page.magic = HVT_CLOCK_PAGE_MAGIC;
	page.version = HVT_CLOCK_PAGE_VERSION;
	page.tsc_khz = 2000000;
	page.flags = HVT_CLOCK_F_SYNCED;
	page.generation = 7;
	page.nr_cpus = 1;
	page.global = (struct hvt_clock_params){ .guest_tsc_base = 0, .host_ns_base = 1000,
						 .mult = 1ull << 62, .shift = 63, .error_ns = 250 };
	write_page(&page, path, sizeof(path));
	assert_int_equal(wait_exit(spawn("clock-page", path, "/nonexistent")), 0);
}

/* Per-CPU transforms, but none written for any CPU: nothing is synced. */
static void test_clock_page_unset_cpu(void **state)
{
	static struct hvt_clock_page page;
	char path[128];

	(void)state;
	page.magic = HVT_CLOCK_PAGE_MAGIC;
	page.version = HVT_CLOCK_PAGE_VERSION;
	page.tsc_khz = 2000000;
	page.flags = HVT_CLOCK_F_SYNCED | HVT_CLOCK_F_PER_CPU;
	page.nr_cpus = HVT_CLOCK_PAGE_MAX_CPUS;
	page.global = (struct hvt_clock_params){ .mult = 1ull << 62, .shift = 63, .error_ns = 250 };
	write_page(&page, path, sizeof(path));
	assert_int_equal(wait_exit(spawn("clock-page-unset", path, "/nonexistent")), 0);
}

/* A page of another version, or without a frequency: the fallback clock. */
static void test_clock_page_not_understood(void **state)
{
	static struct hvt_clock_page page;
	char path[128];

	(void)state;
	page.magic = HVT_CLOCK_PAGE_MAGIC;
	page.version = HVT_CLOCK_PAGE_VERSION + 1;
	page.tsc_khz = 2000000;
	write_page(&page, path, sizeof(path));
	assert_int_equal(wait_exit(spawn_fallback(path)), 0);
	page.version = HVT_CLOCK_PAGE_VERSION;
	page.tsc_khz = 0;
	write_page(&page, path, sizeof(path));
	assert_int_equal(wait_exit(spawn_fallback(path)), 0);
}

static void test_untraced_without_agent(void **state)
{
	(void)state;
	assert_int_equal(wait_exit(spawn("trace", "/nonexistent", "/nonexistent")), 0);
}

static void test_unregister(void **state)
{
	(void)state;
	assert_int_equal(wait_exit(spawn("unregister", "/nonexistent", "/nonexistent")), 0);
}

static void test_same_name_other_layout(void **state)
{
	(void)state;
	assert_int_equal(wait_exit(spawn("layouts", "/nonexistent", "/nonexistent")), 0);
}

static const char plugin_src[] =
	"#include <hvtrace/hvtrace.h>\n"
	"HVT_TRACEPOINT_EVENT(plugin, tick, HVT_PROTO(uint64_t v), HVT_ARGS(v),\n"
	"	HVT_FIELDS((int, uint64_t, v)), HVT_ASSIGN(__entry->v = v;), HVT_PRINT(\"v=%lu\"))\n"
	"uint32_t plugin_fire(uint64_t v);\n"
	"void *plugin_event(void);\n"
	"uint32_t plugin_fire(uint64_t v)\n"
	"{\n"
	"	hvt_tracepoint(plugin, tick, v);\n"
	"	return hvt_event_plugin_tick.id;\n"
	"}\n"
	"void *plugin_event(void)\n"
	"{\n"
	"	return &hvt_event_plugin_tick;\n"
	"}\n";

/*
 * dlopen/dlclose of a real library with an event, against the build's
 * libhvtrace.so: before events unregistered, the second load walked the
 * first one's unmapped events and crashed. Needs a C compiler and the
 * shared library next to the tests (make all); skipped without them.
 */
static void test_dlclose(void **state)
{
	char exe[PATH_MAX], root[PATH_MAX], lib[PATH_MAX + 32], src[256], so[256];
	char cmd[3 * PATH_MAX];
	struct stat st;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f;

	(void)state;
	assert_true(n > 0);
	exe[n] = '\0';
	snprintf(root, sizeof(root), "%s", dirname(dirname(exe)));	/* BUILD/tests/x -> BUILD */
	snprintf(lib, sizeof(lib), "%s/libhvtrace.so.1", root);
	assert_int_equal(stat(lib, &st), 0);	/* the build makes it (deps.mk) */
	if (system("cc --version >/dev/null 2>&1")) {
		print_message("skipped: needs a C compiler\n");
		skip();
	}
	snprintf(src, sizeof(src), "%s/plugin.c", dir);
	snprintf(so, sizeof(so), "%s/plugin.so", dir);
	f = fopen(src, "w");
	assert_non_null(f);
	assert_int_equal(fputs(plugin_src, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), "cc -std=gnu11 -shared -fPIC -I%s/../include -o %s %s",
		 root, so, src);
	assert_int_equal(system(cmd), 0);
	setenv("HVT_TEST_LIBHVTRACE", lib, 1);
	setenv("HVT_TEST_PLUGIN", so, 1);
	assert_int_equal(wait_exit(spawn("dlopen", "/nonexistent", "/nonexistent")), 0);
}

/* One traced process as the fake agent sees it. */
struct stream {
	uint32_t id;
	int32_t tid;
	const unsigned char *map;
	size_t size;
	uint32_t subbuf, nr;
	bool ended;
};

struct conn {
	int fd;
	int wake;			/* the eventfd sent with WELCOME */
	uint32_t pid;
	uint8_t uuid[HVT_UUID_LEN];
	struct hvt_registry reg;
	struct stream streams[8];
	unsigned int nr_streams;
	unsigned int untraced;		/* THREAD_UNTRACED messages */
	int32_t untraced_tid;		/* the last one's thread */
};

static void reply(int fd, uint16_t type, uint32_t id, const void *p, uint32_t len, int pass)
{
	assert_int_equal(hvt_app_send(fd, type, id, p, len, pass, 0), 0);
}

/* Like an agent at its limits: refuse the buffers of threads other than the main one. */
static bool refuse_other_threads;
/* The agent's eventfd at its highest count, so that every write to it fails. */
static bool wake_counter_full;
/* A false agent: an empty, unsealed consumer page; a pipe with no reader for wakeups. */
static bool hostile_page, hostile_wake;

static void on_stream(struct conn *c, const struct hvt_app_hdr *h, const void *p, int memfd)
{
	struct hvt_a_stream m;
	struct stream *s;
	int seals = fcntl(memfd, F_GET_SEALS), cfd;

	assert_int_equal(h->len, sizeof(m));
	memcpy(&m, p, sizeof(m));
	if (refuse_other_threads && (uint32_t)m.tid != c->pid) {
		reply(c->fd, HVT_A_STREAM_ACK, h->id, NULL, 0, -1);	/* no memfd: refused */
		return;
	}
	s = &c->streams[c->nr_streams++];
	assert_true(memfd >= 0);
	assert_true((seals & (F_SEAL_SHRINK | F_SEAL_GROW)) == (F_SEAL_SHRINK | F_SEAL_GROW));
	assert_true(hvt_rb_geometry_ok(m.subbuf_size, m.nr_subbufs));
	assert_int_equal(m.map_size, HVT_APP_PROD_PAGE + (uint64_t)m.subbuf_size * m.nr_subbufs);
	s->id = h->id;
	s->tid = m.tid;
	s->size = m.map_size;
	s->subbuf = m.subbuf_size;
	s->nr = m.nr_subbufs;
	s->map = mmap(NULL, m.map_size, PROT_READ, MAP_SHARED, memfd, 0);
	assert_true(s->map != MAP_FAILED);
	cfd = memfd_create("test-consumer", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (hostile_page) {	/* too short and unsealed: it would SIGBUS a trusting reader */
		reply(c->fd, HVT_A_STREAM_ACK, h->id, NULL, 0, cfd);
		close(cfd);
		return;
	}
	assert_int_equal(ftruncate(cfd, 4096), 0);
	assert_int_equal(fcntl(cfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL), 0);
	reply(c->fd, HVT_A_STREAM_ACK, h->id, NULL, 0, cfd);
	close(cfd);
}

/* Handles one message; 0 at the end of the connection. */
static int serve(struct conn *c)
{
	static unsigned char b[HVT_APP_MAX_MSG];
	struct hvt_app_hdr h;
	int fd, r = hvt_app_recv(c->fd, b, sizeof(b), 0, &h, &fd);
	char err[128];

	if (r == 0)
		return 0;
	assert_int_equal(r, 1);		/* framing: whole, magic, flags 0, exact length */
	if (h.type == HVT_A_HELLO) {
		struct hvt_a_hello hello;
		struct hvt_a_welcome w = { HVT_APP_VERSION, 1 };

		memcpy(&hello, b + sizeof(h), sizeof(hello));
		assert_int_equal(hello.version, HVT_APP_VERSION);
		c->wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		assert_true(c->wake >= 0);
		if (wake_counter_full) {	/* every wakeup's write then fails: EAGAIN */
			uint64_t most = 0xfffffffffffffffeull;

			assert_int_equal(write(c->wake, &most, sizeof(most)), sizeof(most));
		}
		/* no module here: the TSC where the kernel trusts it, its rate the agent's */
		assert_int_equal(hello.domain, kernel_uses_tsc() ? HVT_DOMAIN_TSC :
							  HVT_DOMAIN_MONOTONIC_RAW);
		assert_int_equal(hello.freq_hz, kernel_uses_tsc() ? 0 : 1000000000);
		c->pid = hello.pid;
		memcpy(c->uuid, hello.uuid, HVT_UUID_LEN);
		if (hostile_wake) {	/* its first wakeup would raise SIGPIPE */
			int pipefd[2];

			assert_int_equal(pipe(pipefd), 0);
			close(pipefd[0]);
			reply(c->fd, HVT_A_WELCOME, 0, &w, sizeof(w), pipefd[1]);
			close(pipefd[1]);
			return 1;
		}
		reply(c->fd, HVT_A_WELCOME, 0, &w, sizeof(w), c->wake);
	} else if (h.type == HVT_A_REGISTRY) {
		assert_true(hvt_registry_add(&c->reg, b + sizeof(h), h.len, err,
					     sizeof(err)) >= 0);
	} else if (h.type == HVT_A_STREAM) {
		on_stream(c, &h, b + sizeof(h), fd);
	} else if (h.type == HVT_A_THREAD_UNTRACED) {
		struct hvt_a_thread_untraced m;

		assert_int_equal(h.len, sizeof(m));
		memcpy(&m, b + sizeof(h), sizeof(m));
		assert_int_equal(m.reason, HVT_A_UNTRACED_BUFFER_CAP);
		assert_true(m.tid > 0);
		c->untraced++;
		c->untraced_tid = m.tid;
	} else if (h.type == HVT_A_STREAM_END) {
		unsigned int i;

		for (i = 0; i < c->nr_streams; i++)
			if (c->streams[i].id == h.id)
				c->streams[i].ended = true;
	} else {
		fail_msg("unexpected message type %u", h.type);
	}
	if (fd >= 0)
		close(fd);
	return 1;
}

struct tally {
	unsigned int three, words;
	char last_word[9];
	uint64_t first_a, next_a;	/* t:three's a: the first, and the one expected next */
	bool a_gap;			/* an a that did not follow the one before */
};

/* Decodes one packet of @len bytes; checks every event against what the child wrote. */
static void decode(const struct conn *c, const struct stream *s, const unsigned char *pkt,
		   uint64_t len, struct tally *t)
{
	struct hvt_ctf_packet h;
	uint64_t pos = sizeof(h), ts;

	memcpy(&h, pkt, sizeof(h));
	assert_int_equal(h.magic, HVT_CTF_MAGIC);
	assert_memory_equal(h.uuid, c->uuid, HVT_UUID_LEN);
	assert_int_equal(h.stream_instance_id, (uint64_t)s->tid);
	ts = h.timestamp_begin;
	while (pos < len) {
		uint32_t word = hvt_get_u32(pkt + pos), id = word & 31;
		const struct hvt_event_type *ev;
		uint64_t prev = ts;

		if (id == HVT_CTF_EXTENDED_ID) {
			id = hvt_get_u32(pkt + pos + 1);
			ts = hvt_get_u64(pkt + pos + 5);
			pos += HVT_CTF_EXTENDED_HEADER_SIZE;
		} else {
			ts = hvt_ctf_expand_ts(ts, word >> 5);
			pos += HVT_CTF_COMPACT_HEADER_SIZE;
		}
		assert_true(ts >= prev);
		assert_int_equal((int32_t)hvt_get_u32(pkt + pos + 4), s->tid);
		pos += HVT_CTF_EVENT_CONTEXT_SIZE;
		ev = hvt_registry_get(&c->reg, id);
		assert_non_null(ev);
		if (!strcmp(ev->name, "t:three")) {
			uint64_t a = hvt_get_u64(pkt + pos);

			assert_int_equal(hvt_get_u64(pkt + pos + 8), 2 * a);
			assert_int_equal(hvt_get_u64(pkt + pos + 16), 3 * a);
			pos += 24;
			if (!t->three)
				t->first_a = a;
			else if (a != t->next_a)
				t->a_gap = true;
			t->next_a = a + 1;
			t->three++;
		} else {
			assert_string_equal(ev->name, "t:word");
			memcpy(t->last_word, pkt + pos, 8);
			pos += 8;
			t->words++;
		}
	}
	assert_int_equal(pos, len);
}

/* Closed packets, then the open one the process never closed. */
static struct tally read_stream(const struct conn *c, const struct stream *s)
{
	const struct hvt_rb_prod *prod = (const void *)s->map;
	const unsigned char *data = s->map + HVT_APP_PROD_PAGE;
	struct tally t = { 0, 0, "", 0, 0, false };
	uint64_t n, produced = prod->produced;
	long long open_len = hvt_rb_open_packet_len(prod, s->subbuf);

	assert_int_equal(prod->lost, 0);
	for (n = 0; n < produced; n++) {
		const unsigned char *pkt = data + (n % s->nr) * s->subbuf;

		decode(c, s, pkt, hvt_get_u64(pkt + offsetof(struct hvt_ctf_packet, content_size)) / 8,
		       &t);
	}
	assert_true(open_len >= 0);
	if (open_len)
		decode(c, s, data + (produced % s->nr) * s->subbuf, (uint64_t)open_len, &t);
	return t;
}

/* Runs @scenario against the fake agent; its connections in @conns. */
static pid_t trace_to_agent(const char *scenario, struct conn conns[2], unsigned int *nconn_out)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	unsigned int nconn = 0, open = 0;
	int lfd;
	pid_t child;

	memset(conns, 0, 2 * sizeof(*conns));
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/agent.sock", dir);
	lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	assert_int_equal(bind(lfd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	assert_int_equal(listen(lfd, 4), 0);
	child = spawn(scenario, "/nonexistent", addr.sun_path);
	/* the child and its own child connect; serve both to their end */
	while (nconn == 0 || open > 0) {
		struct pollfd p[3] = { { lfd, POLLIN, 0 } };
		unsigned int k;

		for (k = 0; k < nconn; k++)
			p[k + 1] = (struct pollfd){ conns[k].fd, POLLIN, 0 };
		assert_true(poll(p, nconn + 1, 10000) > 0);
		if (p[0].revents && nconn < 2) {
			conns[nconn].fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
			conns[nconn].wake = -1;
			hvt_registry_init(&conns[nconn].reg);
			nconn++;
			open++;
		}
		for (k = 0; k < nconn; k++)
			if (p[k + 1].revents && conns[k].fd >= 0 && !serve(&conns[k])) {
				close(conns[k].fd);
				conns[k].fd = -1;
				open--;
			}
		if (nconn == 1 && open == 0)
			break;
	}
	assert_int_equal(wait_exit(child), 0);
	close(lfd);
	unlink(addr.sun_path);
	*nconn_out = nconn;
	return child;
}

static void free_conns(struct conn *conns, unsigned int nconn)
{
	unsigned int i, k;

	for (i = 0; i < nconn; i++) {
		for (k = 0; k < conns[i].nr_streams; k++)
			munmap((void *)conns[i].streams[k].map, conns[i].streams[k].size);
		if (conns[i].wake >= 0)
			close(conns[i].wake);
		hvt_registry_free(&conns[i].reg);
	}
}

static void test_trace_to_agent(void **state)
{
	struct conn conns[2];
	unsigned int nconn, i;
	pid_t child;

	(void)state;
	child = trace_to_agent("trace", conns, &nconn);
	assert_int_equal(nconn, 2);
	assert_int_equal(conns[0].pid, (uint32_t)child);
	assert_true(conns[1].pid != conns[0].pid);
	assert_memory_not_equal(conns[0].uuid, conns[1].uuid, HVT_UUID_LEN);

	/* the traced process: main thread 100 + "end", the other thread 50 */
	assert_int_equal(conns[0].nr_streams, 2);
	for (i = 0; i < 2; i++) {
		struct stream *s = &conns[0].streams[i];
		struct tally t = read_stream(&conns[0], s);

		if (s->tid == (int32_t)child) {
			assert_int_equal(t.three, 100);
			assert_int_equal(t.words, 1);
			assert_string_equal(t.last_word, "end");
			assert_false(s->ended);		/* never flushed: recovered */
		} else {
			assert_int_equal(t.three, 50);
			assert_int_equal(t.words, 0);
			assert_true(s->ended);		/* the thread exited cleanly */
		}
	}
	/* its forked child traced into buffers of its own */
	assert_int_equal(conns[1].nr_streams, 1);
	{
		struct tally t = read_stream(&conns[1], &conns[1].streams[0]);

		assert_int_equal(t.three, 0);
		assert_int_equal(t.words, 10);
		assert_string_equal(t.last_word, "child");
	}
	free_conns(conns, nconn);
}

/* A refused thread stays untraced; the rest of the process goes on tracing. */
static void test_refused_thread(void **state)
{
	struct conn conns[2];
	unsigned int nconn;
	struct tally t;
	pid_t child;

	(void)state;
	refuse_other_threads = true;
	child = trace_to_agent("trace", conns, &nconn);
	refuse_other_threads = false;
	assert_int_equal(nconn, 2);
	assert_int_equal(conns[0].nr_streams, 1);
	assert_int_equal(conns[0].streams[0].tid, (int32_t)child);
	t = read_stream(&conns[0], &conns[0].streams[0]);
	assert_int_equal(t.three, 100);
	assert_int_equal(t.words, 1);		/* "end", after the refusal */
	assert_int_equal(conns[1].nr_streams, 1);
	free_conns(conns, nconn);
}

/* The writer that closes a packet wakes the agent: once per packet, never per event. */
static void test_wakeup_per_packet(void **state)
{
	const struct hvt_rb_prod *prod;
	struct conn conns[2];
	unsigned int nconn;
	uint64_t wakeups = 0;
	struct tally t;

	(void)state;
	setenv("HVTRACE_SUBBUF_SIZE", "4096", 1);
	setenv("HVTRACE_NR_SUBBUFS", "64", 1);
	trace_to_agent("wake", conns, &nconn);
	unsetenv("HVTRACE_SUBBUF_SIZE");
	unsetenv("HVTRACE_NR_SUBBUFS");
	assert_int_equal(nconn, 1);
	assert_int_equal(conns[0].nr_streams, 1);
	prod = (const void *)conns[0].streams[0].map;
	t = read_stream(&conns[0], &conns[0].streams[0]);	/* also: nothing lost */
	assert_int_equal(t.three, 5000);
	/* the main thread never ends its buffer: every close was a full packet's */
	assert_int_equal(read(conns[0].wake, &wakeups, sizeof(wakeups)), sizeof(wakeups));
	assert_true(prod->produced >= 40);	/* 5000 events of 36 bytes, 4 KiB packets */
	assert_int_equal(wakeups, prod->produced);
	free_conns(conns, nconn);
}

/*
 * The process's buffers stay under HVTRACE_BUFFER_CAP_MB: fewer sub-buffers,
 * then none, and the thread left without one is told to the agent.
 */
static void test_buffer_cap(void **state)
{
	struct conn conns[2];
	unsigned int nconn, i;

	(void)state;
	setenv("HVTRACE_BUFFER_CAP_MB", "3", 1);
	trace_to_agent("cap", conns, &nconn);
	unsetenv("HVTRACE_BUFFER_CAP_MB");
	assert_int_equal(nconn, 1);
	assert_int_equal(conns[0].nr_streams, 3);	/* main, first, second; not third */
	/* the thread left without a buffer is told to the agent, once */
	assert_int_equal(conns[0].untraced, 1);
	for (i = 0; i < 3; i++)
		assert_int_not_equal(conns[0].untraced_tid, conns[0].streams[i].tid);
	for (i = 0; i < 3; i++) {
		assert_int_equal(conns[0].streams[i].subbuf, 128 * 1024);
		assert_int_equal(conns[0].streams[i].nr, i == 0 ? 16 : 8);
		assert_int_equal(read_stream(&conns[0], &conns[0].streams[i]).words, 1);
	}
	free_conns(conns, nconn);
}

/*
 * A wakeup that fails (the eventfd's counter is full: EAGAIN) changes
 * nothing the program sees: errno stays as it was (scenario "wake" checks
 * it after every event) and every event is recorded.
 */
static void test_wakeup_failure_keeps_errno(void **state)
{
	struct conn conns[2];
	unsigned int nconn;

	(void)state;
	setenv("HVTRACE_SUBBUF_SIZE", "4096", 1);
	setenv("HVTRACE_NR_SUBBUFS", "64", 1);
	wake_counter_full = true;
	trace_to_agent("wake", conns, &nconn);	/* fails if the child saw errno change */
	wake_counter_full = false;
	unsetenv("HVTRACE_SUBBUF_SIZE");
	unsetenv("HVTRACE_NR_SUBBUFS");
	assert_int_equal(nconn, 1);
	assert_int_equal(read_stream(&conns[0], &conns[0].streams[0]).three, 5000);
	free_conns(conns, nconn);
}

/*
 * A false agent cannot harm the program (trace_to_agent() asserts that it
 * exits 0): a consumer page that is empty and unsealed, which a trusting
 * reader would fault on with SIGBUS, ends the connection; a wakeup
 * descriptor that is a pipe with no reader, whose first write would raise
 * SIGPIPE, is refused with the connection.
 */
static void test_false_agent_descriptors(void **state)
{
	struct conn conns[2];
	unsigned int nconn;

	(void)state;
	hostile_page = true;
	trace_to_agent("trace", conns, &nconn);
	hostile_page = false;
	assert_true(nconn >= 1);
	assert_true(conns[0].nr_streams <= 1);	/* the first buffer offered, then no more */
	free_conns(conns, nconn);
	hostile_wake = true;
	trace_to_agent("trace", conns, &nconn);
	hostile_wake = false;
	assert_true(nconn >= 1);
	assert_int_equal(conns[0].nr_streams, 0);
	free_conns(conns, nconn);
}

/*
 * A listener of another user at the agent's path gets nothing at all: not
 * one byte before its credentials are checked. HVTRACE_AGENT_UID names a
 * user whose listener is taken. Needs root (to listen as another user).
 */
static void test_foreign_listener(void **state)
{
	static const uid_t nobody = 65534;
	char tmpl[] = "/tmp/hvtrace-foreign-XXXXXX", path[PATH_MAX];
	int round;

	(void)state;
	if (geteuid()) {
		skip();
		return;
	}
	assert_non_null(mkdtemp(tmpl));
	assert_int_equal(chmod(tmpl, 0777), 0);
	snprintf(path, sizeof(path), "%s/agent.sock", tmpl);
	for (round = 0; round < 2; round++) {
		int result[2], lfd, fd;
		long got = 0;
		pid_t listener, app;
		char buf[4096];
		ssize_t n;

		assert_int_equal(pipe(result), 0);
		listener = fork();
		assert_true(listener >= 0);
		if (listener == 0) {	/* another user's process at the agent's path */
			struct sockaddr_un addr = { .sun_family = AF_UNIX };
			struct pollfd p;

			if (setgid(nobody) || setuid(nobody))
				_exit(3);
			memcpy(addr.sun_path, path, strlen(path) + 1);
			lfd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
			if (bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) || listen(lfd, 4))
				_exit(4);
			if (write(result[1], &got, sizeof(got)) != sizeof(got))	/* listening */
				_exit(5);
			p = (struct pollfd){ lfd, POLLIN, 0 };
			if (poll(&p, 1, 10000) == 1 && (fd = accept(lfd, NULL, NULL)) >= 0) {
				while ((n = read(fd, buf, sizeof(buf))) > 0)
					got += n;
				close(fd);
			}
			if (write(result[1], &got, sizeof(got)) != sizeof(got))
				_exit(6);
			_exit(0);
		}
		close(result[1]);
		assert_int_equal(read(result[0], &got, sizeof(got)), sizeof(got));
		if (round)
			setenv("HVTRACE_AGENT_UID", "65534", 1);
		app = spawn("trace", "/nonexistent", path);
		unsetenv("HVTRACE_AGENT_UID");
		assert_int_equal(wait_exit(app), 0);
		assert_int_equal(read(result[0], &got, sizeof(got)), sizeof(got));
		close(result[0]);
		assert_int_equal(wait_exit(listener), 0);
		if (round == 0)
			assert_int_equal(got, 0);	/* refused before the HELLO */
		else
			assert_true(got > 0);		/* taken: it said HELLO */
		unlink(path);
	}
	rmdir(tmpl);
}

/*
 * A fake agent's listening socket at @path, in a directory made for it,
 * made as the agent makes it: bind, listen, then chmod.
 */
static int agent_appears(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char d[PATH_MAX];
	int lfd;

	snprintf(d, sizeof(d), "%s", path);
	assert_int_equal(mkdir(dirname(d), 0755), 0);
	assert_true(strlen(path) < sizeof(addr.sun_path));
	memcpy(addr.sun_path, path, strlen(path) + 1);
	lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	assert_int_equal(bind(lfd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	assert_int_equal(listen(lfd, 4), 0);
	assert_int_equal(chmod(path, 0666), 0);
	return lfd;
}

/*
 * Serves one connection until its one stream holds the word @word; true if
 * the process closed the connection meanwhile (it exited).
 */
static bool serve_until_word(struct conn *c, const char *word)
{
	bool open = true;
	int ms;

	/* 60 s: an ASan build beside a busy build once took more than 20 */
	for (ms = 0; ms < 60000; ms += 10) {
		struct pollfd p = { c->fd, POLLIN, 0 };

		if (open && poll(&p, 1, 10) > 0)
			open = serve(c);
		if (c->nr_streams == 1 &&
		    !strcmp(read_stream(c, &c->streams[0]).last_word, word))
			return !open;
		if (!open)
			usleep(10 * 1000);
	}
	fail_msg("the process never wrote \"%s\"", word);
	return false;
}

/*
 * A process started before any agent (@scenario "late", or its child
 * forked then, "late-fork") is traced by each agent that appears later,
 * into new buffers each time, and not in between: the socket's directory
 * does not exist at first, and goes away with each agent, as systemd's
 * RuntimeDirectory does.
 */
static void agent_comes_and_goes(const char *scenario)
{
	static const char *const words[] = { "first", "second" };
	struct conn conns[2];
	char path[PATH_MAX], d[PATH_MAX];
	unsigned int k;
	bool closed;
	pid_t child;

	memset(conns, 0, sizeof(conns));
	snprintf(path, sizeof(path), "%s/late/agent.sock", dir);
	snprintf(d, sizeof(d), "%s/late", dir);
	child = spawn(scenario, "/nonexistent", path);
	if (strcmp(scenario, "late"))
		assert_int_equal(wait_exit(child), 0);	/* the daemon's parent */
	usleep(200 * 1000);		/* it starts, finds nobody, waits */
	for (k = 0; k < 2; k++) {
		struct pollfd p;
		int lfd = agent_appears(path);

		p = (struct pollfd){ lfd, POLLIN, 0 };
		assert_int_equal(poll(&p, 1, 10000), 1);
		conns[k].fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		conns[k].wake = -1;
		hvt_registry_init(&conns[k].reg);
		closed = serve_until_word(&conns[k], words[k]);
		/* the agent goes: its socket, its directory, then the connection */
		close(lfd);
		assert_int_equal(unlink(path), 0);
		assert_int_equal(rmdir(d), 0);
		while (k == 1 && !closed && serve(&conns[k]))	/* to the process's exit */
			;
		close(conns[k].fd);
		if (k == 0)
			usleep(200 * 1000);	/* no agent for a while */
	}
	if (!strcmp(scenario, "late"))
		assert_int_equal(wait_exit(child), 0);
	for (k = 0; k < 2; k++) {
		struct tally t;

		if (!strcmp(scenario, "late"))
			assert_int_equal(conns[k].pid, (uint32_t)child);
		else		/* the forked child, both times */
			assert_true(conns[k].pid != (uint32_t)child && conns[k].pid == conns[0].pid);
		assert_int_equal(conns[k].nr_streams, 1);
		assert_int_equal(conns[k].reg.nr_events, 2);	/* the registry, again */
		t = read_stream(&conns[k], &conns[k].streams[0]);
		assert_int_equal(t.three, 100);
		assert_false(t.a_gap);
		assert_int_equal(t.first_a, 100 * k);	/* nothing from before went here */
		assert_string_equal(t.last_word, words[k]);
	}
	assert_memory_not_equal(conns[0].uuid, conns[1].uuid, HVT_UUID_LEN);
	free_conns(conns, 2);
}

static void test_agent_comes_and_goes(void **state)
{
	(void)state;
	agent_comes_and_goes("late");
}

static void test_agent_comes_and_goes_forked(void **state)
{
	(void)state;
	agent_comes_and_goes("late-fork");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clock_fallback),
		cmocka_unit_test(test_clock_tsc),
		cmocka_unit_test(test_clock_page),
		cmocka_unit_test(test_clock_page_not_understood),
		cmocka_unit_test(test_clock_page_unset_cpu),
		cmocka_unit_test(test_untraced_without_agent),
		cmocka_unit_test(test_trace_to_agent),
		cmocka_unit_test(test_wakeup_per_packet),
		cmocka_unit_test(test_wakeup_failure_keeps_errno),
		cmocka_unit_test(test_false_agent_descriptors),
		cmocka_unit_test(test_foreign_listener),
		cmocka_unit_test(test_buffer_cap),
		cmocka_unit_test(test_refused_thread),
		cmocka_unit_test(test_agent_comes_and_goes),
		cmocka_unit_test(test_agent_comes_and_goes_forked),
		cmocka_unit_test(test_unregister),
		cmocka_unit_test(test_same_name_other_layout),
		cmocka_unit_test(test_dlclose),
	};

	if (argc == 2)
		return run_scenario(argv[1]);
	return cmocka_run_group_tests_name("libhvtrace", tests, hvt_test_dir_setup,
					   hvt_test_dir_teardown);
}
