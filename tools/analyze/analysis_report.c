// SPDX-License-Identifier: GPL-2.0-only
/*
 * analysis_report.c - text and TSV of a VM's analysis (analysis_report.h).
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/analyze/analysis_report.h"
#include "tools/analyze/wait_report.h"
#include "tools/session/thread_names.h"

double hvt_analysis_ms(const struct hvt_analysis_view *v, uint64_t ticks)
{
	return (double)ticks * v->ns_per_tick / 1e6;
}

static double ms(const struct hvt_analysis_view *v, uint64_t ticks)
{
	return hvt_analysis_ms(v, ticks);
}

uint64_t hvt_account_lost(const struct hvt_account *acc)
{
	return acc->ticks[HVT_VCPU_PREEMPTED] + acc->ticks[HVT_VCPU_BLOCKED] +
	       acc->ticks[HVT_VCPU_HYPERVISOR];
}

static uint64_t lost_slack(const struct hvt_account *acc)
{
	return acc->slack[HVT_VCPU_PREEMPTED] + acc->slack[HVT_VCPU_BLOCKED] +
	       acc->slack[HVT_VCPU_HYPERVISOR];
}

/*
 * A bound in ms, rounded up (it must still hold as printed): to the us,
 * or under 1 us to the ns (never "0.000"). Returns @text.
 */
const char *hvt_analysis_bound_text(char text[32], const struct hvt_analysis_view *v,
				    uint64_t ticks)
{
	double exact = (double)ticks * v->ns_per_tick;
	uint64_t ns = (uint64_t)exact + ((double)(uint64_t)exact < exact), us = (ns + 999) / 1000;

	if (ns < 1000)
		snprintf(text, 32, "0.%06" PRIu64, ns);
	else
		snprintf(text, 32, "%" PRIu64 ".%03" PRIu64, us / 1000, us % 1000);
	return text;
}

void hvt_analysis_causes_text(FILE *out, struct hvt_causes *c, const struct hvt_analysis_view *v,
			      bool exits)
{
	char text[32];
	size_t i;

	hvt_causes_sort(c);
	for (i = 0; i < c->n && i < v->top; i++) {
		const struct hvt_cause *x = &c->v[i];

		if (exits)
			fprintf(out, "%sexit reason %d %.3f ms", i ? ", " : "", x->tid,
				ms(v, x->ticks));
		else
			fprintf(out, "%s%s[%d] %.3f ms", i ? ", " : "",
				x->comm[0] ? x->comm : "?", x->tid, ms(v, x->ticks));
		if (!exits && x->slack)
			fprintf(out, " +/-%s", hvt_analysis_bound_text(text, v, x->slack));
	}
	if (c->n > v->top) {
		uint64_t rest = 0;

		for (; i < c->n; i++)
			rest += c->v[i].ticks;
		fprintf(out, ", %zu other%s %.3f ms", c->n - v->top, c->n - v->top == 1 ? "" : "s",
			ms(v, rest));
	}
	fputc('\n', out);
}

/*
 * Under a row of @n figures of 13 columns each after @indent columns: the
 * bound of each figure that has one ("+/-" in the margin); nothing if none.
 */
static void bounds_line(FILE *out, const struct hvt_analysis_view *v, int indent,
			const uint64_t *slack, int n)
{
	char text[32];
	int i, last = -1;

	for (i = 0; i < n; i++)
		if (slack[i])
			last = i;
	if (last < 0)
		return;
	fprintf(out, "%*s", indent, "+/-");
	for (i = 0; i <= last; i++)
		if (slack[i])
			fprintf(out, " %12s", hvt_analysis_bound_text(text, v, slack[i]));
		else
			fprintf(out, " %12s", "");
	fputc('\n', out);
}

/* Why the vCPU's unknown time is unknown, and what of its guest time was inferred. */
static void vcpu_reasons(FILE *out, const struct hvt_account *acc,
			 const struct hvt_analysis_view *v)
{
	const char *sep = "";
	int w;

	if (acc->ticks[HVT_VCPU_UNKNOWN]) {
		fprintf(out, "        unknown: ");
		for (w = 0; w < HVT_NR_RUN_UNKNOWN; w++)
			if (acc->unknown_why[w]) {
				fprintf(out, "%s%.3f ms %s", sep, ms(v, acc->unknown_why[w]),
					hvt_run_unknown_text((enum hvt_run_unknown)w));
				sep = ", ";
			}
		fputc('\n', out);
	}
	if (acc->guessed)
		fprintf(out, "        inferred: of guest and guest-idle, %.3f ms in runs whose start "
			"the host did not record (counted from the CPU's previous switch)\n",
			ms(v, acc->guessed));
}

