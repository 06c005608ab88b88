// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_analyze.c - `hvtrace analyze`: where each vCPU's and guest thread's
 * time went - in the guest, in the hypervisor, preempted on the host (and
 * by which host task), blocked on the host - with error bounds.
 *
 * One pass of the merge (bounded memory, see analyze/vm_analysis.h) feeds
 * each VM's analysis with the host's sched_switch and kvm_exit/kvm_entry
 * and the guest's sched_switch and sched_wakeup; the report follows
 * (analyze/analysis_report.h). A VM is analysed if the manifest names its
 * vCPU threads and its guest events can be aligned; the others are listed
 * with the reason.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli.h"
#include "lib/log.h"
#include "tools/analyze/analysis_report.h"
#include "tools/analyze/vm_analysis.h"
#include "tools/commands.h"
#include "tools/merge/select.h"
#include "tools/merge/timeline.h"
#include "tools/session/session.h"

#define MAX_TIDS	256

struct analyze_opts {
	const char *archive;
	struct hvt_select sel;		/* --vm, --from, --to */
	int32_t tids[MAX_TIDS];		/* --tid */
	size_t nr_tids;
	char *comms[MAX_TIDS];		/* --comm */
	size_t nr_comms;
	unsigned int top;
	bool tsv;
};

struct analyze_run {
	struct hvt_session *ses;
	struct hvt_timeline *tl;
	struct hvt_vm_analysis *vms;	/* one per VM of the archive */
	const char **why;		/* per VM: not analysed, why (NULL: analysed) */
	struct hvt_vm_analysis *kvm;	/* the one KVM VM the host's exits are of */
	uint64_t *host_losses;		/* per source */
	struct hvt_source *prev;
	uint64_t prev_tsc;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: hvtrace analyze [OPTIONS] ARCHIVE\n\n"
		"Where each vCPU's and each guest thread's time went: running guest code,\n"
		"in the hypervisor (KVM: kvm_exit -> kvm_entry, by exit reason), preempted\n"
		"on the host (its vCPU thread runnable while another task had the CPU, and\n"
		"which task), blocked on the host (its vCPU thread asleep: a halted vCPU,\n"
		"or QEMU waiting), or unknown (no data); guest threads also the time they\n"
		"waited runnable in the guest. Every total carries the sum of the error\n"
		"bounds of its intervals' ends (0 at host instants); an interval shorter\n"
		"than its bounds is counted apart (\"too short\"). Needs the host layer\n"
		"with sched_switch and the manifest's vcpu_threads (both recorded by\n"
		"default), and the guest kernel's sched_switch.\n\n"
		"  --vm NAME          this VM only (repeatable)\n"
		"  --from T, --to T   count only the time from T to T, in seconds since the\n"
		"                     trace start as merge prints them\n"
		"  --tid TID          this guest thread only (repeatable), however little it lost\n"
		"  --comm NAME        the guest threads named NAME (repeatable; as the guest's\n"
		"                     sched_switch names them, at most 15 characters)\n"
		"  --top N            host tasks and guest threads listed (default 5)\n"
		"  --format FMT       text (default) or tsv: one row per vCPU or thread, state\n"
		"                     and cause: vm kind id name state cause_id cause ns\n"
		"                     slack_ns pieces\n"
		"  -h, --help         this help\n"
		"Exit status: 0 done, 1 the archive cannot be read or no VM can be analysed,\n"
		"2 usage error (a --vm naming no VM of the archive included).\n");
}

