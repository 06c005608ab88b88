// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_check.c - `hvtrace check`: is an archive sound, and does its alignment hold?
 *
 * One line per check, "PASS name" or "FAIL name: reason", then exactly
 * "N passed, M failed". Checks, with the item they are about in brackets:
 *
 *   manifest                  hvtrace.json and host/clock.tsv parse
 *   info-json[VM]             the VM's info.json parses
 *   sync-causal[VM]           every exchange of sync.tsv stays causal once
 *                             aligned with the VM's clock (KVM's parameters
 *                             where merge uses them, else the fitted one)
 *   sync-held-out[VM]         every 8th exchange, kept out of a fit of the
 *                             others, lies within that fit's guaranteed
 *                             interval (align.h); estimated VMs only
 *   kvm-tsc[VM]               a KVM VM whose recording has KVM's TSC
 *                             parameters is aligned with them, and their
 *                             sources (tracepoint, debugfs) agree
 *   registry[TRACE]           the trace's registry file validates
 *   metadata[TRACE]           its CTF metadata, which babeltrace2 reads,
 *                             declares exactly the registry's events
 *                             (metadata_check.h)
 *   stream-decodes[FILE]      every packet and event of a stream decodes
 *   timeline-ordered          merged times never go backwards
 *   layers-present            which layers have events (fails only if none)
 *   error-bound[VM]           a report, INFO: the distribution of the merged
 *                             guest events' error bounds (check_events.h)
 *   vcpu-windows[VM]          a KVM VM's guest events fall inside their
 *                             vCPU's kvm_entry -> kvm_exit windows, up to
 *                             their error bound (vcpu_windows.h)
 *   host-sched[VM]            a report, INFO: whether the host's sched_switch
 *                             events of the VM's vCPU threads are complete
 *                             (align/host_runs.h)
 *   vcpu-threads[VM]          the VM's guest events fall inside the run
 *                             intervals of their vCPU's host thread, up to
 *                             their error bound (vcpu_threads.h); KVM and TCG
 *
 * A check that cannot be made on this archive says "SKIP name: why"; the
 * last line then adds ", K skipped". INFO lines are reports, not counted.
 * The merge itself decodes the aligned streams, so each stream's warnings
 * are known after it; streams that cannot be aligned are decoded on their
 * own. Messages about problems go to stderr as the readers find them.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/cli.h"
#include "lib/log.h"
#include "tools/cmd_check.h"
#include "tools/check/check_events.h"
#include "tools/check/metadata_check.h"
#include "tools/commands.h"
#include "tools/merge/timeline.h"
#include "tools/session/session.h"

struct tally {
	unsigned int passed, failed, skipped;
};

enum verdict { FAIL, PASS, SKIP, INFO };

static double us(struct hvt_session *ses, uint64_t ticks);

/*
 * One line of check's output. @fmt is NULL for a bare verdict; a PASS may
 * still carry a detail after the name. INFO is a report, not a check:
 * counted neither way.
 */
