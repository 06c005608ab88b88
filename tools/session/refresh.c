// SPDX-License-Identifier: GPL-2.0-only
/*
 * refresh.c - following a recording still being written: what the
 * collector wrote since the open (session.h, hvt_session_refresh()).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "lib/clock_now.h"
#include "lib/log.h"
#include "tools/session/sources.h"

/* The source of stream @id of VM number @vm_number (0: the host applications), or NULL. */
static struct hvt_source *stream_source(const struct hvt_session *ses, size_t vm_number,
					uint32_t id)
{
	size_t i;

	for (i = 0; i < ses->nr_sources; i++)
		if (ses->sources[i]->vm_number == vm_number && ses->sources[i]->stream_id == id)
			return ses->sources[i];
	return NULL;
}

/*
 * The bytes the collector says it wrote of each host CPU file: a complete
 * recording's files are read no further (the run pass, the switch pass),
 * so the count of the open, from while it recorded, would cut them short.
 */
static void refresh_cpu_bytes(struct hvt_archive *a, const struct hvt_archive *now)
{
	size_t i, j;

	for (i = 0; i < a->nr_cpus; i++)
		for (j = 0; j < now->nr_cpus; j++)
			if (now->cpus[j].cpu == a->cpus[i].cpu)
				a->cpus[i].bytes = now->cpus[j].bytes;
}

/* The manifest again: whether the recording finished, and VMs started since. */
static void refresh_manifest(struct hvt_session *ses)
{
	struct hvt_archive now;
	size_t i;

	hvt_log_mute();
	if (hvt_archive_open(&now, ses->archive.root)) {
		hvt_log_unmute();
		return;		/* replaced as it was read: the next refresh sees it */
	}
	hvt_log_unmute();
	ses->archive.complete = now.complete;
	ses->archive.failed = now.failed;
	ses->archive.collector_pid = now.collector_pid;
	refresh_cpu_bytes(&ses->archive, &now);
	memcpy(ses->archive.hostname, now.hostname, sizeof(now.hostname));
	for (i = ses->archive.nr_vms + ses->vms_unfollowed; i < now.nr_vms; i++) {
		hvt_warn("vm %s started after %s was opened: it is not followed (merge the "
			 "recording again to see it)", now.vms[i].name, ses->archive.root);
		ses->vms_unfollowed++;
	}
	hvt_archive_close(&now);
}

/* Each host CPU file read as far as it is written, in whole pages. */
static void refresh_host(struct hvt_session *ses)
{
	size_t i;

	if (ses->host_trace)
		return;		/* a trace.dat does not grow */
	for (i = 0; i < ses->nr_sources; i++) {
		struct hvt_source *s = ses->sources[i];
		const struct hvt_ftrace_cpu_info *info = NULL;
		struct stat st;
		size_t c;

		if (s->layer != HVT_LAYER_HOST || s->host_cpu < 0)
			continue;
		for (c = 0; c < ses->archive.nr_cpus; c++)
			if (ses->archive.cpus[c].cpu == s->host_cpu)
				info = &ses->archive.cpus[c];
		if (info && !stat(info->path, &st))
			hvt_reader_limit(&s->rd, (uint64_t)st.st_size);
	}
}

/*
 * A source's event read but not taken yet, placed by the new alignment
 * (the old one may not have reached it: its bound would not hold); never
 * before the event before it.
 */
static void place_pending(struct hvt_source *s)
{
	uint64_t t = hvt_tsc_timeline_to_host(s->guest_tl, &s->cur, s->ev.ts);

	s->shift = 0;
	if (s->events > 1 && t < s->prev_tsc) {
		s->shift = s->prev_tsc - t;
		t = s->prev_tsc;
	}
	s->host_tsc = t;
	if (s->events == 1)
		s->first_tsc = t;
}

/*
 * Each source of VM @st placed by its alignment from its pending event
 * (read, not taken by a time line) on; a source's later events are never
 * placed before its last.
 */
static void place_anew(struct hvt_session *ses, struct hvt_session_vm *st, size_t vm_number)
{
	size_t i;

	for (i = 0; i < ses->nr_sources; i++) {
		struct hvt_source *s = ses->sources[i];

		if (s->vm_number != vm_number || !s->aligned)
			continue;
		s->guest_tl = hvt_vm_align_stream(&st->al, s->guest_cpu);
		memset(&s->cur, 0, sizeof(s->cur));
		if (s->pending && s->guest_tl)
			place_pending(s);
		if (s->events)
			s->held = s->host_tsc;
	}
}

/* VM @st aligned again with what it has now; its old alignment kept if the new one fails. */
static int realign(struct hvt_session *ses, struct hvt_session_vm *st, size_t vm_number)
{
	unsigned long warnings = ses->align_host.warnings;
	struct hvt_vm_align al;
	int ret;

	memset(&al, 0, sizeof(al));
	ret = hvt_vm_align(&al, &ses->align_host, &st->vm, st->types);
	ses->align_host.warnings = warnings;	/* said at the open */
	if (ret || (!al.aligned && !al.exact && (st->al.aligned || st->al.exact))) {
		hvt_vm_align_free(&al);
		return ret;
	}
	hvt_vm_align_free(&st->al);
	st->al = al;
	hvt_session_vm_placed(ses, st);
	place_anew(ses, st, vm_number);
	return 0;
}

