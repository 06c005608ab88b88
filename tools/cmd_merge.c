// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_merge.c - `hvtrace merge`: an archive as one time line, one line per event.
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
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cli.h"
#include "lib/fileio.h"
#include "lib/log.h"
#include "tools/commands.h"
#include "tools/out/ctf_out.h"
#include "tools/out/json_out.h"
#include "tools/out/text_out.h"
#include "tools/out/merge_report.h"
#include "tools/out/progress.h"
#include "tools/merge/select.h"
#include "tools/util/textout.h"
#include "tools/merge/timeline.h"
#include "tools/session/session.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: hvtrace merge ARCHIVE|TRACE.DAT... [--format=text|json|ctf|null]\n"
		"                     [--output PATH]\n"
		"                     [--time=ns|host-tsc|realtime] [--from T] [--to T]\n"
		"                     [--layer LIST] [--vm LIST] [--cpu LIST] [--event LIST]\n"
		"                     [--print-fmt] [--host-trace TRACE.DAT]\n"
		"                     [--guest-trace VM=TRACE.DAT] [--qemu-trace FILE]\n"
		"                     [--stats]\n\n"
		"Prints every event of ARCHIVE (host ftrace, guest kernel, guest user space)\n"
		"on the host's time line, ordered by host time. TRACE.DAT, a trace-cmd\n"
		"recording on its own, is read as an archive with a host layer only, on its\n"
		"trace clock: ns clocks (local, mono, boot, ...) as they are, x86-tsc at this\n"
		"machine's TSC rate (--time=host-tsc prints the file's own timestamps).\n"
		"Several TRACE.DAT files on one trace clock merge into one time line.\n\n"
		"Output:\n"
		"  --format=text     one line per event (default): time, layer, VM, CPU,\n"
		"                    thread, event, fields\n"
		"  --format=json     Chrome trace-event JSON, for Perfetto UI: a process per\n"
		"                    host and VM, a thread per CPU and per traced task\n"
		"  --format=ctf      a CTF 1.8 trace on one clock, the host TSC, for\n"
		"                    babeltrace2 and Trace Compass: --output names its\n"
		"                    directory, which must be new or empty\n"
		"  --format=null     decode and merge, print nothing (benchmarks, --stats)\n"
		"  --output PATH     write the events to the file PATH instead of standard\n"
		"                    output (with ctf: into the directory PATH)\n"
		"  --time=ns         seconds.nanoseconds since the trace started (default)\n"
		"  --time=host-tsc   the host TSC value\n"
		"  --time=realtime   host CLOCK_REALTIME, seconds.nanoseconds since the epoch\n"
		"  --print-fmt       text: host events as ftrace and trace-cmd print them (their\n"
		"                    format's print fmt: 'prev_state=S ==> next_comm=...'),\n"
		"                    several times slower, instead of name=value per field\n\n"
		"Selection (LIST: comma-separated; each option may be repeated):\n"
		"  --from T, --to T  events from T and up to T, both included, in the unit of\n"
		"                    --time (seconds like 1.25, or TSC ticks with host-tsc)\n"
		"  --layer LIST      host, kernel, user\n"
		"  --vm LIST         guest events of these VMs only (host events stay: drop\n"
		"                    them with --layer kernel,user)\n"
		"  --cpu LIST        CPU numbers and ranges, like 0,2-3 (the CPU column)\n"
		"  --event LIST      event names or shell patterns, like 'sched_*,hvdemo:*'\n\n"
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
		"  --stats           instead of the summary, a table on standard error: per\n"
		"                    stream the events read and shown, lost (discarded or\n"
		"                    overwritten), pkt-gaps (packets missing from the\n"
		"                    sequence) and warnings; per VM how its clock was\n"
		"                    aligned and how precisely\n\n"
		"On a terminal, a merge that takes longer than a second shows its progress\n"
		"on standard error. Unless --format=null, a summary goes to standard error.\n"
		"Exit status: 0 merged (maybe with warnings), 1 the archive could not be\n"
		"read, 2 usage error.\n");
}

#define HVT_MERGE_MAX_GUEST_TRACES	64

enum merge_format { FORMAT_TEXT, FORMAT_JSON, FORMAT_NULL, FORMAT_CTF };

struct merge_opts {
	const char *archive;
	const char *output;
	const char *host_trace;
	const char *guest_traces[HVT_MERGE_MAX_GUEST_TRACES];
	size_t nr_guest_traces;
	const char *qemu_traces[HVT_MERGE_MAX_GUEST_TRACES];
	size_t nr_qemu_traces;
	const char *const *more_tracedat;	/* TRACE.DAT files after the first */
	size_t nr_more_tracedat;
	enum merge_format format;
	enum hvt_time_mode time;
	bool print_fmt;
	bool stats;
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
	size_t i;

