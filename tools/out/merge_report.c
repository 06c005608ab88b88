// SPDX-License-Identifier: GPL-2.0-only
/*
 * merge_report.c - the summary and the --stats table of `hvtrace merge`
 * (merge_report.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lib/log.h"
#include "tools/out/merge_report.h"
#include "tools/util/time_text.h"

/*
 * Why a VM whose vCPU threads are known got no run edge: "" if it got
 * some, or has none to get (no vCPU threads, no host layer).
 */
static const char *runs_unused(struct hvt_session *ses, const struct hvt_session_vm *st,
			       char *buf, size_t len)
{
	size_t i = (size_t)(st - ses->vms);
	char cpus[128];

	if (st->al.runs.samples || !hvt_session_host_recorded(ses) || st->al.runs.rejected ||
	    st->al.runs.vcpus_unused)
		return "";	/* a warning said why */
	if (i >= ses->archive.nr_vms || !ses->archive.vms[i].nr_vcpu_tids)
		return "";
	if (hvt_session_unread_host_cpus(ses, cpus, sizeof(cpus)))
		snprintf(buf, len, " (no vCPU run edge: host CPU %s could not be read, and a vCPU "
			 "thread may have run there unseen)", cpus);
	else
		snprintf(buf, len, " (no vCPU run edge: no guest event lies where a run of its "
			 "vCPU's thread places it)");
	return buf;
}

/* "; +/-X us (median) from the exchanges alone", if the runs tightened it. */
static const char *runs_before(struct hvt_session *ses, const struct hvt_session_vm *st,
			       char *buf, size_t len)
{
	const struct hvt_vm_clock_quality *b = &st->al.before;

	if (!st->al.runs.samples || !b->measured)
		return "";
	snprintf(buf, len, "; +/-%.3f us median, %.3f us worst from the exchanges alone",
		 hvt_host_clock_ticks_us(&ses->clock, b->host_mid, b->half_p50),
		 hvt_host_clock_ticks_us(&ses->clock, b->host_mid, b->half_max));
	return buf;
}

/* The host TSC span of VM @st's guest events read so far; false if none. */
static bool guest_events_span(const struct hvt_session *ses, const struct hvt_session_vm *st,
			      uint64_t *first, uint64_t *last)
{
	size_t i, vm = (size_t)(st - ses->vms) + 1;
	bool any = false;

	for (i = 0; i < ses->nr_sources; i++) {
		const struct hvt_source *s = ses->sources[i];

		if (s->vm_number != vm || !s->events || s->layer == HVT_LAYER_VMM)
			continue;
		*first = !any || s->first_tsc < *first ? s->first_tsc : *first;
		*last = !any || s->prev_tsc > *last ? s->prev_tsc : *last;
		any = true;
	}
	return any;
}

/*
 * The figures above hold between the first and the last exchange; a guest
 * event read before the first or after the last has a wider bound, the
 * wider the farther: said with the widest, so that a summary never shows a
 * bound 1000 times narrower than its events' (say, a sync.tsv cut short).
 */
static const char *outside_text(struct hvt_session *ses, struct hvt_session_vm *st, char *buf,
				size_t len)
{
	const struct hvt_sync_rec *r = st->vm.sync;
	uint64_t first = 0, last = 0, lo = 0, hi = 0, w = 0;
	size_t i;

	buf[0] = '\0';
	if (!st->vm.nr_sync || !guest_events_span(ses, st, &first, &last))
		return buf;
	for (i = 0; i < st->vm.nr_sync; i++) {
		lo = !i || r[i].ex.host_send < lo ? r[i].ex.host_send : lo;
		hi = !i || r[i].ex.host_recv > hi ? r[i].ex.host_recv : hi;
	}
	if (first >= lo && last <= hi)
		return buf;
	if (first < lo && hvt_vm_clock_half_width(&st->al.clock, first, &w))
		w = UINT64_MAX;
	if (last > hi) {
		uint64_t t = 0;

		if (hvt_vm_clock_half_width(&st->al.clock, last, &t))
			t = UINT64_MAX;
		w = t > w ? t : w;
	}
	if (w == UINT64_MAX)
		snprintf(buf, len, "; its events from %.3f to %.3f s reach outside the exchanges, "
			 "some with no bound (--bounds shows each event's)",
			 hvt_host_clock_since_start(&ses->clock, first) / 1e9,
			 hvt_host_clock_since_start(&ses->clock, last) / 1e9);
	else
		snprintf(buf, len, "; its events from %.3f to %.3f s reach outside the exchanges, "
			 "where bounds widen up to +/-%.3f us (--bounds shows each event's)",
			 hvt_host_clock_since_start(&ses->clock, first) / 1e9,
			 hvt_host_clock_since_start(&ses->clock, last) / 1e9,
			 hvt_host_clock_ticks_us(&ses->clock, first < lo ? first : last, w));
	return buf;
}

