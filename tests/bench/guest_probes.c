// SPDX-License-Identifier: GPL-2.0-only
/*
 * guest_probes.c - hvtrace-guest-bench, run inside the guest by
 * tests/bench/guest_probes.sh (scripts/guest-init, hvtrace.bench): what
 * recording an event adds to the work that fires it, hvtrace.ko's probe
 * against ftrace's for the same tracepoint, side by side on the same
 * workload. One workload per probe family:
 *
 *   sched  sched_switch: two processes pinned to one CPU bounce a byte
 *          through two pipes; each round trip is two context switches,
 *          counted (getrusage of both), not assumed. Per switch.
 *   block  block_rq_issue and block_rq_complete: direct 4 KiB reads of
 *          /dev/nullb0 (null_blk, no disk behind it, so the block layer's
 *          own cost is all there is besides the probes). Per I/O: two events.
 *   net    net_dev_xmit and netif_receive_skb: a UDP datagram to itself on
 *          lo, sent and received. Per datagram: two events.
 *
 * Three configurations, in rotation, REPEATS times:
 *
 *   off      nothing traced
 *   hvtrace  a session of hvtrace.ko with the workload's events only, 8 x
 *            64 KiB per CPU, flight-recorder mode (the oldest packets go),
 *            no reader
 *   ftrace   tracefs's events of the same names, a 512 KiB buffer per CPU,
 *            overwrite mode (ftrace's default), no reader
 *
 * Both tracers write every event into the same amount of memory and nobody
 * reads it: what is measured is the cost of recording. The session and the
 * events are set up before and torn down after each run, outside the timed
 * loop, so that "off" has no probe connected at all. Each traced run is
 * paired with the "off" run of its repetition; the added cost per unit is
 * the median over repetitions of (traced - off) / units.
 *
 * Output, one "hvbench:" line per result; each workload's last is its ratio.
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
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <time.h>
#include <unistd.h>
#include <hvtrace/abi.h>

#define TRACEFS		"/sys/kernel/tracing"
#define MAX_REPEATS	128
#define MAX_EVENTS	2
#define SUBBUF_SIZE	65536u
#define NR_SUBBUFS	8u
#define FTRACE_BUF_KB	"512"		/* = NR_SUBBUFS x SUBBUF_SIZE */
#define MIN_RECORD	48		/* bytes: the smallest record of these events */
#define NULLB		"/dev/nullb0"
#define IO_SIZE		4096
#define NULLB_SPAN	(1ull << 30)	/* null_blk's gb=1: reads wrap within it */

enum config { CFG_OFF, CFG_HVTRACE, CFG_FTRACE, NR_CFG };
static const char *const cfg_name[NR_CFG] = { "off", "hvtrace", "ftrace" };

struct run {
	double ns;		/* the timed loop */
	long units;		/* what the workload counted: switches, I/Os, datagrams */
	uint64_t took;		/* hvtrace: packets closed; ftrace: entries + overrun */
};

/* A workload, the events it fires and how many per unit. */
struct workload {
	const char *name;
	const char *unit;			/* "switch" */
	const char *events[MAX_EVENTS];		/* hvtrace.ko's names */
	const char *ftrace[MAX_EVENTS];		/* tracefs's SYSTEM/EVENT */
	unsigned int per_unit;			/* events per unit */
	const char *what;			/* for the first line */
	void (*run)(long rounds, struct run *r);
	int (*ready)(void);			/* 0, or -1 after saying why it cannot run */
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

/* ---- sched: a pipe ping-pong ---- */

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

/* @rounds round trips between this process and a child on bench_cpu; units: switches. */
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
	r->units = switches_of(RUSAGE_SELF) - before_self +
		   switches_of(RUSAGE_CHILDREN) - before_child;
	if (r->units < rounds)
		die("sched: only %ld context switches in %ld round trips", r->units, rounds);
	close(to_child[0]);
	close(to_child[1]);
	close(to_parent[0]);
	close(to_parent[1]);
}