/* Whether trace @t of @st may be placed now. */
static bool placeable(struct hvt_session *ses, struct hvt_session_vm *st,
		      const struct hvt_trace_info *t, bool host)
{
	unsigned long warnings = ses->align_host.warnings;
	bool ok;

	if (host)
		return t->domain == HVT_DOMAIN_TSC;
	hvt_log_mute();		/* a trace that never can was said at the open */
	ok = hvt_vm_align_trace(&ses->align_host, &st->al, t);
	hvt_log_unmute();
	ses->align_host.warnings = warnings;
	return ok;
}

/* The streams of @st read further; its new ones, and those placeable now, as sources. */
static int refresh_streams(struct hvt_session *ses, struct hvt_session_vm *st, size_t vm_number,
			   bool host)
{
	size_t i;

	for (i = 0; i < st->vm.nr_streams; i++) {
		const struct hvt_stream_info *si = &st->vm.streams[i];
		const struct hvt_trace_info *t = &st->vm.traces[si->trace];
		struct hvt_source *s = stream_source(ses, vm_number, si->id);
		bool aligned;

		if (s) {
			hvt_reader_limit(&s->rd, si->bytes > 0 ? (uint64_t)si->bytes : 0);
			s->expect_packets = si->packets;
			s->closed = si->closed || st->vm.finished;
			continue;
		}
		aligned = placeable(ses, st, t, host);
		if ((aligned || ses->all_streams) &&
		    hvt_session_open_stream(ses, st, i, aligned, host))
			return -1;
	}
	return 0;
}

static int refresh_vm(struct hvt_session *ses, struct hvt_session_vm *st,
		      const struct hvt_vm_ref *ref, size_t vm_number, bool host, bool refit)
{
	struct hvt_vm_info fresh;
	size_t i;
	int ret;

	hvt_log_mute();
	ret = hvt_vm_info_load(&fresh, ref);
	hvt_log_unmute();
	if (ret)
		return 0;	/* replaced as it was read: the next refresh sees it */
	if (hvt_vm_info_update(&st->vm, &fresh))
		return -1;
	for (i = 0; i < st->vm.nr_traces; i++)
		if ((st->regs[i].read || hvt_session_readable(&st->vm.traces[i], ses->all_streams)) &&
		    hvt_session_read_registry(st, i, true))
			return -1;
	hvt_log_mute();		/* the open said what there is to say of the alignment */
	ret = !host && refit && realign(ses, st, vm_number);
	hvt_log_unmute();
	return ret ? -1 : refresh_streams(ses, st, vm_number, host);
}

#define REFIT_MIN_NS	1000000000ll	/* the VMs are aligned again at most this often */

/*
 * Whether the VMs are aligned again at this refresh: when due (at most 5%
 * of the time on it), at once if a VM has exchanges and no alignment yet,
 * and when the recording has ended (the last events get their bounds).
 */
static bool refit_due(const struct hvt_session *ses, int64_t now)
{
	size_t i;

	if (now >= ses->realign_due_ns || ses->archive.complete)
		return true;
	for (i = 0; i < ses->archive.nr_vms; i++)
		if (ses->vms[i].loaded && ses->vms[i].vm.nr_sync && !ses->vms[i].al.aligned &&
		    !ses->vms[i].al.exact)
			return true;
	return false;
}

int hvt_session_refresh(struct hvt_session *ses)
{
	int64_t t0;
	size_t i;
	int ret = 0;
	bool refit;

	if (!ses->follow) {
		hvt_err("%s was not opened to be followed", ses->archive.root);
		return -1;
	}
	if (ses->tracedat_only)
		return 0;	/* trace.dat files do not grow */
	refresh_manifest(ses);
	refresh_host(ses);
	refit = refit_due(ses, t0 = hvt_monotonic_ns());
	if (refit)
		hvt_host_layer_forget(&ses->align_host);	/* the pre-passes read it again */
	for (i = 0; !ret && i < ses->archive.nr_vms; i++)
		if (ses->vms[i].loaded)
			ret = refresh_vm(ses, &ses->vms[i], &ses->archive.vms[i], i + 1, false,
					 refit);
	if (!ret && ses->host_apps.loaded)
		ret = refresh_vm(ses, &ses->host_apps, &ses->archive.host_apps, 0, true, false);
	if (refit) {
		int64_t now = hvt_monotonic_ns();

		ses->realign_cost_ns = now - t0;
		ses->realign_due_ns = now + (20 * ses->realign_cost_ns > REFIT_MIN_NS ?
					     20 * ses->realign_cost_ns : REFIT_MIN_NS);
	}
	return ret;
}
