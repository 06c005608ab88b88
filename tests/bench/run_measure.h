/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * run_measure.h - for the benchmarks that time hvtrace's commands as a
 * user runs them: each run a process of its own, output to /dev/null, its
 * wall time and its peak resident set (VmHWM, sampled every millisecond).
 */
#ifndef HVT_BENCH_RUN_MEASURE_H
#define HVT_BENCH_RUN_MEASURE_H

#include <stdint.h>

struct bench_measure {
	double ns;		/* best per event; 0: it failed */
	double rss_mib;		/* the largest peak of its runs */
};

/* Runs @argv, output on /dev/null: its exit status or -1; its peak RSS in *@max_rss_kib. */
int bench_run_rss(char *const argv[], long *max_rss_kib);
/* $(BUILD)/hvtrace, beside this program's directory $(BUILD)/bench; NULL if none. */
char *bench_hvtrace_path(void);
/* @argv run @rounds times: the best time per one of @events, the largest peak. */
struct bench_measure bench_measure(char *const argv[], int rounds, uint64_t events);
/* One row of bench_row(): @m against the reference @r ("n/a" where either failed). */
void bench_measure_row(const char *op, struct bench_measure m, const char *ref,
		       struct bench_measure r);

#endif