const char *hvt_vm_alignment_text(struct hvt_session *ses, struct hvt_session_vm *st, char *buf,
				  size_t len)
{
	char runs[128], samples[48] = "", unused[256], outside[192];
	struct hvt_vm_clock_quality q;
	size_t segs;

	if (!st->loaded)
		return "not read (info.json unusable)";
	if (st->al.exact)
		return "exact, by KVM's own TSC parameters (kvm_tsc.tsv and the host layer)";
	if (!st->al.aligned)
		return "not aligned, its streams not merged (see the warnings)";
	segs = hvt_vm_clock_segments(&st->al.clock);
	if (st->al.runs.samples)
		snprintf(samples, sizeof(samples), "%zu vCPU run edges", st->al.runs.samples);
	hvt_vm_clock_quality(&st->al.clock, st->vm.sync, st->vm.nr_sync, &q);
	if (!q.measured)
		snprintf(buf, len, "clock from %zu exchange%s; too few to bound its error",
			 st->vm.nr_sync, st->vm.nr_sync == 1 ? "" : "s");
	else
		snprintf(buf, len, "clock from %zu exchanges%s%zu sync points%s%s, %zu segment%s; "
			 "guest events are within +/-%.3f us of their host time (median; worst "
			 "%.3f us%s) between the first and last exchange%s%s%s", st->vm.nr_sync,
			 st->al.runs.samples ? ", " : " and ", st->al.clock.nr_points,
			 st->al.runs.samples ? " and " : "", samples, segs, segs == 1 ? "" : "s",
			 hvt_host_clock_ticks_us(&ses->clock, q.host_mid, q.half_p50),
			 hvt_host_clock_ticks_us(&ses->clock, q.host_mid, q.half_max),
			 runs_before(ses, st, runs, sizeof(runs)),
			 q.in_window ? ", except around each clock change" : "",
			 runs_unused(ses, st, unused, sizeof(unused)),
			 outside_text(ses, st, outside, sizeof(outside)));
	return buf;
}

void hvt_merge_summary(struct hvt_session *ses, const uint64_t *shown, bool selecting)
{
	uint64_t lost = hvt_session_lost(ses), gaps = 0, e[HVT_NR_LAYERS] = { 0 };
	char lost_text[96] = "", buf[1024], of[32] = "";
	unsigned long warnings = hvt_session_warnings(ses);
	size_t i, streams = 0, showing = 0;
	uint64_t total;
	bool vmm;

	for (i = 0; i < ses->nr_sources; i++) {
		e[ses->sources[i]->layer] += shown[ses->sources[i]->index];
		streams += hvt_source_merged(ses->sources[i]);
		showing += hvt_source_merged(ses->sources[i]) && shown[ses->sources[i]->index];
		gaps += hvt_source_missing_packets(ses->sources[i]);
	}
	if (selecting && showing != streams)	/* the streams the selected events came from */
		snprintf(of, sizeof(of), "%zu of ", showing);
	if (lost || gaps)
		snprintf(lost_text, sizeof(lost_text), ", %" PRIu64 " lost while recording%s", lost,
			 gaps ? " (and packets missing: see --stats)" : "");
	/* vmm where there is a QEMU log, even if nothing of it is shown, as host always is */
	for (i = 0, vmm = false; i < ses->nr_sources; i++)
		vmm |= ses->sources[i]->layer == HVT_LAYER_VMM;
	snprintf(buf, sizeof(buf), ", vmm %" PRIu64, e[HVT_LAYER_VMM]);
	total = e[0] + e[1] + e[2] + e[HVT_LAYER_VMM];
	hvt_info("%" PRIu64 " event%s (host %" PRIu64 ", kernel %" PRIu64 ", user %" PRIu64
		 "%s) from %s%zu stream%s%s, %lu warning%s", total, total == 1 ? "" : "s",
		 e[HVT_LAYER_HOST], e[HVT_LAYER_KERNEL], e[HVT_LAYER_USER], vmm ? buf : "", of,
		 streams, streams == 1 ? "" : "s", lost_text, warnings, warnings == 1 ? "" : "s");
	for (i = 0; i < ses->archive.nr_vms; i++) {
		struct hvt_session_vm *st = &ses->vms[i];

		/* the others were warned about, or said when opened (exact) */
		if (st->loaded && st->al.aligned && !st->al.exact)
			hvt_info("vm %s: %s", st->vm.name,
				 hvt_vm_alignment_text(ses, st, buf, sizeof(buf)));
	}
}

