// SPDX-License-Identifier: GPL-2.0-only
/*
 * hvtrace.c - the `hvtrace` command: one binary, one subcommand per job.
 */
#include <stdio.h>
#include <string.h>

#include "lib/log.h"
#include "tools/commands.h"

#define HVTRACE_VERSION "0.1.0"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "record", hvt_cmd_record, "host: record the hypervisor and every guest's data" },
	{ "agent", hvt_cmd_agent, "guest: stream kernel and user events to the host" },
	{ "merge", hvt_cmd_merge, "merge an archive into one timeline" },
	{ "check", hvt_cmd_check, "validate an archive's alignment" },
	{ "analyze", hvt_cmd_analyze, "where each vCPU's and guest thread's time went" },
	{ "drift", hvt_cmd_drift, "run the clock-drift test suite" },
	{ "tsc", hvt_cmd_tsc, "show each KVM VM's exact guest TSC timeline per vCPU" },
	{ "sql", hvt_cmd_sql, "ask an archive in SQL (its database, built once)" },
};

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: hvtrace COMMAND [OPTIONS]\n\n"
		     "One timeline across the hypervisor, the guest kernel and guest user space.\n\n"
		     "Commands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nRun 'hvtrace COMMAND --help' for a command's options.\n");
}

int main(int argc, char **argv)
{
	static char prog[64];
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("hvtrace %s\n", HVTRACE_VERSION);
		return 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		snprintf(prog, sizeof(prog), "hvtrace %s", commands[i].name);
		hvt_log_set_prog(prog);
		return commands[i].run(argc - 1, argv + 1);
	}
	hvt_err("unknown command '%s'; run 'hvtrace --help' for the list", argv[1]);
	return 2;
}
