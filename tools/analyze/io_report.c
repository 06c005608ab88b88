// SPDX-License-Identifier: GPL-2.0-only
/*
 * io_report.c - `hvtrace analyze --io` (io_report.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "tools/analyze/analysis_run.h"
#include "tools/analyze/io_report.h"
#include "tools/merge/select_span.h"
#include "tools/model/io_flows.h"

struct io_run {
	struct hvt_session *ses;
	const struct hvt_io_report_opts *o;
	FILE *out;
	uint64_t *numbers;		/* per VM: requests finished so far */
};

/* Seconds since the trace start of host TSC @ts. */
static double seconds(struct hvt_session *ses, uint64_t ts)
{
	return (double)hvt_host_clock_since_start(&ses->clock, ts) / 1e9;
}

/* The disk as the guest names it: major:minor of its dev_t (MINORBITS 20). */
static void disk_text(char buf[32], uint32_t dev)
{
	snprintf(buf, 32, "%u:%u", dev >> 20, dev & 0xfffff);
}

static void tsv_header(FILE *out)
{
	fputs("vm\tdisk\tqemu_dev\trequest\tkind\tsector\tnr_sector\toutcome\tstage\tstart_s\t"
	      "ns\tbound_ns\n", out);
}

static const char *const outcome_keys[HVT_IO_NR_OUTCOMES] = {
	"linked", "ambiguous", "no_qemu", "qemu_cut", "uncompleted", "given_up",
};

/* A request finished: its rows (one per stage it has, else one with stage "-"). */
static void tsv_request(void *ctx, const struct hvt_io_flows *f, size_t vm,
			const struct hvt_io_disk *d, const struct hvt_io_request *r)
{
	struct io_run *run = ctx;
	const char *name = run->ses->archive.vms[vm].name;
	unsigned int s, rows = 0;
	uint64_t n = ++run->numbers[vm];
	char disk[32], head[256];

	disk_text(disk, r->dev);
	snprintf(head, sizeof(head), "%s\t%s\t0x%" PRIx64 "\t%" PRIu64 "\t%c\t%" PRIu64 "\t%u\t%s",
		 name, disk, d->vdev, n, r->kind, r->sector, r->nr_sector,
		 outcome_keys[hvt_io_outcome_of(r)]);
	for (s = 0; s < HVT_IO_NR_STAGES; s++) {
		double ns, bound;
		enum hvt_io_point from = hvt_io_stage_start(r, s);

		if (!hvt_io_stage_of(f, r, s, &ns, &bound))
			continue;
		fprintf(run->out, "%s\t%s\t%.9f\t%.0f\t%.0f\n", head, hvt_io_stage_key(s),
			seconds(run->ses, r->at[from].ts), ns, bound);
		rows++;
	}
	if (!rows)
		fprintf(run->out, "%s\t-\t%.9f\t\t\n", head,
			seconds(run->ses, r->at[HVT_IO_ISSUE].ts));
}

/* "12.3 +/-0.4" in us, in @buf (returned). */
static const char *us_text(char buf[48], double ns, double pm)
{
	if (pm >= 1e15)
		snprintf(buf, 48, "%.1f +/-?", ns / 1e3);
	else
		snprintf(buf, 48, "%.1f +/-%.1f", ns / 1e3, pm / 1e3);
	return buf;
}

static void stage_table(FILE *out, struct hvt_io_disk *d)
{
	static const double pcts[] = { 50, 90, 99, 100 };
	unsigned int s, k;
	bool coarse = false;

	fprintf(out, "  %-36s %16s %16s %16s %16s  n\n", "stage (us)", "p50", "p90", "p99",
		"max");
	for (s = 0; s < HVT_IO_NR_STAGES; s++) {
		const struct hvt_io_figures *fig = &d->stage[s];
		char buf[48];

		if (!fig->n)
			continue;
		coarse |= fig->coarse;
		fprintf(out, "  %-36s", hvt_io_stage_name(s));
		for (k = 0; k < 4; k++) {
			double v, pm;

			hvt_io_percentile(fig, pcts[k], &v, &pm);
			fprintf(out, " %16s", us_text(buf, v, pm));
		}
		fprintf(out, "  %" PRIu64, fig->n);
		if (d->negative[s])
			fprintf(out, " (%" PRIu64 " below 0 beyond their bound)", d->negative[s]);
		fputc('\n', out);
	}
	if (coarse)	/* the figures are no longer all kept: say what the +/- holds */
		fprintf(out, "  (over %d requests: each +/- but the max's also holds the "
			"histogram's resolution, up to 1/64 of the figure)\n", HVT_IO_EXACT);
}

/* "+/-0.6" in us, or "+/-?" for none, in @buf (returned). */
static const char *bound_text(char buf[24], double ns)
{
	if (ns >= 1e15)
		snprintf(buf, 24, "+/-?");
	else
		snprintf(buf, 24, "+/-%.1f", ns / 1e3);
	return buf;
}

