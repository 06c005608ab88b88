// SPDX-License-Identifier: GPL-2.0-only
/*
 * wait_report.c - what a thread slept on, as text or TSV (wait_report.h).
 */
#include <inttypes.h>

#include "tools/analyze/wait_report.h"

/* "comm[tid]", or the idle task's, or "?[tid]". */
static void task_text(FILE *out, int32_t tid, const char *comm)
{
	fprintf(out, "%s[%d]", *comm ? comm : tid ? "?" : "swapper", tid);
}

/* @b - @a, or 0 where a damaged source has them the other way round. */
static uint64_t span(uint64_t a, uint64_t b)
{
	return b > a ? b - a : 0;
}

/* Seconds since the trace start of host TSC @tsc, as merge prints them. */
static double seconds(const struct hvt_analysis_view *v, uint64_t tsc)
{
	return v->clock ? (double)hvt_host_clock_since_start(v->clock, tsc) / 1e9 : 0;
}

static void chain_text(FILE *out, int indent, const char *who, struct hvt_wait_account *w,
		       const struct hvt_analysis_view *v)
{
	const struct hvt_wait_chain *c = &w->longest;
	const struct hvt_wait_link *l0 = &c->link[0];
	char text[32];
	unsigned int i;

	fprintf(out, "%*s%s%slongest sleep %.3f ms", indent, "", who, *who ? " " : "",
		hvt_analysis_ms(v, w->longest_ticks));
	if (w->longest_slack)
		fprintf(out, " +/-%s", hvt_analysis_bound_text(text, v, w->longest_slack));
	if (w->longest_cut) {	/* the links below are whole: say so, with the whole */
		fprintf(out, " within --from/--to (the whole sleep %.3f ms",
			hvt_analysis_ms(v, span(l0->asleep, l0->woken)));
		if (l0->asleep_bound + l0->woken_bound)
			fprintf(out, " +/-%s", hvt_analysis_bound_text(text, v, l0->asleep_bound +
									l0->woken_bound));
		fprintf(out, ", from %.6f s, woken at %.6f s)", seconds(v, l0->asleep),
			seconds(v, l0->woken));
	} else {
		fprintf(out, ", woken at %.6f s", seconds(v, l0->woken));
	}
	fprintf(out, "; its chain, %u link%s, ends: %s\n", c->depth, c->depth == 1 ? "" : "s",
		hvt_chain_end_text(c->end));
	for (i = 0; i < c->depth; i++) {
		const struct hvt_wait_link *l = &c->link[i];

		fprintf(out, "%*s  %u  ", indent, "", i);
		task_text(out, l->tid, l->comm);
		fprintf(out, " %s %.3f ms from %.6f s, ", l->preempted ? "preempted" : "asleep",
			hvt_analysis_ms(v, span(l->asleep, l->woken)), seconds(v, l->asleep));
		fprintf(out, l->preempted ? "its CPU running " : "woken by ");
		task_text(out, l->waker, l->waker_comm);
		if (i && !l->preempted && l->ran_unseen)
			fprintf(out, ", its switch-in not recorded");
		else if (i && !l->preempted)
			fprintf(out, ", ran %.3f ms later", hvt_analysis_ms(v, span(l->woken, l->ran)));
		fputc('\n', out);
	}
}

void hvt_wait_text(FILE *out, int indent, const char *who, const char *where,
		   struct hvt_wait_account *w, const struct hvt_analysis_view *v)
{
	const char *sp = *who ? " " : "";
	char text[32];