	if (hvt_archive_touched_by(o->archive, o->output))
		return o->archive;
	if (o->host_trace && hvt_path_touches(o->output, o->host_trace))
		return o->host_trace;
	for (i = 0; i < o->nr_guest_traces; i++)
		if (hvt_path_touches(o->output, strchr(o->guest_traces[i], '=') + 1))
			return strchr(o->guest_traces[i], '=') + 1;
	for (i = 0; i < o->nr_qemu_traces; i++)
		if (hvt_path_touches(o->output, o->qemu_traces[i]))
			return o->qemu_traces[i];
	for (i = 0; i < o->nr_more_tracedat; i++)
		if (hvt_path_touches(o->output, o->more_tracedat[i]))
			return o->more_tracedat[i];
	return NULL;
}

static int parse_format(const char *value, struct merge_opts *o)
{
	static const char *const names[] = { "text", "json", "null", "ctf" };
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(value, names[i])) {
			o->format = (enum merge_format)i;
			return 0;
		}
	}
	return -1;
}

static int parse_time_mode(const char *value, struct merge_opts *o)
{
	if (!strcmp(value, "ns"))
		o->time = HVT_TIME_NS;
	else if (!strcmp(value, "host-tsc"))
		o->time = HVT_TIME_HOST_TSC;
	else if (!strcmp(value, "realtime"))
		o->time = HVT_TIME_REALTIME;
	else
		return -1;
	return 0;
}

static int parse_args(int argc, char **argv, struct merge_opts *o)
{
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
		{ "stats", no_argument, NULL, 's' },
		{ "print-fmt", no_argument, NULL, 'P' },
		{ "host-trace", required_argument, NULL, 'H' },
		{ "guest-trace", required_argument, NULL, 'G' },
		{ "qemu-trace", required_argument, NULL, 'Q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, i;

	memset(o, 0, sizeof(*o));
	optind = 0;	/* glibc: start over, the command may run more than once */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ho:", longopts, &i)) != -1) {
		switch (c) {
		case 'f':
			if (parse_format(optarg, o))
				goto bad_value;
			break;
		case 't':
			if (parse_time_mode(optarg, o))
				goto bad_value;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'F': case 'T': case 'L': case 'V': case 'C': case 'E':
			if (hvt_select_add(&o->sel, longopts[i].name, optarg))
				return -1;
			break;
		case 's':
			o->stats = true;
			break;
		case 'P':
			o->print_fmt = true;
			break;
		case 'H':
			o->host_trace = optarg;
			break;
		case 'G':
			if (o->nr_guest_traces == HVT_MERGE_MAX_GUEST_TRACES) {
				hvt_usage_error("merge", "more than %d --guest-trace",
						HVT_MERGE_MAX_GUEST_TRACES);
				return -1;
			}
			if (!strchr(optarg, '=') || optarg[0] == '=' || !strchr(optarg, '=')[1]) {
				hvt_usage_error("merge", "--guest-trace %s: expected VM=TRACE.DAT",
						optarg);
				return -1;
			}
			o->guest_traces[o->nr_guest_traces++] = optarg;
			break;
		case 'Q':
			if (o->nr_qemu_traces == HVT_MERGE_MAX_GUEST_TRACES) {
				hvt_usage_error("merge", "more than %d --qemu-trace",
						HVT_MERGE_MAX_GUEST_TRACES);
				return -1;
			}
			o->qemu_traces[o->nr_qemu_traces++] = optarg;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			hvt_usage_bad_option("merge", argv);
			return -1;
		}
	}
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
	if (o->format == FORMAT_JSON && o->time != HVT_TIME_NS) {
		hvt_err("--format=json has its own time: microseconds since the trace start; "
			"leave out --time");
		return -1;
	}
	if (o->format == FORMAT_CTF && o->time != HVT_TIME_NS) {
		hvt_err("--format=ctf has its own clock: the host TSC; leave out --time");
		return -1;
	}
	if (o->print_fmt && o->format != FORMAT_TEXT) {
		hvt_err("--print-fmt is for --format=text: the other formats keep every field "
			"on its own");
		return -1;
	}
	if (o->output && !o->output[0]) {
		hvt_usage_error("merge", "--output is empty: name a file, or leave it out for "
				"standard output");
		return -1;
	}
	if (o->output && output_is_input(o)) {
		hvt_usage_error("merge", "--output %s is a file merge reads (of %s): choose a new "
				"file", o->output, output_is_input(o));
		return -1;
	}
	if (o->format == FORMAT_CTF && !o->output) {
		hvt_err("--format=ctf writes a directory: name it with --output DIR");
		return -1;
	}
	return hvt_select_finish(&o->sel, o->time);
bad_value:
	hvt_err("invalid value '%s' for %s; see 'hvtrace merge --help'", optarg,
		argv[optind - 1]);
	return -1;
}

/* Where the events go: one of the two printers, a CTF trace, or nowhere. */
struct merge_out {
	FILE *file;			/* NULL: --format=ctf or null */
	struct hvt_printer text;
	struct hvt_json_printer json;
	bool is_json;
	struct hvt_ctf_out ctf;
	bool is_ctf;
};

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