/*
 * Point @p of @r: its time with its event's bound; from the point before
 * (@prev, NULL for the first), the step in us with the step's own bound
 * (as a stage's: the clock's resolution within one clock, both events'
 * bounds across two), not the event's.
 */
static void step_line(FILE *out, struct hvt_session *ses, const struct hvt_io_request *r,
		      enum hvt_io_point p, const struct hvt_io_mark *prev)
{
	const struct hvt_io_mark *m = &r->at[p];
	char who[48], cpu[16], bound[24];
	double step;

	snprintf(who, sizeof(who), "%s-%d", m->name[0] ? m->name : m->tid ? "<...>" : "<idle>",
		 m->tid);
	if (m->cpu == HVT_NO_CPU)
		snprintf(cpu, sizeof(cpu), "-");
	else
		snprintf(cpu, sizeof(cpu), "%u", m->cpu);
	fprintf(out, "    %10.6f %-7s %-6s %-24s %3s  ", seconds(ses, m->ts),
		bound_text(bound, m->bound_ns < INT64_MAX / 4 ? (double)m->bound_ns : 1e15),
		m->qemu ? "vmm" : m->host ? "host" : "kernel", who, cpu);	/* merge's layer names */
	if (!prev) {
		fprintf(out, "%s\n", hvt_io_point_name(p));
		return;
	}
	step = (double)(int64_t)(m->ts - prev->ts) *
	       (double)hvt_host_clock_ticks_us(&ses->clock, prev->ts, 1000000) / 1e6;
	fprintf(out, "%-24s %+10.1f %s\n", hvt_io_point_name(p), step,
		bound_text(bound, hvt_io_step_bound(prev, m)));
}

static void slowest(FILE *out, struct hvt_session *ses, const struct hvt_io_flows *f,
		    const struct hvt_io_disk *d, unsigned int top)
{
	const struct hvt_io_request **list;
	size_t i;

	if (!d->nr_slowest || !top)
		return;
	list = calloc(d->nr_slowest, sizeof(*list));
	if (!list) {
		fprintf(out, "  (out of memory: the slowest requests are not listed)\n");
		return;
	}
	hvt_io_slowest_sorted(d, list);
	fprintf(out, "  slowest requests, step by step (s since the start +/- the event's bound, "
		"us; then us since the step before +/- the step's bound):\n");
	for (i = 0; i < d->nr_slowest && i < top; i++) {
		const struct hvt_io_request *r = list[i];
		const struct hvt_io_mark *prev = NULL;
		double lat, wait, b;
		unsigned int p;

		hvt_io_stage_of(f, r, HVT_IO_LATENCY, &lat, &b);
		fprintf(out, "    %c sector %" PRIu64 " +%u: request %.1f us", r->kind, r->sector,
			r->nr_sector, lat / 1e3);
		if (hvt_io_stage_of(f, r, HVT_IO_THREAD_WAIT, &wait, &b))
			fprintf(out, ", %s-%d waited %.1f us", r->at[HVT_IO_ISSUE].name[0] ?
				r->at[HVT_IO_ISSUE].name : "<...>", r->at[HVT_IO_ISSUE].tid,
				wait / 1e3);
		fputs("\n", out);
		for (p = 0; p < HVT_IO_NR_POINTS; p++) {
			if (!r->at[p].set)
				continue;
			step_line(out, ses, r, p, prev);
			prev = &r->at[p];
		}
	}
	free(list);
}

static void disk_text_report(FILE *out, struct hvt_session *ses, struct hvt_io_flows *f,
			     struct hvt_io_disk *d, const char *vm, unsigned int top)
{
	uint64_t total = 0, linked;
	char disk[32];
	unsigned int o;

	for (o = 0; o < HVT_IO_NR_OUTCOMES; o++)
		total += d->outcomes[o];
	linked = d->outcomes[HVT_IO_LINKED] + d->outcomes[HVT_IO_AMBIGUOUS];
	disk_text(disk, d->dev);
	fprintf(out, "VM %s, disk %s", vm, disk);
	if (d->vdev)
		fprintf(out, " (QEMU's virtio-blk 0x%" PRIx64 ")", d->vdev);
	fprintf(out, ": %" PRIu64 " requests, %" PRIu64 " linked end to end (%.1f%%)\n", total,
		linked, total ? 100.0 * (double)linked / (double)total : 0);
	for (o = 0; o < HVT_IO_NR_OUTCOMES; o++)
		if (d->outcomes[o] && o != HVT_IO_LINKED)
			fprintf(out, "  %" PRIu64 " %s\n", d->outcomes[o], hvt_io_outcome_name(o));
	stage_table(out, d);
	slowest(out, ses, f, d, top);
}

