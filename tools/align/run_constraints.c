// SPDX-License-Identifier: GPL-2.0-only
/*
 * run_constraints.c - vCPU thread runs as clock constraints
 * (run_constraints.h).
 */
#include <stdlib.h>
#include <string.h>

#include "clocksync/run_bounds.h"
#include "lib/grow.h"
#include "lib/log.h"
#include "tools/align/run_constraints.h"
#include "tools/align/vcpu_spans.h"

#define SAMPLE_SEQ	(UINT64_C(1) << 62)	/* seqs of run samples, above any exchange's */

/* --- each vCPU's spans, and its events near a run's edge --------------------- */

/* A vCPU's runs (or windows) and unknown spans, and its candidate events. */
struct vcpu_runs {
	const struct hvt_host_switches *hs;	/* its loss windows */
	const struct hvt_vcpu_spans *sp;	/* its spans (vcpu_spans.h) */
	uint64_t *gmin, *gmax;		/* per span: its unambiguous events */
	uint64_t *events;		/* candidate guest TSC values, sorted */
	size_t nr_events, cap_events;
	/*
	 * While the events are read: per span, its earliest and latest event
	 * deep inside it on the first clock (deep_min > deep_max: none).
	 */
	uint64_t *deep_min, *deep_max;
	size_t contradictions;
	size_t outside;			/* events far from every run and unknown span */
	bool unused;
};

/* @v as the core's view of it (clocksync/run_bounds.h). */
static struct hvt_run_vcpu view(struct vcpu_runs *v)
{
	return (struct hvt_run_vcpu){ .spans = v->sp->v, .nr_spans = v->sp->n, .events = v->events,
		.nr_events = v->nr_events, .gmin = v->gmin, .gmax = v->gmax,
		.unknown = hvt_host_switches_lost_in, .unknown_ctx = v->hs };
}

/*
 * Where [@lo, @hi] lies: 1 near a run's start or end (the
 * event may bound the clock), 0 elsewhere in a run or unknown span, -1 in
 * none at all (the event contradicts the host data).
 */
static int near_edge(struct vcpu_runs *v, uint64_t lo, uint64_t hi)
{
	struct hvt_run_vcpu rv = view(v);
	bool met = false;
	size_t i;

	const struct hvt_run_span *s = v->sp->v;

	for (i = hvt_run_first_after(&rv, lo); i < v->sp->n && s[i].start <= hi; i++) {
		met = true;
		if (s[i].running && ((s[i].start >= lo && s[i].start <= hi) ||
				     (s[i].end >= lo && s[i].end <= hi)))
			return 1;
	}
	/* where a host CPU lost events, a run may have been */
	return met || hvt_host_switches_lost_in(v->hs, lo, hi) ? 0 : -1;
}

/* --- the guest's events near a run's edge ----------------------------------- */

/* Whether [@lo, @hi] lies inside one run, away from its edges: that run in *@run. */
static bool deep_inside(struct vcpu_runs *v, uint64_t lo, uint64_t hi, size_t *hint, size_t *run)
{
	struct hvt_run_vcpu rv = view(v);
	size_t k = hvt_run_first_after_from(&rv, lo, hint);

	const struct hvt_run_span *s = v->sp->v;

	*run = k;
	return k < v->sp->n && s[k].running && s[k].start < lo && s[k].end > hi;
}

/*
 * Guest value @g, deep inside run @k on the first clock, as the run's
 * earliest or latest such: on a tighter clock the run's first or last
 * event may be one of those two, never one between them.
 */
static void note_deep(struct vcpu_runs *v, size_t k, uint64_t g)
{
	if (g < v->deep_min[k])
		v->deep_min[k] = g;
	if (g > v->deep_max[k])
		v->deep_max[k] = g;
}

static int keep_event(struct vcpu_runs *v, uint64_t g)
{
	uint64_t *grown = hvt_grow(v->events, v->nr_events, &v->cap_events, sizeof(*grown));

	if (!grown)
		return -1;
	v->events = grown;
	v->events[v->nr_events++] = g;
	return 0;
}

