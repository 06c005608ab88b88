// SPDX-License-Identifier: GPL-2.0-only
/*
 * paced_events.c - user events at a fixed offered rate, for
 * tests/bench/data_path.sh and tests/bench/guest_link.sh: how fast the
 * agent and the collector take a traced application's data without losing
 * any, at the library's default buffer sizes (or whatever
 * HVTRACE_SUBBUF_SIZE/HVTRACE_NR_SUBBUFS say).
 *
 * Built twice: with libhvtrace (bench/paced_events), and with -DPACED_LTTNG
 * against LTTng-UST (bench/paced_lttng, event bench_lttng:three of
 * lttng_ref_tp.h, the same three u64 fields), so that both tracers run the
 * same program shape.
 *
 *   paced_events [-t THREADS] [-r EVENTS_PER_S] [-d SECONDS]
 *
 * Each of THREADS threads (default 2) emits bench:paced events (thread,
 * seq, clock: three u64, as stress:tick and bench_tracepoint's event) at
 * EVENTS_PER_S per thread (0: as fast as it can) for SECONDS (default 2).
 * A thread keeps its count on schedule with the monotonic clock: every
 * millisecond it emits what the rate says is due by then, then sleeps to
 * the next millisecond, so the offered rate holds over any 100 ms (the
 * agent's drain period) within one millisecond's worth of events.
 *
 * Each thread's first event, which makes its buffer, is emitted before the
 * common start; then the threads start together. One line per thread, then
 * a summary (the elapsed time from the common start to the last thread's
 * end):
 *
 *   thread I pid P emitted N
 *   paced: T threads, R events/s each, S s, N events
 *
 * N counts every event the process emitted, the main thread's first one
 * included, so that it is exactly what a lossless trace holds.
 *
 * Exit status 1 if tracing was not enabled (HVTRACE_DEBUG=1 says why), so
 * that a measurement cannot pass on a run that recorded nothing.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#ifdef PACED_LTTNG
#include <x86intrin.h>
#define TRACEPOINT_DEFINE
#define TRACEPOINT_CREATE_PROBES
#include "tests/bench/lttng_ref_tp.h"
#define EMIT(thread, seq)	tracepoint(bench_lttng, three, thread, seq, __rdtsc())
#define ENABLED()		wait_lttng_enabled()
#define TRACER			"LTTng-UST"

/* liblttng-ust's constructor waits for the session daemon; this catches a late one. */
static int wait_lttng_enabled(void)
{
	int i;

	for (i = 0; i < 100 && !tracepoint_enabled(bench_lttng, three); i++)
		usleep(100000);
	return tracepoint_enabled(bench_lttng, three);
}
#else
#include <hvtrace/hvtrace.h>

HVT_TRACEPOINT_EVENT(bench, paced,
	HVT_PROTO(uint64_t thread, uint64_t seq, uint64_t clock),
	HVT_ARGS(thread, seq, clock),
	HVT_FIELDS((int, uint64_t, thread), (int, uint64_t, seq), (int, uint64_t, clock)),
	HVT_ASSIGN(__entry->thread = thread; __entry->seq = seq; __entry->clock = clock;),
	HVT_PRINT("thread=%lu seq=%lu clock=%lu"))
#define EMIT(thread, seq)	hvt_tracepoint(bench, paced, thread, seq, hvt_clock_read())
#define ENABLED()		hvt_event_bench_paced.enabled
#define TRACER			"hvtrace (HVTRACE_DEBUG=1 says why)"
#endif

#define STEP_NS 1000000ull	/* pacing period: 1 ms */

struct worker {
	pthread_t thread;
	uint64_t number;
	uint64_t emitted;
	uint64_t end_ns;
};

static uint64_t rate;		/* events per second per thread; 0: unpaced */
static uint64_t duration_ns = 2000000000ull;
static uint64_t start_ns;
static pthread_barrier_t ready;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	uint64_t seq = 0, now, end, due;

	/* The first event makes the thread's buffer, outside the timed window. */
	EMIT(w->number, seq++);
	pthread_barrier_wait(&ready);
	end = start_ns + duration_ns;
	for (now = now_ns(); now < end; now = now_ns()) {
		if (!rate) {	/* unpaced: check the clock every 1024 events */
			for (due = seq + 1024; seq < due; seq++)
				EMIT(w->number, seq);
			continue;
		}
		/* what is due by the end of this millisecond, and not before */
		due = 1 + (uint64_t)((unsigned __int128)rate * (now - start_ns + STEP_NS) /
				     1000000000ull);
		for (; seq < due; seq++)
			EMIT(w->number, seq);
		sleep_until(now + STEP_NS - (now - start_ns) % STEP_NS);
	}
	w->emitted = seq;
	w->end_ns = now_ns();
	return NULL;
}

static int usage(void)
{
	fprintf(stderr, "usage: paced_events [-t THREADS] [-r EVENTS_PER_S] [-d SECONDS]\n");
	return 2;
}

int main(int argc, char **argv)
{
	unsigned int threads = 2, i;
	struct worker *workers;
	uint64_t total = 1, last_end = 0;	/* the main thread's event */
	double seconds;
	int opt;

	while ((opt = getopt(argc, argv, "t:r:d:")) != -1) {
		switch (opt) {
		case 't': threads = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'r': rate = strtoull(optarg, NULL, 0); break;
		case 'd':
			seconds = strtod(optarg, NULL);
			if (!(seconds > 0 && seconds < 3600))
				return usage();
			duration_ns = (uint64_t)(seconds * 1e9);
			break;
		default: return usage();
		}
	}
	if (optind != argc || !threads || threads > 256)
		return usage();
	/* The main thread connects the process to the agent (and checks it did). */
	if (!ENABLED()) {
		fprintf(stderr, "paced_events: tracing is not enabled: " TRACER "\n");
		return 1;
	}
	EMIT(UINT64_MAX, 0);
	workers = calloc(threads, sizeof(*workers));
	if (!workers || pthread_barrier_init(&ready, NULL, threads + 1))
		return 1;
	for (i = 0; i < threads; i++) {
		workers[i].number = i;
		if (pthread_create(&workers[i].thread, NULL, work, &workers[i])) {
			fprintf(stderr, "paced_events: cannot start thread %u\n", i);
			return 1;
		}
	}
	start_ns = now_ns();	/* before the barrier releases the workers */
	pthread_barrier_wait(&ready);
	for (i = 0; i < threads; i++) {
		pthread_join(workers[i].thread, NULL);
		total += workers[i].emitted;
		if (workers[i].end_ns > last_end)
			last_end = workers[i].end_ns;
	}
	for (i = 0; i < threads; i++)
		printf("thread %llu pid %d emitted %llu\n", (unsigned long long)workers[i].number,
		       (int)getpid(), (unsigned long long)workers[i].emitted);
	printf("paced: %u threads, %llu events/s each, %.6f s, %llu events\n", threads,
	       (unsigned long long)rate, (double)(last_end - start_ns) / 1e9,
	       (unsigned long long)total);
	return 0;
}
