// SPDX-License-Identifier: GPL-2.0-only
/*
 * top_screen.c - one screen of `hvtrace top` (top_screen.h).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tools/top/top_screen.h"

#define LINE_MAX_COLS	512

/* The lines of a screen, cut at its width; past its height, counted. */
struct screen {
	FILE *out;
	const struct hvt_top_view *v;
	int lines, cut;			/* written, and not written for lack of room */
	int reserve;			/* lines kept for what comes last (the streams) */
};

static bool room(const struct screen *s)
{
	return !s->v->height || s->lines < s->v->height - s->reserve;
}

static void line(struct screen *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void line(struct screen *s, const char *fmt, ...)
{
	char buf[LINE_MAX_COLS];
	va_list ap;
	int width = s->v->width > 0 && s->v->width < LINE_MAX_COLS ? s->v->width :
		    LINE_MAX_COLS - 1;

	if (!room(s)) {
		s->cut++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	buf[width] = 0;
	fprintf(s->out, "%s\n", buf);
	s->lines++;
}

const char *hvt_top_sort_name(enum hvt_top_sort sort)
{
	static const char *const names[HVT_TOP_NR_SORTS] = {
		[HVT_TOP_SORT_LOST] = "lost", [HVT_TOP_SORT_HOST] = "host",
		[HVT_TOP_SORT_GUEST] = "guest" };

	return sort < HVT_TOP_NR_SORTS ? names[sort] : "?";
}

static double ticks_s(const struct hvt_top_live *t, uint64_t ticks)
{
	const struct hvt_clock_pair *p = &t->ses->archive.pairs[0];

	return hvt_host_clock_ticks_us(&t->ses->clock, p->tsc, ticks) / 1e6;
}

/* "62.1%", or "-" where the whole is 0 or the part is none. */
static const char *share(char *buf, size_t len, uint64_t part, uint64_t whole)
{
	if (!whole || !part)
		return "-";
	snprintf(buf, len, "%.1f%%", 100.0 * (double)part / (double)whole);
	return buf;
}

static void head(struct screen *s, struct hvt_top_live *t)
{
	const struct hvt_session *ses = t->ses;
	const struct hvt_follow *f = &t->f;
	double span = t->since_ns ? (double)(s->v->now_ns - t->since_ns) / 1e9 : 0;
	double behind = t->newest_tsc ? (double)(s->v->now_ns -
		hvt_host_clock_realtime(&t->ses->clock, t->newest_tsc)) / 1e9 : 0;
	const char *state = f->complete ? "complete" : f->ended ? "ended, not complete" :
			    "recording";

	if (t->whole)	/* no interval, nothing behind: all of it */
		line(s, "hvtrace top: complete, shown whole: %.1f s of trace%s: %s",
		     ticks_s(t, hvt_top_live_span(t)), s->v->paused ? ", PAUSED" : "",
		     ses->archive.root);
	else
		line(s, "hvtrace top: %s, %.1f s behind, interval %.1f s%s: %s", state, behind,
		     span, s->v->paused ? ", PAUSED" : "", ses->archive.root);
	if (s->v->keys)
		line(s, "q quit%s  p pause  v VM: %s  s sort threads: %s",
		     f->complete || f->ended ? " (the recording is over)" : "",
		     s->v->vm == HVT_TOP_ALL_VMS ? "all" : ses->archive.vms[s->v->vm].name,
		     hvt_top_sort_name(s->v->sort));
	if (!t->analysing)
		line(s, "waiting for the VMs' first clock exchanges and kernel streams");
}

/* The VM's clock, in words: exact, the latest guest event's bound, or not placed. */
static void clock_text(const struct hvt_top_live *t, size_t i, const struct hvt_top_vm *vm,
		       char *buf, size_t len)
{
	const struct hvt_session_vm *st = &t->ses->vms[i];

	if (st->al.exact)
		snprintf(buf, len, "clock exact (KVM)");
	else if (!st->al.aligned)
		snprintf(buf, len, "clock not placed yet");
	else if (vm->guest_events)
		snprintf(buf, len, "clock +/-%.3f us", ticks_s(t, vm->bound) * 1e6);
	else
		snprintf(buf, len, "clock placed, no guest event this interval");
}

/* The host task that took the most from vCPU @v, or NULL. */
static const struct hvt_top_entry *top_taker(const struct hvt_top_vm *vm, int32_t v)
{
	size_t i;

	for (i = 0; i < vm->takers.n; i++)	/* sorted: the first is the largest */
		if (vm->takers.v[i].a == v)
			return &vm->takers.v[i];
	return NULL;
}

static void vcpu_rows(struct screen *s, const struct hvt_top_vm *vm, double span)
{
	static const enum hvt_vcpu_state cols[] = { HVT_VCPU_GUEST, HVT_VCPU_IDLE,
		HVT_VCPU_HYPERVISOR, HVT_VCPU_PREEMPTED, HVT_VCPU_BLOCKED, HVT_VCPU_UNKNOWN };
	char b[6][16], took[64];
	size_t v, k;

	line(s, " vCPU  guest   idle    kvm  preempt blocked unknown  exits/s  took most");
	for (v = 0; v < vm->nr_vcpus; v++) {
		const struct hvt_top_vcpu *c = &vm->vcpus[v];
		const struct hvt_top_entry *e = top_taker(vm, (int32_t)v);
		uint64_t whole = 0;
		char exits[16] = "-";

		for (k = 0; k < HVT_NR_VCPU_STATES; k++)
			whole += c->ticks[k];
		if (c->exits && span > 0)
			snprintf(exits, sizeof(exits), "%.0f", (double)c->exits / span);
		if (e)
			snprintf(took, sizeof(took), "%s-%d %s", e->b_name, e->b,
				 share(b[5], sizeof(b[5]), e->ticks, whole));
		else
			snprintf(took, sizeof(took), "-");
		line(s, " %4zu %6s %6s %6s %8s %7s %7s %8s  %s", v,
		     share(b[0], sizeof(b[0]), c->ticks[cols[0]], whole),
		     share(b[1], sizeof(b[1]), c->ticks[cols[1]], whole),
		     share(b[2], sizeof(b[2]), c->ticks[cols[2]], whole),
		     share(b[3], sizeof(b[3]), c->ticks[cols[3]], whole),
		     share(b[4], sizeof(b[4]), c->ticks[cols[4]], whole),
		     share(b[5], sizeof(b[5]), c->ticks[cols[5]], whole), exits, took);
	}
}

/* The host tasks that took the most from the VM's vCPUs, over all its vCPUs. */
static void taker_rows(struct screen *s, const struct hvt_top_live *t, const struct hvt_top_vm *vm)
{
	struct hvt_top_table *sum = calloc(1, sizeof(*sum));
	size_t i;
	int shown = 0;

	if (!sum)
		return;
	for (i = 0; i < vm->takers.n; i++)
		hvt_top_table_add(sum, vm->takers.v[i].b, 0, vm->takers.v[i].b_name,
				  vm->takers.v[i].ticks);
	hvt_top_table_sort(sum);
	if (sum->n)
		line(s, " host tasks that took most from its vCPUs (preempting, or next after "
		     "a block)");
	for (i = 0; i < sum->n && shown < s->v->rows; i++, shown++) {
		char vcpus[64] = "";
		size_t k, len = 0;

		for (k = 0; k < vm->takers.n && len + 12 < sizeof(vcpus); k++)
			if (vm->takers.v[k].b == sum->v[i].a)
				len += (size_t)snprintf(vcpus + len, sizeof(vcpus) - len, "%s%d",
							len ? "," : "vCPU ", vm->takers.v[k].a);
		char who[40];

		snprintf(who, sizeof(who), "%s-%d", sum->v[i].b_name, sum->v[i].a);
		line(s, "   %-24s %8.3f s  %s", who, ticks_s(t, sum->v[i].ticks), vcpus);
	}
	if (sum->n > (size_t)shown)
		line(s, "   ... %zu more", sum->n - (size_t)shown);
	free(sum);
}

static void exit_rows(struct screen *s, const struct hvt_top_vm *vm, double span)
{
	char buf[256];
	size_t i, len = 0;

	if (!vm->exits.n)
		return;
	for (i = 0; i < vm->exits.n && i < 6 && len + 32 < sizeof(buf); i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%sreason %d %.0f/s",
					i ? ", " : "", vm->exits.v[i].a,
					span > 0 ? (double)vm->exits.v[i].count / span : 0.0);
	line(s, " KVM exits by reason: %s%s", buf, vm->exits.n > 6 ? ", ..." : "");
}

/* A guest thread's totals in the interval, from its rows (a: tid). */
struct thread_sum {
	int32_t tid;
	uint64_t ran, host, guest, kvm, top;	/* top: the largest host cause's */
	const struct hvt_top_entry *cause;
};

static uint64_t sort_key(const struct thread_sum *x, enum hvt_top_sort sort)
{
	switch (sort) {
	case HVT_TOP_SORT_HOST:
		return x->host;
	case HVT_TOP_SORT_GUEST:
		return x->guest;
	default:
		return x->host + x->guest + x->kvm;
	}
}

/* qsort_r()'s order: @by points to the hvt_top_sort, most first. */
static int by_key(const void *a, const void *b, void *by)
{
	enum hvt_top_sort sort = *(const enum hvt_top_sort *)by;
	uint64_t x = sort_key(a, sort), y = sort_key(b, sort);

	return x != y ? (x > y ? -1 : 1) : 0;
}

static void add_row(struct thread_sum *x, const struct hvt_top_entry *e)
{
	switch (e->b) {
	case HVT_TOP_RAN:
		x->ran += e->ticks;
		break;
	case HVT_TOP_RUNNABLE:
		x->guest += e->ticks;
		break;
	case HVT_TOP_HYPERVISOR:
		x->kvm += e->ticks;
		break;
	default:
		x->host += e->ticks;
		if (e->b >= 0 && e->ticks > x->top) {
			x->top = e->ticks;
			x->cause = e;
		}
	}
}

/* Guest thread @tid's name, from its analysis (its threads by tid). */
static const char *thread_name(const struct hvt_vm_analysis *a, int32_t tid)
{
	size_t i;

	for (i = 0; i < a->cap_threads; i++)
		if (a->threads[i].tid == tid)
			return a->threads[i].comm[0] ? a->threads[i].comm : "?";
	return "?";
}

static void thread_rows(struct screen *s, const struct hvt_top_live *t, const struct hvt_top_vm *vm)
{
	struct thread_sum *x = calloc(vm->threads.n + 1, sizeof(*x));
	size_t i, k, n = 0;
	int shown = 0;

	if (!x)
		return;
	for (i = 0; i < vm->threads.n; i++) {
		for (k = 0; k < n && x[k].tid != vm->threads.v[i].a; k++)
			;
		if (k == n)
			x[n++].tid = vm->threads.v[i].a;
		add_row(&x[k], &vm->threads.v[i]);
	}
	qsort_r(x, n, sizeof(*x), by_key, (void *)&s->v->sort);
	while (n && !sort_key(&x[n - 1], s->v->sort))
		n--;	/* lost nothing by this measure */
	if (n)
		line(s, " guest threads that lost most (by %s)   host s   kvm s guest s  "
		     "top host task", hvt_top_sort_name(s->v->sort));
	for (i = 0; i < n && shown < s->v->rows; i++, shown++) {
		char cause[48] = "", who[40], kvm[16];

		if (x[i].cause)
			snprintf(cause, sizeof(cause), "%s-%d %.3f s", x[i].cause->b_name,
				 x[i].cause->b, ticks_s(t, x[i].cause->ticks));
		snprintf(who, sizeof(who), "%s-%d", thread_name(vm->a, x[i].tid), x[i].tid);
		if (vm->a->hypervisor_seen)
			snprintf(kvm, sizeof(kvm), "%.3f", ticks_s(t, x[i].kvm));
		else	/* TCG, or no kvm_exit: not measured, as in the vCPU rows */
			snprintf(kvm, sizeof(kvm), "-");
		line(s, "   %-24s %7.3f %7s %7.3f  %s", who, ticks_s(t, x[i].host), kvm,
		     ticks_s(t, x[i].guest), cause);
	}
	if (n > (size_t)shown)
		line(s, "   ... %zu more", n - (size_t)shown);
	free(x);
}

static void vm_block(struct screen *s, struct hvt_top_live *t, size_t i, double span)
{
	struct hvt_top_vm *vm = &t->vms[i];
	char clock[96];

	if (!vm->a) {
		line(s, "VM %s: not analysed%s%s", t->ses->archive.vms[i].name,
		     t->analysing ? ": " : "", t->analysing ? t->va.why[i] : " yet");
		return;
	}
	hvt_top_table_sort(&vm->takers);
	hvt_top_table_sort(&vm->exits);
	clock_text(t, i, vm, clock, sizeof(clock));
	line(s, "VM %s (%s): %s", t->ses->archive.vms[i].name,
	     t->ses->vms[i].vm.kvm ? "kvm" : "tcg", clock);
	vcpu_rows(s, vm, span);
	exit_rows(s, vm, span);
	taker_rows(s, t, vm);
	thread_rows(s, t, vm);
	if (vm->takers.dropped || vm->threads.dropped || vm->exits.dropped)
		line(s, " (pieces beyond %d per table not shown: %" PRIu64 ")", HVT_TOP_MAX_ENTRIES,
		     vm->takers.dropped + vm->threads.dropped + vm->exits.dropped);
}

/* Events per second and losses, per layer and VM: the host, each VM's kernel, user. */
static void stream_rows(struct screen *s, const struct hvt_top_live *t, double span)
{
	const struct hvt_session *ses = t->ses;
	size_t m, i;

	for (m = 0; m <= ses->archive.nr_vms; m++) {
		uint64_t ev[HVT_NR_LAYERS] = { 0 }, lost[HVT_NR_LAYERS] = { 0 };
		size_t n[HVT_NR_LAYERS] = { 0 };
		char buf[256];
		size_t len = 0, l;

		for (i = 0; i < ses->nr_sources; i++) {
			const struct hvt_source *src = ses->sources[i];
			uint64_t e, x;

			if (src->vm_number != m || !hvt_source_merged(src))
				continue;
			hvt_top_live_stream(t, i, &e, &x);
			ev[src->layer] += e;
			lost[src->layer] += x;
			n[src->layer]++;
		}
		for (l = 0; l < HVT_NR_LAYERS && len + 64 < sizeof(buf); l++)
			if (n[l])
				len += (size_t)snprintf(buf + len, sizeof(buf) - len,
					"%s%s %zu stream%s %.0f ev/s, lost %" PRIu64, len ? "; " : "",
					hvt_layer_name((enum hvt_layer)l), n[l], n[l] == 1 ? "" : "s",
					span > 0 ? (double)ev[l] / span : 0.0, lost[l]);
		if (len)
			line(s, "%s %s: %s", m ? "streams of VM" : "streams of the",
			     m ? ses->archive.vms[m - 1].name : "host", buf);
	}
}

void hvt_top_screen(FILE *out, struct hvt_top_live *t, const struct hvt_top_view *v)
{
	struct screen s = { .out = out, .v = v };
	/* the rates' time: the interval's, or the trace's when shown whole */
	double span = t->whole ? ticks_s(t, hvt_top_live_span(t)) :
		      (double)(v->now_ns - t->since_ns) / 1e9;
	size_t i;

	s.reserve = (int)t->ses->archive.nr_vms + 2;	/* the streams, and the cut */
	head(&s, t);
	for (i = 0; i < t->ses->archive.nr_vms; i++)
		if (v->vm == HVT_TOP_ALL_VMS || v->vm == i)
			vm_block(&s, t, i, span);
	s.reserve = 1;
	stream_rows(&s, t, span);
	s.reserve = 0;
	if (s.cut)
		line(&s, "(%d more lines: a taller terminal, or 'v' for one VM, shows them)",
		     s.cut);
}
