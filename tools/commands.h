/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * commands.h - the subcommands of `hvtrace`. Each takes the arguments after
 * its name (argv[0] is the subcommand) and returns the exit status.
 */
#ifndef HVT_TOOLS_COMMANDS_H
#define HVT_TOOLS_COMMANDS_H

int hvt_cmd_record(int argc, char **argv);	/* host/cmd_record.c */
int hvt_cmd_agent(int argc, char **argv);	/* tools/agent/agent.c */
int hvt_cmd_merge(int argc, char **argv);	/* tools/cmd_merge.c */
int hvt_cmd_check(int argc, char **argv);	/* tools/cmd_check.c */
int hvt_cmd_analyze(int argc, char **argv);	/* tools/cmd_analyze.c */
int hvt_cmd_drift(int argc, char **argv);	/* tools/cmd_drift.c */
int hvt_cmd_tsc(int argc, char **argv);		/* tools/cmd_tsc.c */
int hvt_cmd_sql(int argc, char **argv);		/* tools/cmd_sql.c */
int hvt_cmd_top(int argc, char **argv);		/* tools/cmd_top.c */
int hvt_cmd_relay(int argc, char **argv);	/* tools/cmd_relay.c */

#endif
