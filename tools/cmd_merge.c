// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_merge.c - `hvtrace merge`: an archive as one time line, one line per event.
 *
 *       0.001234567 host   -     cpu1  CPU_0/TCG-4321        sched_switch prev_comm=...
 *       0.001240000 kernel demo  vcpu0 hvdemo-77             sched_switch prev_comm=...
 *       0.001300000 user   demo  vcpu1 hvdemo-78             hvdemo:send round=3 to_tid=77
 *
 * time, layer, VM ('-' on the host), CPU, thread (COMM-TID), event, fields. The order
 * and its tie-break are heap.h's.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cli.h"
#include "lib/fileio.h"
#include "lib/log.h"
#include "tools/commands.h"
#include "tools/out/merge_report.h"
#include "tools/out/output.h"
#include "tools/out/progress.h"
#include "tools/out/selection_report.h"
#include "tools/merge/follow.h"
#include "tools/merge/select.h"
#include "tools/model/span_hist.h"
#include "tools/util/text_buffer.h"
#include "tools/merge/timeline.h"
#include "tools/session/session.h"

static void usage(FILE *out)
{
	fputs("usage: hvtrace merge ARCHIVE|TRACE.DAT... [--format=", out);
	hvt_output_formats_list(out);
	fputs("]\n", out);
	fprintf(out,
		"                     [--output PATH] [--force]\n"
		"                     [--time=ns|host-tsc|realtime] [--from T] [--to T]\n"
		"                     [--layer LIST] [--vm LIST] [--cpu LIST] [--tid LIST]\n"
		"                     [--pid LIST] [--comm LIST] [-e|--event LIST]\n"
		"                     [--print-fmt] [--bounds] [--delta] [--host-trace TRACE.DAT]\n"
		"                     [--guest-trace VM=TRACE.DAT] [--qemu-trace FILE]\n"
		"                     [--follow [--lag SECONDS]] [--stats] [-v|-q]\n\n"
		"Prints every event of ARCHIVE (host ftrace, guest kernel, guest user space)\n"
		"on the host's time line, ordered by host time. TRACE.DAT, a trace-cmd\n"
		"recording on its own, is read as an archive with a host layer only, on its\n"
		"trace clock: ns clocks (local, mono, boot, ...) as they are, x86-tsc at this\n"
		"machine's TSC rate (--time=host-tsc prints the file's own timestamps).\n"
		"Several TRACE.DAT files on one trace clock merge into one time line.\n\n"
		"Output:\n");
	hvt_output_formats_help(out);
	fprintf(out,
		"  -o, --output PATH write the events to the file PATH instead of standard\n"
		"                    output (with ctf: into the directory PATH)\n"
		"  --force           replace what --output names if it exists (every format:\n"
		"                    without it an existing file is refused, and kept); never\n"
		"                    a file merge reads\n"
		"  --time=ns         seconds.nanoseconds since the trace started (default)\n"
		"  --time=host-tsc   the host TSC value\n"
		"  --time=realtime   host CLOCK_REALTIME, seconds.nanoseconds since the epoch\n"
		"  --print-fmt       text: host events as ftrace and trace-cmd print them (their\n"
		"                    format's print fmt: 'prev_state=S ==> next_comm=...'),\n"
		"                    several times slower, instead of name=value per field\n"
		"  --bounds          text: after the time, each event's error bound in us,\n"
		"                    to the ns rounded up (+/-0.000: on the host TSC, exact;\n"
		"                    +/-?: none guaranteed); its true time lies within it\n"
		"  --delta           text: the time since the line before (+seconds, or\n"
		"                    +ticks with --time=host-tsc) instead of since the start\n\n"
		"Selection (LIST: comma-separated; each option may be repeated):\n"
		"  --from T, --to T  events from T and up to T, both included, in the unit of\n"
		"                    --time (seconds like 1.25, or TSC ticks with host-tsc)\n"
		"  --layer LIST      host, kernel, user, vmm (QEMU's own events)\n"
		"  --vm LIST         guest events of these VMs only (host events stay: drop\n"
		"                    them with --layer kernel,user)\n"
		"  --cpu LIST        CPU numbers and ranges, like 0,2-3 (the CPU column): 3 is\n"
		"                    host CPU 3 and each VM's vCPU 3; cpu3 the host's only,\n"
		"                    vcpu3 the VMs' only\n"
		"  --tid LIST        thread ids (the thread column's TID: the thread current\n"
		"                    when the event was recorded, on the host or in a VM);\n"
		"                    the whole column (hvdemo-77) is taken too\n"
		"  --pid LIST        process ids: the events of their threads. On the host,\n"
		"                    the threads the recording listed when it started and\n"
		"                    stopped (not those that came and went between); in a\n"
		"                    VM, the threads of its traced processes that traced\n"
		"                    events (not their other threads)\n"
		"  --comm LIST       thread names or shell patterns: the events of threads\n"
		"                    named so by the last sched_switch of their machine\n"
		"                    before the event (a user event: or by its process's\n"
		"                    name), like 'hvdemo,CPU */KVM' (or as the thread\n"
		"                    column shows them: 'CPU_*/KVM')\n"
		"  -e, --event LIST  event names or shell patterns, like 'sched_*,hvdemo:*'\n"
		"                    (host events by name alone: sched_switch, not\n"
		"                    sched:sched_switch)\n\n"
		"  --host-trace FILE the host layer from FILE, a trace.dat recorded by\n"
		"                    'trace-cmd record -C x86-tsc' on the same host and boot,\n"
		"                    instead of the archive's own (for a recording made\n"
		"                    without hvtrace's host layer, or beside it)\n"
		"  --guest-trace VM=FILE  FILE, a trace.dat recorded in the archive's VM VM\n"
		"                    by 'trace-cmd record -C x86-tsc', as more of its kernel\n"
		"                    layer, placed by the VM's own alignment (KVM's TSC\n"
		"                    offsets and scaling per vCPU, or the clock exchanges,\n"
		"                    with their bound); may be repeated. Beside a host\n"
		"                    TRACE.DAT instead of an archive, VM is a KVM guest of\n"
		"                    that recording, placed exactly by its\n"
		"                    kvm_write_tsc_offset events (record the host with -C\n"
		"                    x86-tsc -e kvm:kvm_write_tsc_offset; unscaled: the\n"
		"                    event carries no ratio; one VM per host file)\n"
		"  --qemu-trace FILE QEMU's own trace events, as its log trace backend writes\n"
		"                    them (qemu -trace enable=PATTERN,file=FILE -msg\n"
		"                    timestamp=on), as the vmm layer: their CLOCK_REALTIME\n"
		"                    microseconds placed through the archive's host clock\n"
		"                    pairs, the bound said; may be repeated\n\n"
		"  --follow          ARCHIVE is being recorded: print its events as they become\n"
		"                    final, until the recording completes (text, jsonl, null;\n"
		"                    waits up to 10 s for ARCHIVE to appear). An event is\n"
		"                    final once every stream was read past it, or once it\n"
		"                    is --lag old by this host's clock; a stream that\n"
		"                    stalls longer (a guest that stops sending) has its\n"
		"                    events printed when they come, out of order, counted\n"
		"                    as late. Each VM is aligned with the exchanges so far:\n"
		"                    --bounds holds as it does for a finished recording.\n"
		"                    Ctrl-C stops it (exit status 130)\n"
		"  --lag SECONDS     --follow: the longest an event waits for slower streams\n"
		"                    (default 2, at most 3600)\n"
		HVT_CLI_VERBOSITY_HELP
		"  --stats           instead of the summary, a table on standard error: per\n"
		"                    stream the events read and shown, lost (discarded or\n"
		"                    overwritten), pkt-gaps (packets missing from the\n"
		"                    sequence), skipped (damaged packets, host pages or\n"
		"                    records not decoded, whole or in part), warnings, its\n"
		"                    state (merged; cut short: missing, shorter than\n"
		"                    recorded or damaged; ...), the times of its first\n"
		"                    and last event read, and whose events it holds (a CPU,\n"
		"                    or a process and thread); per VM how its clock was\n"
		"                    aligned and how precisely\n\n"
		"On a terminal, a merge that takes longer than a second shows its progress\n"
		"on standard error. Unless --format=null, a summary goes to standard error.\n"
		"A selection that selects no event, or a --from or --to outside the events'\n"
		"span, is a warning that shows what the archive holds (in seconds since the\n"
		"start, --from 0 and a --to past the end are not: they mean the start and\n"
		"the end).\n"
		"Exit status: 0 merged (maybe with warnings, or no event selected), 1 the\n"
		"archive, or a part of it (a VM's info.json, the host layer, a stream or\n"
		"host CPU file missing, shorter than recorded, damaged or not in its\n"
		"lists), could not be read (what could is still written), or --output not\n"
		"written (it exists and --force was not given: said before anything is\n"
		"read), 2 usage error.\n");
}

