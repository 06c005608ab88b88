// SPDX-License-Identifier: GPL-2.0-only
/*
 * host_scan.c - pre-passes over the host layer for alignment (host_scan.h).
 */
#include "lib/log.h"
#include "tools/align/host_scan.h"

static int scan_cpu(struct hvt_ftrace *ft, const struct hvt_ftrace_cpu_info *info, bool complete,
		    struct hvt_event_decoder *dec, hvt_host_scan_fn fn, void *ctx)
{
	unsigned long warnings = 0;
	struct hvt_ftrace_cpu *c = hvt_ftrace_cpu_open(ft, info->path, info->path, info->cpu,
						       &warnings);
	struct hvt_ftrace_event ev;
	struct hvt_typed_event e;
	int ret = 0;

	if (!c)
		return 0;
	if (complete && info->bytes >= 0)	/* what the collector wrote, no more */
		hvt_ftrace_cpu_limit(c, (uint64_t)info->bytes);
	while (!ret && hvt_ftrace_cpu_next(c, &ev) > 0)
		if (hvt_decode_ftrace(dec, c, &ev, &e))
			ret = fn(&ev, &e, ctx);
	hvt_ftrace_cpu_close(c);
	return ret;
}

int hvt_host_scan(const struct hvt_archive *a, struct hvt_ftrace *ft, enum hvt_ev_kind kind,
		  hvt_host_scan_fn fn, void *ctx)
{
	struct hvt_event_decoder dec;
	size_t i;
	int ret = 0;

	if (hvt_event_decoder_init(&dec, HVT_EV_BIT(kind), false))
		return -1;
	hvt_log_mute();
	for (i = 0; i < a->nr_cpus && !ret; i++)
		ret = scan_cpu(ft, &a->cpus[i], a->complete, &dec, fn, ctx);
	hvt_log_unmute();
	hvt_event_decoder_free(&dec);
	return ret;
}