/* What vCPU @i's thread slept on, on the host. */
static void vcpu_waits(FILE *out, struct hvt_vm_analysis *a, size_t i,
		       const struct hvt_analysis_view *v)
{
	char who[32];

	snprintf(who, sizeof(who), "vCPU %zu", i);
	if (a->host_wakeups)
		hvt_wait_text(out, 2, who, "on the host", hvt_vm_analysis_vcpu_waits(a, i), v);
}

/*
 * A state's figure in ms, in a column of 12; "-" for the hypervisor where
 * it is not seen (TCG, or no kvm_exit recorded): not measured, not 0.
 */
static void figure(FILE *out, const struct hvt_vm_analysis *a, const struct hvt_analysis_view *v,
		   int state, uint64_t ticks)
{
	if (state == HVT_VCPU_HYPERVISOR && !a->hypervisor_seen)
		fprintf(out, " %12s", "-");
	else
		fprintf(out, " %12.3f", ms(v, ticks));
}

static void vcpu_table(FILE *out, struct hvt_vm_analysis *a, const struct hvt_analysis_view *v)
{
	size_t i;
	int s;

	fprintf(out, "  vCPU  thread   ");
	for (s = 0; s < HVT_NR_VCPU_STATES; s++)
		fprintf(out, " %12s", hvt_vcpu_state_name(s));
	fprintf(out, "  (ms)\n");
	for (i = 0; i < a->runs.nr; i++) {
		struct hvt_account *acc = hvt_vm_analysis_vcpu(a, i);

		if (a->runs.tids[i] <= 0) {
			fprintf(out, "  %-5zu ?         its host thread is not known\n", i);
			continue;
		}
		fprintf(out, "  %-5zu %-8d ", i, a->runs.tids[i]);
		for (s = 0; s < HVT_NR_VCPU_STATES; s++)
			figure(out, a, v, s, acc->ticks[s]);
		fputc('\n', out);
		bounds_line(out, v, 17, acc->slack, HVT_NR_VCPU_STATES);
		vcpu_reasons(out, acc, v);
	}
	for (i = 0; i < a->runs.nr; i++) {
		struct hvt_account *acc = hvt_vm_analysis_vcpu(a, i);

		if (acc->preempted_by.n) {
			fprintf(out, "  vCPU %zu preempted by: ", i);
			hvt_analysis_causes_text(out, &acc->preempted_by, v, false);
		}
		if (acc->blocked_then.n) {
			fprintf(out, "  vCPU %zu blocked, its host CPU then ran: ", i);
			hvt_analysis_causes_text(out, &acc->blocked_then, v, false);
		}
		if (acc->exits.n) {
			fprintf(out, "  vCPU %zu in the hypervisor: ", i);
			hvt_analysis_causes_text(out, &acc->exits, v, true);
		}
		vcpu_waits(out, a, i, v);
	}
	if (!a->host_wakeups)
		fprintf(out, "  woken by: the host recorded no sched_wakeup of a vCPU thread, so what "
			"they slept on\n  is not known\n");
}

static bool picked(const struct hvt_analysis_view *v)
{
	return v->nr_tids || v->nr_comms;
}

static bool wanted(const struct hvt_analysis_view *v, const struct hvt_guest_thread *t)
{
	char word[HVT_COMM_TABLE_LEN];
	bool has_word = hvt_thread_name_word(t->comm, word);
	size_t i;

	for (i = 0; i < v->nr_tids; i++)
		if (v->tids[i] == t->tid)
			return true;
	/* a name or a shell pattern, as merge's --comm: the comm, or its word in merge's text */
	for (i = 0; i < v->nr_comms; i++)
		if (!fnmatch(v->comms[i], t->comm, 0) ||
		    (has_word && !fnmatch(v->comms[i], word, 0)))
			return true;
	return !picked(v);
}

static int by_lost(const void *x, const void *y)
{
	const struct hvt_guest_thread *a = *(const struct hvt_guest_thread *const *)x;
	const struct hvt_guest_thread *b = *(const struct hvt_guest_thread *const *)y;
	uint64_t la = hvt_account_lost(&a->acc), lb = hvt_account_lost(&b->acc);

	if (la != lb)
		return la < lb ? 1 : -1;
	return (a->tid > b->tid) - (a->tid < b->tid);
}

/* The threads to show, most time lost first; their count in *@n. NULL if none. */
static struct hvt_guest_thread **shown_threads(struct hvt_vm_analysis *a,
					       const struct hvt_analysis_view *v, size_t *n)
{
	struct hvt_guest_thread **list = calloc(a->nr_threads + 1, sizeof(*list));
	size_t i;

	*n = 0;
	if (!list)
		return NULL;
	for (i = 0; i < a->cap_threads; i++)
		if (a->threads[i].tid && wanted(v, &a->threads[i]))
			list[(*n)++] = &a->threads[i];
	qsort(list, *n, sizeof(*list), by_lost);
	if (!picked(v) && *n > v->top)
		*n = v->top;
	return list;
}