/* What VM @v's guest and QEMU gave, and what could not be followed. */
static void vm_notes(FILE *out, const struct hvt_io_vm *vm, const char *name)
{
	if (!vm->guest_events)
		fprintf(out, "VM %s: its guest kernel recorded no block_rq_issue: nothing to "
			"follow (record its I/O: hvtrace.ko -e block_rq_issue -e "
			"block_rq_complete)\n", name);
	if (!vm->qemu_events)
		fprintf(out, "VM %s: no QEMU events of its virtio-blk: requests end at the "
			"guest (record --qemu-log FILE --qmp SOCKET keeps them)\n", name);
	if (vm->not_rw)
		fprintf(out, "VM %s: %" PRIu64 " requests neither read nor write (flush, "
			"discard, ...) not followed\n", name, vm->not_rw);
	if (vm->orphan_completes)
		fprintf(out, "VM %s: %" PRIu64 " guest completions of no request issued\n",
			name, vm->orphan_completes);
	if (vm->orphan_qemu)
		fprintf(out, "VM %s: %" PRIu64 " QEMU requests no guest issue fits (before "
			"the guest's trace, or lost)\n", name, vm->orphan_qemu);
	if (vm->unknown_qemu)
		fprintf(out, "VM %s: %" PRIu64 " QEMU completions of no request it took up\n",
			name, vm->unknown_qemu);
	if (vm->disks_over)
		fprintf(out, "VM %s: %" PRIu64 " requests of disks beyond the first %d not "
			"counted\n", name, vm->disks_over, HVT_IO_MAX_DISKS);
}

static bool selected(const struct hvt_select *sel, const char *name)
{
	size_t i;

	for (i = 0; i < sel->nr_vms; i++)
		if (!strcmp(sel->vms[i], name))
			return true;
	return !sel->nr_vms;
}

static int report(struct io_run *run, struct hvt_io_flows *f)
{
	struct hvt_session *ses = run->ses;
	size_t v, d, done = 0;

	for (v = 0; v < ses->archive.nr_vms; v++) {
		struct hvt_io_vm *vm = &f->vms[v];
		const char *name = ses->archive.vms[v].name;

		if (!selected(run->o->sel, name))
			continue;
		if (vm->guest_events)
			done++;
		if (run->o->tsv) {
			vm_notes(stderr, vm, name);
			continue;
		}
		for (d = 0; d < vm->nr_disks; d++) {
			disk_text_report(run->out, ses, f, &vm->disks[d], name, run->o->top);
			fputc('\n', run->out);
		}
		vm_notes(run->out, vm, name);
	}
	if (f->failed)
		hvt_err("out of memory: the figures above miss requests");
	if (!done)
		hvt_err("%s: no selected VM recorded guest block events to follow", ses->archive.root);
	return done && !f->failed ? 0 : 1;
}

int hvt_io_report_run(struct hvt_session *ses, struct hvt_timeline *tl,
		      const struct hvt_io_report_opts *o, FILE *out)
{
	struct io_run run = { .ses = ses, .o = o, .out = out };
	struct hvt_thread_names names;
	struct hvt_event_feed feed;
	struct hvt_io_flows f;
	struct hvt_span seen = { 0, 0, false };
	struct hvt_source *s;
	int ret = 1;

	run.numbers = calloc(ses->archive.nr_vms + 1, sizeof(*run.numbers));
	if (!run.numbers || hvt_io_flows_init(&f, ses)) {
		free(run.numbers);
		hvt_err("out of memory");
		return 1;
	}
	if (hvt_thread_names_init(&names, ses) ||
	    hvt_event_feed_init(&feed, ses, &hvt_io_flows_listener, &f)) {
		hvt_err("out of memory");
		goto out;
	}
	f.names = &names;
	if (o->sel->from_text)
		f.from = hvt_analyze_tsc_at(&ses->clock, o->sel->from_ns);
	if (o->sel->to_text)
		f.to = hvt_analyze_tsc_at(&ses->clock, o->sel->to_ns) + 1;
	f.keep_slowest = o->top < HVT_IO_SLOWEST_MAX ? o->top : HVT_IO_SLOWEST_MAX;
	if (o->tsv) {
		tsv_header(out);
		f.done = tsv_request;
		f.done_ctx = &run;
	}
	while ((s = hvt_timeline_next(tl))) {
		hvt_span_add(&seen, s->host_tsc);
		if (s->vm_number && !selected(o->sel, s->vm) && s->layer != HVT_LAYER_VMM)
			continue;
		hvt_thread_names_learn(&names, s);
		hvt_event_feed(&feed, s);
	}
	hvt_io_flows_finish(&f);
	hvt_event_feed_free(&feed);
	hvt_select_span_warn(o->sel, &ses->clock, &seen);	/* as analyze: nothing issued */
	ret = report(&run, &f);
out:
	hvt_thread_names_free(&names);
	hvt_io_flows_free(&f);
	free(run.numbers);
	return ret;
}
