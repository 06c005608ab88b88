// SPDX-License-Identifier: GPL-2.0-only
/*
 * hvtrace.c - the `hvtrace` command: one binary, one subcommand per job.
 */
#include <stdio.h>
#include <string.h>

#include "lib/cli.h"
#include "lib/log.h"
#include "lib/version.h"
#include "tools/commands.h"

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
	{ "top", hvt_cmd_top, "a live view of a recording in progress" },
	{ "relay", hvt_cmd_relay, "serve a recording to LTTng live viewers (babeltrace2)" },
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
	fprintf(out, "\nRun 'hvtrace COMMAND --help' or 'hvtrace help COMMAND' for a command's "
		     "options,\n'man hvtrace-COMMAND' for its manual; 'hvtrace --version'.\n");
}

#define NR_COMMANDS	(sizeof(commands) / sizeof(commands[0]))

static const struct command *command_named(const char *name)
{
	size_t i;

	for (i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

/* Says that @name is no command, with the nearest one if it is near. */
static int unknown_command(const char *name)
{
	size_t i, best = 0, d, best_d = 99;

	for (i = 0; i < NR_COMMANDS; i++)
		if ((d = hvt_edit_distance(name, commands[i].name)) < best_d)
			best_d = d, best = i;
	if (best_d <= 2)
		hvt_err("unknown command '%s'; did you mean '%s'? ('hvtrace --help' lists them)",
			name, commands[best].name);
	else
		hvt_err("unknown command '%s'; run 'hvtrace --help' for the list", name);
	return 2;
}

static int run(const struct command *cmd, int argc, char **argv)
{
	static char prog[64];

	snprintf(prog, sizeof(prog), "hvtrace %s", cmd->name);
	hvt_log_set_prog(prog);
	return cmd->run(argc, argv);
}

/* `hvtrace help [COMMAND]`: the command's --help, or the list. */
static int help(int argc, char **argv)
{
	const struct command *cmd;

	if (argc < 3 || !strcmp(argv[2], "help")) {
		usage(stdout);
		return 0;
	}
	if (!(cmd = command_named(argv[2])))
		return unknown_command(argv[2]);
	return run(cmd, 2, (char *[]){ argv[2], "--help", NULL });
}

int main(int argc, char **argv)
{
	const struct command *cmd;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return usage(stdout), 0;
	if (!strcmp(argv[1], "help"))
		return help(argc, argv);
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		fputs(HVT_VERSION_LINE, stdout);
		return 0;
	}
	if (argv[1][0] == '-') {
		hvt_err("unknown option '%s': options follow the command (hvtrace COMMAND "
			"--help); before it only --help and --version", argv[1]);
		return 2;
	}
	if (!(cmd = command_named(argv[1])))
		return unknown_command(argv[1]);
	return run(cmd, argc - 1, argv + 1);
}