#define HVT_MERGE_MAX_GUEST_TRACES	64
#define MERGE_SHORT	"ho:vqe:"	/* getopt_long()'s short options */

struct merge_opts {
	const char *archive;
	const char *host_trace;
	const char *guest_traces[HVT_MERGE_MAX_GUEST_TRACES];
	size_t nr_guest_traces;
	const char *qemu_traces[HVT_MERGE_MAX_GUEST_TRACES];
	size_t nr_qemu_traces;
	const char *const *more_tracedat;	/* TRACE.DAT files after the first */
	size_t nr_more_tracedat;
	const struct hvt_output_format *format;
	struct hvt_output_opts out;	/* --output, --time, --print-fmt */
	bool stats;
	bool follow;			/* --follow */
	int64_t lag_ns;			/* --lag */
	struct hvt_select sel;
};

static bool is_regular(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* The input --output would overwrite, or NULL. */
static const char *output_is_input(const struct merge_opts *o)
{
	const char *output = o->out.path;
	size_t i;

	if (hvt_archive_touched_by(o->archive, output))
		return o->archive;
	if (o->host_trace && hvt_path_touches(output, o->host_trace))
		return o->host_trace;
	for (i = 0; i < o->nr_guest_traces; i++)
		if (hvt_path_touches(output, strchr(o->guest_traces[i], '=') + 1))
			return strchr(o->guest_traces[i], '=') + 1;
	for (i = 0; i < o->nr_qemu_traces; i++)
		if (hvt_path_touches(output, o->qemu_traces[i]))
			return o->qemu_traces[i];
	for (i = 0; i < o->nr_more_tracedat; i++)
		if (hvt_path_touches(output, o->more_tracedat[i]))
			return o->more_tracedat[i];
	return NULL;
}

static int parse_time_mode(const char *value, struct merge_opts *o)
{
	if (!strcmp(value, "ns"))
		o->out.time = HVT_TIME_NS;
	else if (!strcmp(value, "host-tsc"))
		o->out.time = HVT_TIME_HOST_TSC;
	else if (!strcmp(value, "realtime"))
		o->out.time = HVT_TIME_REALTIME;
	else
		return -1;
	return 0;
}

/* Adds one more input file of option @opt (its list @v, @n long); -1 after an error. */
static int add_input(const char *opt, const char *value, const char **v, size_t *n)
{
	if (!*value) {
		hvt_usage_error("merge", "--%s is empty: name a file", opt);
		return -1;
	}
	if (*n == HVT_MERGE_MAX_GUEST_TRACES) {
		hvt_usage_error("merge", "more than %d --%s", HVT_MERGE_MAX_GUEST_TRACES, opt);
		return -1;
	}
	v[(*n)++] = value;
	return 0;
}

static const struct option longopts[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "time", required_argument, NULL, 't' },
	{ "output", required_argument, NULL, 'o' },
	{ "from", required_argument, NULL, 'F' },
	{ "to", required_argument, NULL, 'T' },
	{ "layer", required_argument, NULL, 'L' },
	{ "vm", required_argument, NULL, 'V' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "event", required_argument, NULL, 'E' },
	{ "tid", required_argument, NULL, 'I' },
	{ "pid", required_argument, NULL, 'p' },
	{ "comm", required_argument, NULL, 'M' },
	{ "stats", no_argument, NULL, 's' },
	{ "force", no_argument, NULL, 'R' },
	{ "print-fmt", no_argument, NULL, 'P' },
	{ "bounds", no_argument, NULL, 'B' },
	{ "delta", no_argument, NULL, 'D' },
	{ "host-trace", required_argument, NULL, 'H' },
	{ "guest-trace", required_argument, NULL, 'G' },
	{ "qemu-trace", required_argument, NULL, 'Q' },
	{ "follow", no_argument, NULL, 'w' },
	{ "lag", required_argument, NULL, 'g' },
	{ "help", no_argument, NULL, 'h' },
	HVT_CLI_VERBOSITY_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

/* --format @value names no format: said, with the formats of the table. */
static void format_error(const char *value)
{
	char list[128] = "";
	FILE *f = fmemopen(list, sizeof(list) - 1, "w");	/* the last NUL stays */

	if (f) {
		hvt_output_formats_list(f);
		fclose(f);
	}
	hvt_usage_error("merge", "--format is one of %s, not '%s'", f ? list : "--help's",
			value);
}

/* --lag @value, seconds: 0, or -1 after a usage error. */
static int parse_lag(const char *value, struct merge_opts *o)
{
	double v;

	if (hvt_parse_seconds("merge", "--lag", value, 1e-9, 3600, &v))
		return -1;
	o->lag_ns = (int64_t)(v * 1e9);
	return 0;
}

/* Option @c of longopts[@i] with @value: 0, 1 for --help (shown), -1 after an error. */
static int parse_option(int c, int i, const char *value, char **argv, struct merge_opts *o)
{
	if (hvt_cli_verbosity(c))
		return 0;
	switch (c) {
	case 'f':
		if (!(o->format = hvt_output_format_find(value))) {
			format_error(value);
			return -1;
		}
		return 0;
	case 't':
		if (parse_time_mode(value, o)) {
			hvt_usage_error("merge", "--time is ns, host-tsc or realtime, not '%s'", value);
			return -1;
		}
		return 0;
	case 'o':
		o->out.path = value;
		return 0;
	case 'F': case 'T': case 'L': case 'V': case 'C': case 'E': case 'I': case 'M': case 'p':
		return hvt_select_add(&o->sel, longopts[i].name, value) ? -1 : 0;
	case 'e':		/* -e, as record and agent take it */
		return hvt_select_add(&o->sel, "event", value) ? -1 : 0;
	case 's':
		o->stats = true;
		return 0;
	case 'R':
		o->out.force = true;
		return 0;
	case 'P':
		o->out.print_fmt = true;
		return 0;
	case 'B':
		o->out.bounds = true;
		return 0;
	case 'D':
		o->out.delta = true;
		return 0;
	case 'H':
		if (!*value) {
			hvt_usage_error("merge", "--host-trace is empty: name a trace.dat file");
			return -1;
		}
		o->host_trace = value;
		return 0;
	case 'G':	/* too many first, then a spec that is not VM=TRACE.DAT */
		if (o->nr_guest_traces < HVT_MERGE_MAX_GUEST_TRACES &&
		    (!strchr(value, '=') || value[0] == '=' || !strchr(value, '=')[1])) {
			hvt_usage_error("merge", "--guest-trace %s: expected VM=TRACE.DAT", value);
			return -1;
		}
		return add_input("guest-trace", value, o->guest_traces, &o->nr_guest_traces);
	case 'Q':
		return add_input("qemu-trace", value, o->qemu_traces, &o->nr_qemu_traces);
	case 'w':
		o->follow = true;
		return 0;
	case 'g':
		return parse_lag(value, o);
	case 'h':
		usage(stdout);
		return 1;
	default:
		hvt_usage_bad_option("merge", argv, MERGE_SHORT, longopts);
		return -1;
	}
}

/* An --output named like another format's file than the one written: said. */
static void warn_extension(const struct merge_opts *o)
{
	static const struct { const char *ext, *format; } known[] = {
		{ ".json", "json" }, { ".db", "sqlite" }, { ".sqlite", "sqlite" },
		{ ".ctf", "ctf" }, { ".txt", "text" },
	};
	const char *dot = o->out.path && o->format->writes ? strrchr(o->out.path, '.') : NULL;
	size_t i;

	for (i = 0; dot && i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(dot, known[i].ext) && strcmp(o->format->name, known[i].format))
			hvt_warn("--output %s: writing --format=%s, as asked (or by default); "
				 "--format=%s would write what its name says", o->out.path,
				 o->format->name, known[i].format);
}

/* The inputs after the options, and whether the options fit together; -1 after an error. */
/* --follow or --lag where they do not apply: said (a usage error). */
static bool follow_refused(struct merge_opts *o)
{
	if (o->lag_ns && !o->follow) {
		hvt_usage_error("merge", "--lag applies to --follow only");
		return true;
	}
	if (!o->follow)
		return false;
	if (!o->lag_ns)
		o->lag_ns = 2000000000;
	if (!o->format->streams) {
		hvt_usage_error("merge", "--follow prints text, jsonl (or null) as the events come; "
				"--format=%s is written from a finished recording", o->format->name);
		return true;
	}
	if (is_regular(o->archive)) {
		hvt_usage_error("merge", "--follow follows an archive being recorded; %s is a "
				"file", o->archive);
		return true;
	}
	return false;
}

static int finish_args(int argc, char **argv, struct merge_opts *o)
{
	char why[160];
	const char *refused;

	if (optind >= argc) {
		hvt_usage_error("merge", "expected an ARCHIVE directory or TRACE.DAT files");
		return -1;
	}
	o->archive = argv[optind];
	if (argc - optind > 1 && !is_regular(o->archive)) {
		hvt_usage_error("merge", "expected one ARCHIVE directory, or TRACE.DAT files");
		return -1;
	}
	o->more_tracedat = (const char *const *)&argv[optind + 1];
	o->nr_more_tracedat = (size_t)(argc - optind - 1);
	refused = hvt_output_refuses(o->format, &o->out, why, sizeof(why));
	if (refused && !(o->format->to_directory && !o->out.path)) {
		hvt_err("%s", refused);
		return -1;
	}
	if (o->out.path && !o->out.path[0]) {
		hvt_usage_error("merge", "--output is empty: name a file, or leave it out for "
				"standard output");
		return -1;
	}
	if (o->out.path && output_is_input(o)) {
		hvt_usage_error("merge", "--output %s is a file merge reads (of %s): choose a new "
				"file", o->out.path, output_is_input(o));
		return -1;
	}
	if (refused) {
		hvt_err("%s", refused);
		return -1;
	}
	if (follow_refused(o))
		return -1;
	warn_extension(o);
	return hvt_select_finish(&o->sel, o->out.time);
}

static int parse_args(int argc, char **argv, struct merge_opts *o)
{
	int c, i, ret;

	memset(o, 0, sizeof(*o));
	o->format = hvt_output_format_default();
	optind = 0;	/* glibc: start over, the command may run more than once */
	opterr = 0;
	hvt_cli_verbosity_reset();
	while ((c = getopt_long(argc, argv, MERGE_SHORT, longopts, &i)) != -1)
		if ((ret = parse_option(c, i, optarg, argv, o)))
			return ret;
	return finish_args(argc, argv, o);
}

/*
 * The progress line goes to a terminal on standard error, unless the events
 * go to the same terminal on standard output.
 */
static FILE *progress_out(const struct merge_opts *o)
{
	if (!isatty(STDERR_FILENO))
		return NULL;
	if (o->format->writes && !o->out.path && isatty(STDOUT_FILENO))
		return NULL;
	return stderr;
}

/*
 * Merges, selects and writes out; the count of events shown per source in
 * @shown, the span of the events read (selected or not) in @seen.
 */
static void merge_events(struct hvt_timeline *tl, struct hvt_select *sel, struct hvt_output *out,
			 uint64_t *shown, struct hvt_span *seen, struct hvt_progress *progress,
			 struct hvt_thread_names *names)
{
	bool selecting = hvt_select_any(sel);
	struct hvt_source *s;
	int r;

	while ((s = hvt_timeline_next(tl))) {
		hvt_progress_tick(progress);
		hvt_span_add(seen, s->host_tsc);
		if (names)
			hvt_thread_names_learn(names, s);	/* every event, shown or not */
		if (selecting && (r = hvt_select_event(sel, &tl->ses->clock, s)) <= 0) {
			if (r < 0)
				break;		/* past --to */
			continue;
		}
		shown[s->index]++;
		hvt_output_event(out, s);
	}
	hvt_progress_end(progress);
}

/* --follow: what the follower hands on goes through the selection to the output. */
struct follow_out {
	struct hvt_follow f;
	struct hvt_select *sel;
	struct hvt_output *out;
	uint64_t *shown;		/* per source: grows with the session */
	size_t nr_shown;
	struct hvt_span *seen;
	struct hvt_thread_names *names;
	struct hvt_span_hist delay;	/* from an event's time to its line, ns */
	bool oom;
};

static volatile sig_atomic_t follow_stop;

static void follow_stop_signal(int sig)
{
	(void)sig;
	follow_stop = 1;
}

/* Counters for every source of @ses: 0, or -1 if out of memory. */
static int cover_shown(struct follow_out *c, const struct hvt_session *ses)
{
	size_t n = ses->nr_sources + 1;
	uint64_t *grown;

	if (n <= c->nr_shown)
		return 0;
	grown = realloc(c->shown, n * sizeof(*grown));
	if (!grown)
		return -1;
	memset(grown + c->nr_shown, 0, (n - c->nr_shown) * sizeof(*grown));
	c->shown = grown;
	c->nr_shown = n;
	return 0;
}

static int follow_event(struct hvt_source *s, void *ctx)
{
	struct follow_out *c = ctx;
	struct hvt_session *ses = c->f.tl->ses;
	int r;

	hvt_span_add(c->seen, s->host_tsc);
	if (c->names)
		hvt_thread_names_learn(c->names, s);
	if (hvt_select_any(c->sel) && (r = hvt_select_event(c->sel, &ses->clock, s)) <= 0)
		return r < 0 ? -1 : 0;	/* past --to: done */
	if (cover_shown(c, ses) || hvt_span_hist_add(&c->delay, c->f.now_ns -
			hvt_host_clock_realtime(&ses->clock, s->host_tsc))) {
		c->oom = true;
		return -1;
	}
	c->shown[s->index]++;
	hvt_output_event(c->out, s);
	return 0;
}

static void follow_caught_up(void *ctx)
{
	struct follow_out *c = ctx;

	hvt_output_flush(c->out);
}

/* What following did, for the summary. */
static void follow_report(const struct follow_out *c, int64_t lag_ns)
{
	const struct hvt_follow *f = &c->f;

	if (f->complete && !f->refreshes) {
		hvt_info("%s was complete when opened: merged whole", f->tl->ses->archive.root);
		return;
	}
	if (c->delay.n)
		hvt_info("followed: %" PRIu64 " events printed as they became final, %.3f s "
			 "after their time at the median, %.3f s at p99, %.3f s at most "
			 "(--lag %.3f s); %" PRIu64 " refreshes, the longest %.3f s",
			 c->delay.n, hvt_span_hist_quantile(&c->delay, 0.5) / 1e9,
			 hvt_span_hist_quantile(&c->delay, 0.99) / 1e9,
			 (double)c->delay.max / 1e9, (double)lag_ns / 1e9, f->refreshes,
			 (double)f->refresh_max_ns / 1e9);
	if (f->late)
		hvt_warn("%" PRIu64 " events came more than --lag late (a stream that stalled) "
			 "and were printed when they came, out of order; --lag waits longer",
			 f->late);
	if (f->ended && f->tl->ses->archive.failed)
		hvt_err("the recording failed as it was set up (its collector said why)");
	else if (f->ended)
		hvt_err("the recording's collector (pid %" PRId64 ") is gone and the recording "
			"never completed: followed up to the last data it wrote",
			f->tl->ses->archive.collector_pid);
	else if (!f->complete)
		hvt_info("stopped before the recording completed");
}

/*
 * --follow: the events as they become final, until the recording
 * completes; 0, 1 on an error, 130 if stopped by a signal.
 */
static int follow_events(struct hvt_timeline *tl, const struct merge_opts *o,
			 struct hvt_output *out, uint64_t **shown, struct hvt_span *seen,
			 struct hvt_thread_names *names)
{
	const struct hvt_follow_sink sink = { .event = follow_event, .caught_up = follow_caught_up };
	struct hvt_follow_opts fo = { .lag_ns = o->lag_ns, .stop = &follow_stop };
	struct follow_out c = { .sel = (struct hvt_select *)&o->sel, .out = out,
				.shown = *shown, .nr_shown = tl->ses->nr_sources + 1,
				.seen = seen, .names = names };
	struct sigaction sa = { .sa_handler = follow_stop_signal };
	int ret;

	/* a refresh costs an opening: 5 a second at most, 4 in each lag */
	fo.period_ns = o->lag_ns / 4 < 200000000 ? o->lag_ns / 4 : 200000000;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);	/* no SA_RESTART: the wait ends at once */
	sigaction(SIGTERM, &sa, NULL);
	hvt_follow_init(&c.f, tl, &fo);
	ret = hvt_follow_run(&c.f, &sink, &c);
	if (c.oom)
		hvt_err("out of memory following %s", tl->ses->archive.root);
	if (!c.oom && cover_shown(&c, tl->ses))
		ret = -1;
	*shown = c.shown;
	follow_report(&c, o->lag_ns);
	hvt_span_hist_free(&c.delay);
	if (ret || c.oom || c.f.ended)
		return 1;
	return follow_stop ? 130 : 0;
}

