// SPDX-License-Identifier: GPL-2.0-only
/*
 * session.c - opening a recording and every input beside it, what the
 * session knows of them, and closing it (session.h).
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "tools/archive/archive_path.h"
#include "tools/session/sources.h"

/* The archive's manifest and host clock; -1 after an error message. */
static int open_archive(struct hvt_session *ses, const char *root,
			const struct hvt_session_opts *o)
{
	if (hvt_archive_open(&ses->archive, root))
		return -1;
	if (!ses->archive.complete && !o->follow) {	/* followed, it is expected */
		hvt_warn("%s: the recording did not finish (status is not \"complete\"); "
			 "reading what was written", root);
		ses->warnings++;
	}
	if (hvt_host_clock_init(&ses->clock, ses->archive.pairs, ses->archive.nr_pairs,
				ses->archive.tsc_freq_hz)) {
		hvt_err("%s: the host clock pairs do not map the host TSC to time: that needs two "
			"valid pairs, or one and the manifest's tsc_freq_hz", root);
		return -1;
	}
	return o->host_trace ? hvt_session_use_host_trace(ses, o->host_trace) : 0;
}

int hvt_session_open(struct hvt_session *ses, const char *root,
		     const struct hvt_session_opts *o)
{
	static const struct hvt_session_opts defaults;
	char why[2 * PATH_MAX];

	if (!o)
		o = &defaults;
	memset(ses, 0, sizeof(*ses));
	if (hvt_archive_path_misgiven(root, why, sizeof(why))) {
		hvt_err("%s", why);
		return -1;
	}
	ses->all_streams = o->all_streams;
	ses->follow = o->follow;
	if (hvt_session_is_file(root) ? hvt_session_open_tracedat(ses, root, o) :
					open_archive(ses, root, o))
		goto fail;
	if (hvt_session_open_sources(ses, o->all_streams)) {
		hvt_err("out of memory opening %s", root);
		goto fail;
	}
	if (hvt_session_open_more_tracedat(ses, root, o) ||
	    hvt_session_open_guest_traces(ses, o->guest_traces, o->nr_guest_traces) ||
	    hvt_session_open_qemu_traces(ses, o->qemu_traces, o->nr_qemu_traces))
		goto fail;
	return 0;
fail:
	hvt_session_close(ses);
	return -1;
}

unsigned long hvt_session_warnings(const struct hvt_session *ses)
{
	unsigned long n = ses->warnings + ses->archive.warnings + ses->align_host.warnings;
	size_t i, j;

	for (i = 0; i < ses->nr_sources; i++)
		n += hvt_source_warnings(ses->sources[i]);
	for (i = 0; ses->vms && i < ses->archive.nr_vms; i++) {
		n += ses->vms[i].vm.warnings + ses->vms[i].vm.sync_warnings;
		for (j = 0; ses->vms[i].regs && j < ses->vms[i].vm.nr_traces; j++)
			n += ses->vms[i].regs[j].warnings;
	}
	return n;
}

size_t hvt_session_unread_host_cpus(const struct hvt_session *ses, char *buf, size_t len)
{
	size_t i, n = 0, at = 0;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < ses->nr_sources; i++) {
		const struct hvt_source *s = ses->sources[i];
		int k;

		if (s->layer != HVT_LAYER_HOST || s->host_cpu < 0 || hvt_reader_opened(&s->rd))
			continue;
		k = at < len ? snprintf(buf + at, len - at, "%s%d", n ? ", " : "", s->host_cpu) : 0;
		if (k > 0)
			at = at + (size_t)k < len ? at + (size_t)k : len;
		n++;
	}
	return n;
}

int64_t hvt_session_event_bound_ns(struct hvt_session *ses, const struct hvt_source *s)
{
	uint64_t ticks;
	double ns;

	if (s->layer == HVT_LAYER_VMM)
		/* the pairs' bound, and half the microsecond QEMU's stamp was cut to */
		return !s->realtime ? 0 : s->unbounded ? -1 : (int64_t)s->realtime->bound_ns + 500;
	if (!s->vm_number)
		return 0;	/* the host's, and the host applications', on the host TSC */
	if (hvt_source_error_bound(&ses->vms[s->vm_number - 1], s, &ticks))
		return -1;
	ns = hvt_host_clock_ticks_us(&ses->clock, s->host_tsc, ticks) * 1e3;
	return ns >= 9e18 ? INT64_MAX : (int64_t)ceil(ns);
}

uint64_t hvt_session_lost(const struct hvt_session *ses)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < ses->nr_sources; i++)
		n += hvt_source_lost(ses->sources[i]);
	return n;
}

void hvt_session_vm_placed(const struct hvt_session *ses, struct hvt_session_vm *st)
{
	const struct hvt_host_switches *hs = &ses->align_host.switches;
	size_t c;

	st->placed_until = st->al.exact ? UINT64_MAX :
			   st->al.aligned && st->vm.nr_sync ?
			   st->vm.sync[st->vm.nr_sync - 1].ex.host_recv : 0;
	if (st->al.exact || !st->al.runs.samples || ses->archive.complete ||
	    !ses->align_host.switches_read)
		return;
	for (c = 0; c < hs->nr_cpus; c++)
		if (hs->cpus[c].last < st->placed_until)
			st->placed_until = hs->cpus[c].last;
}

void hvt_session_close(struct hvt_session *ses)
{
	size_t i;

	for (i = 0; i < ses->nr_sources; i++) {
		hvt_reader_close(&ses->sources[i]->rd);
		free(ses->sources[i]->name);
		free(ses->sources[i]);
	}
	for (i = 0; ses->vms && i < ses->archive.nr_vms; i++)
		if (ses->vms[i].loaded)
			hvt_session_vm_free(&ses->vms[i]);
	free(ses->vms);
	if (ses->host_apps.loaded)
		hvt_session_vm_free(&ses->host_apps);
	free(ses->sources);
	hvt_host_clock_free(&ses->clock);
	hvt_ftrace_close(ses->ftrace);
	for (i = 0; i < ses->nr_extra_ftrace; i++)
		hvt_ftrace_close(ses->extra_ftrace[i]);
	free(ses->extra_ftrace);
	hvt_host_layer_free(&ses->align_host);
	hvt_archive_close(&ses->archive);
	memset(ses, 0, sizeof(*ses));
}
