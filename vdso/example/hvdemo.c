// SPDX-License-Identifier: MIT
/*
 * hvdemo - the demo application of `make demo`.
 *
 * Two threads play ping-pong through pipes: every hand-over is a context
 * switch the guest kernel module records, next to the user events this
 * program emits through libhvtrace, on the same clock. Between rounds the
 * threads sleep, so the host also sees the VM's vCPU threads switch.
 *
 *   hvdemo [ROUNDS] [SLEEP_US]      (defaults: 200 rounds, 5000 us)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hvdemo_tp.h"

struct player {
	int in, out;
	pid_t peer_tid;
};

static uint64_t spin(uint64_t seed, uint64_t n)
{
	uint64_t x = seed;

	while (n--)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

/*
 * Tells the main thread its tid through the pipe (which orders the write
 * before the main thread's read: no data race), then echoes every round
 * back until the pipe closes.
 */
static void *play(void *arg)
{
	struct player *p = arg;
	pid_t me = gettid();
	uint64_t round;

	if (write(p->out, &me, sizeof(me)) != sizeof(me))
		return NULL;
	while (read(p->in, &round, sizeof(round)) == sizeof(round)) {
		hvt_tracepoint(hvdemo, send, round, p->peer_tid);
		if (write(p->out, &round, sizeof(round)) != sizeof(round))
			break;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 0) : 200;
	unsigned long sleep_us = argc > 2 ? strtoul(argv[2], NULL, 0) : 5000;
	int to_peer[2], from_peer[2];
	struct hvt_clock_info info;
	pid_t peer_tid = 0, me = gettid();
	struct player peer;
	pthread_t thread;
	uint64_t round, sum = 0;

	if (pipe(to_peer) || pipe(from_peer)) {
		perror("hvdemo: pipe");
		return 1;
	}
	peer = (struct player){ to_peer[0], from_peer[1], me };
	if (pthread_create(&thread, NULL, play, &peer)) {
		fprintf(stderr, "hvdemo: cannot create a thread\n");
		return 1;
	}
	if (read(from_peer[0], &peer_tid, sizeof(peer_tid)) != sizeof(peer_tid)) {
		fprintf(stderr, "hvdemo: pipe broken\n");
		return 1;
	}
	hvt_clock_info(&info);
	printf("hvdemo: clock %s, %llu Hz, %s\n",
	       info.source == HVT_CLOCK_GUEST_TSC ? "guest TSC" :
	       info.source == HVT_CLOCK_TSC ? "TSC" : "CLOCK_MONOTONIC_RAW",
	       (unsigned long long)info.freq_hz, info.synced ? "synced to host" : "not synced");
	hvt_tracepoint(hvdemo, phase, "begin");
	for (round = 0; round < rounds; round++) {
		uint64_t back;

		sum = spin(sum + round, 2000);
		hvt_tracepoint(hvdemo, send, round, peer_tid);
		if (write(to_peer[1], &round, sizeof(round)) != sizeof(round) ||
		    read(from_peer[0], &back, sizeof(back)) != sizeof(back)) {
			fprintf(stderr, "hvdemo: pipe broken\n");
			return 1;
		}
		hvt_tracepoint(hvdemo, round_trip, round, 2000, sum);
		usleep(sleep_us);
	}
	hvt_tracepoint(hvdemo, phase, "end");
	close(to_peer[1]);
	pthread_join(thread, NULL);
	printf("hvdemo: %lu rounds done, checksum %#llx\n", rounds, (unsigned long long)sum);
	return 0;
}