static int read_stream(const struct hvt_run_clock *rc, const struct hvt_stream_info *si,
		       const struct hvt_trace_info *t, const struct hvt_ctf_types *types,
		       struct vcpu_runs *vcpus, size_t nr, size_t *kept)
{
	unsigned long warnings = 0;
	struct hvt_ctf_stream *s = hvt_ctf_open(si->path, si->rel, t->uuid, types, &warnings);
	struct hvt_ctf_event ev;
	size_t hint = 0, run;
	int ret = 0;

	if (!s)
		return 0;
	while (!ret && *kept < HVT_RUN_MAX_EVENTS && hvt_ctf_next(s, &ev) > 0) {
		uint32_t cpu = (uint32_t)si->cpu;
		uint64_t lo, hi;
		size_t seg;
		int where;

		if (cpu >= nr || !vcpus[cpu].sp->n)
			continue;
		/*
		 * Most events lie deep inside a run: neither near an edge nor
		 * outside. Of those only a run's earliest and latest can be its
		 * first or last event once the clock is tighter; they are kept
		 * at the end, so that a tighter first clock (more exchanges)
		 * never leaves a later fit fewer edges to bound it with.
		 */
		if (!hvt_run_window_wide(rc, ev.ts, &lo, &hi) &&
		    deep_inside(&vcpus[cpu], lo, hi, &hint, &run)) {
			note_deep(&vcpus[cpu], run, ev.ts);
			continue;
		}
		if (hvt_run_window(rc, ev.ts, &seg, &lo, &hi))
			continue;
		where = near_edge(&vcpus[cpu], lo, hi);
		if (where < 0)
			vcpus[cpu].outside++;
		if (where <= 0)
			continue;
		ret = keep_event(&vcpus[cpu], ev.ts);
		++*kept;
	}
	hvt_ctf_close(s);
	return ret;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Each run's earliest and latest deep event, among the candidates. */
static int keep_deep(struct vcpu_runs *v, size_t *kept)
{
	size_t k;

	for (k = 0; k < v->sp->n && *kept < HVT_RUN_MAX_EVENTS; k++) {
		if (v->deep_min[k] > v->deep_max[k])
			continue;
		if (keep_event(v, v->deep_min[k]))
			return -1;
		++*kept;
		if (v->deep_max[k] != v->deep_min[k]) {
			if (keep_event(v, v->deep_max[k]))
				return -1;
			++*kept;
		}
	}
	return 0;
}

static int read_events(struct hvt_vm_clock *c, const struct hvt_vm_info *vm,
		       const struct hvt_ctf_types *types, struct vcpu_runs *vcpus, size_t nr,
		       size_t *kept)
{
	struct hvt_run_clock rc;
	size_t i, k;
	int ret = 0;

	for (i = 0; i < nr; i++) {
		vcpus[i].deep_min = malloc((vcpus[i].sp->n + 1) * sizeof(uint64_t));
		vcpus[i].deep_max = calloc(vcpus[i].sp->n + 1, sizeof(uint64_t));
		if (!vcpus[i].deep_min || !vcpus[i].deep_max)
			ret = -1;
		for (k = 0; vcpus[i].deep_min && k <= vcpus[i].sp->n; k++)
			vcpus[i].deep_min[k] = UINT64_MAX;
	}
	if (ret || hvt_run_clock_init(&rc, c->est, &c->tl)) {
		for (i = 0; i < nr; i++) {
			free(vcpus[i].deep_min);
			free(vcpus[i].deep_max);
			vcpus[i].deep_min = vcpus[i].deep_max = NULL;
		}
		return -1;
	}

	hvt_log_mute();
	for (i = 0; i < vm->nr_streams && !ret; i++) {
		const struct hvt_stream_info *si = &vm->streams[i];
		const struct hvt_trace_info *t = &vm->traces[si->trace];

		/*
		 * The kernel's per-CPU streams only: the module reads the TSC
		 * with preemption off, on the stream's CPU. A user event's CPU
		 * is read apart from its TSC, and a migration between the two
		 * would tie it to the wrong vCPU's runs.
		 */
		if (t->domain == HVT_DOMAIN_GUEST_TSC && t->layer == HVT_LAYER_KERNEL &&
		    si->cpu >= 0 && (size_t)si->cpu < nr && vcpus[si->cpu].sp->n)
			ret = read_stream(&rc, si, t, &types[si->trace], vcpus, nr, kept);
	}
	hvt_log_unmute();
	hvt_run_clock_free(&rc);
	for (i = 0; i < nr && !ret; i++)
		ret = keep_deep(&vcpus[i], kept);
	for (i = 0; i < nr; i++) {
		free(vcpus[i].deep_min);
		free(vcpus[i].deep_max);
		vcpus[i].deep_min = vcpus[i].deep_max = NULL;
		if (vcpus[i].nr_events)
			qsort(vcpus[i].events, vcpus[i].nr_events, sizeof(uint64_t), cmp_u64);
	}
	return ret;
}

/* --- samples, and the fit ---------------------------------------------------- */

/* The longest round trip of the VM's exchanges: how far a bound's stamp may be. */
static uint64_t max_round_trip(const struct hvt_vm_info *vm)
{
	uint64_t max = 0;
	size_t i;

	for (i = 0; i < vm->nr_sync; i++)
		if (vm->sync[i].ex.host_recv > vm->sync[i].ex.host_send &&
		    vm->sync[i].ex.host_recv - vm->sync[i].ex.host_send > max)
			max = vm->sync[i].ex.host_recv - vm->sync[i].ex.host_send;
	return max;
}

/*
 * The one-way bounds of every used vCPU's runs on clock @c, each within
 * @max ticks of its edge (clocksync/run_bounds.h), in host order in *@out;
 * their number, or SIZE_MAX if out of memory.
 */
static size_t bounds(struct hvt_vm_clock *c, struct vcpu_runs *vcpus, size_t nr, uint64_t max,
		     struct hvt_one_way **out)
{
	struct hvt_run_bound_list l = { NULL, 0, 0, false };
	struct hvt_run_clock rc;
	struct hvt_one_way *ow;
	size_t i;