void hvt_merge_untraced_warn(const struct hvt_session *ses)
{
	char buf[320];
	size_t i;

	for (i = 0; i < ses->archive.nr_vms; i++)
		if (ses->vms[i].loaded &&
		    hvt_vm_info_untraced_text(&ses->vms[i].vm, buf, sizeof(buf)))
			hvt_warn("vm %s: %s", ses->vms[i].vm.name, buf);
	if (ses->host_apps.loaded && hvt_vm_info_untraced_text(&ses->host_apps.vm, buf, sizeof(buf)))
		hvt_warn("host applications: %s", buf);
}

static const char *stream_state(const struct hvt_source *s)
{
	if (!hvt_reader_opened(&s->rd))
		return "unreadable";
	if (!s->aligned)
		return "not aligned";
	if (s->unwanted)
		return "not selected";
	return s->incomplete ? "cut short" : "merged";	/* shorter than recorded: lacking */
}

/* Whose events stream @s holds: "cpu 1", "vcpu 0", "pid 115 (hvdemo) tid 117", "-". */
static const char *stream_owner(struct hvt_session *ses, const struct hvt_source *s, char *buf,
				size_t len)
{
	const struct hvt_vm_info *vm;
	size_t i;

	if (s->host_cpu >= 0)
		snprintf(buf, len, "cpu %d", s->host_cpu);
	else if (s->guest_cpu >= 0)
		snprintf(buf, len, "%scpu %d", s->vm_number ? "v" : "", s->guest_cpu);
	else
		snprintf(buf, len, "-");
	vm = s->vm_number ? &ses->vms[s->vm_number - 1].vm : ses->host_apps.loaded ?
	     &ses->host_apps.vm : NULL;
	if (s->guest_cpu >= 0 || s->stream_id == UINT32_MAX || !vm)
		return buf;
	for (i = 0; i < vm->nr_streams && vm->streams[i].id != s->stream_id; i++)
		;
	if (i < vm->nr_streams && vm->streams[i].trace < vm->nr_traces) {
		const struct hvt_trace_info *tr = &vm->traces[vm->streams[i].trace];

		snprintf(buf, len, "pid %u (%s) tid %d", tr->pid, tr->comm[0] ? tr->comm : "?",
			 vm->streams[i].tid);
	}
	return buf;
}

/* The time of @tsc as merge prints it, or "-" without events. */
static const char *when(struct hvt_session *ses, const struct hvt_source *s, uint64_t tsc,
			char buf[HVT_TIME_TEXT_MAX])
{
	if (!s->events || !s->aligned)
		return "-";
	hvt_time_format(buf, HVT_TIME_NS, &ses->clock, tsc);
	return buf;
}

void hvt_merge_stats(struct hvt_session *ses, const uint64_t *shown, FILE *out)
{
	char buf[1024], first[HVT_TIME_TEXT_MAX], last[HVT_TIME_TEXT_MAX];
	size_t i, width = 6;

	for (i = 0; i < ses->nr_sources; i++)
		if (strlen(ses->sources[i]->name) > width)
			width = strlen(ses->sources[i]->name);
	fprintf(out, "%-*s %-6s %-12s %12s %12s %10s %8s %8s %8s  %-12s %14s %14s  %s\n",
		(int)width, "stream", "layer", "vm", "events", "shown", "lost", "pkt-gaps", "skipped",
		"warnings", "state", "first", "last", "of");
	for (i = 0; i < ses->nr_sources; i++) {
		const struct hvt_source *s = ses->sources[i];
		struct hvt_reader_stats st = { 0 };

		hvt_reader_stats(&s->rd, &st);	/* skipped: damaged packets or pages, not decoded */
		fprintf(out, "%-*s %-6s %-12s %12" PRIu64 " %12" PRIu64 " %10" PRIu64 " %8" PRIu64
			" %8" PRIu64 " %8lu  %-12s %14s %14s  %s\n", (int)width, s->name,
			hvt_layer_name(s->layer), s->vm ? s->vm : "-", s->events, shown[s->index],
			hvt_source_lost(s), hvt_source_missing_packets(s),
			st.skipped_packets + st.skipped_records,
			hvt_source_warnings(s), stream_state(s), when(ses, s, s->first_tsc, first),
			when(ses, s, s->host_tsc, last), stream_owner(ses, s, buf, sizeof(buf)));
	}
	for (i = 0; i < ses->archive.nr_vms; i++)
		fprintf(out, "vm %s: %s\n", ses->archive.vms[i].name,
			hvt_vm_alignment_text(ses, &ses->vms[i], buf, sizeof(buf)));
	fprintf(out, "%lu warning%s in all\n", hvt_session_warnings(ses),
		hvt_session_warnings(ses) == 1 ? "" : "s");
}
