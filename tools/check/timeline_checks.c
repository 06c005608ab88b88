// SPDX-License-Identifier: GPL-2.0-only
/*
 * timeline_checks.c - `hvtrace check`'s verdicts made along the time line
 * (timeline_checks.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tools/check/timeline_checks.h"

int hvt_timeline_checks_run(struct hvt_timeline_checks *c, struct hvt_session *ses,
			    struct hvt_timeline *tl)
{
	struct hvt_source *s;
	int64_t prev = INT64_MIN;

	memset(c, 0, sizeof(*c));
	if (hvt_check_events_init(&c->ce, ses))
		return -1;
	while ((s = hvt_timeline_next(tl))) {
		int64_t ns = hvt_host_clock_since_start(&ses->clock, s->host_tsc);

		if (ns < prev && !c->backwards++)
			c->first_backwards = c->events;
		prev = ns;
		c->events++;
		hvt_check_events_next(&c->ce, s);
	}
	hvt_check_events_finish(&c->ce);
	return 0;
}

void hvt_timeline_checks_free(struct hvt_timeline_checks *c)
{
	hvt_check_events_free(&c->ce);
}

/* The events the kernel streams of VM @i gave. */
static uint64_t kernel_events(const struct hvt_session *ses, size_t i)
{
	uint64_t n = 0;
	size_t k;

	for (k = 0; k < ses->nr_sources; k++)
		if (ses->sources[k]->layer == HVT_LAYER_KERNEL && ses->sources[k]->vm_number == i + 1)
			n += ses->sources[k]->events;
	return n;
}

/*
 * The layers the archive says were recorded and that gave no event: the
 * host layer (its CPU files), and each VM's guest kernel (a VM aligned that
 * lists a kernel trace, or one whose description is lost; a VM that cannot
 * be aligned has its own FAIL). A user layer may be empty: an application
 * may trace nothing. In @buf, like " host kernel[vm1]"; "" if none.
 */
static const char *empty_layers(const struct hvt_session *ses, const uint64_t *e, char *buf,
				size_t len)
{
	size_t i, k, used;

	buf[0] = '\0';
	if (ses->archive.ftrace_dir && ses->archive.nr_cpus && !e[HVT_LAYER_HOST])
		snprintf(buf, len, " host");
	for (i = 0; i < ses->archive.nr_vms; i++) {
		const struct hvt_session_vm *v = &ses->vms[i];
		bool kernel = !v->loaded;

		if (v->loaded && !v->al.aligned && !v->al.exact)
			continue;
		for (k = 0; v->loaded && k < v->vm.nr_traces; k++)
			kernel |= v->vm.traces[k].layer == HVT_LAYER_KERNEL;
		used = strlen(buf);
		if (kernel && !kernel_events(ses, i) && used < len)
			snprintf(buf + used, len - used, " kernel[%s]", ses->archive.vms[i].name);
	}
	return buf;
}

static void check_timeline(struct hvt_tally *t, const struct hvt_timeline *tl,
			   const struct hvt_timeline_checks *r, const struct hvt_session *ses)
{
	const uint64_t *e = tl->events;
	char empty[256];

	if (r->backwards)
		hvt_check_report(t, HVT_FAIL, "timeline-ordered", "%" PRIu64 " events go back in "
				 "time, the first is event %" PRIu64, r->backwards,
				 r->first_backwards);
	else
		hvt_check_report(t, HVT_PASS, "timeline-ordered", NULL);
	empty_layers(ses, e, empty, sizeof(empty));
	hvt_check_report(t, r->events > 0 && !empty[0] ? HVT_PASS : HVT_FAIL, "layers-present",
			 "host=%" PRIu64 " kernel=%" PRIu64 " user=%" PRIu64 "%s%s%s", e[HVT_LAYER_HOST],
			 e[HVT_LAYER_KERNEL], e[HVT_LAYER_USER],
			 r->events ? "" : " (no events at all)",
			 empty[0] ? "; recorded, but no event read:" : "", empty);
}