	if (hvt_run_clock_init(&rc, c->est, &c->tl))
		return SIZE_MAX;
	for (i = 0; i < nr; i++) {
		struct hvt_run_vcpu rv = view(&vcpus[i]);

		if (!vcpus[i].unused)
			hvt_run_bounds(&rc, &rv, max, hvt_run_bound_add, &l);
	}
	hvt_run_clock_free(&rc);
	ow = l.failed ? NULL : calloc(l.n ? l.n : 1, sizeof(*ow));
	if (!ow) {
		free(l.v);
		return SIZE_MAX;
	}
	hvt_run_bound_sort(&l);
	for (i = 0; i < l.n; i++)
		ow[i] = (struct hvt_one_way){ l.v[i].host, l.v[i].guest, l.v[i].upper,
					      SAMPLE_SEQ + i, l.v[i].delay };
	free(l.v);
	*out = ow;
	return l.n;
}

/* Whether @next keeps every exchange causal and has no more segments than @prev. */
static const char *refit_wrong(struct hvt_vm_clock *next, const struct hvt_vm_clock *prev,
			       const struct hvt_vm_info *vm)
{
	size_t exempt;

	if (hvt_vm_clock_segments(next) > hvt_vm_clock_segments(prev) ||
	    (next->glitch && !prev->glitch))
		return "the runs split the clock where the exchanges do not";
	if (hvt_vm_clock_first_violation(next, vm->sync, vm->nr_sync, &exempt))
		return "a clock exchange is not causal against the fit with the runs";
	return NULL;
}

static void free_vcpus(struct vcpu_runs *vcpus, size_t nr)
{
	size_t i;

	for (i = 0; vcpus && i < nr; i++) {
		free(vcpus[i].gmin);
		free(vcpus[i].gmax);
		free(vcpus[i].events);
	}
	free(vcpus);
}

/* A digest of bounds @ow[0..@n) (an FNV-style hash of their host, guest and side). */
static uint64_t bounds_digest(const struct hvt_one_way *ow, size_t n)
{
	uint64_t h = 14695981039346656037ull;
	size_t i;

	for (i = 0; i < n; i++)
		h = ((h ^ ow[i].host) * 1099511628211ull ^ ow[i].guest ^
		     (uint64_t)ow[i].upper) * 1099511628211ull;
	return h;
}

/* One round on @c: the bounds, a refit, its verdict. 1: accepted into @c, 0: stop, -1. */
static int round_on(struct hvt_vm_clock *c, const struct hvt_vm_info *vm,
		    struct vcpu_runs *vcpus, size_t nr, const struct hvt_sync_point *points,
		    size_t nr_points, struct hvt_run_fit *r)
{
	struct hvt_vm_clock next;
	struct hvt_run_clock rc;
	struct hvt_one_way *ow;
	size_t i, n, events = 0;
	const char *wrong;
	uint64_t digest;

	if (hvt_run_clock_init(&rc, c->est, &c->tl))
		return -1;
	for (i = 0; i < nr; i++) {
		struct hvt_run_vcpu rv;

		if (vcpus[i].unused)
			continue;
		rv = view(&vcpus[i]);
		hvt_run_assign(&rc, &rv);
		vcpus[i].contradictions = rv.contradictions;
		events += rv.assigned;
		if (!r->rounds)		/* on the exchanges' own clock: every event counts */
			vcpus[i].contradictions += vcpus[i].outside;
		if (!vcpus[i].contradictions)
			continue;
		if (r->rounds) {	/* the last refit put events outside every run */
			r->rejected = "a refit put guest events outside every run of their vCPU";
			hvt_run_clock_free(&rc);
			return 0;
		}
		r->contradictions += vcpus[i].contradictions;
		r->vcpus_unused++;
		vcpus[i].unused = true;
	}
	hvt_run_clock_free(&rc);
	n = bounds(c, vcpus, nr, max_round_trip(vm), &ow);
	if (n == SIZE_MAX)
		return -1;
	/*
	 * Nothing (new) to fit. The set, not its size: as the clock tightens, a
	 * run's first event may become an earlier one, a tighter bound in the
	 * same place.
	 */
	digest = bounds_digest(ow, n);
	if (!n || (n == r->samples && digest == r->digest)) {
		free(ow);
		return 0;
	}
	/* a build fails without memory, or on bounds no timeline can follow */
	wrong = hvt_vm_clock_build_more(&next, vm->sync, vm->nr_sync, points, nr_points, ow, n) ?
		"the runs and the exchanges fit no clock" : refit_wrong(&next, c, vm);
	free(ow);
	if (wrong) {
		r->rejected = wrong;
		hvt_vm_clock_free(&next);	/* safe after a failed build */
		return 0;
	}
	hvt_vm_clock_free(c);
	*c = next;
	r->samples = n;
	r->digest = digest;
	r->events = events;
	r->rounds++;
	return 1;
}

/* Whether one-way bound @w contradicts @c's guaranteed interval. */
static bool bound_contradicts(struct hvt_vm_clock *c, const struct hvt_one_way *w)
{
	struct hvt_est_value v;

	if (hvt_est_eval(c->est, w->host, &v) || !v.bounded)
		return false;
	return w->upper ? v.lo > w->guest : v.hi < w->guest;
}

/*
 * Every other bound held out of a fit of the exchanges and the rest,
 * judged against it: the number that contradict it, or -1 if it cannot be
 * made. The bounds are those of clock @c.
 */
static long held_out(struct hvt_vm_clock *c, const struct hvt_vm_info *vm,
		     struct vcpu_runs *vcpus, size_t nr, const struct hvt_sync_point *points,
		     size_t nr_points, size_t *judged)
{
	struct hvt_one_way *ow;
	size_t n = bounds(c, vcpus, nr, max_round_trip(vm), &ow), i, fit = 0;
	struct hvt_vm_clock half;
	long bad = 0;

	*judged = 0;
	if (n == SIZE_MAX)
		return -1;
	for (i = 0; i < n; i++)		/* even ones fitted (in place), odd ones judged */
		if (!(i % 2))
			ow[fit++] = ow[i];
	if (hvt_vm_clock_build_more(&half, vm->sync, vm->nr_sync, points, nr_points, ow, fit)) {
		free(ow);
		return -1;
	}
	free(ow);
	n = bounds(c, vcpus, nr, max_round_trip(vm), &ow);	/* again, whole */
	if (n == SIZE_MAX) {
		hvt_vm_clock_free(&half);
		return -1;
	}
	for (i = 1; i < n; i += 2) {
		bad += bound_contradicts(&half, &ow[i]);
		++*judged;
	}
	free(ow);
	hvt_vm_clock_free(&half);
	return bad;
}

/* vCPUs of @vm: one more than its kernel's highest per-CPU stream. */
static size_t guest_vcpus(const struct hvt_vm_info *vm)
{
	size_t i, n = 0;

	for (i = 0; i < vm->nr_streams; i++)
		if (vm->streams[i].cpu >= 0 && (size_t)vm->streams[i].cpu >= n &&
		    vm->traces[vm->streams[i].trace].layer == HVT_LAYER_KERNEL)
			n = (size_t)vm->streams[i].cpu + 1;
	return n;
}

int hvt_run_constraints_fit(struct hvt_vm_clock *clock, const struct hvt_vm_info *vm,
			    const struct hvt_ctf_types *types, const struct hvt_host_switches *hs,
			    const int32_t *tids, size_t nr, bool kvm_windows,
			    const struct hvt_sync_point *points, size_t nr_points,
			    struct hvt_run_fit *r)
{
	struct hvt_vcpu_spans *spans;
	struct vcpu_runs *vcpus;
	size_t i;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	r->windows = kvm_windows;
	if (kvm_windows)
		nr = guest_vcpus(vm);
	spans = calloc(nr + 1, sizeof(*spans));
	vcpus = calloc(nr + 1, sizeof(*vcpus));
	if (!spans || !vcpus || (kvm_windows ? hvt_vcpu_spans_windows(hs, nr, spans) :
					       hvt_vcpu_spans_runs(hs, tids, nr, spans)))
		goto out;
	for (i = 0; i < nr; i++) {
		vcpus[i].hs = hs;
		vcpus[i].sp = &spans[i];
		if (spans[i].failed)
			goto out;
		vcpus[i].gmin = malloc((spans[i].n + 1) * sizeof(uint64_t));
		vcpus[i].gmax = malloc((spans[i].n + 1) * sizeof(uint64_t));
		if (!vcpus[i].gmin || !vcpus[i].gmax)
			goto out;
	}
	if (read_events(clock, vm, types, vcpus, nr, &r->candidates))
		goto out;
	while (r->rounds < HVT_RUN_ROUNDS &&
	       (ret = round_on(clock, vm, vcpus, nr, points, nr_points, r)) > 0)
		;
	if (ret >= 0 && r->samples) {
		long bad = held_out(clock, vm, vcpus, nr, points, nr_points, &r->held_out);

		if (bad) {	/* back to the exchanges alone */
			r->rejected = bad > 0 ? "runs held out of the fit contradict it" :
					       "the fit without half of the runs cannot be made";
			r->samples = r->events = r->rounds = 0;
			hvt_vm_clock_free(clock);
			ret = hvt_vm_clock_build(clock, vm->sync, vm->nr_sync, points, nr_points);
		}
	}
	ret = ret < 0 ? -1 : 0;
out:
	free_vcpus(vcpus, nr);
	hvt_vcpu_spans_free(spans, nr);
	return ret;
}
