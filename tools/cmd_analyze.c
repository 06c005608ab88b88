// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_analyze.c - `hvtrace analyze`: where each vCPU's and guest thread's
 * time went - in the guest, in the hypervisor, preempted on the host (and
 * by which host task), blocked on the host - with error bounds. Options,
 * help and exit status; the pass itself is analyze/analysis_run.h.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli.h"
#include "lib/log.h"
#include "tools/analyze/analysis_run.h"
#include "tools/analyze/io_report.h"
#include "tools/commands.h"
#include "tools/merge/select.h"
#include "tools/model/io_flows.h"
#include "tools/merge/timeline.h"
#include "tools/session/session.h"

#define IO_TOP_MAX	HVT_IO_SLOWEST_MAX	/* --io: the slowest requests kept per disk */

struct analyze_opts {
	const char *archive;
	struct hvt_select sel;		/* --vm, --from, --to; --tid, --comm as merge parses them */
	unsigned int top;
	bool tsv, io;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: hvtrace analyze [OPTIONS] ARCHIVE\n\n"
		"Where each vCPU's and each guest thread's time went: running guest code,\n"
		"in the hypervisor (KVM: kvm_exit -> kvm_entry, by exit reason), preempted\n"
		"on the host (its vCPU thread runnable while another task had the CPU, and\n"
		"which task), blocked on the host (its vCPU thread asleep: a halted vCPU,\n"
		"or QEMU waiting), or unknown (no data); guest threads also the time they\n"
		"waited runnable in the guest. What each vCPU thread slept on (on the host)\n"
		"and each guest thread (in the guest): who woke it, and the wake chain -\n"
		"what that waker was itself waiting on meanwhile, up to 8 links - from\n"
		"each machine's sched_wakeup. Every total carries the sum of the error\n"
		"bounds of its intervals' ends (0 at host instants); an interval shorter\n"
		"than its bounds is counted apart (\"too short\"). Needs the host layer\n"
		"with sched_switch and the manifest's vcpu_threads (both recorded by\n"
		"default), and the guest kernel's sched_switch (its sched_wakeup too, for\n"
		"runnable time and wake chains in the guest: agent -e sched_wakeup).\n\n"
		"  --vm NAME          this VM only (repeatable)\n"
		"  --from T, --to T   count only the time from T to T, in seconds since the\n"
		"                     trace start as merge prints them (two instants: T\n"
		"                     to T is a usage error; a sleep the window cuts is\n"
		"                     counted within it, and said)\n"
		"  --tid LIST         these guest threads only, however little they lost:\n"
		"                     thread ids, comma-separated, or as merge's thread\n"
		"                     column shows them (hvdemo-77); repeatable\n"
		"  --comm LIST        the guest threads named so, or shell patterns like\n"
		"                     'hvdemo*', comma-separated (repeatable; as the guest's\n"
		"                     sched_switch names them, at most 15 characters, or as\n"
		"                     merge's thread column shows them)\n"
		"  --io               the guest's block requests instead, followed through\n"
		"                     QEMU and back (needs the guest's block_rq_issue and\n"
		"                     block_rq_complete, and QEMU's events: record\n"
		"                     --qemu-log): per disk, each stage's p50, p90, p99 and\n"
		"                     max with its bound (the events' bounds alone up to\n"
		"                     %d requests; past them, it is said, the histogram's\n"
		"                     resolution too), and the --top slowest requests step\n"
		"                     by step; TSV: one row per request and stage: vm disk\n"
		"                     qemu_dev request kind sector nr_sector outcome stage\n"
		"                     start_s ns bound_ns\n"
		"  --top N            host tasks and guest threads listed (default 5); with\n"
		"                     --io, the slowest requests per disk (at most %d)\n"
		"  --format FMT       text (default) or tsv: one row per vCPU or thread, state\n"
		"                     and cause: vm kind id name state cause_id cause ns\n"
		"                     slack_ns pieces (a state with no time has no row: under\n"
		"                     TCG no hypervisor row, as the text shows it '-', not\n"
		"                     measured)\n"
		HVT_CLI_VERBOSITY_HELP
		"  -h, --help         this help\n"
		"Exit status: 0 done, 1 the archive cannot be read, no VM can be analysed,\n"
		"or a stream of it is missing, shorter than recorded or damaged (the figures\n"
		"are printed, from what could be read), 2 usage error (a --vm naming no VM\n"
		"of the archive included).\n", HVT_IO_EXACT,
		IO_TOP_MAX);
}

/*
 * --tid or --comm (@opt) as merge takes them (merge/select.h: lists, and
 * the thread column's "hvdemo-77"), then what analyze cannot show: the
 * idle task (no guest thread of the report), a name longer than a comm.
 */
