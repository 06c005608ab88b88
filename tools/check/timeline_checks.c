// SPDX-License-Identifier: GPL-2.0-only
/*
 * timeline_checks.c - `hvtrace check`'s verdicts made along the time line
 * (timeline_checks.h).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tools/check/archive_checks.h"
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

/*
 * The events VM @i's sources of @layer gave: put on the time line
 * (returned), and decoded at all in *@read (the sources that cannot be
 * aligned are decoded on their own, by check_streams, before the report).
 * QEMU's logs are the vmm layer's, on the host, each tied to its VM.
 */
static uint64_t vm_layer_events(const struct hvt_session *ses, size_t i, enum hvt_layer layer,
				uint64_t *read, bool *unopened)
{
	uint64_t merged = 0;
	size_t k;

	*read = 0;
	*unopened = false;
	for (k = 0; k < ses->nr_sources; k++) {
		const struct hvt_source *s = ses->sources[k];

		if (s->layer != layer ||
		    (layer == HVT_LAYER_VMM ? s->vmm_vm : s->vm_number) != i + 1)
			continue;
		*read += s->events;
		*unopened |= !hvt_reader_opened(&s->rd);
		if (s->aligned)
			merged += s->events;
	}
	return merged;
}

/*
 * " (why)" in @buf if VM @i's guest events are not on the time line
 * (hvt_check_vm_unplaced()); "" if they are.
 */
static const char *unplaced_note(const struct hvt_session *ses, size_t i, char *buf, size_t len)
{
	char why[512];

	buf[0] = '\0';
	if (hvt_check_vm_unplaced(ses, i, why, sizeof(why)))
		snprintf(buf, len, " (%s)", why);
	return buf;
}

/* Whether VM @i's guest kernel was recorded: a trace of it listed, or its list lost. */
static bool kernel_recorded(const struct hvt_session_vm *v)
{
	size_t k;

	for (k = 0; v->loaded && k < v->vm.nr_traces; k++)
		if (v->vm.traces[k].layer == HVT_LAYER_KERNEL)
			return true;
	return !v->loaded;
}

