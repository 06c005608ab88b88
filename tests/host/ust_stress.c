// SPDX-License-Identifier: GPL-2.0-only
/*
 * ust_stress.c - libhvtrace under more threads than CPUs, forced
 * migrations and a fork, for tests/e2e/user_stress.sh.
 *
 *   hvtrace-ust-stress [-t THREADS] [-n EVENTS] [-f CHILD_THREADS] [-m EVERY]
 *   hvtrace-ust-stress -w PAGE
 *
 * Every thread emits EVENTS stress:tick events (thread, seq, clock): its
 * number, 0..EVENTS-1 in order, and hvt_clock_read() just before. Every
 * EVERY events it moves itself to the next online CPU (sched_setaffinity),
 * so that writes, clock reads and buffer switches happen across
 * migrations. With -f, after the parent's threads have started, the
 * process forks; the child runs CHILD_THREADS threads of its own, numbered
 * from 1000, while the parent's keep writing: the child must trace into
 * buffers of its own and leave the parent's intact.
 *
 * What a thread did is printed, one line each, for the test to compare
 * with what the archive holds:
 *
 *   thread I pid P emitted N backwards B
 *
 * B counts clock reads lower than the thread's previous read; it must be 0.
 * The process fails (exit 1) if tracing was not enabled, so that a test
 * cannot pass on a run that recorded nothing by design.
 *
 * -w PAGE writes a clock page as the guest module publishes it (not synced
 * with a host) to the file PAGE and exits: with HVTRACE_DEVICE=PAGE the
 * library then reads the TSC with RDTSCP, the guest's clock path, on a host.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <hvtrace/hvtrace.h>

#include "tests/common/clock_page_file.h"

HVT_TRACEPOINT_EVENT(stress, tick,
	HVT_PROTO(uint64_t thread, uint64_t seq, uint64_t clock),
	HVT_ARGS(thread, seq, clock),
	HVT_FIELDS((int, uint64_t, thread), (int, uint64_t, seq), (int, uint64_t, clock)),
	HVT_ASSIGN(__entry->thread = thread; __entry->seq = seq; __entry->clock = clock;),
	HVT_PRINT("thread=%lu seq=%lu clock=%lu"))

struct worker {
	pthread_t thread;
	uint64_t number;
	uint64_t backwards;
};

static uint64_t nr_events = 100000;
static unsigned int migrate_every = 256;
static cpu_set_t allowed;	/* the CPUs the process started with */

/* The next CPU after @from that the process may run on, or -1 if there is one only. */
static int next_cpu(int from)
{
	int i, cpu;

	for (i = 1; i < CPU_SETSIZE; i++) {
		cpu = (from + i) % CPU_SETSIZE;
		if (CPU_ISSET(cpu, &allowed))
			return cpu;
	}
	return -1;
}

static void move_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("sched_setaffinity");
}

static void *work(void *arg)
{
	struct worker *w = arg;
	uint64_t seq, now, last = 0;
	int cpu = sched_getcpu();

	for (seq = 0; seq < nr_events; seq++) {
		if (seq % migrate_every == 0 && (cpu = next_cpu(cpu)) >= 0)
			move_to(cpu);
		now = hvt_clock_read();
		if (now < last)
			w->backwards++;
		last = now;
		hvt_tracepoint(stress, tick, w->number, seq, now);
	}
	return NULL;
}

/* Runs @n workers numbered from @first; fills @workers. */
static int start(struct worker *workers, unsigned int n, uint64_t first)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		workers[i].number = first + i;
		workers[i].backwards = 0;
		if (pthread_create(&workers[i].thread, NULL, work, &workers[i])) {
			fprintf(stderr, "ust_stress: cannot start thread %u\n", i);
			return -1;
		}
	}
	return 0;
}

static void finish(struct worker *workers, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		pthread_join(workers[i].thread, NULL);
	for (i = 0; i < n; i++)
		printf("thread %llu pid %d emitted %llu backwards %llu\n",
		       (unsigned long long)workers[i].number, (int)getpid(),
		       (unsigned long long)nr_events, (unsigned long long)workers[i].backwards);
	fflush(stdout);
}

static int usage(void)
{
	fprintf(stderr, "usage: hvtrace-ust-stress [-t THREADS] [-n EVENTS] "
			"[-f CHILD_THREADS] [-m EVERY]\n"
			"       hvtrace-ust-stress -w PAGE\n");
	return 2;
}

int main(int argc, char **argv)
{
	unsigned int threads = 0, child_threads = 0;
	struct worker *workers, *child;
	int opt, status;
	pid_t pid;

	if (sched_getaffinity(0, sizeof(allowed), &allowed)) {
		perror("sched_getaffinity");
		return 1;
	}
	while ((opt = getopt(argc, argv, "t:n:f:m:w:")) != -1) {
		switch (opt) {
		case 't': threads = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'n': nr_events = strtoull(optarg, NULL, 0); break;
		case 'f': child_threads = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'm': migrate_every = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'w':
			if (!hvt_test_write_clock_page(optarg, 1000000))
				return 0;
			perror(optarg);
			return 1;
		default: return usage();
		}
	}
	if (optind != argc || !nr_events || !migrate_every)
		return usage();
	if (!threads)
		threads = 2 * (unsigned int)CPU_COUNT(&allowed) + 1;
	/* The first event makes the thread's buffer; check the library got an agent. */
	hvt_tracepoint(stress, tick, UINT64_MAX, 0, hvt_clock_read());
	if (!hvt_event_stress_tick.enabled) {
		fprintf(stderr, "ust_stress: tracing is not enabled (HVTRACE_DEBUG=1 says why)\n");
		return 1;
	}
	workers = calloc(threads, sizeof(*workers));
	child = calloc(child_threads ? child_threads : 1, sizeof(*child));
	if (!workers || !child || start(workers, threads, 0))
		return 1;
	if (child_threads) {
		fflush(stdout);
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			if (start(child, child_threads, 1000))
				_exit(1);
			finish(child, child_threads);
			_exit(0);
		}
	}
	finish(workers, threads);
	if (child_threads && (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
			      WEXITSTATUS(status))) {
		fprintf(stderr, "ust_stress: the forked child failed\n");
		return 1;
	}
	return 0;
}