static int parse_args(int argc, char **argv, struct analyze_opts *o)
{
	static const struct option longopts[] = {
		{ "vm", required_argument, NULL, 'v' },
		{ "from", required_argument, NULL, 'F' },
		{ "to", required_argument, NULL, 'T' },
		{ "tid", required_argument, NULL, 't' },
		{ "comm", required_argument, NULL, 'c' },
		{ "top", required_argument, NULL, 'n' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c, i;

	optind = 0;	/* glibc: start over, the command may run more than once */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, &i)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return 1;
		case 'v': case 'F': case 'T':
			if (hvt_select_add(&o->sel, longopts[i].name, optarg))
				return -1;
			break;
		case 't':
			if (hvt_parse_u64(optarg, 1, INT32_MAX, &v)) {
				hvt_usage_error("analyze", "--tid wants a thread id, not '%s'", optarg);
				return -1;
			}
			if (o->nr_tids == MAX_TIDS) {
				hvt_usage_error("analyze", "at most %d --tid", MAX_TIDS);
				return -1;
			}
			o->tids[o->nr_tids++] = (int32_t)v;
			break;
		case 'c':
			if (!*optarg || strlen(optarg) >= HVT_COMM_LEN) {
				hvt_usage_error("analyze", "--comm wants a thread name of 1 to %d "
						"characters, not '%s'", HVT_COMM_LEN - 1, optarg);
				return -1;
			}
			if (o->nr_comms == MAX_TIDS) {
				hvt_usage_error("analyze", "at most %d --comm", MAX_TIDS);
				return -1;
			}
			o->comms[o->nr_comms++] = optarg;
			break;
		case 'n':
			if (hvt_parse_u64(optarg, 1, 10000, &v)) {
				hvt_usage_error("analyze", "--top wants 1 to 10000, not '%s'", optarg);
				return -1;
			}
			o->top = (unsigned int)v;
			break;
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "tsv")) {
				hvt_usage_error("analyze", "--format is text or tsv, not '%s'", optarg);
				return -1;
			}
			o->tsv = !strcmp(optarg, "tsv");
			break;
		default:
			hvt_usage_bad_option("analyze", argv);
			return -1;
		}
	}
	if (optind != argc - 1) {
		hvt_usage_error("analyze", "expected one ARCHIVE directory");
		return -1;
	}
	o->archive = argv[optind];
	return hvt_select_finish(&o->sel, HVT_TIME_NS) ? -1 : 0;
}

