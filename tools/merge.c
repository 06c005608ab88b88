// SPDX-License-Identifier: GPL-2.0-only
/*
 * merge.c - `hvtrace merge`: an archive as one time line, one line per event.
 *
 *       0.001234567 host   -     cpu1 tid=4321 sched_switch prev_comm=...
 *       0.001240000 kernel demo  cpu0 tid=77 sched_switch prev_comm=...
 *       0.001300000 user   demo  cpu1 tid=78 hvdemo:send round=3 to_tid=77
 *
 * time, layer, VM ('-' on the host), CPU, thread, event, fields. The order
 * and its tie-break are heap.h's.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"
#include "tools/commands.h"
#include "tools/merge.h"
#include "tools/textout.h"
#include "tools/timeline.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: hvtrace merge ARCHIVE [--format=text|null] [--time=ns|host-tsc|realtime]\n"
		"                     [--output FILE]\n\n"
		"Prints every event of ARCHIVE (host ftrace, guest kernel, guest user space)\n"
		"on the host's time line, one line per event, ordered by host time.\n\n"
		"  --format=text     one line per event (default)\n"
		"  --format=null     decode and merge, print nothing (benchmarks)\n"
		"  --time=ns         seconds.nanoseconds since the trace started (default)\n"
		"  --time=host-tsc   the host TSC value\n"
		"  --time=realtime   host CLOCK_REALTIME, seconds.nanoseconds since the epoch\n"
		"  --output FILE     write the events to FILE instead of standard output\n\n"
		"With text, a summary goes to standard error. Exit status: 0 merged (maybe\n"
		"with warnings), 1 the archive could not be read, 2 usage error.\n");
}

/* [-]seconds.nanoseconds; returns the length. */
static unsigned int format_ns(char *buf, int64_t ns)
{
	uint64_t mag = ns < 0 ? -(uint64_t)ns : (uint64_t)ns, frac = mag % 1000000000u;
	char *p = buf;
	int i;

	if (ns < 0)
		*p++ = '-';
	p += hvt_u64_text(p, mag / 1000000000u);
	*p++ = '.';
	for (i = 8; i >= 0; i--, frac /= 10)
		p[i] = (char)('0' + frac % 10);
	p[9] = '\0';
	return (unsigned int)(p + 9 - buf);
}

unsigned int hvt_format_time(char buf[HVT_TIME_TEXT_MAX], enum hvt_time_mode mode,
			     struct hvt_host_clock *clock, uint64_t host_tsc)
{
	switch (mode) {
	case HVT_TIME_HOST_TSC:
		return hvt_u64_text(buf, host_tsc);
	case HVT_TIME_REALTIME:
		return format_ns(buf, hvt_host_clock_realtime(clock, host_tsc));
	default:
		return format_ns(buf, hvt_host_clock_since_start(clock, host_tsc));
	}
}

#define TIME_WIDTH	16	/* the time is right-aligned in as many columns */
#define LAYER_WIDTH	6
#define VM_WIDTH	5
#define CPU_WIDTH	4
#define OUTPUT_BUFFER	(1u << 20)

int hvt_printer_init(struct hvt_printer *p, struct hvt_timeline *tl,
		     enum hvt_time_mode mode, FILE *out)
{
	char *buf = malloc(OUTPUT_BUFFER);
	size_t i;

	memset(p, 0, sizeof(*p));
	p->cols = calloc(tl->nr_sources + 1, sizeof(*p->cols));
	if (!buf || !p->cols) {
		free(buf);
		free(p->cols);
		return -1;
	}
	hvt_text_init(&p->text, out, buf, OUTPUT_BUFFER);
	p->mode = mode;
	p->clock = &tl->clock;
	for (i = 0; i < tl->nr_sources; i++) {
		const struct hvt_source *s = &tl->sources[i];
		struct hvt_source_cols *c = &p->cols[s->index];
		int n = snprintf(c->text, sizeof(c->text), "%-*s %-*s ", LAYER_WIDTH,
				 hvt_layer_name(s->layer), VM_WIDTH, s->vm ? s->vm : "-");

		c->len = n > 0 && (size_t)n < sizeof(c->text) ? (unsigned int)n : 0;
	}
	return 0;
}