/* A few of the VM's thread names, for a --tid or --comm that picked none. */
static void thread_names(FILE *out, const struct hvt_vm_analysis *a)
{
	size_t i, shown = 0;

	fprintf(out, "  its threads:");
	for (i = 0; i < a->cap_threads && shown < 12; i++)
		if (a->threads[i].tid)
			fprintf(out, "%s %s[%d]", shown++ ? "," : "",
				a->threads[i].comm[0] ? a->threads[i].comm : "?", a->threads[i].tid);
	fprintf(out, "%s\n", a->nr_threads > shown ? ", ..." : "");
}

static void thread_table(FILE *out, struct hvt_vm_analysis *a, const struct hvt_analysis_view *v)
{
	size_t i, n;
	struct hvt_guest_thread **list = shown_threads(a, v, &n);

	if (!list) {
		fprintf(out, "  (out of memory)\n");
		return;
	}
	fprintf(out, "  Guest threads%s (ms):\n", picked(v) ? "" :
		", most time lost to the host first");
	fprintf(out, "  %-8s %-16s %12s %12s %12s %12s %12s %12s %12s\n", "tid", "comm", "guest",
		"lost to host", "preempted", "blocked", "hypervisor", "runnable", "too short");
	for (i = 0; i < n; i++) {
		struct hvt_account *acc = &list[i]->acc;
		uint64_t slack[] = { acc->slack[HVT_VCPU_GUEST], lost_slack(acc),
				     acc->slack[HVT_VCPU_PREEMPTED], acc->slack[HVT_VCPU_BLOCKED],
				     acc->slack[HVT_VCPU_HYPERVISOR], acc->runnable_slack, 0 };

		fprintf(out, "  %-8d %-16s %12.3f %12.3f %12.3f %12.3f",
			list[i]->tid, list[i]->comm[0] ? list[i]->comm : "?",
			ms(v, acc->ticks[HVT_VCPU_GUEST]), ms(v, hvt_account_lost(acc)),
			ms(v, acc->ticks[HVT_VCPU_PREEMPTED]), ms(v, acc->ticks[HVT_VCPU_BLOCKED]));
		figure(out, a, v, HVT_VCPU_HYPERVISOR, acc->ticks[HVT_VCPU_HYPERVISOR]);
		fprintf(out, " %12.3f %12.3f\n", ms(v, acc->runnable), ms(v, acc->short_ticks));
		bounds_line(out, v, 27, slack, 7);
		if (acc->preempted_by.n) {
			fprintf(out, "           preempted by: ");
			hvt_analysis_causes_text(out, &acc->preempted_by, v, false);
		}
		if (acc->blocked_then.n) {
			fprintf(out, "           blocked, its host CPU then ran: ");
			hvt_analysis_causes_text(out, &acc->blocked_then, v, false);
		}
		if (a->guest_wakeups)
			hvt_wait_text(out, 11, "", "in the guest", &list[i]->waits, v);
	}
	if (!n) {
		fprintf(out, "  (none: no guest sched_switch of %s)\n",
			picked(v) ? "these threads" : "this VM");
		if (picked(v) && a->nr_threads)
			thread_names(out, a);
	}
	else if (!a->guest_wakeups)
		fprintf(out, "  runnable, woken by: the guest recorded no sched_wakeup (not recorded by "
			"default: add\n  -e sched_wakeup to the guest's agent), so only the waits after "
			"a preemption in the\n  guest are counted, and what its threads slept on is not "
			"known\n");
	free(list);
}

void hvt_analysis_text(FILE *out, struct hvt_vm_analysis *a, const struct hvt_analysis_view *v)
{
	const struct hvt_host_runs *r = &a->runs;

	fprintf(out, "VM %s: %zu vCPU%s, %s\n", a->name, r->nr, r->nr == 1 ? "" : "s",
		a->hypervisor_seen ? "in the hypervisor from kvm_exit to kvm_entry" :
		v->tcg ? "TCG: the hypervisor state is not seen (it is part of guest)" :
		"no kvm_exit/kvm_entry recorded: the hypervisor state is part of guest");
	if (r->missing_in || r->missing_out)
		fprintf(out, "  host scheduling data incomplete: %" PRIu64 " of %" PRIu64
			" switch-outs of vCPU threads had no switch-in recorded, %" PRIu64
			" switch-outs were not recorded; such runs start at their CPU's previous "
			"switch\n", r->missing_in, r->switches, r->missing_out);
	if (v->unread_cpus && *v->unread_cpus)
		fprintf(out, "  host CPU %s could not be read: a vCPU thread switched out may have "
			"run there unseen, so its time out of its CPU is counted unknown\n",
			v->unread_cpus);
	if (a->failed || r->failed)
		fprintf(out, "  out of memory: some time is not counted\n");
	fprintf(out, "  Times in ms. A figure's error bound, where it has one, is on the +/- line "
		"under it;\n  the others are exact (both ends host events: the host tasks, and "
		"preempted and\n  blocked, unless a guest task change cuts them).\n");
	vcpu_table(out, a, v);
	thread_table(out, a, v);
}