static int out_open(struct merge_out *m, const struct merge_opts *o, struct hvt_session *ses)
{
	memset(m, 0, sizeof(*m));
	if (o->format == FORMAT_NULL)
		return 0;
	if (o->format == FORMAT_CTF) {
		m->is_ctf = true;
		return hvt_ctf_out_open(&m->ctf, ses, o->output);
	}
	m->file = open_output(o->output);
	if (!m->file)
		return -1;
	m->is_json = o->format == FORMAT_JSON;
	if (m->is_json ? hvt_json_init(&m->json, ses, m->file) :
			 hvt_printer_init(&m->text, ses, o->time, m->file)) {
		hvt_err("out of memory");
		fclose(m->file);
		m->file = NULL;
		return -1;
	}
	m->text.print_fmt = o->print_fmt;
	return 0;
}

static void out_event(struct merge_out *m, struct hvt_source *s)
{
	if (m->is_json)
		hvt_json_event(&m->json, s);
	else if (m->is_ctf)
		hvt_ctf_out_event(&m->ctf, s);
	else if (m->file)
		hvt_printer_print(&m->text, s);
}

static int out_close(struct merge_out *m, const char *path)
{
	int failed;

	if (m->is_ctf)
		return hvt_ctf_out_close(&m->ctf);
	if (!m->file)
		return 0;
	if (m->is_json) {
		hvt_json_finish(&m->json);
		hvt_json_free(&m->json);
	} else {
		hvt_text_flush(&m->text.text);
		hvt_printer_free(&m->text);
	}
	failed = ferror(m->file);
	failed |= fclose(m->file) != 0;
	if (failed)
		hvt_err("writing %s failed: %s", path ? path : "standard output", strerror(errno));
	return failed ? -1 : 0;
}

/*
 * The progress line goes to a terminal on standard error, unless the events
 * go to the same terminal on standard output.
 */
static FILE *progress_out(const struct merge_opts *o)
{
	if (!isatty(STDERR_FILENO))
		return NULL;
	if (o->format != FORMAT_NULL && !o->output && isatty(STDOUT_FILENO))
		return NULL;
	return stderr;
}

/* Merges, selects and writes out; the count of events shown per source in @shown. */
static void merge_events(struct hvt_timeline *tl, struct hvt_select *sel, struct merge_out *m,
			 uint64_t *shown, struct hvt_progress *progress)
{
	bool selecting = hvt_select_any(sel);
	struct hvt_source *s;
	int r;

	while ((s = hvt_timeline_next(tl))) {
		hvt_progress_tick(progress);
		if (selecting && (r = hvt_select_event(sel, &tl->ses->clock, s)) <= 0) {
			if (r < 0)
				break;		/* past --to */
			continue;
		}
		shown[s->index]++;
		out_event(m, s);
	}
	hvt_progress_end(progress);
}

int hvt_cmd_merge(int argc, char **argv)
{
	struct merge_opts o;
	struct hvt_session ses;
	struct hvt_timeline tl;
	struct merge_out m;
	struct hvt_progress progress;
	uint64_t *shown = NULL;
	int ret;

	ret = parse_args(argc, argv, &o);
	if (ret) {
		hvt_select_free(&o.sel);
		return ret > 0 ? 0 : 2;
	}
	if (hvt_session_open(&ses, o.archive, &(struct hvt_session_opts){
		.host_trace = o.host_trace,
		.guest_traces = o.guest_traces, .nr_guest_traces = o.nr_guest_traces,
		.qemu_traces = o.qemu_traces, .nr_qemu_traces = o.nr_qemu_traces,
		.more_tracedat = o.more_tracedat, .nr_more_tracedat = o.nr_more_tracedat })) {
		hvt_select_free(&o.sel);
		return 1;
	}
	if (hvt_timeline_init(&tl, &ses, hvt_select_source, &o.sel)) {
		hvt_session_close(&ses);
		hvt_select_free(&o.sel);
		return 1;
	}
	ret = 1;
	if (hvt_select_check_vms(&o.sel, &ses.archive)) {
		ret = 2;
		goto out;
	}
	shown = calloc(ses.nr_sources + 1, sizeof(*shown));
	if (!shown) {
		hvt_err("out of memory");
		goto out;
	}
	if (out_open(&m, &o, &ses))
		goto out;
	hvt_progress_init(&progress, &tl, progress_out(&o), 1000000000, HVT_PROGRESS_EVERY);
	merge_events(&tl, &o.sel, &m, shown, &progress);
	ret = out_close(&m, o.output) ? 1 : 0;
	if (o.stats)
		hvt_merge_stats(&ses, shown, stderr);
	else if (o.format != FORMAT_NULL)
		hvt_merge_summary(&ses, shown);	/* null prints nothing but problems */
out:
	free(shown);
	hvt_timeline_close(&tl);
	hvt_session_close(&ses);
	hvt_select_free(&o.sel);
	return ret;
}