/* Appends @fmt to @buf (of @len bytes), as far as it fits. */
static void __attribute__((format(printf, 3, 4))) append(char *buf, size_t len, const char *fmt,
							 ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

/*
 * The layers the archive says were recorded and that put no event on the
 * time line, like " host kernel[vm1]" in @buf ("" if none): the host layer
 * (its CPU files); each VM's guest kernel (a trace of it listed, or its
 * description lost); a VM's user layer or QEMU's log (vmm) only if it held
 * events, or could not be opened: an application may trace nothing, and an
 * idle guest's QEMU may log nothing. A VM that cannot be read or aligned
 * puts none of its guest events there: its layers are named, with why.
 */
static const char *empty_layers(const struct hvt_session *ses, const uint64_t *e, char *buf,
				size_t len)
{
	static const char *const name[HVT_NR_LAYERS] = {
		[HVT_LAYER_KERNEL] = "kernel", [HVT_LAYER_USER] = "user", [HVT_LAYER_VMM] = "vmm",
	};
	char why[600];
	uint64_t read;
	bool unopened, lost, unaligned;
	size_t i, before;
	int l;

	buf[0] = '\0';
	if (ses->archive.ftrace_dir && ses->archive.nr_cpus && !e[HVT_LAYER_HOST])
		snprintf(buf, len, " host");
	for (i = 0; i < ses->archive.nr_vms; i++) {
		before = strlen(buf);
		unaligned = false;
		for (l = HVT_LAYER_KERNEL; l < HVT_NR_LAYERS; l++) {
			if (vm_layer_events(ses, i, (enum hvt_layer)l, &read, &unopened))
				continue;
			lost = l == HVT_LAYER_KERNEL ? kernel_recorded(&ses->vms[i]) :
			       read || unopened;
			if (lost)
				append(buf, len, " %s[%s]", name[l], ses->archive.vms[i].name);
			unaligned |= lost && read;	/* decoded, but on no time line */
		}
		if (strlen(buf) == before)
			continue;
		if (*unplaced_note(ses, i, why, sizeof(why)))
			append(buf, len, "%s", why);
		else if (unaligned)
			append(buf, len, " (traces that cannot be aligned: see the warnings)");
	}
	return buf;
}

static void check_timeline(struct hvt_tally *t, const struct hvt_timeline *tl,
			   const struct hvt_timeline_checks *r, const struct hvt_session *ses)
{
	const uint64_t *e = tl->events;
	char empty[1024], vmm[48] = "";
	size_t k;

	if (r->backwards)
		hvt_check_report(t, HVT_FAIL, "timeline-ordered", "%" PRIu64 " events go back in "
				 "time, the first is event %" PRIu64, r->backwards,
				 r->first_backwards);
	else
		hvt_check_report(t, HVT_PASS, "timeline-ordered", NULL);
	empty_layers(ses, e, empty, sizeof(empty));
	for (k = 0; k < ses->nr_sources; k++)	/* QEMU's logs: counted where there are some */
		if (ses->sources[k]->layer == HVT_LAYER_VMM)
			snprintf(vmm, sizeof(vmm), " vmm=%" PRIu64, e[HVT_LAYER_VMM]);
	hvt_check_report(t, r->events > 0 && !empty[0] ? HVT_PASS : HVT_FAIL, "layers-present",
			 "host=%" PRIu64 " kernel=%" PRIu64 " user=%" PRIu64 "%s%s%s%s",
			 e[HVT_LAYER_HOST], e[HVT_LAYER_KERNEL], e[HVT_LAYER_USER], vmm,
			 r->events ? "" : " (no events at all)",
			 empty[0] ? "; recorded, but no event on the time line:" : "", empty);
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
	char name[512], dist[192], why[600];
	size_t i;

	for (i = 0; i < ses->archive.nr_vms; i++) {
		const struct hvt_event_bounds *b = &ce->vms[i];
		uint64_t n = b->hist.n + b->unbounded;

		hvt_check_named(name, sizeof(name), "error-bound", ses->archive.vms[i].name);
		if (!n) {
			hvt_check_report(t, HVT_INFO, name, "no guest event of this VM was merged%s",
					 unplaced_note(ses, i, why, sizeof(why)));
			continue;
		}
		bounds_text(&b->hist, dist, sizeof(dist));
		hvt_check_report(t, HVT_INFO, name, "%" PRIu64 " guest events, %s: %s%s%" PRIu64 " without a "
		     "guaranteed bound", n, ses->vms[i].al.exact ? "exact by KVM's TSC parameters" :
		     "clock estimated, each bound guaranteed", b->hist.n ? dist : "",
		     b->hist.n ? "; " : "", b->unbounded);
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

/*
 * Whether too few guest events were judged to vouch for the alignment: more
 * were left unjudged than judged. What holds for a minority says little of
 * the rest, so the check is a SKIP then, with the numbers; an event judged
 * outside still fails it.
 */
static bool too_few_judged(const struct hvt_vcpu_windows *w)
{
	return w->unjudged > w->inside + w->outside;
}

#define TOO_FEW ": more than half, too few judged to vouch for the alignment"

/*
 * What the clock fit of VM @st took from its vCPUs on the host
 * (run_constraints.h), as "; ..." in @buf, for the vcpu-threads line, or
 * with @windows for vcpu-windows'. Where the runs (or KVM's windows) fed
 * the fit, which is refitted until no kernel event lies outside them, the
 * check holds largely by construction: the evidence independent of it is
 * the held-out test of their bounds (every other one kept out of a fit of
 * the rest, and judged against it), said here. "" for a VM no fit placed
 * (exactly aligned by KVM's parameters), and for vcpu-windows when the
 * thread runs fed the fit (the windows, inside them, are then a stricter
 * test).
 */
static const char *fit_note(const struct hvt_session_vm *st, bool windows, char *buf, size_t len)
{
	const struct hvt_run_fit *r = &st->al.runs;
	const char *what = windows ? "these windows" : r->windows ? "the vCPUs' kvm_entry -> "
			   "kvm_exit windows, inside these runs," : "these runs";

	buf[0] = '\0';
	if (st->al.exact || !st->al.aligned || (windows && !r->windows))
		return buf;
	if (r->vcpus_unused)
		append(buf, len, "; the %s of %zu vCPU%s were left out of the clock fit (%zu "
		       "guest event%s outside them)", r->windows ? "windows" : "runs",
		       r->vcpus_unused, r->vcpus_unused == 1 ? "" : "s", r->contradictions,
		       r->contradictions == 1 ? "" : "s");
	if (!r->samples) {
		append(buf, len, "; the clock fit took no bound from %s (%s): this check is "
		       "independent of it", windows || r->windows ? "the vCPUs' windows" :
		       "the vCPU threads' runs", r->rejected ? r->rejected :
		       "no guest kernel event lies for certain near one of their edges");
		return buf;
	}
	append(buf, len, "; %s fed the clock fit (%zu bound%s at their edges), so this holds "
	       "largely by construction; ", what, r->samples, r->samples == 1 ? "" : "s");
	if (r->held_out)
		append(buf, len, "the independent test: %zu of those bounds, each held out of a "
		       "fit of the others, lie within its guaranteed interval", r->held_out);
	else
		append(buf, len, "too few bounds to hold any out of the fit and test it");
	return buf;
}

/* vcpu-windows[VM] of the archive's one KVM VM, whose windows are judged. */
static void judge_windows(struct hvt_tally *t, struct hvt_session *ses,
			  const struct hvt_check_events *ce)
{
	const struct hvt_vcpu_windows *w = &ce->windows;
	uint64_t judged = w->inside + w->outside;
	bool few = too_few_judged(w);
	char name[512], where[512], note[512];

	hvt_check_named(name, sizeof(name), "vcpu-windows", ce->windows_vm->vm.name);
	fit_note(ce->windows_vm, true, note, sizeof(note));
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
		       "bound; %s%s", w->outside, judged, where, note);
	} else if (!judged)
		hvt_check_report(t, HVT_SKIP, name, "no guest event could be judged (%" PRIu64 " fell where the host "
		     "did not record their vCPU)", w->unjudged);
	else
		hvt_check_report(t, few ? HVT_SKIP : HVT_PASS, name, "%" PRIu64 " guest events "
				 "inside their vCPU's windows, %s%" PRIu64 " not judged (no CPU, or "
				 "where the host did not record their vCPU)%s%s", w->inside,
				 few ? "but " : "", w->unjudged, few ? TOO_FEW : "", note);
}

/*
 * vcpu-windows[VM]: a KVM VM's guest events inside their vCPU's windows.
 * Every VM has the line; those that cannot be judged say why.
 */
static void check_windows(struct hvt_tally *t, struct hvt_session *ses,
			  const struct hvt_check_events *ce)
{
	char name[512], why[600];
	size_t i;

	if (!ce->windows_vm && ce->windows_why)	/* several KVM VMs */
		hvt_check_report(t, HVT_SKIP, "vcpu-windows[*]", "%s", ce->windows_why);
	for (i = 0; i < ses->archive.nr_vms; i++) {
		const struct hvt_session_vm *st = &ses->vms[i];

		if (st == ce->windows_vm) {
			judge_windows(t, ses, ce);
			continue;
		}
		if (st->loaded && st->vm.kvm)
			continue;	/* one of several KVM VMs: said above */
		hvt_check_named(name, sizeof(name), "vcpu-windows", ses->archive.vms[i].name);
		hvt_check_report(t, HVT_SKIP, name, "%s", st->loaded ? hvt_check_not_kvm(&st->vm) :
				 hvt_check_vm_unplaced(ses, i, why, sizeof(why)));
	}
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
	char name[512], where[512], unread[512], why[600], note[512];
	size_t i;

	unread_host_cpus(ses, unread, sizeof(unread));
	for (i = 0; i < ses->archive.nr_vms; i++) {
		const struct hvt_event_bounds *b = &ce->vms[i];
		const struct hvt_vcpu_windows *w = &b->threads.windows;
		uint64_t judged = w->inside + w->outside;
		bool few = too_few_judged(w);

		hvt_check_named(name, sizeof(name), "vcpu-threads", ses->archive.vms[i].name);
		if (b->threads_why) {
			hvt_check_report(t, HVT_SKIP, name, "%s",
					 hvt_check_vm_unplaced(ses, i, why, sizeof(why)) ? why :
					 b->threads_why);
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
		fit_note(&ses->vms[i], false, note, sizeof(note));
		if (w->outside) {
			miss_text(ses, &w->first, where, sizeof(where), "its vCPU thread's run",
				  "its next run");
			hvt_check_report(t, HVT_FAIL, name, "%" PRIu64 " of %" PRIu64 " guest events lie outside "
			       "every run interval of their vCPU's host thread by more than their "
			       "error bound; %s%s", w->outside, judged, where, note);
		} else if (!judged) {
			hvt_check_report(t, HVT_SKIP, name, "no guest event could be judged (%" PRIu64 " fell "
			       "where the host did not record their vCPU's thread%s)", w->unjudged,
			       unread);
		} else {
			hvt_check_report(t, few ? HVT_SKIP : HVT_PASS, name, "%" PRIu64 " guest "
					 "events inside their vCPU thread's run intervals, %s%" PRIu64
					 " not judged (no CPU, an unknown thread, or where the host "
					 "lost events%s)%s%s", w->inside, few ? "but " : "",
					 w->unjudged, unread, few ? TOO_FEW : "", note);
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

/*
 * Why no guest block request of VM @i, @vm, was linked to QEMU's handling
 * of it: the guest's events are not on the time line (and why), or none of
 * its kernel's, or it issued none, or QEMU logged nothing of it.
 */
static const char *unlinked_why(const struct hvt_session *ses, size_t i,
				const struct hvt_io_vm *vm, char *buf, size_t len)
{
	uint64_t read;
	bool unopened;

	if (vm->guest_events)
		return vm->qemu_events ? "none fit" :
		       "no QEMU events of its virtio-blk: record --qemu-log";
	if (hvt_check_vm_unplaced(ses, i, buf, len))
		return buf;
	if (!vm_layer_events(ses, i, HVT_LAYER_KERNEL, &read, &unopened))
		return "no event of the guest's kernel is on the time line (layers-present)";
	return "the guest recorded no block_rq_issue";
}

static void check_io_causal(struct hvt_tally *t, struct hvt_session *ses,
			    const struct hvt_check_events *ce)
{
	char name[512], where[512], why[600];
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
					 "handling of it (%s)", unlinked_why(ses, i, vm, why,
									     sizeof(why)));
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