/* Whether no source showed an event. */
static bool none_shown(const struct hvt_session *ses, const uint64_t *shown)
{
	size_t i;

	for (i = 0; i < ses->nr_sources; i++)
		if (shown[i])
			return false;
	return true;
}

/* The merge of @ses, written out with a summary; the exit status. */
static int merge(struct hvt_session *ses, const struct hvt_session_opts *so,
		 struct hvt_timeline *tl, struct merge_opts *o, struct hvt_thread_names *names)
{
	uint64_t *shown = calloc(ses->nr_sources + 1, sizeof(*shown));
	struct hvt_span seen = { 0, 0, false };
	struct hvt_progress progress;
	struct hvt_output out;
	int ret = 1, followed = 0;
	size_t incomplete = 0;

	if (!shown) {
		hvt_err("out of memory");
		return 1;
	}
	if (hvt_output_open(&out, o->format, ses, &o->out))
		goto out;
	if (o->follow) {
		followed = follow_events(tl, o, &out, &shown, &seen, names);
	} else {
		hvt_progress_init(&progress, tl, progress_out(o), 1000000000,
				  HVT_PROGRESS_EVERY);
		merge_events(tl, &o->sel, &out, shown, &seen, &progress, names);
		/* of the streams selected: known once every event was read (said last) */
		incomplete = hvt_session_incomplete_sources(ses, hvt_select_source, &o->sel) +
			     hvt_session_unlisted_files(ses, !o->sel.layers ||
							 o->sel.layers & (1u << HVT_LAYER_HOST));
	}
	ret = hvt_output_close(&out) || followed == 1 || hvt_session_unread_vms(ses) ||
	      hvt_session_host_unreadable(ses) || hvt_session_host_undecoded(ses) ||
	      incomplete ? 1 : followed;
	if (o->stats)
		hvt_merge_stats(ses, shown, stderr);
	else if (o->format->writes)
		hvt_merge_summary(ses, shown, hvt_select_any(&o->sel));	/* null: only problems */
	hvt_merge_untraced_warn(ses);
	if (hvt_select_any(&o->sel) && none_shown(ses, shown))
		hvt_selection_empty_report(ses, so, &o->sel);	/* says the span too */
	else
		hvt_select_span_warn(&o->sel, &ses->clock, &seen);
	if (hvt_session_unread_vms(ses))
		hvt_err("%zu VM%s of the archive could not be read: %s guest events are not in "
			"the output (see the messages above)", hvt_session_unread_vms(ses),
			hvt_session_unread_vms(ses) == 1 ? "" : "s", hvt_session_unread_vms(ses) == 1 ? "its" : "their");
	if (hvt_session_host_unreadable(ses))
		hvt_err("the archive's host layer could not be decoded: its events are not in the "
			"output, and the guests are aligned by their clock exchanges alone (see the "
			"errors above)");
	else if (hvt_session_host_undecoded(ses))
		hvt_err("not one record of the archive's host layer could be decoded (are its "
			"format files, host/ftrace/events/, there?): its events are not in the "
			"output (see the warnings above)");
	if (incomplete) {
		hvt_session_incomplete_said(ses, hvt_select_source, &o->sel, "the output");
		hvt_session_unlisted_said(ses, !o->sel.layers ||
					  o->sel.layers & (1u << HVT_LAYER_HOST), "the output");
	}
out:
	free(shown);
	return ret;
}

