// SPDX-License-Identifier: GPL-2.0-only
/*
 * host_scan.c - pre-passes over the host layer for alignment (host_scan.h).
 */
#include <string.h>

#include "lib/log.h"
#include "tools/align/host_scan.h"

static int scan_cpu(struct hvt_ftrace *ft, const struct hvt_ftrace_cpu_info *info,
		    const char *event, hvt_host_scan_fn fn, void *ctx)
{
	unsigned long warnings = 0;
	struct hvt_ftrace_cpu *c = hvt_ftrace_cpu_open(ft, info->path, info->path, info->cpu,
						       &warnings);
	struct hvt_ftrace_event ev;
	int ret = 0;

	if (!c)
		return 0;
	while (!ret && hvt_ftrace_cpu_next(c, &ev) > 0)
		if (!strcmp(ev.name, event))
			ret = fn(c, &ev, ctx);
	hvt_ftrace_cpu_close(c);
	return ret;
}

int hvt_host_scan(const struct hvt_archive *a, struct hvt_ftrace *ft, const char *event,
		    hvt_host_scan_fn fn, void *ctx)
{
	size_t i;
	int ret = 0;

	hvt_log_mute();
	for (i = 0; i < a->nr_cpus && !ret; i++)
		ret = scan_cpu(ft, &a->cpus[i], event, fn, ctx);
	hvt_log_unmute();
	return ret;
}