static void report(struct tally *t, enum verdict v, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void report(struct tally *t, enum verdict v, const char *name, const char *fmt, ...)
{
	static const char *const word[] = { "FAIL", "PASS", "SKIP", "INFO" };
	va_list ap;

	printf("%s %s", word[v], name);
	if (fmt) {
		fputs(": ", stdout);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
	}
	putchar('\n');
	if (v == PASS)
		t->passed++;
	else if (v == FAIL)
		t->failed++;
	else if (v == SKIP)
		t->skipped++;
}

static void summary(const struct tally *t)
{
	printf("%u passed, %u failed", t->passed, t->failed);
	if (t->skipped)
		printf(", %u skipped", t->skipped);
	putchar('\n');
	fflush(stdout);
}

static void named(char *buf, size_t len, const char *check, const char *item)
{
	snprintf(buf, len, "%s[%s]", check, item);
}

/* Every line of sync.tsv was usable. */
static bool sync_tsv_sound(const struct hvt_vm_info *vm, char *reason, size_t len)
{
	if (vm->sync_warnings)
		snprintf(reason, len, "sync.tsv: %lu problem%s (see the warnings)",
			 vm->sync_warnings, vm->sync_warnings == 1 ? "" : "s");
	return !vm->sync_warnings;
}

bool hvt_check_sync(const struct hvt_vm_info *vm, struct hvt_vm_clock *clock,
		    char *reason, size_t len)
{
	const struct hvt_sync_rec *bad;
	size_t exempt;

	if (!sync_tsv_sound(vm, reason, len))
		return false;
	if (!clock) {
		snprintf(reason, len, "no clock exchanges: the guest cannot be aligned");
		return false;
	}
	if (clock->glitch) {
		snprintf(reason, len, "exchange seq %" PRIu64 " is not causal: it contradicts the "
			 "exchanges around it", clock->glitch_seq);
		return false;
	}
	bad = hvt_vm_clock_first_violation(clock, vm->sync, vm->nr_sync, &exempt);
	if (bad) {
		snprintf(reason, len, "exchange seq %" PRIu64 " is not causal once aligned", bad->seq);
		return false;
	}
	return true;
}


/* sync-held-out[VM]: exchanges the estimate never saw, judged against it. */
static void check_held_out(struct tally *t, struct hvt_session *ses,
			   const struct hvt_session_vm *st)
{
	struct hvt_held_out h;
	char name[512];

	named(name, sizeof(name), "sync-held-out", st->vm.name);
	if (st->al.exact) {
		report(t, SKIP, name, "aligned by KVM's TSC parameters, not by a fit");
		return;
	}
	if (hvt_vm_clock_held_out(st->vm.sync, st->vm.nr_sync, HVT_HELD_OUT_EVERY, &h)) {
		report(t, SKIP, name, "%zu exchanges; at least %u are needed to keep some out of "
		       "the fit", st->vm.nr_sync, HVT_HELD_OUT_MIN);
		return;
	}
	if (h.contradict)
		report(t, FAIL, name, "%zu of %zu exchanges kept out of the fit lie outside its "
		       "guaranteed interval, the first is seq %" PRIu64 ": the clock model does "
		       "not hold there", h.contradict, h.judged, h.first_seq);
	else
		report(t, PASS, name, "every %uth exchange kept out of the fit: %zu judged, all "
		       "within its guaranteed interval; %zu not causal against its central line "
		       "(by at most %.3f us, inside the bound), %zu in a change window or of "
		       "guest values two segments may have shown",
		       HVT_HELD_OUT_EVERY, h.judged, h.off_line, us(ses, h.worst_ticks), h.exempt);
}

/* A KVM VM: aligned with KVM's own parameters, which agree among their sources. */
static void check_kvm_tsc(struct tally *t, const struct hvt_session_vm *st)
{
	unsigned long disagreements = 0;
	char name[512];
	size_t i;

	named(name, sizeof(name), "kvm-tsc", st->vm.name);
	for (i = 0; i < st->al.kvm.nr_vcpus; i++)
		disagreements += st->al.kvm.vcpus[i].disagreements;
	if (!st->al.exact)
		report(t, FAIL, name, "not aligned with KVM's TSC parameters: %s", st->al.kvm_why);
	else if (disagreements)
		report(t, FAIL, name, "%lu snapshot(s) or previous offsets disagree with the traced "
		       "changes (hvtrace tsc)", disagreements);
	else
		report(t, PASS, name, NULL);
}

/* registry[TRACE], metadata[TRACE]: each trace's registry and CTF metadata. */
static void check_traces(struct tally *t, const struct hvt_session_vm *st)
{
	char name[512], reason[256];
	size_t j;

	for (j = 0; j < st->vm.nr_traces; j++) {
		named(name, sizeof(name), "registry", st->vm.traces[j].rel);
		if (st->reg_warnings[j])
			report(t, FAIL, name, "fails validation (see the warnings)");
		else
			report(t, PASS, name, NULL);
		named(name, sizeof(name), "metadata", st->vm.traces[j].rel);
		if (hvt_metadata_check(&st->vm, &st->vm.traces[j], &st->regs[j], reason,
				       sizeof(reason)))
			report(t, FAIL, name, "%s", reason);
		else
			report(t, PASS, name, NULL);
	}
}

/*
 * The host's applications (host/apps) are placed on the host TSC as they
 * are. host-apps-clock judges that premise: the host agent's clock
 * exchanges, its TSC against the collector's, must each allow an offset
 * of 0 (host_send <= agent_recv, agent_send <= host_recv).
 */
static void check_host_apps(struct tally *t, struct hvt_session *ses)
{
	const struct hvt_session_vm *st = &ses->host_apps;
	char reason[256];
	size_t i;

	if (!ses->archive.host_apps.dir)
		return;
	if (!st->loaded) {
		report(t, FAIL, "info-json[host/apps]", "cannot be used (see the errors)");
		return;
	}
	if (st->vm.warnings)
		report(t, FAIL, "info-json[host/apps]", "%lu entr%s skipped (see the warnings)",
		       st->vm.warnings, st->vm.warnings == 1 ? "y" : "ies");
	else
		report(t, PASS, "info-json[host/apps]", NULL);
	if (!sync_tsv_sound(&st->vm, reason, sizeof(reason))) {
		report(t, FAIL, "host-apps-clock", "%s", reason);
	} else if (!st->vm.nr_sync) {
		report(t, SKIP, "host-apps-clock", "no clock exchange with the host agent");
	} else {
		for (i = 0; i < st->vm.nr_sync; i++) {
			const struct hvt_exchange *x = &st->vm.sync[i].ex;

			if (x->host_send > x->guest_recv || x->guest_send > x->host_recv)
				break;
		}
		if (i < st->vm.nr_sync)
			report(t, FAIL, "host-apps-clock", "exchange seq %" PRIu64 " rules out "
			       "offset 0: the host agent's TSC is not the collector's, and host "
			       "applications are misplaced", st->vm.sync[i].seq);
		else
			report(t, PASS, "host-apps-clock", "%zu exchanges with the host agent, "
			       "each causal at offset 0", st->vm.nr_sync);
	}
	check_traces(t, st);
}

static void check_vms(struct tally *t, struct hvt_session *ses)
{
	char name[512], reason[256];
	size_t i;

	for (i = 0; i < ses->archive.nr_vms; i++) {
		struct hvt_session_vm *st = &ses->vms[i];

		named(name, sizeof(name), "info-json", ses->archive.vms[i].name);
		if (!st->loaded) {
			report(t, FAIL, name, "cannot be used (see the errors)");
			continue;
		}
		if (st->vm.warnings)
			report(t, FAIL, name, "%lu entr%s skipped (see the warnings)",
			       st->vm.warnings, st->vm.warnings == 1 ? "y" : "ies");
		else
			report(t, PASS, name, NULL);
		named(name, sizeof(name), "sync-causal", st->vm.name);
		if (hvt_vm_info_host_only(&st->vm)) {
			/* no guest clock to judge; KVM's parameters still are */
			report(t, SKIP, name, "recorded with the host layer only: no guest clock");
			if (st->al.kvm.nr_vcpus)
				check_kvm_tsc(t, st);
			check_traces(t, st);
			continue;
		}
		/*
		 * An exactly aligned VM's exchanges were judged against KVM's
		 * parameters when the timeline opened (it is exact only if none
		 * contradicted them): what is left is sync.tsv itself.
		 */
		if (st->al.exact ? sync_tsv_sound(&st->vm, reason, sizeof(reason)) :
		    hvt_check_sync(&st->vm, st->al.aligned ? &st->al.clock : NULL, reason,
				   sizeof(reason)))
			report(t, PASS, name, NULL);
		else
			report(t, FAIL, name, "%s", reason);
		check_held_out(t, ses, st);
		if (st->al.kvm.nr_vcpus)	/* a KVM VM with KVM's parameters recorded */
			check_kvm_tsc(t, st);
		check_traces(t, st);
	}
}

static void check_streams(struct tally *t, struct hvt_session *ses)
{
	char name[512];
	size_t i;

	for (i = 0; i < ses->nr_sources; i++) {
		struct hvt_source *s = ses->sources[i];
		unsigned long warnings;

		/* Not merged: decode it here, on its own. */
		if (!s->aligned)
			while (hvt_source_next(s))
				;
		warnings = hvt_source_warnings(s);
		named(name, sizeof(name), "stream-decodes", s->name);
		if (!hvt_reader_opened(&s->rd))
			report(t, FAIL, name, "cannot be opened");
		else if (warnings)
			report(t, FAIL, name, "%lu problem%s (see the warnings)", warnings,
			       warnings == 1 ? "" : "s");
		else
			report(t, PASS, name, NULL);
	}
}

struct merge_result {
	uint64_t events;
	uint64_t backwards;		/* events printed before an earlier one */
	uint64_t first_backwards;	/* its index in the merged output */
};

/* The merge, without printing, watching the times it would print and each event. */
static void run_merge(struct hvt_timeline *tl, struct hvt_check_events *ce,
		      struct merge_result *r)
{
	struct hvt_source *s;
	int64_t prev = INT64_MIN;

	memset(r, 0, sizeof(*r));
	while ((s = hvt_timeline_next(tl))) {
		int64_t ns = hvt_host_clock_since_start(&tl->ses->clock, s->host_tsc);

		if (ns < prev && !r->backwards++)
			r->first_backwards = r->events;
		prev = ns;
		r->events++;
		hvt_check_events_next(ce, s);
	}
	hvt_check_events_finish(ce);
}

static void check_timeline(struct tally *t, const struct hvt_timeline *tl,
			   const struct merge_result *r)
{
	const uint64_t *e = tl->events;

	if (r->backwards)
		report(t, FAIL, "timeline-ordered", "%" PRIu64 " events go back in time, the "
		       "first is event %" PRIu64, r->backwards, r->first_backwards);
	else
		report(t, PASS, "timeline-ordered", NULL);
	report(t, r->events > 0 ? PASS : FAIL, "layers-present", "host=%" PRIu64 " kernel=%" PRIu64
	       " user=%" PRIu64 "%s", e[HVT_LAYER_HOST], e[HVT_LAYER_KERNEL],
	       e[HVT_LAYER_USER], r->events ? "" : " (no events at all)");
}

/* @ticks host ticks in µs of the host clock, at the trace start. */
static double us(struct hvt_session *ses, uint64_t ticks)
{
	return hvt_host_clock_ticks_us(&ses->clock, ses->archive.pairs[0].tsc, ticks);
}

static void bounds_text(struct hvt_session *ses, const struct hvt_bound_hist *h, char *buf,
			size_t len)
{
	snprintf(buf, len, "median +/-%.3f us, p90 +/-%.3f us, p99 +/-%.3f us, worst +/-%.3f us",
		 us(ses, hvt_hist_quantile(h, 0.5)), us(ses, hvt_hist_quantile(h, 0.9)),
		 us(ses, hvt_hist_quantile(h, 0.99)), us(ses, h->max));
}

/*
 * error-bound[VM], a report: how the merged guest events' bounds spread,
 * and how many have none (the estimate leaves the clock open there).
 */
static void report_error_bounds(struct tally *t, struct hvt_session *ses,
				const struct hvt_check_events *ce)
{
	char name[512], dist[192];
	size_t i;

	for (i = 0; i < ses->archive.nr_vms; i++) {
		const struct hvt_event_bounds *b = &ce->vms[i];
		uint64_t n = b->hist.n + b->unbounded;

		named(name, sizeof(name), "error-bound", ses->archive.vms[i].name);
		if (!n) {
			report(t, INFO, name, "no guest event of this VM was merged");
			continue;
		}
		bounds_text(ses, &b->hist, dist, sizeof(dist));
		report(t, INFO, name, "%" PRIu64 " guest events, %s: %s%s%" PRIu64 " without a "
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
			 us(ses, m->entry - m->host), opened);
	snprintf(buf, len, "the first is event %" PRIu64 " of %s on vCPU %u at %.9f s: %.3f us "
		 "after %s and %s, with an error bound of +/-%.3f us",
		 m->tag_index, s->name, m->vcpu,
		 (double)hvt_host_clock_since_start(&ses->clock, m->host) / 1e9,
		 us(ses, m->host - m->exit), closed, next, us(ses, m->bound));
}

/* vcpu-windows[VM]: a KVM VM's guest events inside their vCPU's windows. */
static void check_windows(struct tally *t, struct hvt_session *ses,
			  const struct hvt_check_events *ce)
{
	const struct hvt_vcpu_windows *w = &ce->windows;
	uint64_t judged = w->inside + w->outside;
	char name[512], where[512];

	if (!ce->windows_vm && !ce->windows_why)
		return;		/* no KVM VM: nothing to compare with */
	named(name, sizeof(name), "vcpu-windows", ce->windows_vm ? ce->windows_vm->vm.name : "*");
	if (ce->windows_why)
		report(t, SKIP, name, "%s", ce->windows_why);
	else if (w->failed)
		report(t, FAIL, name, "out of memory");
	else if (!w->host_events)
		report(t, SKIP, name, "the host layer has no kvm_entry or kvm_exit event");
	else if (w->outside) {
		miss_text(ses, &w->first, where, sizeof(where), "its vCPU's kvm_exit",
			  "its next kvm_entry");
		report(t, FAIL, name, "%" PRIu64 " of %" PRIu64 " guest events lie outside every "
		       "kvm_entry -> kvm_exit window of their vCPU by more than their error "
		       "bound; %s", w->outside, judged, where);
	} else if (!judged)
		report(t, SKIP, name, "no guest event could be judged (%" PRIu64 " fell where the host "
		     "did not record their vCPU)", w->unjudged);
	else
		report(t, PASS, name, "%" PRIu64 " guest events inside their vCPU's windows, %"
		       PRIu64 " not judged (no CPU, or where the host did not record their vCPU)",
		       w->inside, w->unjudged);
}

/* host-sched[VM], a report: are the vCPU threads' switches complete? */
static void report_host_sched(struct tally *t, struct hvt_session *ses, const char *vm,
			      const struct hvt_host_runs *r)
{
	char name[512];

	named(name, sizeof(name), "host-sched", vm);
	if (!r->missing_in && !r->missing_out) {
		report(t, INFO, name, "%" PRIu64 " sched_switch events of the vCPU threads, each "
		       "switch-out after a switch-in", r->switches);
		return;
	}
	report(t, INFO, name, "incomplete: of %" PRIu64 " sched_switch events of the vCPU "
	       "threads, %" PRIu64 " switch-out%s had no switch-in recorded before (the first "
	       "on host CPU %d at %.9f s) and %" PRIu64 " switch-out%s were not recorded; "
	       "the host kernel did not emit them (some kernels skip idle -> task switches). "
	       "Run intervals then start at their CPU's previous sched_switch: wider, "
	       "never narrower", r->switches, r->missing_in, r->missing_in == 1 ? "" : "s",
	       r->first_missing_in_cpu,
	       (double)hvt_host_clock_since_start(&ses->clock, r->first_missing_in) / 1e9,
	       r->missing_out, r->missing_out == 1 ? "" : "s");
}

/* vcpu-threads[VM]: each VM's guest events inside its vCPU threads' runs. */
static void check_threads(struct tally *t, struct hvt_session *ses,
			  const struct hvt_check_events *ce)
{
	char name[512], where[512];
	size_t i;

	for (i = 0; i < ses->archive.nr_vms; i++) {
		const struct hvt_event_bounds *b = &ce->vms[i];
		const struct hvt_vcpu_windows *w = &b->threads.windows;
		uint64_t judged = w->inside + w->outside;

		named(name, sizeof(name), "vcpu-threads", ses->archive.vms[i].name);
		if (b->threads_why) {
			report(t, SKIP, name, "%s", b->threads_why);
			continue;
		}
		if (w->failed || b->threads.runs.failed) {
			report(t, FAIL, name, "out of memory");
			continue;
		}
		if (!b->threads.runs.switches) {
			report(t, SKIP, name, "the host layer has no sched_switch of the VM's vCPU "
			       "threads%s", ce->sched_switch ? "" : " (no sched_switch at all)");
			continue;
		}
		report_host_sched(t, ses, ses->archive.vms[i].name, &b->threads.runs);
		if (w->outside) {
			miss_text(ses, &w->first, where, sizeof(where), "its vCPU thread's run",
				  "its next run");
			report(t, FAIL, name, "%" PRIu64 " of %" PRIu64 " guest events lie outside "
			       "every run interval of their vCPU's host thread by more than their "
			       "error bound; %s", w->outside, judged, where);
		} else if (!judged) {
			report(t, SKIP, name, "no guest event could be judged (%" PRIu64 " fell "
			       "where the host did not record their vCPU's thread)", w->unjudged);
		} else {
			report(t, PASS, name, "%" PRIu64 " guest events inside their vCPU thread's "
			       "run intervals, %" PRIu64 " not judged (no CPU, an unknown thread, or "
			       "where the host lost events)", w->inside, w->unjudged);
		}
	}
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: hvtrace check ARCHIVE|TRACE.DAT [--guest-trace VM=TRACE.DAT]...\n\n"
		"Validates ARCHIVE: its descriptions parse, every stream decodes, the\n"
		"guest clock exchanges stay causal after alignment, KVM's recorded TSC\n"
		"parameters are used and agree among their sources, exchanges kept out\n"
		"of the clock fit agree with it, the merged time line\n"
		"is ordered, a KVM guest's events fall inside their vCPU's\n"
		"kvm_entry -> kvm_exit windows as the host recorded them, and every\n"
		"guest's events inside the run intervals of their vCPU's host thread.\n"
		"A trace-cmd TRACE.DAT on its own gets the checks of its host layer.\n"
		"--guest-trace VM=FILE adds a trace.dat recorded in VM VM with\n"
		"'trace-cmd record -C x86-tsc' to its kernel layer, as merge does: its\n"
		"events are judged with the VM's own (may be repeated).\n"
		"Prints PASS, FAIL or SKIP (cannot be checked here, and why) per check,\n"
		"INFO lines with each VM's distribution of per-event error bounds and\n"
		"whether the host's scheduling data is complete, then\n"
		"\"N passed, M failed\" (\", K skipped\" if any).\n"
		"Exit status: 0 all passed, 1 a check failed or the archive cannot be read,\n"
		"2 usage error.\n");
}

#define MAX_GUEST_TRACES	64

struct check_opts {
	const char *guest_traces[MAX_GUEST_TRACES];
	size_t nr_guest_traces;
};

static int parse_args(int argc, char **argv, const char **archive, struct check_opts *o)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "guest-trace", required_argument, NULL, 'G' },
		{ NULL, 0, NULL, 0 },
	};
	const char *eq;
	int c;

	optind = 0;	/* glibc: start over, the command may run more than once */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 1;
		}
		if (c != 'G') {
			hvt_usage_bad_option("check", argv);
			return -1;
		}
		eq = strchr(optarg, '=');
		if (!eq || eq == optarg || !eq[1] || o->nr_guest_traces == MAX_GUEST_TRACES) {
			hvt_usage_error("check", "--guest-trace %s: %s", optarg,
					o->nr_guest_traces == MAX_GUEST_TRACES ?
					"too many" : "expected VM=TRACE.DAT");
			return -1;
		}
		o->guest_traces[o->nr_guest_traces++] = optarg;
	}
	if (optind != argc - 1) {
		hvt_usage_error("check", "expected one ARCHIVE directory");
		return -1;
	}
	*archive = argv[optind];
	return 0;
}