static int add_thread(struct analyze_opts *o, const char *opt, const char *value)
{
	bool tid = !strcmp(opt, "tid");
	size_t i = tid ? o->sel.nr_tids : o->sel.nr_comms;

	if (hvt_select_add(&o->sel, opt, value))
		return -1;
	for (; tid && i < o->sel.nr_tids; i++)
		if (!o->sel.tids[i]) {
			hvt_usage_error("analyze", "--tid 0 is the idle task, not a guest thread");
			return -1;
		}
	for (; !tid && i < o->sel.nr_comms; i++) {
		const char *c = o->sel.comms[i];

		if (strlen(c) >= HVT_COMM_LEN && !strpbrk(c, "*?[")) {
			hvt_usage_error("analyze", "--comm wants thread names of 1 to %d "
					"characters, not '%s'", HVT_COMM_LEN - 1, c);
			return -1;
		}
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct analyze_opts *o)
{
	static const struct option longopts[] = {
		{ "vm", required_argument, NULL, 'V' },
		{ "from", required_argument, NULL, 'F' },
		{ "to", required_argument, NULL, 'T' },
		{ "tid", required_argument, NULL, 't' },
		{ "comm", required_argument, NULL, 'c' },
		{ "top", required_argument, NULL, 'n' },
		{ "format", required_argument, NULL, 'f' },
		{ "io", no_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		HVT_CLI_VERBOSITY_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c, i;

	optind = 0;	/* glibc: start over, the command may run more than once */
	opterr = 0;
	hvt_cli_verbosity_reset();
	while ((c = getopt_long(argc, argv, "hvq", longopts, &i)) != -1) {
		if (hvt_cli_verbosity(c))
			continue;
		switch (c) {
		case 'h':
			usage(stdout);
			return 1;
		case 'V': case 'F': case 'T':
			if (hvt_select_add(&o->sel, longopts[i].name, optarg))
				return -1;
			break;
		case 't': case 'c':
			if (add_thread(o, longopts[i].name, optarg))
				return -1;
			break;
		case 'i':
			o->io = true;
			break;
		case 'n':
			if (hvt_parse_u64(optarg, 1, 10000, &v)) {
				hvt_usage_error("analyze", "--top wants 1 to 10000, not '%s'", optarg);
				return -1;
			}
			o->top = (unsigned int)v;
			break;
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "tsv")) {
				hvt_usage_error("analyze", "--format is text or tsv, not '%s'", optarg);
				return -1;
			}
			o->tsv = !strcmp(optarg, "tsv");
			break;
		default:
			hvt_usage_bad_option("analyze", argv, "hvq", longopts);
			return -1;
		}
	}
	if (optind != argc - 1) {
		hvt_usage_error("analyze", "expected one ARCHIVE directory");
		return -1;
	}
	if (o->io && (o->sel.nr_tids || o->sel.nr_comms)) {
		hvt_usage_error("analyze", "--io follows every request: no --tid or --comm");
		return -1;
	}
	o->archive = argv[optind];
	if (hvt_select_finish(&o->sel, HVT_TIME_NS))
		return -1;
	if (o->sel.from_text && o->sel.to_text && o->sel.from_ns == o->sel.to_ns) {
		/* merge shows the events of that instant; here no time would count */
		hvt_usage_error("analyze", "--from %s and --to %s are the same instant: no time "
				"to count", o->sel.from_text, o->sel.to_text);
		return -1;
	}
	if (o->io && o->top > IO_TOP_MAX)
		hvt_warn("--io lists at most %d requests per disk, not %u", IO_TOP_MAX, o->top);
	return 0;
}

int hvt_cmd_analyze(int argc, char **argv)
{
	struct analyze_opts o = { .sel.cmd = "analyze", .top = 5 };
	struct hvt_session ses;
	struct hvt_timeline tl;
	int ret = parse_args(argc, argv, &o);

	if (ret) {
		hvt_select_free(&o.sel);
		return ret > 0 ? 0 : 2;
	}
	ret = 1;
	if (hvt_session_open(&ses, o.archive, NULL))
		goto out;
	if (hvt_timeline_init(&tl, &ses, NULL, NULL))
		goto out_session;
	if (hvt_select_check_vms(&o.sel, &ses.archive))
		ret = 2;	/* as merge: a --vm that names no VM is a usage error */
	else if (o.io)
		ret = hvt_io_report_run(&ses, &tl, &(struct hvt_io_report_opts){
			.sel = &o.sel, .top = o.top, .tsv = o.tsv }, stdout);
	else
		ret = hvt_analyze_run(&ses, &tl, &(struct hvt_analyze_opts){
			.sel = &o.sel, .tsv = o.tsv,
			.view = { .top = o.top, .tids = o.sel.tids, .nr_tids = o.sel.nr_tids,
				  .comms = o.sel.comms, .nr_comms = o.sel.nr_comms } }, stdout);
	/* as merge: what the recording has and could not be read is lacking from the figures */
	if (!ret && (hvt_session_incomplete_said(&ses, hvt_select_source, &o.sel, "the figures") +
		     hvt_session_unlisted_said(&ses, true, "the figures")))
		ret = 1;
	hvt_timeline_close(&tl);
out_session:
	hvt_session_close(&ses);
out:
	hvt_select_free(&o.sel);
	return ret;
}
