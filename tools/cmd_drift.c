// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_drift.c - `hvtrace drift`: the clock-drift test suite
 * (clocksync/drift_suite.h).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clocksync/drift_suite.h"
#include "lib/cli.h"
#include "lib/log.h"
#include "tools/commands.h"

#define MAX_PICKED 64

static void usage(FILE *out)
{
	fprintf(out,
"usage: hvtrace drift [OPTIONS] [SCENARIO...]\n"
"\n"
"Runs clock scenarios with known truth through hvtrace's clock model and\n"
"reports, per scenario, the estimate's error and the guaranteed interval:\n"
"error percentiles in ns, the interval's half-width, and violations (instants\n"
"where the interval excluded the truth). Exact-parameter scenarios convert\n"
"with KVM's own transforms and must be off by 0 ticks.\n"
"\n"
"  --seed N           seed of every random draw (default 1)\n"
"  --duration SECONDS length of every scenario (default: each its own)\n"
"  --rate HZ          clock exchanges per second (default 10)\n"
"  --format text|tsv  output format (default text, a table; 'table' is taken\n"
"                     too)\n"
"  --list             list the scenarios and exit\n"
"  -h, --help         this text\n"
"\n"
"Columns: samples, the exchanges the estimator was given; err, what merge\n"
"would get wrong at evenly spaced instants (ns); bound, the interval's\n"
"half-width; violations; segs, the segments the estimator cut the clock\n"
"into (one per change it found); recovery, how long after the last clock\n"
"change the error took to stay under 1 us ('-': no change; 'never').\n"
"TSV columns: scenario samples err_p50_ns err_p99_ns err_max_ns bound_p50_ns violations\n"
"\n"
"Exit status: 0 no violation in a scenario within the guarantee, 1 some,\n"
"2 usage error or no such scenario.\n");
}

static int parse_num(const char *s, double *out)
{
	char *end;

	*out = strtod(s, &end);
	return *s && !*end && *out > 0 && isfinite(*out) ? 0 : -1;
}

static void print_row(const struct hvt_drift_result *r, int tsv)
{
	if (tsv) {
		printf("%s\t%llu\t%.1f\t%.1f\t%.1f\t%.1f\t%llu\n", r->scenario,
		       (unsigned long long)r->samples, r->err_p50_ns, r->err_p99_ns, r->err_max_ns,
		       r->bound_p50_ns, (unsigned long long)r->violations);
		return;
	}
	printf("%-22s %9llu %11.1f %11.1f %12.1f %12.1f %10llu %5zu  ", r->scenario,
	       (unsigned long long)r->samples, r->err_p50_ns, r->err_p99_ns, r->err_max_ns,
	       r->bound_p50_ns, (unsigned long long)r->violations, r->segments);
	if (r->recovery_s < 0)
		printf("-\n");
	else if (isinf(r->recovery_s))
		printf("never\n");
	else
		printf("%.1f s\n", r->recovery_s);
}

int hvt_cmd_drift(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "duration", required_argument, NULL, 'd' },
		{ "rate", required_argument, NULL, 'r' },
		{ "format", required_argument, NULL, 'f' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct hvt_drift_options o = { 1, 0, 0 };
	size_t picked[MAX_PICKED], n = 0, i;
	int c, tsv = 0, failed = 0, outside = 0;
	double v;

	optind = 0;	/* glibc: start over, the command may run more than once */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (hvt_parse_u64(optarg, 0, UINT64_MAX, &o.seed))
				return hvt_usage_error("drift", "invalid --seed '%s': a number",
						       optarg);
			break;
		case 'd':
		case 'r':
			if (parse_num(optarg, &v)) {
				return hvt_usage_error("drift", "invalid --%s: %s",
						       c == 'd' ? "duration" : "rate", optarg);
			}
			if (c == 'd')
				o.duration_s = v;
			else
				o.rate_hz = v;
			break;
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "table") && strcmp(optarg, "tsv")) {
				return hvt_usage_error("drift", "--format is text or tsv, not '%s'",
						       optarg);
			}
			tsv = !strcmp(optarg, "tsv");
			break;
		case 'l':
			for (i = 0; i < hvt_drift_nr_scenarios(); i++)
				printf("%-22s %s\n", hvt_drift_scenario_name(i),
				       hvt_drift_scenario_summary(i));
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return hvt_usage_bad_option("drift", argv, "h", opts);
		}
	}
	for (; optind < argc; optind++) {
		long k = hvt_drift_find(argv[optind]);

		if (k < 0) {
			hvt_err("no scenario '%s'; 'hvtrace drift --list' lists them", argv[optind]);
			return 2;
		}
		if (n < MAX_PICKED)
			picked[n++] = (size_t)k;
	}
	if (!n)
		for (i = 0; i < hvt_drift_nr_scenarios() && i < MAX_PICKED; i++)
			picked[n++] = i;
	if (tsv)
		printf("scenario\tsamples\terr_p50_ns\terr_p99_ns\terr_max_ns\tbound_p50_ns\tviolations\n");
	else
		printf("%-22s %9s %11s %11s %12s %12s %10s %5s  %s\n", "scenario", "samples",
		       "err p50 ns", "err p99 ns", "err max ns", "bound p50 ns", "violations",
		       "segs", "recovery");
	for (i = 0; i < n; i++) {
		struct hvt_drift_result r;

		if (hvt_drift_run(picked[i], &o, &r)) {
			hvt_err("scenario %s: out of memory", hvt_drift_scenario_name(picked[i]));
			return 1;
		}
		print_row(&r, tsv);
		fflush(stdout);
		if (hvt_drift_scenario_guaranteed(picked[i]))
			failed += r.violations != 0;
		else
			outside++;
	}
	if (!tsv && outside)
		printf("\nScenarios outside the guarantee (a clock that is not piecewise linear, a\n"
		       "change under the delay noise) show where it ends; see docs/clock-model.md.\n");
	if (failed)
		hvt_err("%d scenario%s within the guarantee had violations", failed,
			failed == 1 ? "" : "s");
	return failed ? 1 : 0;
}