int hvt_cmd_check(int argc, char **argv)
{
	struct tally t = { 0, 0, 0 };
	struct hvt_check_events ce;
	struct merge_result r;
	struct hvt_session ses;
	struct hvt_timeline tl;
	struct check_opts o = { .nr_guest_traces = 0 };
	struct hvt_session_opts so = { .all_streams = true };
	const char *archive;
	int ret = parse_args(argc, argv, &archive, &o);

	if (ret)
		return ret > 0 ? 0 : 2;
	so.guest_traces = o.guest_traces;
	so.nr_guest_traces = o.nr_guest_traces;
	if (hvt_session_open(&ses, archive, &so)) {
		report(&t, FAIL, "manifest", "the archive%s cannot be read (see the errors)",
		       o.nr_guest_traces ? ", or a --guest-trace file," : "");
		summary(&t);
		return 1;
	}
	if (hvt_timeline_init(&tl, &ses, NULL, NULL)) {
		hvt_session_close(&ses);
		return 1;
	}
	if (hvt_check_events_init(&ce, &ses)) {
		hvt_err("out of memory");
		hvt_timeline_close(&tl);
		hvt_session_close(&ses);
		return 1;
	}
	run_merge(&tl, &ce, &r);
	if (ses.tracedat_only)
		report(&t, PASS, "trace.dat", "a trace-cmd recording on its own: no manifest");
	else if (ses.archive.warnings)
		report(&t, FAIL, "manifest", "%lu entr%s or lines skipped (see the warnings)",
		       ses.archive.warnings, ses.archive.warnings == 1 ? "y" : "ies");
	else
		report(&t, PASS, "manifest", NULL);
	check_vms(&t, &ses);
	check_host_apps(&t, &ses);
	check_streams(&t, &ses);
	check_timeline(&t, &tl, &r);
	report_error_bounds(&t, &ses, &ce);
	check_windows(&t, &ses, &ce);
	check_threads(&t, &ses, &ce);
	summary(&t);
	hvt_check_events_free(&ce);
	hvt_timeline_close(&tl);
	hvt_session_close(&ses);
	return t.failed ? 1 : 0;
}
