// SPDX-License-Identifier: LGPL-2.1-only OR MIT
/*
 * clock.c - the trace clock in user space, read through the module's page.
 *
 * With the page mapped, the clock is the raw TSC: RDTSC for hvt_clock_read()
 * (the cheapest read of the counter the kernel module stamps with); in the
 * event write path RDTSC with the CPU from rseq (hvt_clock_read_event()), or
 * RDTSCP, which yields the CPU from TSC_AUX, where glibc has no rseq.
 * Without the page, the TSC is read all the same where the kernel keeps it
 * as its clocksource (HVT_CLOCK_TSC): the kernel found it constant and
 * synchronised across CPUs, and on the host it is the host layer's clock.
 * Else CLOCK_MONOTONIC_RAW. The choice of domain is made once, at the first
 * use, for the life of the process.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>
#include <hvtrace/abi.h>
#include <hvtrace/clock_page.h>

#include "vdso/clock.h"
#include "vdso/internal.h"

#define CLOCKSOURCE_FILE	"/sys/devices/system/clocksource/clocksource0/current_clocksource"
#define TSC_MEASURE_NS	10000000	/* HVT_CLOCK_TSC's rate, measured over this */

static const struct hvt_clock_page *page;
static enum hvt_clock_source source;
static int reads_tsc;			/* the page is mapped, or source is HVT_CLOCK_TSC */
static uint64_t freq_hz;		/* 0: HVT_CLOCK_TSC's, not measured yet */
static uint32_t ready;			/* published last by setup() */
int hvt_clock_rdtscp;
int hvt_clock_rseq;
static pthread_once_t setup_once = PTHREAD_ONCE_INIT;
static pthread_once_t measure_once = PTHREAD_ONCE_INIT;

/* HVTRACE_DEVICE names another path: a bind-mounted device, or a test's page. */
static const struct hvt_clock_page *map_page(void)
{
	const char *dev = getenv("HVTRACE_DEVICE");
	const struct hvt_clock_page *p;
	int fd = open(dev && *dev ? dev : HVTRACE_DEVICE, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	p = mmap(NULL, HVT_CLOCK_PAGE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	if (!hvt_clock_page_ok(p)) {
		munmap((void *)p, HVT_CLOCK_PAGE_SIZE);
		return NULL;
	}
	return p;
}

/*
 * Whether glibc registered rseq, so that every thread it creates has a
 * cpu_id the kernel keeps current (not with GLIBC_TUNABLES=glibc.pthread.rseq=0
 * or a kernel without rseq).
 */
static int rseq_registered(void)
{
	const volatile struct rseq *rs;

	if (__rseq_size < offsetof(struct rseq, cpu_id) + sizeof(rs->cpu_id))
		return 0;
	rs = (const volatile struct rseq *)((char *)__builtin_thread_pointer() + __rseq_offset);
	return (int32_t)rs->cpu_id >= 0;
}

/* Whether the kernel's clocksource is the TSC (the file says "tsc\n"). */
static int tsc_is_clocksource(void)
{
	char buf[16];
	ssize_t n;
	int fd = open(CLOCKSOURCE_FILE, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return !strcmp(buf, "tsc\n");
}

/* HVTRACE_CLOCK=monotonic_raw: never the TSC without the page. */
static int tsc_refused(void)
{
	const char *v = getenv("HVTRACE_CLOCK");

	if (!v || !*v)
		return 0;
	if (!strcmp(v, "monotonic_raw"))
		return 1;
	hvt_debug_msg("HVTRACE_CLOCK=%s not understood (monotonic_raw is); ignored", v);
	return 0;
}

static enum hvt_clock_source pick_source(void)
{
	if (page)
		return HVT_CLOCK_GUEST_TSC;
	if (!tsc_refused() && tsc_is_clocksource())
		return HVT_CLOCK_TSC;
	return HVT_CLOCK_MONOTONIC_RAW;
}

static void setup(void)
{
	page = map_page();
	source = pick_source();
	reads_tsc = source != HVT_CLOCK_MONOTONIC_RAW;
	hvt_clock_rdtscp = reads_tsc && hvt_tsc_have_rdtscp();
	hvt_clock_rseq = reads_tsc && rseq_registered();
	freq_hz = page ? page->tsc_khz * 1000 : source == HVT_CLOCK_TSC ? 0 : 1000000000u;
	/* Published last: a reader that sees ready sees the rest. */
	hvt_store_release(&ready, 1);
}

void hvt_clock_setup(void)
{
	pthread_once(&setup_once, setup);
}

static uint64_t monotonic_raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t hvt_clock_read(void)
{
	if (hvt_unlikely(!hvt_load_acquire(&ready)))
		hvt_clock_setup();
	if (hvt_likely(reads_tsc))
		return __rdtsc();
	return monotonic_raw_ns();
}

/* hvt_clock_read_cpu() without RDTSCP, or on CLOCK_MONOTONIC_RAW. */
uint64_t hvt_clock_read_cpu_slow(uint32_t *cpu)
{
	uint64_t t = reads_tsc ? __rdtsc() : monotonic_raw_ns();

	*cpu = (uint32_t)sched_getcpu();
	return t;
}

enum hvt_clock_source hvt_clock_source(void)
{
	hvt_clock_setup();
	return source;
}

uint64_t hvt_clock_freq(void)
{
	hvt_clock_setup();
	return freq_hz;
}

static void measure_tsc(void)
{
	freq_hz = hvt_tsc_measure_hz(TSC_MEASURE_NS);
}

int64_t hvt_clock_host_ns(void)
{
	struct hvt_clock_params p;
	uint32_t cpu, flags;
	uint64_t tsc;

	hvt_clock_setup();
	if (!page) {
		errno = ENODATA;
		return -1;
	}
	tsc = hvt_clock_read_cpu(&cpu);
	hvt_clock_page_read_params(page, cpu, &p, &flags);
	if (!hvt_clock_params_synced(flags, &p)) {
		errno = ENODATA;
		return -1;
	}
	return hvt_clock_params_apply(&p, tsc);
}

int hvt_clock_info(struct hvt_clock_info *info)
{
	struct hvt_clock_params p;
	uint32_t flags;

	hvt_clock_setup();
	if (source == HVT_CLOCK_TSC)
		pthread_once(&measure_once, measure_tsc);
	info->source = source;
	info->freq_hz = freq_hz;
	info->generation = 0;
	info->error_ns = UINT64_MAX;
	info->synced = 0;
	if (page) {
		info->generation = hvt_clock_page_read_params(page, (uint32_t)sched_getcpu(),
							      &p, &flags);
		info->synced = hvt_clock_params_synced(flags, &p);
		info->error_ns = hvt_clock_params_error_ns(flags, &p);
	}
	return 0;
}
