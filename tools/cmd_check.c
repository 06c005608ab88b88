// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_check.c - `hvtrace check ARCHIVE`: options, help and the exit status.
 * The checks, what each one judges and their output are check/'s
 * (check/check_run.h).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "lib/cli.h"
#include "lib/log.h"
#include "tools/check/check_run.h"
#include "tools/commands.h"
#include "tools/merge/timeline.h"
#include "tools/session/session.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: hvtrace check ARCHIVE|TRACE.DAT [--guest-trace VM=TRACE.DAT]... [-v|-q]\n\n"
		"Validates ARCHIVE: its descriptions parse, every stream decodes, the\n"
		"guest clock exchanges stay causal after alignment, KVM's recorded TSC\n"
		"parameters are used and agree among their sources, exchanges kept out\n"
		"of the clock fit agree with it, the merged time line\n"
		"is ordered, a KVM guest's events fall inside their vCPU's\n"
		"kvm_entry -> kvm_exit windows as the host recorded them, and every\n"
		"guest's events inside the run intervals of their vCPU's host thread.\n"
		"A trace-cmd TRACE.DAT on its own gets the checks of its host layer.\n"
		"--guest-trace VM=FILE adds a trace.dat recorded in VM VM with\n"
		"'trace-cmd record -C x86-tsc' to its kernel layer, as merge does: its\n"
		"events are judged with the VM's own (may be repeated).\n"
		"Prints PASS, FAIL or SKIP (cannot be checked here, and why) per check,\n"
		"INFO lines with each VM's distribution of per-event error bounds and\n"
		"whether the host's scheduling data is complete, then\n"
		"\"N passed, M failed\" (\", K skipped\" if any).\n"
		"An archive that cannot be opened fails its manifest line, naming the\n"
		"file at fault where it can, and nothing else is checked. The layers\n"
		"recorded (host, each guest's kernel; its user space and QEMU's log, vmm,\n"
		"where they hold events) must put events on the time line; a VM that\n"
		"cannot be read or aligned is named, with why, there and in the checks\n"
		"that need its events. The KVM-only checks (kvm-tsc, vcpu-windows) SKIP a\n"
		"VM under TCG, saying so. vcpu-windows and vcpu-threads SKIP, with their\n"
		"numbers, when more than half of the guest events could not be judged\n"
		"(one judged outside still fails them). Where the host's runs (or\n"
		"windows) fed the clock fit, the check against them holds largely by\n"
		"construction: its line says so and gives the independent test, the run\n"
		"bounds each held out of a fit of the others.\n\n"
		"  -v, --verbose     also say how each VM's clock was aligned, in detail\n"
		"  -q, --quiet       print only the FAIL lines and the last line (\"N passed,\n"
		"                    M failed\"); warnings and errors still go to standard\n"
		"                    error\n"
		"  -h, --help        this help\n\n"
		"Exit status: 0 all passed, 1 a check failed or the archive cannot be read,\n"
		"2 usage error.\n");
}

#define MAX_GUEST_TRACES	64

struct check_opts {
	const char *guest_traces[MAX_GUEST_TRACES];
	size_t nr_guest_traces;
};

static int parse_args(int argc, char **argv, const char **archive, struct check_opts *o)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "guest-trace", required_argument, NULL, 'G' },
		HVT_CLI_VERBOSITY_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	const char *eq;
	int c;

	optind = 0;	/* glibc: start over, the command may run more than once */
	opterr = 0;
	hvt_cli_verbosity_reset();
	while ((c = getopt_long(argc, argv, "hvq", longopts, NULL)) != -1) {
		if (hvt_cli_verbosity(c))
			continue;
		if (c == 'h') {
			usage(stdout);
			return 1;
		}
		if (c != 'G') {
			hvt_usage_bad_option("check", argv, "hvq", longopts);
			return -1;
		}
		eq = strchr(optarg, '=');
		if (!eq || eq == optarg || !eq[1] || o->nr_guest_traces == MAX_GUEST_TRACES) {
			hvt_usage_error("check", "--guest-trace %s: %s", optarg,
					o->nr_guest_traces == MAX_GUEST_TRACES ?
					"too many" : "expected VM=TRACE.DAT");
			return -1;
		}
		o->guest_traces[o->nr_guest_traces++] = optarg;
	}
	if (optind != argc - 1) {
		hvt_usage_error("check", "expected one ARCHIVE directory");
		return -1;
	}
	*archive = argv[optind];
	return 0;
}

int hvt_cmd_check(int argc, char **argv)
{
	struct hvt_session ses;
	struct hvt_timeline tl;
	struct check_opts o = { .nr_guest_traces = 0 };
	struct hvt_session_opts so = { .all_streams = true };
	const char *archive;
	int ret = parse_args(argc, argv, &archive, &o);

	if (ret)
		return ret > 0 ? 0 : 2;
	so.guest_traces = o.guest_traces;
	so.nr_guest_traces = o.nr_guest_traces;
	if (hvt_session_open(&ses, archive, &so))
		return hvt_check_unopened(archive, o.guest_traces, o.nr_guest_traces);
	ret = hvt_timeline_init(&tl, &ses, NULL, NULL) ? -1 : hvt_check_run(&ses, &tl);
	hvt_timeline_close(&tl);	/* also after a failed init */
	hvt_session_close(&ses);
	return ret ? 1 : 0;
}