void hvt_printer_free(struct hvt_printer *p)
{
	free(p->text.buf);
	free(p->cols);
	memset(p, 0, sizeof(*p));
}

void hvt_print_event(struct hvt_printer *pr, struct hvt_source *s)
{
	struct hvt_text *t = &pr->text;
	uint32_t cpu = hvt_source_cpu(s);
	char time[HVT_TIME_TEXT_MAX], *p;
	unsigned int len = hvt_format_time(time, pr->mode, pr->clock, s->host_tsc), pad, n;

	/* time, right-aligned */
	pad = len < TIME_WIDTH ? TIME_WIDTH - len : 0;
	p = hvt_text_room(t, TIME_WIDTH + HVT_TIME_TEXT_MAX);
	memset(p, ' ', pad);
	memcpy(p + pad, time, len);
	p[pad + len] = ' ';
	t->p += pad + len + 1;
	/* layer and VM: the same for every line of the source */
	hvt_text_mem(t, pr->cols[s->index].text, pr->cols[s->index].len);
	/* cpuN or -, then tid=N */
	p = hvt_text_room(t, 48);
	if (cpu != HVT_CTF_NO_CPU) {
		memcpy(p, "cpu", 3);
		n = 3 + hvt_u64_text(p + 3, cpu);
	} else {
		*p = '-';
		n = 1;
	}
	while (n < CPU_WIDTH)
		p[n++] = ' ';
	memcpy(p + n, " tid=", 5);
	t->p += n + 5;
	hvt_text_s64(t, hvt_source_tid(s));
	hvt_text_char(t, ' ');
	hvt_source_print_name(s, t);
	hvt_source_print_fields(s, t);
	hvt_text_char(t, '\n');
}

struct merge_opts {
	const char *archive;
	const char *output;
	bool null;
	enum hvt_time_mode time;
};

static int parse_args(int argc, char **argv, struct merge_opts *o)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "time", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	optind = 0;	/* glibc: start over, the command may run more than once */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "null"))
				goto bad_value;
			o->null = !strcmp(optarg, "null");
			break;
		case 't':
			if (!strcmp(optarg, "ns"))
				o->time = HVT_TIME_NS;
			else if (!strcmp(optarg, "host-tsc"))
				o->time = HVT_TIME_HOST_TSC;
			else if (!strcmp(optarg, "realtime"))
				o->time = HVT_TIME_REALTIME;
			else
				goto bad_value;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			hvt_err("unknown option or missing value: '%s'; see 'hvtrace merge --help'",
				argv[optind - 1]);
			return -1;
		}
	}
	if (optind != argc - 1) {
		hvt_err("expected one ARCHIVE directory; see 'hvtrace merge --help'");
		return -1;
	}
	o->archive = argv[optind];
	return 0;
bad_value:
	hvt_err("invalid value '%s' for %s; see 'hvtrace merge --help'", optarg,
		argv[optind - 1]);
	return -1;
}

static size_t merged_streams(const struct hvt_timeline *tl)
{
	size_t i, n = 0;

	for (i = 0; i < tl->nr_sources; i++)
		n += tl->sources[i].aligned && (tl->sources[i].ftrace || tl->sources[i].ctf);
	return n;
}

/* @ticks host ticks around host TSC @at, in µs (the host clock's own rate). */
static double ticks_us(struct hvt_timeline *tl, uint64_t at, uint64_t ticks)
{
	return (double)(hvt_host_clock_mono(&tl->clock, at + ticks) -
			hvt_host_clock_mono(&tl->clock, at)) / 1000.0;
}