	if (!w->woken && !w->no_wakeup_waits && !w->unended && !w->too_short)
		return;
	fprintf(out, "%*s%s%sasleep %s %.3f ms", indent, "", who, sp, where,
		hvt_analysis_ms(v, w->asleep + w->no_wakeup));
	if (w->asleep_slack + w->no_wakeup_slack)
		fprintf(out, " +/-%s", hvt_analysis_bound_text(text, v, w->asleep_slack +
								w->no_wakeup_slack));
	fprintf(out, " in %" PRIu64 " wait%s", w->woken + w->no_wakeup_waits,
		w->woken + w->no_wakeup_waits == 1 ? "" : "s");
	if (w->no_wakeup_waits)
		fprintf(out, " (%" PRIu64 " ending with no sched_wakeup recorded, %.3f ms)",
			w->no_wakeup_waits, hvt_analysis_ms(v, w->no_wakeup));
	fprintf(out, "; once woken, waited for a CPU %.3f ms", hvt_analysis_ms(v, w->latency));
	if (w->latency_slack)
		fprintf(out, " +/-%s", hvt_analysis_bound_text(text, v, w->latency_slack));
	if (w->latency_unseen)
		fprintf(out, " (not known for %" PRIu64 " waits whose switch-in was not recorded)",
			w->latency_unseen);
	if (w->unended)
		fprintf(out, "; %" PRIu64 " more wait%s, of unknown length, whose end was not "
			"recorded", w->unended, w->unended == 1 ? "" : "s");
	if (w->too_short)
		fprintf(out, "; %" PRIu64 " shorter than the bounds of their ends, not counted",
			w->too_short);
	fputc('\n', out);
	if (!w->woken)
		return;
	fprintf(out, "%*s%s%swoken by: ", indent, "", who, sp);
	hvt_analysis_causes_text(out, &w->woken_by, v, false);
	fprintf(out, "%*s%s%swaited on (along each wake chain, up to %d links): ", indent, "", who,
		sp, HVT_WAIT_CHAIN_MAX);
	hvt_analysis_causes_text(out, &w->waited_on, v, false);
	chain_text(out, indent, who, w, v);
	if (w->failed)
		fprintf(out, "%*s(out of memory: some wakers are not counted)\n", indent, "");
}

/* A row per task of @c, most time first; pieces: its waits (or segments). */
static void cause_rows(FILE *out, const struct hvt_vm_analysis *a, const char *kind,
		       long long id, const char *name, const char *state, struct hvt_causes *c,
		       const struct hvt_analysis_view *v)
{
	size_t i;

	hvt_causes_sort(c);
	for (i = 0; i < c->n; i++)
		hvt_analysis_row(out, a, kind, id, name, state, c->v[i].tid, c->v[i].comm, v,
				 c->v[i].ticks, c->v[i].slack, c->v[i].count);
}

void hvt_wait_tsv(FILE *out, const struct hvt_vm_analysis *a, const char *kind, long long id,
		  const char *name, struct hvt_wait_account *w, const struct hvt_analysis_view *v)
{
	const struct hvt_wait_chain *c = &w->longest;
	size_t i;
	int e;

	if (w->woken)
		hvt_analysis_row(out, a, kind, id, name, "asleep-woken", -1, "", v, w->asleep,
				 w->asleep_slack, w->woken);
	if (w->no_wakeup_waits)
		hvt_analysis_row(out, a, kind, id, name, "asleep-no-wakeup", -1, "", v,
				 w->no_wakeup, w->no_wakeup_slack, w->no_wakeup_waits);
	if (w->latency_waits)
		hvt_analysis_row(out, a, kind, id, name, "wake-latency", -1, "", v, w->latency,
				 w->latency_slack, w->latency_waits);
	if (w->followed)
		hvt_analysis_row(out, a, kind, id, name, "chain-followed", -1, "", v, 0, 0,
				 w->followed);
	if (w->too_short)
		hvt_analysis_row(out, a, kind, id, name, "wait-too-short", -1, "", v, 0, 0,
				 w->too_short);
	if (w->unended)
		hvt_analysis_row(out, a, kind, id, name, "wait-unended", -1, "", v, 0, 0,
				 w->unended);
	if (w->latency_unseen)
		hvt_analysis_row(out, a, kind, id, name, "wake-latency-unseen", -1, "", v, 0, 0,
				 w->latency_unseen);
	cause_rows(out, a, kind, id, name, "woken-by", &w->woken_by, v);
	cause_rows(out, a, kind, id, name, "waited-on", &w->waited_on, v);
	for (e = 0; e < HVT_NR_CHAIN_ENDS; e++)
		if (w->ends[e])
			hvt_analysis_row(out, a, kind, id, name, "chain-end", -1,
					 hvt_chain_end_id((enum hvt_chain_end)e), v, 0, 0, w->ends[e]);
	for (i = 0; i < c->depth; i++)	/* the longest sleep's chain: pieces is the link */
		hvt_analysis_row(out, a, kind, id, name, "longest-chain", c->link[i].tid,
				 c->link[i].comm, v, span(c->link[i].asleep, c->link[i].woken),
				 c->link[i].asleep_bound + c->link[i].woken_bound, i);
}