/*
 * The bounds are in ns, each rounded up at its event (as merge --bounds,
 * the JSON and SQL give them); the quantiles are the histogram's bucket
 * ends (bound_hist.h), up to 1/16 above the values in the bucket; the
 * worst is exact.
 */
static void bounds_text(const struct hvt_bound_hist *h, char *buf, size_t len)
{
	snprintf(buf, len, "median +/-%.3f us, p90 +/-%.3f us, p99 +/-%.3f us, worst +/-%.3f us",
		 (double)hvt_hist_quantile(h, 0.5) / 1000.0,
		 (double)hvt_hist_quantile(h, 0.9) / 1000.0,
		 (double)hvt_hist_quantile(h, 0.99) / 1000.0, (double)h->max / 1000.0);
}

/*
 * error-bound[VM], a report: how the merged guest events' bounds spread,
 * and how many have none (the estimate leaves the clock open there).
 */
static void report_error_bounds(struct hvt_tally *t, struct hvt_session *ses,
				const struct hvt_check_events *ce)
{
	char name[512], dist[192];
	size_t i;

	for (i = 0; i < ses->archive.nr_vms; i++) {
		const struct hvt_event_bounds *b = &ce->vms[i];
		uint64_t n = b->hist.n + b->unbounded;

		hvt_check_named(name, sizeof(name), "error-bound", ses->archive.vms[i].name);
		if (!n) {
			hvt_check_report(t, HVT_INFO, name, "no guest event of this VM was merged");
			continue;
		}
		bounds_text(&b->hist, dist, sizeof(dist));
		hvt_check_report(t, HVT_INFO, name, "%" PRIu64 " guest events, %s: %s%s%" PRIu64 " without a "
		     "guaranteed bound", n, ses->vms[i].al.exact ? "exact by KVM's TSC parameters" :
		     "estimated", b->hist.n ? dist : "", b->hist.n ? "; " : "", b->unbounded);
	}
}

/*
 * Where the first event outside every window lies, in @buf: @closed names
 * a window's end ("its vCPU's kvm_exit"), @opened the next one's start.
 */
static void miss_text(struct hvt_session *ses, const struct hvt_window_miss *m, char *buf,
		      size_t len, const char *closed, const char *opened)
{
	const struct hvt_source *s = m->tag;
	char next[128] = "none followed";

	if (m->entry)
		snprintf(next, sizeof(next), "%.3f us before %s",
			 hvt_check_us(ses, m->entry - m->host), opened);
	snprintf(buf, len, "the first is event %" PRIu64 " of %s on vCPU %u at %.9f s: %.3f us "
		 "after %s and %s, with an error bound of +/-%.3f us",
		 m->tag_index, s->name, m->vcpu,
		 (double)hvt_host_clock_since_start(&ses->clock, m->host) / 1e9,
		 hvt_check_us(ses, m->host - m->exit), closed, next, hvt_check_us(ses, m->bound));
}

/* vcpu-windows[VM]: a KVM VM's guest events inside their vCPU's windows. */
static void check_windows(struct hvt_tally *t, struct hvt_session *ses,
			  const struct hvt_check_events *ce)
{
	const struct hvt_vcpu_windows *w = &ce->windows;
	uint64_t judged = w->inside + w->outside;
	char name[512], where[512];

	if (!ce->windows_vm && !ce->windows_why)
		return;		/* no KVM VM: nothing to compare with */
	hvt_check_named(name, sizeof(name), "vcpu-windows", ce->windows_vm ? ce->windows_vm->vm.name : "*");
	if (ce->windows_why)
		hvt_check_report(t, HVT_SKIP, name, "%s", ce->windows_why);
	else if (w->failed)
		hvt_check_report(t, HVT_FAIL, name, "out of memory");
	else if (!w->host_events)
		hvt_check_report(t, HVT_SKIP, name, "the host layer has no kvm_entry or kvm_exit event");
	else if (w->outside) {
		miss_text(ses, &w->first, where, sizeof(where), "its vCPU's kvm_exit",
			  "its next kvm_entry");
		hvt_check_report(t, HVT_FAIL, name, "%" PRIu64 " of %" PRIu64 " guest events lie outside every "
		       "kvm_entry -> kvm_exit window of their vCPU by more than their error "
		       "bound; %s", w->outside, judged, where);
	} else if (!judged)
		hvt_check_report(t, HVT_SKIP, name, "no guest event could be judged (%" PRIu64 " fell where the host "
		     "did not record their vCPU)", w->unjudged);
	else
		hvt_check_report(t, HVT_PASS, name, "%" PRIu64 " guest events inside their vCPU's windows, %"
		       PRIu64 " not judged (no CPU, or where the host did not record their vCPU)",
		       w->inside, w->unjudged);
}