void hvt_analysis_tsv_header(FILE *out)
{
	fputs("vm\tkind\tid\tname\tstate\tcause_id\tcause\tns\tslack_ns\tpieces\n", out);
}

void hvt_analysis_row(FILE *out, const struct hvt_vm_analysis *a, const char *kind, long long id,
		      const char *name, const char *state, long long cause_id, const char *cause,
		      const struct hvt_analysis_view *v, uint64_t ticks, uint64_t slack,
		      uint64_t pieces)
{
	fprintf(out, "%s\t%s\t%lld\t%s\t%s\t%lld\t%s\t%.0f\t%.0f\t%" PRIu64 "\n", a->name, kind, id,
		name, state, cause_id, cause, (double)ticks * v->ns_per_tick,
		(double)slack * v->ns_per_tick, pieces);
}

#define row hvt_analysis_row

/* A row per cause of @c, by ticks (@exits: exit reasons, in order of first seen). */
static void causes_rows(FILE *out, const struct hvt_vm_analysis *a, const char *kind,
			long long id, const char *name, const char *state, struct hvt_causes *c,
			const struct hvt_analysis_view *v, bool exits)
{
	size_t i;

	if (!exits)
		hvt_causes_sort(c);
	for (i = 0; i < c->n; i++)
		row(out, a, kind, id, name, state, c->v[i].tid, exits ? "" : c->v[i].comm, v,
		    c->v[i].ticks, c->v[i].slack, 0);
}

static void account_rows(FILE *out, const struct hvt_vm_analysis *a, const char *kind,
			 long long id, const char *name, struct hvt_account *acc,
			 const struct hvt_analysis_view *v)
{
	int s;

	for (s = 0; s < HVT_NR_VCPU_STATES; s++)
		if (acc->pieces[s])
			row(out, a, kind, id, name, hvt_vcpu_state_name(s), -1, "", v, acc->ticks[s],
			    acc->slack[s], acc->pieces[s]);
	causes_rows(out, a, kind, id, name, "preempted-by", &acc->preempted_by, v, false);
	causes_rows(out, a, kind, id, name, "blocked-then-ran", &acc->blocked_then, v, false);
	causes_rows(out, a, kind, id, name, "exit-reason", &acc->exits, v, true);
	if (acc->runnable_pieces)
		row(out, a, kind, id, name, "runnable", -1, "", v, acc->runnable,
		    acc->runnable_slack, acc->runnable_pieces);
	if (acc->short_pieces)
		row(out, a, kind, id, name, "too-short", -1, "", v, acc->short_ticks, 0,
		    acc->short_pieces);
	if (acc->guessed)
		row(out, a, kind, id, name, "start-not-recorded", -1, "", v, acc->guessed, 0, 0);
	for (s = 0; s < HVT_NR_RUN_UNKNOWN; s++)
		if (acc->unknown_why[s])
			row(out, a, kind, id, name, "unknown-because", -1,
			    hvt_run_unknown_id((enum hvt_run_unknown)s), v, acc->unknown_why[s], 0, 0);
}

void hvt_analysis_tsv(FILE *out, struct hvt_vm_analysis *a, const struct hvt_analysis_view *v)
{
	struct hvt_guest_thread **list;
	size_t i, n;

	for (i = 0; i < a->runs.nr; i++)
		if (a->runs.tids[i] > 0) {
			account_rows(out, a, "vcpu", (long long)i, "", hvt_vm_analysis_vcpu(a, i), v);
			if (a->host_wakeups)	/* else every wait would be "no wakeup" */
				hvt_wait_tsv(out, a, "vcpu", (long long)i, "",
					     hvt_vm_analysis_vcpu_waits(a, i), v);
		}
	list = shown_threads(a, v, &n);
	if (!picked(v))		/* every thread in TSV */
		for (n = 0, i = 0; list && i < a->cap_threads; i++)
			if (a->threads[i].tid)
				list[n++] = &a->threads[i];
	for (i = 0; list && i < n; i++) {
		account_rows(out, a, "thread", list[i]->tid, list[i]->comm, &list[i]->acc, v);
		if (a->guest_wakeups)
			hvt_wait_tsv(out, a, "thread", list[i]->tid, list[i]->comm, &list[i]->waits,
				     v);
	}
	free(list);
}
