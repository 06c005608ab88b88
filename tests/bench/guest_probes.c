// SPDX-License-Identifier: GPL-2.0-only
/*
 * guest_sched_switch.c - hvtrace-guest-bench, run inside the guest by
 * tests/bench/guest_sched_switch.sh (scripts/guest-init, hvtrace.bench):
 * what recording sched_switch adds to a context switch, hvtrace's against
 * ftrace's, side by side on the same workload.
 *
 * The workload: two processes pinned to one CPU bounce a byte through two
 * pipes; each round trip is two context switches. Context switches are
 * counted (getrusage of both), not assumed. Three configurations, in
 * rotation, REPEATS times:
 *
 *   off      nothing traced
 *   hvtrace  a session of hvtrace.ko with sched_switch only, 8 x 64 KiB per
 *            CPU, flight-recorder mode (the oldest packets go), no reader
 *   ftrace   tracefs's sched/sched_switch event, a 512 KiB buffer per CPU,
 *            overwrite mode (ftrace's default), no reader
 *
 * Both tracers write every event into the same amount of memory and nobody
 * reads it: what is measured is the cost of recording. The session and the
 * event are set up before and torn down after each run, outside the timed
 * loop, so that "off" has no probe connected at all. Each traced run is
 * paired with the "off" run of its repetition; the added cost per switch is
 * the median over repetitions of (traced - off) / switches.
 *
 * Output, one "hvbench:" line per result; the last is the ratio.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <hvtrace/abi.h>

#define TRACEFS		"/sys/kernel/tracing"
#define MAX_REPEATS	128
#define SUBBUF_SIZE	65536u
#define NR_SUBBUFS	8u
#define FTRACE_BUF_KB	"512"		/* = NR_SUBBUFS x SUBBUF_SIZE */
#define MIN_RECORD	48		/* bytes: hvtrace's sched_switch payload is 52 */

enum config { CFG_OFF, CFG_HVTRACE, CFG_FTRACE, NR_CFG };
static const char *const cfg_name[NR_CFG] = { "off", "hvtrace", "ftrace" };

struct run {
	double ns;		/* the timed loop */
	long switches;		/* of both processes */
	uint64_t took;		/* hvtrace: packets closed; ftrace: entries + overrun */
};

static int bench_cpu;