/* ---- block: direct reads of null_blk ---- */

static int nullb_ready(void)
{
	if (access(NULLB, R_OK)) {
		printf("hvbench: block: skipped: no %s (%s): the guest has no null_blk\n", NULLB,
		       strerror(errno));
		return -1;
	}
	return 0;
}

/* @rounds direct reads of IO_SIZE bytes; units: I/Os. */
static void direct_reads(long rounds, struct run *r)
{
	static unsigned char buf[IO_SIZE] __attribute__((aligned(IO_SIZE)));
	int fd = open(NULLB, O_RDONLY | O_DIRECT | O_CLOEXEC);
	double t0;
	long i;

	if (fd < 0)
		die("block: %s: %s", NULLB, strerror(errno));
	t0 = now_ns();
	for (i = 0; i < rounds; i++)
		if (pread(fd, buf, IO_SIZE, (off_t)(((uint64_t)i * IO_SIZE) % NULLB_SPAN)) != IO_SIZE)
			die("block: read %ld of %s: %s", i, NULLB, strerror(errno));
	r->ns = now_ns() - t0;
	r->units = rounds;
	close(fd);
}

/* ---- net: UDP datagrams to itself on lo ---- */

static int lo_ready(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int ok = s >= 0 && !bind(s, (struct sockaddr *)&a, sizeof(a));

	if (s >= 0)
		close(s);
	if (!ok)
		printf("hvbench: net: skipped: no UDP socket on 127.0.0.1 (%s): is lo up?\n",
		       strerror(errno));
	return ok ? 0 : -1;
}

/* @rounds datagrams of 64 bytes sent to itself and received; units: datagrams. */
static void udp_loop(long rounds, struct run *r)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	char msg[64] = { 0 };
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	double t0;
	long i;

	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(s, (struct sockaddr *)&a, &len))
		die("net: UDP socket on 127.0.0.1: %s", strerror(errno));
	t0 = now_ns();
	for (i = 0; i < rounds; i++) {
		if (sendto(s, msg, sizeof(msg), 0, (struct sockaddr *)&a, sizeof(a)) != sizeof(msg) ||
		    recv(s, msg, sizeof(msg), 0) != sizeof(msg))
			die("net: datagram %ld: %s", i, strerror(errno));
	}
	r->ns = now_ns() - t0;
	r->units = rounds;
	close(s);
}

static int always_ready(void)
{
	return 0;
}

static const struct workload workloads[] = {
	{ "sched", "switch", { "sched_switch" }, { "sched/sched_switch" }, 1,
	  "pipe ping-pong", ping_pong, always_ready },
	{ "block", "I/O", { "block_rq_issue", "block_rq_complete" },
	  { "block/block_rq_issue", "block/block_rq_complete" }, 2,
	  "direct 4 KiB reads of " NULLB, direct_reads, nullb_ready },
	{ "net", "datagram", { "net_dev_xmit", "netif_receive_skb" },
	  { "net/net_dev_xmit", "net/netif_receive_skb" }, 2,
	  "UDP datagrams to itself on lo", udp_loop, lo_ready },
};

/* ---- hvtrace ---- */