/* host-sched[VM], a report: are the vCPU threads' switches complete? */
static void report_host_sched(struct hvt_tally *t, struct hvt_session *ses, const char *vm,
			      const struct hvt_host_runs *r)
{
	char name[512];

	hvt_check_named(name, sizeof(name), "host-sched", vm);
	if (!r->missing_in && !r->missing_out) {
		hvt_check_report(t, HVT_INFO, name, "%" PRIu64 " sched_switch events of the vCPU threads, each "
		       "switch-out after a switch-in", r->switches);
		return;
	}
	hvt_check_report(t, HVT_INFO, name, "incomplete: of %" PRIu64 " sched_switch events of the vCPU "
	       "threads, %" PRIu64 " switch-out%s had no switch-in recorded before (the first "
	       "on host CPU %d at %.9f s) and %" PRIu64 " switch-out%s were not recorded; "
	       "the host kernel did not emit them (some kernels skip idle -> task switches). "
	       "Run intervals then start at their CPU's previous sched_switch: wider, "
	       "never narrower", r->switches, r->missing_in, r->missing_in == 1 ? "" : "s",
	       r->first_missing_in_cpu,
	       (double)hvt_host_clock_since_start(&ses->clock, r->first_missing_in) / 1e9,
	       r->missing_out, r->missing_out == 1 ? "" : "s");
}

/*
 * The host CPUs whose file could not be read, as "; host CPU 0 could not
 * be read: ..." in @buf; "" if none.
 */
static void unread_host_cpus(const struct hvt_session *ses, char *buf, size_t len)
{
	char cpus[256];
	size_t n = hvt_session_unread_host_cpus(ses, cpus, sizeof(cpus));

	buf[0] = '\0';
	if (n)
		snprintf(buf, len, "; host CPU%s %s could not be read: a vCPU thread not seen "
			 "running elsewhere may have run there, so its time out is not known",
			 n == 1 ? "" : "s", cpus);
}

/* vcpu-threads[VM]: each VM's guest events inside its vCPU threads' runs. */
static void check_threads(struct hvt_tally *t, struct hvt_session *ses,
			  const struct hvt_check_events *ce)
{
	char name[512], where[512], unread[512];
	size_t i;

	unread_host_cpus(ses, unread, sizeof(unread));
	for (i = 0; i < ses->archive.nr_vms; i++) {
		const struct hvt_event_bounds *b = &ce->vms[i];
		const struct hvt_vcpu_windows *w = &b->threads.windows;
		uint64_t judged = w->inside + w->outside;

		hvt_check_named(name, sizeof(name), "vcpu-threads", ses->archive.vms[i].name);
		if (b->threads_why) {
			hvt_check_report(t, HVT_SKIP, name, "%s", b->threads_why);
			continue;
		}
		if (w->failed || b->threads.runs.failed) {
			hvt_check_report(t, HVT_FAIL, name, "out of memory");
			continue;
		}
		if (!b->threads.runs.switches) {
			hvt_check_report(t, HVT_SKIP, name, "the host layer has no sched_switch of the VM's vCPU "
			       "threads%s", ce->sched_switch ? "" : " (no sched_switch at all)");
			continue;
		}
		report_host_sched(t, ses, ses->archive.vms[i].name, &b->threads.runs);
		if (w->outside) {
			miss_text(ses, &w->first, where, sizeof(where), "its vCPU thread's run",
				  "its next run");
			hvt_check_report(t, HVT_FAIL, name, "%" PRIu64 " of %" PRIu64 " guest events lie outside "
			       "every run interval of their vCPU's host thread by more than their "
			       "error bound; %s", w->outside, judged, where);
		} else if (!judged) {
			hvt_check_report(t, HVT_SKIP, name, "no guest event could be judged (%" PRIu64 " fell "
			       "where the host did not record their vCPU's thread%s)", w->unjudged,
			       unread);
		} else {
			hvt_check_report(t, HVT_PASS, name, "%" PRIu64 " guest events inside their vCPU thread's "
			       "run intervals, %" PRIu64 " not judged (no CPU, an unknown thread, or "
			       "where the host lost events%s)", w->inside, w->unjudged, unread);
		}
	}
}