int hvt_cmd_merge(int argc, char **argv)
{
	struct merge_opts o;
	struct hvt_session_opts so;
	struct hvt_session ses;
	struct hvt_timeline tl;
	struct hvt_thread_names names;
	struct hvt_thread_pids processes;
	bool naming;
	int ret = parse_args(argc, argv, &o);

	if (ret) {
		hvt_select_free(&o.sel);
		return ret > 0 ? 0 : 2;
	}
	ret = 1;
	if (hvt_output_check(o.format, &o.out) == HVT_OUTPUT_REFUSED)
		goto out;	/* before the archive is read: it may take long */
	so = (struct hvt_session_opts){
		.host_trace = o.host_trace,
		.guest_traces = o.guest_traces, .nr_guest_traces = o.nr_guest_traces,
		.qemu_traces = o.qemu_traces, .nr_qemu_traces = o.nr_qemu_traces,
		.more_tracedat = o.more_tracedat, .nr_more_tracedat = o.nr_more_tracedat,
		.follow = o.follow };
	if (o.follow)	/* a recording just started may not be set up yet */
		hvt_archive_wait_set_up(o.archive, 10, NULL, NULL);
	if (hvt_session_open(&ses, o.archive, &so))
		goto out;
	/* the threads' names: for --comm, and for the text output's thread column */
	naming = o.sel.nr_comms || o.format->thread_names;
	if (naming && hvt_thread_names_init(&names, &ses)) {
		hvt_err("out of memory");
		hvt_session_close(&ses);
		goto out;
	}
	if (o.sel.nr_pids && hvt_thread_pids_init(&processes, &ses)) {
		hvt_err("out of memory");
		if (naming)
			hvt_thread_names_free(&names);
		hvt_session_close(&ses);
		goto out;
	}
	hvt_select_bind(&o.sel, naming ? &names : NULL, o.sel.nr_pids ? &processes : NULL);
	o.out.names = naming ? &names : NULL;
	if (!hvt_timeline_init(&tl, &ses, hvt_select_source, &o.sel))
		ret = hvt_select_check_vms(&o.sel, &ses.archive) ? 2 :
		      merge(&ses, &so, &tl, &o, naming ? &names : NULL);
	hvt_timeline_close(&tl);
	if (naming)
		hvt_thread_names_free(&names);
	if (o.sel.nr_pids)
		hvt_thread_pids_free(&processes);
	hvt_session_close(&ses);
out:
	hvt_select_free(&o.sel);
	return ret;
}