/* How precisely each guest sits on the host's time line. */
static void alignment_summary(struct hvt_timeline *tl)
{
	size_t i;

	for (i = 0; i < tl->archive.nr_vms; i++) {
		struct hvt_vm_state *st = &tl->vms[i];
		struct hvt_vm_clock_quality q;
		size_t segs;

		if (!st->loaded || !st->aligned || st->exact)	/* exact: said when opened */
			continue;
		segs = hvt_vm_clock_segments(&st->clock);
		hvt_vm_clock_quality(&st->clock, st->vm.sync, st->vm.nr_sync, &q);
		if (!q.measured) {
			hvt_info("vm %s: clock from %zu exchange%s; too few to bound its error",
				 st->vm.name, st->vm.nr_sync, st->vm.nr_sync == 1 ? "" : "s");
			continue;
		}
		hvt_info("vm %s: clock from %zu exchanges and %zu sync points, %zu segment%s; "
			 "guest events are within +/-%.3f us of their host time (median; worst "
			 "%.3f us) between the first and last exchange%s", st->vm.name,
			 st->vm.nr_sync, st->clock.nr_points, segs,
			 segs == 1 ? "" : "s", ticks_us(tl, q.host_mid, q.half_p50),
			 ticks_us(tl, q.host_mid, q.half_max),
			 q.in_window ? ", except around each clock change" : "");
	}
}

static void summary(struct hvt_timeline *tl)
{
	const uint64_t *e = tl->events;
	uint64_t lost = hvt_timeline_lost(tl);
	char lost_text[64] = "";
	unsigned long warnings = hvt_timeline_warnings(tl);

	if (lost)
		snprintf(lost_text, sizeof(lost_text), ", %" PRIu64 " lost while recording", lost);
	hvt_info("%" PRIu64 " events (host %" PRIu64 ", kernel %" PRIu64 ", user %" PRIu64
		 ") from %zu streams%s, %lu warning%s", e[0] + e[1] + e[2],
		 e[HVT_LAYER_HOST], e[HVT_LAYER_KERNEL], e[HVT_LAYER_USER],
		 merged_streams(tl), lost_text, warnings, warnings == 1 ? "" : "s");
	alignment_summary(tl);
}

/*
 * Our own stream, also for standard output (on a duplicate of fd 1), and
 * unbuffered: lines are assembled in the printer's buffer, which goes out
 * in one write when full.
 */
static FILE *open_output(const char *path)
{
	int fd = path ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) :
		 fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
	FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!out) {
		hvt_err("cannot write %s: %s", path ? path : "standard output", strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	setvbuf(out, NULL, _IONBF, 0);
	return out;
}

static int close_output(FILE *out, const char *path, struct hvt_printer *pr)
{
	int failed;

	hvt_text_flush(&pr->text);
	failed = ferror(out);
	failed |= fclose(out) != 0;
	if (failed)
		hvt_err("writing %s failed: %s", path ? path : "standard output", strerror(errno));
	hvt_printer_free(pr);
	return failed ? -1 : 0;
}

int hvt_cmd_merge(int argc, char **argv)
{
	struct merge_opts o;
	struct hvt_timeline tl;
	struct hvt_printer pr;
	struct hvt_source *s;
	FILE *out = NULL;
	int ret;

	ret = parse_args(argc, argv, &o);
	if (ret)
		return ret > 0 ? 0 : 2;
	if (hvt_timeline_open(&tl, o.archive, false))
		return 1;
	if (!o.null && !(out = open_output(o.output))) {
		hvt_timeline_close(&tl);
		return 1;
	}
	if (out && hvt_printer_init(&pr, &tl, o.time, out)) {
		hvt_err("out of memory");
		fclose(out);
		hvt_timeline_close(&tl);
		return 1;
	}
	while ((s = hvt_timeline_next(&tl)))
		if (out)
			hvt_print_event(&pr, s);
	ret = out && close_output(out, o.output, &pr) ? 1 : 0;
	if (out)
		summary(&tl);	/* --format=null prints nothing but problems */
	hvt_timeline_close(&tl);
	return ret;
}
