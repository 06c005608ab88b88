// SPDX-License-Identifier: GPL-2.0-only
/*
 * agent_main.c - hvtrace-agent, the guest side as a program of its own.
 *
 * The same agent as `hvtrace agent` (agent.c), without the host side's
 * libraries: the one hvtrace binary links libvirt, libtracefs, jansson and
 * what they bring (about 60 shared libraries), while this links libc only,
 * which every guest has. The guest image runs it.
 */
#include "lib/log.h"
#include "tools/commands.h"

int main(int argc, char **argv)
{
	hvt_log_set_prog("hvtrace agent");	/* one name in logs, whichever binary */
	return hvt_cmd_agent(argc, argv);
}
