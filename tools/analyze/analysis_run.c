// SPDX-License-Identifier: GPL-2.0-only
/*
 * analysis_run.c - `hvtrace analyze`'s pass over the time line
 * (analysis_run.h).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "tools/analyze/analysis_run.h"
#include "tools/merge/select_span.h"
#include "tools/model/vm_analyses.h"

uint64_t hvt_analyze_tsc_at(struct hvt_host_clock *clock, int64_t ns)
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

/* Feeds every event of @tl to the analyses; their span in @seen. */
static int merge(struct hvt_vm_analyses *va, struct hvt_timeline *tl, struct hvt_span *seen)
{
	struct hvt_event_feed feed;
	struct hvt_source *s;
	uint64_t last = 0;

	if (hvt_event_feed_init(&feed, va->ses, &hvt_vm_analyses_listener, va))
		return -1;
	while ((s = hvt_timeline_next(tl))) {
		hvt_event_feed(&feed, s);
		hvt_span_add(seen, s->host_tsc);
		last = s->host_tsc;
	}
	hvt_event_feed_free(&feed);
	hvt_vm_analyses_finish(va, last);
	return 0;
}

static int report(struct hvt_vm_analyses *va, const struct hvt_vm_analyses_opts *vo,
		  const struct hvt_analyze_opts *o, FILE *out)
{
	struct hvt_session *ses = va->ses;
	const struct hvt_clock_pair *p = &ses->archive.pairs[0];
	const struct hvt_clock_pair *q = &ses->archive.pairs[ses->archive.nr_pairs - 1];
	uint64_t span = q->tsc > p->tsc ? q->tsc - p->tsc : 1000000;
	struct hvt_analysis_view v = o->view;
	char unread[256];
	size_t i, done = 0;

	v.clock = &ses->clock;
	if (hvt_session_unread_host_cpus(ses, unread, sizeof(unread)))
		v.unread_cpus = unread;
	/*
	 * Totals are sums of tick intervals: at the recording's mean rate, as
	 * merge's times are over its whole span (not the first pair's rate,
	 * which differs by parts per million).
	 */
	v.ns_per_tick = hvt_host_clock_ticks_us(&ses->clock, p->tsc, span) / (double)span * 1e3;
	if (o->tsv)
		hvt_analysis_tsv_header(out);
	for (i = 0; i < ses->archive.nr_vms; i++) {
		if (va->why[i]) {
			if (hvt_vm_analyses_selects(vo, ses->archive.vms[i].name))
				hvt_warn("VM %s is not analysed: %s", ses->archive.vms[i].name,
					 va->why[i]);
			continue;
		}
		v.tcg = ses->vms[i].vm.tcg;
		if (o->tsv)
			hvt_analysis_tsv(out, &va->vms[i], &v);
		else
			hvt_analysis_text(out, &va->vms[i], &v);
		done++;
	}
	if (!done)
		hvt_err("%s: no VM could be analysed", ses->archive.root);
	return done ? 0 : 1;
}

int hvt_analyze_run(struct hvt_session *ses, struct hvt_timeline *tl,
		    const struct hvt_analyze_opts *o, FILE *out)
{
	struct hvt_vm_analyses_opts vo = { .vms = (const char *const *)o->sel->vms,
					   .nr_vms = o->sel->nr_vms, .from = 0, .to = UINT64_MAX };
	struct hvt_vm_analyses va;
	struct hvt_span seen = { 0, 0, false };
	int ret = 1;

	if (o->sel->from_text)
		vo.from = hvt_analyze_tsc_at(&ses->clock, o->sel->from_ns);
	if (o->sel->to_text)
		vo.to = hvt_analyze_tsc_at(&ses->clock, o->sel->to_ns) + 1;
	if (hvt_vm_analyses_init(&va, ses, &vo)) {
		hvt_err("out of memory");
		return 1;
	}
	if (merge(&va, tl, &seen)) {
		hvt_err("out of memory");
	} else {
		hvt_select_span_warn(o->sel, &ses->clock, &seen);	/* nothing counted */
		ret = report(&va, &vo, o, out);
	}
	hvt_vm_analyses_free(&va);
	return ret;
}
