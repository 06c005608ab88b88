// SPDX-License-Identifier: GPL-2.0-only
/*
 * late_app.c - a long-running traced process, for tests/e2e/late_attach.sh:
 * started before any agent, it must be traced by every recording that runs
 * during its life, and by none other.
 *
 *   hvtrace-late-app [-r EVENTS_PER_S] [-t THREADS] [-i ID]
 *   hvtrace-late-app -T
 *
 * Each of THREADS threads (default 2), numbered ID * 100 + 0, 1, ... (ID
 * default 0), emits late:tick (thread, seq) at
 * EVENTS_PER_S (default 2000) until SIGTERM or SIGINT: seq counts every
 * call, recorded or not, so that each recording must hold, per thread, one
 * run of consecutive seq values and nothing else. The second thread starts
 * only after the first recording's events were enabled: a thread that
 * never wrote while no agent was there must get a buffer too.
 *
 * On its way out it prints, per thread, the calls made and how many of them
 * found the event enabled:
 *
 *   thread I calls C enabled E
 *
 * -T prints hvt_clock_read() and its rate, ticks per second, and exits: the
 * test's start of a recording on the events' clock (without the guest
 * module, the TSC where the kernel keeps it as its clocksource, else
 * CLOCK_MONOTONIC_RAW in ns: the same for every process of the machine).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <hvtrace/hvtrace.h>

HVT_TRACEPOINT_EVENT(late, tick,
	HVT_PROTO(uint64_t thread, uint64_t seq),
	HVT_ARGS(thread, seq),
	HVT_FIELDS((int, uint64_t, thread), (int, uint64_t, seq)),
	HVT_ASSIGN(__entry->thread = thread; __entry->seq = seq;),
	HVT_PRINT("thread=%lu seq=%lu"))

#define MAX_THREADS 16

struct ticker {
	pthread_t thread;
	uint64_t number, calls, enabled;
};

static volatile sig_atomic_t stop;
static long period_ns = 500000;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void *tick(void *arg)
{
	struct ticker *t = arg;
	struct timespec next;

	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!stop) {
		t->enabled += hvt_event_late_tick.enabled != 0;
		hvt_tracepoint(late, tick, t->number, t->calls++);
		next.tv_nsec += period_ns;
		if (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct ticker t[MAX_THREADS] = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned long rate = 2000, threads = 2, id = 0, i;
	int opt;

	while ((opt = getopt(argc, argv, "r:t:i:T")) != -1) {
		if (opt == 'r') {
			rate = strtoul(optarg, NULL, 0);
		} else if (opt == 't') {
			threads = strtoul(optarg, NULL, 0);
		} else if (opt == 'i') {
			id = strtoul(optarg, NULL, 0);
		} else if (opt == 'T') {
			struct hvt_clock_info info;
			uint64_t now = hvt_clock_read();

			hvt_clock_info(&info);
			printf("%llu %llu\n", (unsigned long long)now, (unsigned long long)info.freq_hz);
			return 0;
		} else {
			return 2;
		}
	}
	if (!rate || rate > 1000000 || !threads || threads > MAX_THREADS) {
		fprintf(stderr, "usage: hvtrace-late-app [-r 1..1000000] [-t 1..%d]\n", MAX_THREADS);
		return 2;
	}
	period_ns = (long)(1000000000 / rate);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	for (i = 0; i < threads; i++)
		t[i].number = id * 100 + i;
	pthread_create(&t[0].thread, NULL, tick, &t[0]);
	while (!stop && !hvt_event_late_tick.enabled)	/* the first recording */
		usleep(1000);
	for (i = 1; i < threads; i++)
		pthread_create(&t[i].thread, NULL, tick, &t[i]);
	for (i = 0; i < threads; i++)
		if (i == 0 || t[i].thread)
			pthread_join(t[i].thread, NULL);
	for (i = 0; i < threads; i++)
		printf("thread %llu calls %llu enabled %llu\n", (unsigned long long)t[i].number,
		       (unsigned long long)t[i].calls,
		       (unsigned long long)t[i].enabled);
	return 0;
}
