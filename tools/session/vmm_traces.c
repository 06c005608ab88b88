// SPDX-License-Identifier: GPL-2.0-only
/*
 * vmm_traces.c - the hypervisor's own trace events (merge --qemu-trace
 * FILE): QEMU's log trace backend stamps each event with CLOCK_REALTIME to
 * the microsecond (read/qemu_log.c), which the archive's host clock pairs
 * put on the host TSC (clocksync/realtime_tsc.h). Each file is one source
 * of the vmm layer, on the host.
 */
#include <inttypes.h>
#include <string.h>

#include "lib/log.h"
#include "tools/session/sources.h"

int hvt_session_open_qemu_traces(struct hvt_session *ses, const char *const *paths, size_t n)
{
	const struct hvt_archive *a = &ses->archive;
	size_t i;

	if (!n)
		return 0;
	if (hvt_realtime_tsc_init(&ses->realtime, a->pairs, a->nr_pairs, a->tsc_freq_hz)) {
		hvt_err("%s: its host clock pairs cannot place CLOCK_REALTIME on the host TSC",
			a->root);
		return -1;
	}
	for (i = 0; i < n; i++) {
		const char *base = strrchr(paths[i], '/');
		struct hvt_source *s;

		base = base ? base + 1 : paths[i];
		s = hvt_session_add_source(ses, HVT_LAYER_VMM, 0, NULL, base);
		if (!s) {
			hvt_err("out of memory");
			return -1;
		}
		if (hvt_reader_open_qemu_log(&s->rd, paths[i], s->name, &s->warnings)) {
			hvt_err("--qemu-trace %s: not read (the warning above says why)", paths[i]);
			return -1;
		}
		s->aligned = true;
		s->realtime = &ses->realtime;
		hvt_info("%s: QEMU's events, stamped by CLOCK_REALTIME to the microsecond, are "
			 "placed through the host clock pairs within +/-%" PRIu64 ".%03" PRIu64
			 " us", base, (500 + ses->realtime.bound_ns) / 1000,
			 (500 + ses->realtime.bound_ns) % 1000);
	}
	return 0;
}