/* Cause @a, effect @b of request @r that came too early, as text. */
static void late_text(struct hvt_session *ses, const struct hvt_io_causal *c, char *buf,
		      size_t len)
{
	const struct hvt_io_request *r = &c->first_late;
	const struct hvt_io_mark *a = &r->at[c->late_cause], *b = &r->at[c->late_effect];
	double us = hvt_host_clock_ticks_us(&ses->clock, b->ts, a->ts - b->ts);

	snprintf(buf, len, "the first: %c sector %" PRIu64 " +%u, %s %s at %.6f s lies %.1f us "
		 "before its cause, %s %s (bounds +/-%.1f and +/-%.1f us)", r->kind, r->sector,
		 r->nr_sector, b->qemu ? "QEMU's" : b->host ? "the host's" : "the guest's",
		 hvt_io_point_name(c->late_effect),
		 (double)hvt_host_clock_since_start(&ses->clock, b->ts) / 1e9, us,
		 a->qemu ? "QEMU's" : a->host ? "the host's" : "the guest's",
		 hvt_io_point_name(c->late_cause),
		 (double)a->bound_ns / 1e3, (double)b->bound_ns / 1e3);
}

static void check_io_causal(struct hvt_tally *t, struct hvt_session *ses,
			    const struct hvt_check_events *ce)
{
	char name[512], where[512];
	size_t i;

	for (i = 0; i < ses->archive.nr_vms; i++) {
		const struct hvt_io_vm *vm = &ce->io.vms[i];
		const struct hvt_io_causal *c = &vm->causal;

		if (!vm->guest_events && !vm->qemu_events)
			continue;	/* no I/O recorded: nothing to say */
		hvt_check_named(name, sizeof(name), "io-causal", ses->archive.vms[i].name);
		if (ce->io.failed) {
			hvt_check_report(t, HVT_FAIL, name, "out of memory");
		} else if (!c->pairs) {
			hvt_check_report(t, HVT_SKIP, name, "no guest block request linked to QEMU's "
					 "handling of it (%s)", !vm->guest_events ?
					 "the guest recorded no block_rq_issue" : !vm->qemu_events ?
					 "no QEMU events of its virtio-blk: record --qemu-log" :
					 "none fit");
		} else if (c->late) {
			late_text(ses, c, where, sizeof(where));
			hvt_check_report(t, HVT_FAIL, name, "%" PRIu64 " of %" PRIu64 " cause-effect "
					 "pairs across the guest's and QEMU's clocks have the effect "
					 "first, by more than their bounds; %s", c->late, c->pairs,
					 where);
		} else {
			hvt_check_report(t, HVT_PASS, name, "%" PRIu64 " cause-effect pairs across "
					 "the guest's and QEMU's clocks (a request issued -> QEMU "
					 "takes it up, QEMU hands it back -> the guest completes it%s) "
					 "in order within their bounds; tightest margin %.1f us",
					 c->pairs, vm->kvm_events ? "; QEMU's interrupt -> KVM "
					 "raises it, KVM injects it -> the guest completes it" : "",
					 (double)c->tightest_ns / 1e3);
		}
	}
}

void hvt_timeline_checks_report(struct hvt_tally *t, struct hvt_timeline_checks *c,
				struct hvt_session *ses, const struct hvt_timeline *tl)
{
	check_timeline(t, tl, c, ses);
	report_error_bounds(t, ses, &c->ce);
	check_windows(t, ses, &c->ce);
	check_threads(t, ses, &c->ce);
	check_io_causal(t, ses, &c->ce);
}
