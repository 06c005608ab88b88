// SPDX-License-Identifier: GPL-2.0-only
/*
 * lttng_ref.c - the LTTng-UST reference of bench_tracepoint: the same
 * enabled event (three u64 fields) and a disabled one, timed with the same
 * loop (bench.h, best of BENCH_ROUNDS rounds of N events), while an LTTng
 * session records it. tests/bench/lttng_ref.sh runs it inside a session of
 * its own session daemon and adds what the trace holds.
 *
 *   lttng_ref RESULT     writes key=value lines to RESULT
 *
 * The provider is linked into this program (TRACEPOINT_DEFINE and
 * TRACEPOINT_CREATE_PROBES here), the common way to instrument an
 * application; the ring buffer is liblttng-ust's, a shared library, as
 * libhvtrace is for bench_tracepoint.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define TRACEPOINT_DEFINE
#define TRACEPOINT_CREATE_PROBES
#include "tests/bench/lttng_ref_tp.h"
#include "tests/bench/bench.h"

#define N 2000000ull		/* bench_tracepoint's count */

static void die(const char *what)
{
	fprintf(stderr, "lttng_ref: %s\n", what);
	exit(1);
}

/*
 * liblttng-ust's constructor already waited for the session daemon to
 * register this process and enable the session's events (up to
 * LTTNG_UST_REGISTER_TIMEOUT); this only catches a daemon that answered
 * late, so that no round is timed on a disabled event.
 */
static void wait_enabled(void)
{
	int i;

	for (i = 0; i < 100 && !tracepoint_enabled(bench_lttng, three); i++)
		usleep(100000);
	if (!tracepoint_enabled(bench_lttng, three))
		die("bench_lttng:three is not enabled: no session daemon reached");
	if (tracepoint_enabled(bench_lttng, off))
		die("bench_lttng:off is enabled: the session enables more than the bench's event");
}

int main(int argc, char **argv)
{
	double on_ns, off_ns;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: lttng_ref RESULT\n");
		return 2;
	}
	wait_enabled();
	BENCH_NS_PER_OP(off_ns, N, tracepoint(bench_lttng, off, i_));
	BENCH_NS_PER_OP(on_ns, N, tracepoint(bench_lttng, three, i_, 2 * i_, 3 * i_));

	f = fopen(argv[1], "w");
	if (!f || fprintf(f, "enabled_ns=%.3f\ndisabled_ns=%.3f\nemitted=%llu\n", on_ns, off_ns,
			  (unsigned long long)N * BENCH_ROUNDS) < 0 || fclose(f))
		die("cannot write the result");
	return 0;
}