static __attribute__((format(printf, 1, 2), noreturn)) void die(const char *fmt, ...)
{
	va_list ap;

	fputs("hvbench: error: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	exit(1);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("cannot pin to CPU %d: %s", cpu, strerror(errno));
}

static long switches_of(int who)
{
	struct rusage ru;

	getrusage(who, &ru);
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

/* ---- the workload ---- */

static void bounce(int in, int out, long rounds, int first)
{
	char c = 0;
	long i;

	for (i = 0; i < rounds; i++) {
		if (!first && read(in, &c, 1) != 1)
			_exit(2);
		if (write(out, &c, 1) != 1)
			_exit(2);
		if (first && read(in, &c, 1) != 1)
			_exit(2);
	}
}

/* @rounds round trips between this process and a child on bench_cpu. */
static void ping_pong(long rounds, struct run *r)
{
	int to_child[2], to_parent[2], status;
	long before_self, before_child;
	pid_t pid;
	double t0;

	if (pipe(to_child) || pipe(to_parent))
		die("pipe: %s", strerror(errno));
	before_self = switches_of(RUSAGE_SELF);
	before_child = switches_of(RUSAGE_CHILDREN);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		bounce(to_child[0], to_parent[1], rounds, 0);
		_exit(0);
	}
	t0 = now_ns();
	bounce(to_parent[0], to_child[1], rounds, 1);
	r->ns = now_ns() - t0;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		die("the ping-pong child failed");
	r->switches = switches_of(RUSAGE_SELF) - before_self +
		      switches_of(RUSAGE_CHILDREN) - before_child;
	close(to_child[0]);
	close(to_child[1]);
	close(to_parent[0]);
	close(to_parent[1]);
}

/* ---- hvtrace ---- */

static int hvtrace_session_start(void)
{
	struct hvtrace_session_config cfg = {
		.subbuf_size = SUBBUF_SIZE, .nr_subbufs = NR_SUBBUFS,
		.mode = HVTRACE_MODE_OVERWRITE,
	};
	struct hvtrace_event_name ev = { .name = "sched_switch" };
	int dev = open(HVTRACE_DEVICE, O_RDONLY | O_CLOEXEC), s;

	if (dev < 0)
		die("%s: %s (is hvtrace.ko loaded?)", HVTRACE_DEVICE, strerror(errno));
	s = ioctl(dev, HVTRACE_IOC_CREATE_SESSION, &cfg);
	close(dev);
	if (s < 0)
		die("hvtrace: CREATE_SESSION: %s", strerror(errno));
	if (ioctl(s, HVTRACE_SESSION_ENABLE_EVENT, &ev) != 0)
		die("hvtrace: sched_switch is not available (%s)", strerror(errno));
	if (ioctl(s, HVTRACE_SESSION_START))
		die("hvtrace: START: %s", strerror(errno));
	return s;
}

/* Stops and closes @s; the packets bench_cpu's buffer closed. */
static uint64_t hvtrace_session_end(int s)
{
	struct hvtrace_stream_stats st = { 0 };
	uint32_t cpu = (uint32_t)bench_cpu;
	int stream;

	if (ioctl(s, HVTRACE_SESSION_STOP))
		die("hvtrace: STOP: %s", strerror(errno));
	stream = ioctl(s, HVTRACE_SESSION_STREAM, &cpu);
	if (stream < 0 || ioctl(stream, HVTRACE_STREAM_STATS, &st))
		die("hvtrace: stream stats: %s", strerror(errno));
	close(stream);
	close(s);
	return st.produced;
}

/* ---- ftrace ---- */

static void tracefs_write(const char *file, const char *text)
{
	char path[256];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	n = write(fd, text, strlen(text));
	if (n != (ssize_t)strlen(text))
		die("writing '%s' to %s: %s", text, path, n < 0 ? strerror(errno) : "short");
	close(fd);
}

/* entries + overrun of bench_cpu's buffer: the events it took. */
static uint64_t ftrace_cpu_events(void)
{
	char path[256], line[128];
	unsigned long long v, total = 0;
	FILE *f;

	snprintf(path, sizeof(path), TRACEFS "/per_cpu/cpu%d/stats", bench_cpu);
	f = fopen(path, "r");
	if (!f)
		die("%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "entries: %llu", &v) == 1 ||
		    sscanf(line, "overrun: %llu", &v) == 1)
			total += v;
	fclose(f);
	return total;
}

static void ftrace_setup(void)
{
	struct stat st;

	if (stat(TRACEFS "/events", &st) &&
	    mount("tracefs", TRACEFS, "tracefs", 0, NULL))
		die("cannot mount tracefs on " TRACEFS ": %s", strerror(errno));
	tracefs_write("events/enable", "0");
	tracefs_write("buffer_size_kb", FTRACE_BUF_KB);
	tracefs_write("options/overwrite", "1");
	tracefs_write("tracing_on", "1");
}

/* ---- one run of a configuration ---- */

static void run_config(enum config cfg, long rounds, struct run *r)
{
	int s = -1;

	r->took = 0;
	if (cfg == CFG_HVTRACE)
		s = hvtrace_session_start();
	if (cfg == CFG_FTRACE) {
		tracefs_write("trace", "");
		tracefs_write("events/sched/sched_switch/enable", "1");
	}
	ping_pong(rounds, r);
	if (cfg == CFG_HVTRACE)
		r->took = hvtrace_session_end(s);
	if (cfg == CFG_FTRACE) {
		tracefs_write("events/sched/sched_switch/enable", "0");
		r->took = ftrace_cpu_events();
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The @q quantile (0..1) of @v[0..n), which it sorts: linear between ranks. */
static double quantile(double *v, int n, double q)
{
	double rank = q * (n - 1);
	int lo = (int)rank;

	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return lo + 1 < n ? v[lo] + (rank - lo) * (v[lo + 1] - v[lo]) : v[lo];
}

/* Dies unless the run switched as often as it should and the tracer took every switch. */
static void check_run(enum config cfg, long rounds, const struct run *r)
{
	if (r->switches < rounds)
		die("%s: only %ld context switches in %ld round trips", cfg_name[cfg],
		    r->switches, rounds);
	if (cfg == CFG_HVTRACE && r->took < (uint64_t)r->switches * MIN_RECORD / SUBBUF_SIZE)
		die("hvtrace closed only %llu packets for %ld context switches: it did not record"
		    " them", (unsigned long long)r->took, r->switches);
	if (cfg == CFG_FTRACE && r->took < (uint64_t)r->switches)
		die("ftrace took only %llu events for %ld context switches",
		    (unsigned long long)r->took, r->switches);
}

static void usage(FILE *out, const char *argv0)
{
	fprintf(out, "usage: %s [ROUND_TRIPS [REPEATS]]\n"
		"  pipe ping-pong on one CPU, untraced, with hvtrace's sched_switch and with\n"
		"  ftrace's, ROUND_TRIPS (default 5000) per run, REPEATS (default 31, at\n"
		"  most %d) runs of each; needs root and hvtrace.ko loaded. For a test\n"
		"  guest: it takes over tracefs's top instance (all its events off, 512 KiB\n"
		"  per CPU, overwrite mode)\n",
		argv0, MAX_REPEATS);
}

static long parse_count(const char *s, const char *argv0)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v <= 0) {
		usage(stderr, argv0);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long rounds = 5000, repeats = 31;
	double per_switch[NR_CFG][MAX_REPEATS], added[NR_CFG][MAX_REPEATS], med[NR_CFG];
	struct run r[NR_CFG];
	int i, c;

	if (argc > 1 && !strcmp(argv[1], "--help")) {
		usage(stdout, argv[0]);
		return 0;
	}
	if (argc > 3) {
		usage(stderr, argv[0]);
		return 2;
	}
	if (argc > 1)
		rounds = parse_count(argv[1], argv[0]);
	if (argc > 2)
		repeats = parse_count(argv[2], argv[0]);
	if (repeats > MAX_REPEATS) {
		usage(stderr, argv[0]);
		return 2;
	}
	if (access(HVTRACE_DEVICE, R_OK))	/* before tracefs is touched */
		die("%s: %s (is hvtrace.ko loaded?)", HVTRACE_DEVICE, strerror(errno));
	setvbuf(stdout, NULL, _IOLBF, 0);
	bench_cpu = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;
	pin(bench_cpu);
	ftrace_setup();
	printf("hvbench: pipe ping-pong on CPU %d, %ld round trips per run, %ld runs of each\n",
	       bench_cpu, rounds, repeats);
	ping_pong(rounds / 10 + 1, &r[CFG_OFF]);	/* warm up */
	for (i = 0; i < repeats; i++) {
		for (c = 0; c < NR_CFG; c++) {
			enum config cfg = (enum config)((c + i) % NR_CFG);	/* rotate */

			run_config(cfg, rounds, &r[cfg]);
			check_run(cfg, rounds, &r[cfg]);
		}
		for (c = 0; c < NR_CFG; c++) {
			per_switch[c][i] = r[c].ns / r[c].switches;
			added[c][i] = per_switch[c][i] - per_switch[CFG_OFF][i];
		}
		printf("hvbench: run %d: ns per switch: off %.1f, hvtrace %.1f (%llu packets),"
		       " ftrace %.1f (%llu events); %ld switches\n", i + 1,
		       per_switch[CFG_OFF][i], per_switch[CFG_HVTRACE][i],
		       (unsigned long long)r[CFG_HVTRACE].took, per_switch[CFG_FTRACE][i],
		       (unsigned long long)r[CFG_FTRACE].took, r[CFG_OFF].switches);
	}
	for (c = 0; c < NR_CFG; c++)
		med[c] = quantile(per_switch[c], (int)repeats, 0.5);
	printf("hvbench: median ns per context switch: off %.1f, hvtrace %.1f, ftrace %.1f\n",
	       med[CFG_OFF], med[CFG_HVTRACE], med[CFG_FTRACE]);
	for (c = CFG_HVTRACE; c < NR_CFG; c++) {
		med[c] = quantile(added[c], (int)repeats, 0.5);
		printf("hvbench: added by %s's sched_switch: %.1f ns per switch (median of paired"
		       " runs; quartiles %.1f and %.1f)\n", cfg_name[c], med[c],
		       quantile(added[c], (int)repeats, 0.25),
		       quantile(added[c], (int)repeats, 0.75));
	}
	if (med[CFG_FTRACE] <= 0)
		die("ftrace added no measurable cost: the ratio means nothing");
	if (med[CFG_HVTRACE] <= 0)
		printf("hvbench: ratio hvtrace/ftrace added cost per switch: not measurable,"
		       " hvtrace's median is within the noise (%.1f ns)\n", med[CFG_HVTRACE]);
	else
		printf("hvbench: ratio hvtrace/ftrace added cost per switch: %.2f (goal: at most"
		       " 0.5)\n", med[CFG_HVTRACE] / med[CFG_FTRACE]);
	return 0;
}