/* The first host TSC at or after @ns since the trace start. */
static uint64_t tsc_at(struct hvt_host_clock *clock, int64_t ns)
{
	uint64_t lo = 0, hi = UINT64_MAX >> 2;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (hvt_host_clock_since_start(clock, mid) < ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool vm_selected(const struct hvt_select *sel, const char *name)
{
	size_t i;

	for (i = 0; i < sel->nr_vms; i++)
		if (!strcmp(sel->vms[i], name))
			return true;
	return !sel->nr_vms;
}

/* Sets up VM @i's analysis, or says why it cannot be made. */
static const char *vm_init(struct analyze_run *r, const struct analyze_opts *o, size_t i)
{
	struct hvt_session *ses = r->ses;
	const struct hvt_vm_ref *ref = &ses->archive.vms[i];
	uint64_t from = 0, to = UINT64_MAX;

	if (!vm_selected(&o->sel, ref->name))
		return "not selected";
	if (!ses->vms[i].loaded || !ses->vms[i].al.aligned)
		return "its guest events cannot be aligned (see the warnings)";
	if (!ref->nr_vcpu_tids)
		return "the manifest does not name its vCPU threads (vcpu_threads)";
	if (!hvt_session_host_recorded(ses))
		return "the host layer was not recorded";
	if (o->sel.from_text)
		from = tsc_at(&ses->clock, o->sel.from_ns);
	if (o->sel.to_text)
		to = tsc_at(&ses->clock, o->sel.to_ns) + 1;
	if (hvt_vm_analysis_init(&r->vms[i], ref->name, ref->vcpu_tids, ref->nr_vcpu_tids,
				 ses->archive.pairs[0].tsc, from, to))
		return "out of memory";
	return NULL;
}

/* The host's kvm_exit/kvm_entry are of the archive's one KVM VM, if one. */
static struct hvt_vm_analysis *kvm_vm(struct analyze_run *r)
{
	struct hvt_vm_analysis *found = NULL;
	size_t i, n = 0;

	for (i = 0; i < r->ses->archive.nr_vms; i++)
		if (r->ses->vms[i].loaded && r->ses->vms[i].vm.kvm) {
			n++;
			found = r->why[i] ? NULL : &r->vms[i];
		}
	return n == 1 ? found : NULL;
}

static void host_switch(struct analyze_run *r, struct hvt_source *s)
{
	uint64_t prev, next, state;
	char comm[HVT_COMM_LEN] = "";
	size_t i;

	if (hvt_source_field_u64(s, "prev_pid", &prev) ||
	    hvt_source_field_u64(s, "next_pid", &next) ||
	    hvt_source_field_u64(s, "prev_state", &state) || s->host_cpu < 0)
		return;
	hvt_source_field_text(s, "next_comm", comm, sizeof(comm));
	for (i = 0; i < r->ses->archive.nr_vms; i++)
		if (!r->why[i])
			hvt_vm_analysis_host_switch(&r->vms[i], (uint32_t)s->host_cpu, s->host_tsc,
						    (int32_t)prev, state, (int32_t)next, comm);
}

static void host_event(struct analyze_run *r, struct hvt_source *s)
{
	const char *name = hvt_source_event_name(s);
	bool entry = !strcmp(name, "kvm_entry");
	uint64_t vcpu, reason = 0;

	if (!strcmp(name, "sched_switch")) {
		host_switch(r, s);
		return;
	}
	if (!r->kvm || (!entry && strcmp(name, "kvm_exit")))
		return;
	if (hvt_source_field_u64(s, "vcpu_id", &vcpu) || vcpu > UINT32_MAX)
		return;
	if (!entry)
		hvt_source_field_u64(s, "exit_reason", &reason);
	hvt_vm_analysis_kvm(r->kvm, (uint32_t)vcpu, entry, s->host_tsc, (uint32_t)reason);
}

/* Host CPU file @s lost events after host TSC @was. */
static void note_host_loss(struct analyze_run *r, struct hvt_source *s, uint64_t was)
{
	size_t i = s->index, v;
	uint64_t now = hvt_source_lost(s) + hvt_source_warnings(s);

	if (now == r->host_losses[i])
		return;
	r->host_losses[i] = now;
	for (v = 0; v < r->ses->archive.nr_vms; v++)
		if (!r->why[v])
			hvt_vm_analysis_host_lost(&r->vms[v], (uint32_t)s->host_cpu, was);
}

static void guest_event(struct analyze_run *r, struct hvt_source *s)
{
	size_t vm = s->vm_number;
	const char *name = hvt_source_event_name(s);
	char prev_comm[HVT_COMM_LEN] = "", next_comm[HVT_COMM_LEN] = "";
	uint64_t prev, next, state, bound, tid;
	bool wakeup = !strcmp(name, "sched_wakeup");
	uint32_t cpu = hvt_source_cpu(s);

	if (!vm || r->why[vm - 1] || (!wakeup && strcmp(name, "sched_switch")))
		return;
	if (hvt_source_error_bound(&r->ses->vms[vm - 1], s, &bound))
		bound = UINT64_MAX / 4;		/* no guaranteed bound: every piece too short */
	if (wakeup) {
		if (!hvt_source_field_u64(s, "tid", &tid)) {
			hvt_source_field_text(s, "comm", next_comm, sizeof(next_comm));
			hvt_vm_analysis_guest_wakeup(&r->vms[vm - 1], s->host_tsc, bound,
						     (int32_t)tid, next_comm);
		}
		return;
	}
	if (cpu == HVT_NO_CPU || hvt_source_field_u64(s, "prev_tid", &prev) ||
	    hvt_source_field_u64(s, "next_tid", &next) ||
	    hvt_source_field_u64(s, "prev_state", &state))
		return;
	hvt_source_field_text(s, "prev_comm", prev_comm, sizeof(prev_comm));
	hvt_source_field_text(s, "next_comm", next_comm, sizeof(next_comm));
	hvt_vm_analysis_guest_switch(&r->vms[vm - 1], cpu, s->host_tsc, bound, (int32_t)prev,
				     state, prev_comm, (int32_t)next, next_comm);
}

static void run_merge(struct analyze_run *r)
{
	struct hvt_source *s;
	size_t i;

	for (i = 0; i < r->ses->nr_sources; i++) {
		s = r->ses->sources[i];
		if (s->layer == HVT_LAYER_HOST)
			r->host_losses[i] = hvt_source_lost(s) + hvt_source_warnings(s);
	}
	while ((s = hvt_timeline_next(r->tl))) {
		if (r->prev && r->prev->layer == HVT_LAYER_HOST)
			note_host_loss(r, r->prev, r->prev_tsc);
		r->prev = s;
		r->prev_tsc = s->host_tsc;
		if (s->layer == HVT_LAYER_HOST)
			host_event(r, s);
		else
			guest_event(r, s);
	}
	for (i = 0; i < r->ses->archive.nr_vms; i++)
		if (!r->why[i])
			hvt_vm_analysis_finish(&r->vms[i], r->prev_tsc);
}

static int report(struct analyze_run *r, const struct analyze_opts *o)
{
	struct hvt_session *ses = r->ses;
	const struct hvt_clock_pair *p = &ses->archive.pairs[0];
	struct hvt_analysis_view v = {
		.ns_per_tick = hvt_host_clock_ticks_us(&ses->clock, p->tsc, 1000000) / 1e6 * 1e3,
		.top = o->top, .tids = o->tids, .nr_tids = o->nr_tids, .comms = o->comms,
		.nr_comms = o->nr_comms,
	};
	size_t i, done = 0;

	if (o->tsv)
		hvt_analysis_tsv_header(stdout);
	for (i = 0; i < ses->archive.nr_vms; i++) {
		if (r->why[i]) {
			if (vm_selected(&o->sel, ses->archive.vms[i].name))
				hvt_warn("VM %s is not analysed: %s", ses->archive.vms[i].name,
					 r->why[i]);
			continue;
		}
		v.tcg = ses->vms[i].vm.tcg;
		if (o->tsv)
			hvt_analysis_tsv(stdout, &r->vms[i], &v);
		else
			hvt_analysis_text(stdout, &r->vms[i], &v);
		done++;
	}
	if (!done)
		hvt_err("%s: no VM could be analysed", o->archive);
	return done ? 0 : 1;
}

int hvt_cmd_analyze(int argc, char **argv)
{
	struct analyze_opts o = { .sel.cmd = "analyze", .top = 5 };
	struct analyze_run r = { 0 };
	struct hvt_session ses;
	struct hvt_timeline tl;
	size_t i;
	int ret = parse_args(argc, argv, &o);

	if (ret) {
		hvt_select_free(&o.sel);
		return ret > 0 ? 0 : 2;
	}
	if (hvt_session_open(&ses, o.archive, NULL)) {
		hvt_select_free(&o.sel);
		return 1;
	}
	if (hvt_timeline_init(&tl, &ses, NULL, NULL)) {
		hvt_session_close(&ses);
		hvt_select_free(&o.sel);
		return 1;
	}
	if (hvt_select_check_vms(&o.sel, &ses.archive)) {
		hvt_timeline_close(&tl);
		hvt_session_close(&ses);
		hvt_select_free(&o.sel);
		return 2;	/* as merge: a --vm that names no VM is a usage error */
	}
	r.ses = &ses;
	r.tl = &tl;
	r.vms = calloc(ses.archive.nr_vms + 1, sizeof(*r.vms));
	r.why = calloc(ses.archive.nr_vms + 1, sizeof(*r.why));
	r.host_losses = calloc(ses.nr_sources + 1, sizeof(*r.host_losses));
	ret = 1;
	if (!r.vms || !r.why || !r.host_losses) {
		hvt_err("out of memory");
		goto out;
	}
	for (i = 0; i < ses.archive.nr_vms; i++)
		r.why[i] = vm_init(&r, &o, i);
	r.kvm = kvm_vm(&r);
	run_merge(&r);
	ret = report(&r, &o);
out:
	for (i = 0; r.vms && r.why && i < ses.archive.nr_vms; i++)
		if (!r.why[i])
			hvt_vm_analysis_free(&r.vms[i]);
	free(r.vms);
	free(r.why);
	free(r.host_losses);
	hvt_timeline_close(&tl);
	hvt_session_close(&ses);
	hvt_select_free(&o.sel);
	return ret;
}
