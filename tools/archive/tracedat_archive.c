// SPDX-License-Identifier: GPL-2.0-only
/*
 * tracedat_archive.c - a trace-cmd trace.dat on its own, as an archive with
 * a host layer only (archive.h): what `hvtrace merge TRACE.DAT` reads.
 *
 * An archive's clock pairs map the host TSC to CLOCK_MONOTONIC. A trace.dat
 * has none; its timestamps are on its trace clock, and the pairs made here
 * say how that clock counts:
 *   - local, global, mono, mono_raw, boot, tai, perf: nanoseconds already,
 *     so the map is the identity;
 *   - x86-tsc: TSC ticks, at this machine's TSC rate, measured here over
 *     HZ_SPAN_MS: right for a file recorded on this host, and its times are
 *     this boot's CLOCK_MONOTONIC if it was recorded since the last boot;
 *   - any other (counter, uptime, ...): no unit hvtrace can convert; refused.
 * The first pair sits at the file's first timestamp, so that times since
 * the start count from its first event, and --time=host-tsc prints the
 * file's own timestamps, as trace-cmd report does. CLOCK_REALTIME is taken
 * to be the file's clock plus this boot's realtime - monotonic difference
 * (exact for mono and x86-tsc files of this boot; local and boot are close),
 * which also keeps a CTF output's clock offset positive, as babeltrace2
 * needs.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#include "lib/log.h"
#include "tools/archive/tracedat_archive.h"

#define HZ_SPAN_MS	20

static const char *const ns_clocks[] = {
	"local", "global", "mono", "mono_raw", "boot", "tai", "perf", NULL
};

static bool ns_clock(const char *clock)
{
	size_t i;

	for (i = 0; ns_clocks[i]; i++)
		if (!strcmp(clock, ns_clocks[i]))
			return true;
	return false;
}

/* One TSC read and CLOCK_MONOTONIC read beside it, in ns. */
static void tsc_mono(uint64_t *tsc, int64_t *ns)
{
	struct timespec t;

	*tsc = __rdtsc();
	clock_gettime(CLOCK_MONOTONIC, &t);
	*ns = (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* This machine's TSC rate, over HZ_SPAN_MS; 0 if the TSC did not move. */
static uint64_t tsc_hz(uint64_t *tsc, int64_t *ns)
{
	struct timespec nap = { 0, HZ_SPAN_MS * 1000000L };
	uint64_t t0;
	int64_t n0;

	tsc_mono(&t0, &n0);
	nanosleep(&nap, NULL);
	tsc_mono(tsc, ns);
	if (*tsc <= t0 || *ns <= n0)
		return 0;
	return (uint64_t)((double)(*tsc - t0) * 1e9 / (double)(*ns - n0) + 0.5);
}

/* CLOCK_REALTIME - CLOCK_MONOTONIC now, in ns. */
static int64_t realtime_minus_mono(void)
{
	struct timespec r, m;

	clock_gettime(CLOCK_MONOTONIC, &m);
	clock_gettime(CLOCK_REALTIME, &r);
	return ((int64_t)r.tv_sec - (int64_t)m.tv_sec) * 1000000000 + (r.tv_nsec - m.tv_nsec);
}

int hvt_archive_from_tracedat(struct hvt_archive *a, const char *path, const char *clock,
			      uint64_t first_ts)
{
	uint64_t hz = 1000000000, now_tsc;
	int64_t now_ns, first_ns = (int64_t)(first_ts & INT64_MAX), real = realtime_minus_mono();

	memset(a, 0, sizeof(*a));
	if (!ns_clock(clock) && strcmp(clock, "x86-tsc")) {
		hvt_err("%s: recorded with trace clock '%s', which counts no unit hvtrace can "
			"convert to time: record with -C local, mono, boot or x86-tsc", path, clock);
		return -1;
	}
	if (!strcmp(clock, "x86-tsc")) {
		hz = tsc_hz(&now_tsc, &now_ns);
		if (!hz) {
			hvt_err("%s: on the x86-tsc clock, and this machine's TSC rate cannot be "
				"measured", path);
			return -1;
		}
		/* where this boot's CLOCK_MONOTONIC had the first timestamp */
		first_ns = now_ns - (int64_t)((double)(now_tsc - first_ts) * 1e9 / (double)hz);
		hvt_info("%s: x86-tsc timestamps, converted at this machine's TSC rate "
			 "(%.6f GHz): right for a file recorded on this host", path, (double)hz / 1e9);
	}
	a->root = strdup(path);
	a->pairs = calloc(2, sizeof(*a->pairs));
	if (!a->root || !a->pairs) {
		hvt_err("out of memory");
		hvt_archive_close(a);
		return -1;
	}
	a->complete = true;
	a->tsc_freq_hz = hz;
	a->pairs[0] = (struct hvt_clock_pair){ .tsc = first_ts, .mono_ns = first_ns,
					       .real_ns = first_ns + real };
	a->pairs[1] = (struct hvt_clock_pair){ .tsc = first_ts + hz,
					       .mono_ns = first_ns + 1000000000,
					       .real_ns = first_ns + 1000000000 + real };
	a->nr_pairs = 2;
	return 0;
}