static int hvtrace_session_start(const struct workload *w)
{
	struct hvtrace_session_config cfg = {
		.subbuf_size = SUBBUF_SIZE, .nr_subbufs = NR_SUBBUFS,
		.mode = HVTRACE_MODE_OVERWRITE,
	};
	int dev = open(HVTRACE_DEVICE, O_RDONLY | O_CLOEXEC), s, i;

	if (dev < 0)
		die("%s: %s (is hvtrace.ko loaded?)", HVTRACE_DEVICE, strerror(errno));
	s = ioctl(dev, HVTRACE_IOC_CREATE_SESSION, &cfg);
	close(dev);
	if (s < 0)
		die("hvtrace: CREATE_SESSION: %s", strerror(errno));
	for (i = 0; i < MAX_EVENTS && w->events[i]; i++) {
		struct hvtrace_event_name ev = { 0 };

		snprintf(ev.name, sizeof(ev.name), "%s", w->events[i]);
		if (ioctl(s, HVTRACE_SESSION_ENABLE_EVENT, &ev) != 0)
			die("hvtrace: %s is not available (%s)", w->events[i], strerror(errno));
	}
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

static void ftrace_events(const struct workload *w, const char *on)
{
	char file[128];
	int i;

	for (i = 0; i < MAX_EVENTS && w->ftrace[i]; i++) {
		snprintf(file, sizeof(file), "events/%s/enable", w->ftrace[i]);
		tracefs_write(file, on);
	}
}

static void run_config(const struct workload *w, enum config cfg, long rounds, struct run *r)
{
	int s = -1;

	r->took = 0;
	if (cfg == CFG_HVTRACE)
		s = hvtrace_session_start(w);
	if (cfg == CFG_FTRACE) {
		tracefs_write("trace", "");
		ftrace_events(w, "1");
	}
	w->run(rounds, r);
	if (cfg == CFG_HVTRACE)
		r->took = hvtrace_session_end(s);
	if (cfg == CFG_FTRACE) {
		ftrace_events(w, "0");
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

/* Dies unless the tracer took every event the run fired. */
static void check_run(const struct workload *w, enum config cfg, const struct run *r)
{
	uint64_t events = (uint64_t)r->units * w->per_unit;

	if (cfg == CFG_HVTRACE && r->took < events * MIN_RECORD / SUBBUF_SIZE)
		die("%s: hvtrace closed only %llu packets for %llu events: it did not record"
		    " them", w->name, (unsigned long long)r->took, (unsigned long long)events);
	if (cfg == CFG_FTRACE && r->took < events)
		die("%s: ftrace took only %llu events for %llu", w->name,
		    (unsigned long long)r->took, (unsigned long long)events);
}

/* REPEATS runs of each configuration of @w, rotated; its results printed. */
static void bench(const struct workload *w, long rounds, long repeats)
{
	double per_unit[NR_CFG][MAX_REPEATS], added[NR_CFG][MAX_REPEATS], med[NR_CFG];
	struct run r[NR_CFG];
	int i, c;

	if (w->ready())
		return;
	printf("hvbench: %s: %s on CPU %d, %ld per run, %ld runs of each\n", w->name, w->what,
	       bench_cpu, rounds, repeats);
	w->run(rounds / 10 + 1, &r[CFG_OFF]);	/* warm up */
	for (i = 0; i < repeats; i++) {
		for (c = 0; c < NR_CFG; c++) {
			enum config cfg = (enum config)((c + i) % NR_CFG);	/* rotate */

			run_config(w, cfg, rounds, &r[cfg]);
			check_run(w, cfg, &r[cfg]);
		}
		for (c = 0; c < NR_CFG; c++) {
			per_unit[c][i] = r[c].ns / r[c].units;
			added[c][i] = per_unit[c][i] - per_unit[CFG_OFF][i];
		}
		printf("hvbench: %s: run %d: ns per %s: off %.1f, hvtrace %.1f (%llu packets),"
		       " ftrace %.1f (%llu events); %ld %ss\n", w->name, i + 1, w->unit,
		       per_unit[CFG_OFF][i], per_unit[CFG_HVTRACE][i],
		       (unsigned long long)r[CFG_HVTRACE].took, per_unit[CFG_FTRACE][i],
		       (unsigned long long)r[CFG_FTRACE].took, r[CFG_OFF].units, w->unit);
	}
	for (c = 0; c < NR_CFG; c++)
		med[c] = quantile(per_unit[c], (int)repeats, 0.5);
	printf("hvbench: %s: median ns per %s: off %.1f, hvtrace %.1f, ftrace %.1f\n", w->name,
	       w->unit, med[CFG_OFF], med[CFG_HVTRACE], med[CFG_FTRACE]);
	for (c = CFG_HVTRACE; c < NR_CFG; c++) {
		med[c] = quantile(added[c], (int)repeats, 0.5);
		printf("hvbench: %s: added by %s's %s%s%s: %.1f ns per %s (median of paired runs;"
		       " quartiles %.1f and %.1f)\n", w->name, cfg_name[c], w->events[0],
		       w->events[1] ? " and " : "", w->events[1] ? w->events[1] : "", med[c],
		       w->unit, quantile(added[c], (int)repeats, 0.25),
		       quantile(added[c], (int)repeats, 0.75));
	}
	if (med[CFG_FTRACE] <= 0)
		printf("hvbench: %s: ratio hvtrace/ftrace added cost per %s: not measurable,"
		       " ftrace's median is within the noise (%.1f ns)\n", w->name, w->unit,
		       med[CFG_FTRACE]);
	else if (med[CFG_HVTRACE] <= 0)
		printf("hvbench: %s: ratio hvtrace/ftrace added cost per %s: not measurable,"
		       " hvtrace's median is within the noise (%.1f ns)\n", w->name, w->unit,
		       med[CFG_HVTRACE]);
	else
		printf("hvbench: %s: ratio hvtrace/ftrace added cost per %s: %.2f (goal: at most"
		       " 0.5)\n", w->name, w->unit, med[CFG_HVTRACE] / med[CFG_FTRACE]);
}

static void usage(FILE *out, const char *argv0)
{
	fprintf(out, "usage: %s [ROUNDS [REPEATS [WORKLOAD...]]]\n"
		"  what each tracer's probe adds to the work that fires it, hvtrace.ko's and\n"
		"  ftrace's for the same tracepoints, untraced beside each; WORKLOAD: sched\n"
		"  (sched_switch, a pipe ping-pong), block (block_rq_issue and _complete,\n"
		"  direct reads of " NULLB "), net (net_dev_xmit and netif_receive_skb, UDP on\n"
		"  lo); default all three. ROUNDS (default 5000) round trips, I/Os or\n"
		"  datagrams per run, REPEATS (default 31, at most %d) runs of each\n"
		"  configuration; needs root and hvtrace.ko loaded. For a test guest: it\n"
		"  takes over tracefs's top instance (all its events off, 512 KiB per CPU,\n"
		"  overwrite mode)\n",
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

static const struct workload *workload_named(const char *name, const char *argv0)
{
	size_t i;

	for (i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++)
		if (!strcmp(workloads[i].name, name))
			return &workloads[i];
	usage(stderr, argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	long rounds = 5000, repeats = 31;
	size_t i;
	int a;

	if (argc > 1 && !strcmp(argv[1], "--help")) {
		usage(stdout, argv[0]);
		return 0;
	}
	if (argc > 1)
		rounds = parse_count(argv[1], argv[0]);
	if (argc > 2)
		repeats = parse_count(argv[2], argv[0]);
	if (repeats > MAX_REPEATS) {
		usage(stderr, argv[0]);
		return 2;
	}
	for (a = 3; a < argc; a++)
		workload_named(argv[a], argv[0]);	/* every name checked first */
	if (access(HVTRACE_DEVICE, R_OK))	/* before tracefs is touched */
		die("%s: %s (is hvtrace.ko loaded?)", HVTRACE_DEVICE, strerror(errno));
	setvbuf(stdout, NULL, _IOLBF, 0);
	bench_cpu = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;
	pin(bench_cpu);
	ftrace_setup();
	if (argc > 3)
		for (a = 3; a < argc; a++)
			bench(workload_named(argv[a], argv[0]), rounds, repeats);
	else
		for (i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++)
			bench(&workloads[i], rounds, repeats);
	return 0;
}
