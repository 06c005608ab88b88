// SPDX-License-Identifier: GPL-2.0-only
/*
 * io_flows.c - guest block requests followed through QEMU and back
 * (io_flows.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/model/io_flows.h"

#define NO_BOUND	(INT64_MAX / 4)

static const char *const stage_names[HVT_IO_NR_STAGES][2] = {
	[HVT_IO_TO_HOST] = { "guest issue -> QEMU pickup", "to_host" },
	[HVT_IO_HOST_SERVICE] = { "host service (QEMU pickup -> done)", "host_service" },
	[HVT_IO_BACKEND] = { "  of which the backend's I/O", "backend" },
	[HVT_IO_QEMU_OWN] = { "  of which QEMU's own", "qemu_own" },
	[HVT_IO_TO_NOTIFY] = { "QEMU done -> interrupt sent", "to_notify" },
	[HVT_IO_TO_GUEST] = { "interrupt -> guest completion", "to_guest" },
	[HVT_IO_TO_KVM] = { "  of which QEMU -> KVM raises it", "to_kvm" },
	[HVT_IO_TO_VCPU] = { "  of which KVM -> injected in vCPU", "to_vcpu" },
	[HVT_IO_IN_GUEST] = { "  of which injected -> completion", "in_guest" },
	[HVT_IO_TO_WAKEUP] = { "guest completion -> wakeup", "to_wakeup" },
	[HVT_IO_TO_RUN] = { "wakeup -> thread runs", "to_run" },
	[HVT_IO_LATENCY] = { "request (issue -> completion)", "latency" },
	[HVT_IO_THREAD_WAIT] = { "thread's wait (issue -> runs)", "thread_wait" },
};

static const char *const point_names[HVT_IO_NR_POINTS] = {
	[HVT_IO_ISSUE] = "block_rq_issue", [HVT_IO_PICKUP] = "virtio_blk_handle",
	[HVT_IO_SUBMIT] = "thread_pool_submit", [HVT_IO_BACKEND_DONE] = "thread_pool_complete",
	[HVT_IO_REQ_DONE] = "virtio_blk_req_complete", [HVT_IO_NOTIFY] = "virtio_notify",
	[HVT_IO_IRQ] = "kvm_msi_set_irq", [HVT_IO_INJECT] = "kvm_inj_virq",
	[HVT_IO_COMPLETE] = "block_rq_complete", [HVT_IO_WAKEUP] = "sched_wakeup",
	[HVT_IO_RUN] = "sched_switch",
};

static const char *const outcome_names[HVT_IO_NR_OUTCOMES] = {
	[HVT_IO_LINKED] = "linked end to end",
	[HVT_IO_AMBIGUOUS] = "linked, ambiguous (the same sector and size in flight twice)",
	[HVT_IO_NO_QEMU] = "completed, never taken up in QEMU's log",
	[HVT_IO_QEMU_CUT] = "taken up by QEMU, its log does not hand it back",
	[HVT_IO_UNCOMPLETED] = "not completed before the trace ended",
	[HVT_IO_GIVEN_UP] = "given up in flight: too many at once",
};

const char *hvt_io_stage_name(enum hvt_io_stage s) { return stage_names[s][0]; }
const char *hvt_io_stage_key(enum hvt_io_stage s) { return stage_names[s][1]; }
const char *hvt_io_point_name(enum hvt_io_point p) { return point_names[p]; }
const char *hvt_io_outcome_name(enum hvt_io_outcome o) { return outcome_names[o]; }

int hvt_io_flows_init(struct hvt_io_flows *f, struct hvt_session *ses)
{
	double hz = ses->archive.tsc_freq_hz > 0 ? (double)ses->archive.tsc_freq_hz : 1e9;

	memset(f, 0, sizeof(*f));
	f->ses = ses;
	f->vms = calloc(ses->archive.nr_vms + 1, sizeof(*f->vms));
	if (!f->vms)
		return -1;
	f->ns_per_tick = 1e9 / hz;
	f->to = UINT64_MAX;
	f->keep_slowest = HVT_IO_SLOWEST;
	f->grace = (uint64_t)(hz * (HVT_IO_GRACE_NS / 1e9));
	f->claim = (uint64_t)(hz * (HVT_IO_CLAIM_NS / 1e9));
	return 0;
}

void hvt_io_figures_free(struct hvt_io_figures *fig)
{
	hvt_span_hist_free(&fig->d);
	hvt_span_hist_free(&fig->lo);
	hvt_span_hist_free(&fig->hi);
	free(fig->exact);
	memset(fig, 0, sizeof(*fig));
}

void hvt_io_flows_free(struct hvt_io_flows *f)
{
	size_t v, d, s;

	for (v = 0; f->vms && v < f->ses->archive.nr_vms; v++) {
		struct hvt_io_vm *vm = &f->vms[v];

		for (d = 0; d < vm->nr_disks; d++) {
			for (s = 0; s < HVT_IO_NR_STAGES; s++)
				hvt_io_figures_free(&vm->disks[d].stage[s]);
			free(vm->disks[d].slowest);
			free(vm->disks[d].slowness);
		}
		free(vm->disks);
		free(vm->flight);
	}
	free(f->vms);
	memset(f, 0, sizeof(*f));
}

/* The stage's two points. */
static const enum hvt_io_point stage_ends[HVT_IO_NR_STAGES][2] = {
	[HVT_IO_TO_HOST] = { HVT_IO_ISSUE, HVT_IO_PICKUP },
	[HVT_IO_HOST_SERVICE] = { HVT_IO_PICKUP, HVT_IO_REQ_DONE },
	[HVT_IO_BACKEND] = { HVT_IO_SUBMIT, HVT_IO_BACKEND_DONE },
	[HVT_IO_QEMU_OWN] = { HVT_IO_PICKUP, HVT_IO_REQ_DONE },	/* less the backend */
	[HVT_IO_TO_NOTIFY] = { HVT_IO_REQ_DONE, HVT_IO_NOTIFY },
	[HVT_IO_TO_GUEST] = { HVT_IO_NOTIFY, HVT_IO_COMPLETE },	/* REQ_DONE if no NOTIFY */
	[HVT_IO_TO_KVM] = { HVT_IO_NOTIFY, HVT_IO_IRQ },
	[HVT_IO_TO_VCPU] = { HVT_IO_IRQ, HVT_IO_INJECT },
	[HVT_IO_IN_GUEST] = { HVT_IO_INJECT, HVT_IO_COMPLETE },
	[HVT_IO_TO_WAKEUP] = { HVT_IO_COMPLETE, HVT_IO_WAKEUP },
	[HVT_IO_TO_RUN] = { HVT_IO_WAKEUP, HVT_IO_RUN },
	[HVT_IO_LATENCY] = { HVT_IO_ISSUE, HVT_IO_COMPLETE },
	[HVT_IO_THREAD_WAIT] = { HVT_IO_ISSUE, HVT_IO_RUN },
};

double hvt_io_step_bound(const struct hvt_io_mark *a, const struct hvt_io_mark *b)
{
	if (a->qemu == b->qemu && a->host == b->host)	/* one clock: its resolution */
		return a->qemu ? 1000 : 0;
	return (double)a->bound_ns + (double)b->bound_ns;
}

/* From mark @a to mark @b, in ns, and its bound. */
static void span(const struct hvt_io_flows *f, const struct hvt_io_mark *a,
		 const struct hvt_io_mark *b, double *ns, double *bound)
{
	*ns = b->ts >= a->ts ? (double)(b->ts - a->ts) * f->ns_per_tick :
		-(double)(a->ts - b->ts) * f->ns_per_tick;
	*bound = hvt_io_step_bound(a, b);
}

enum hvt_io_point hvt_io_stage_start(const struct hvt_io_request *r, enum hvt_io_stage s)
{
	if (s == HVT_IO_TO_GUEST && !r->at[HVT_IO_NOTIFY].set)
		return HVT_IO_REQ_DONE;
	return stage_ends[s][0];
}

bool hvt_io_stage_of(const struct hvt_io_flows *f, const struct hvt_io_request *r,
		     enum hvt_io_stage s, double *ns, double *bound_ns)
{
	enum hvt_io_point a = hvt_io_stage_start(r, s), b = stage_ends[s][1];

	if (!r->at[a].set || !r->at[b].set)
		return false;
	span(f, &r->at[a], &r->at[b], ns, bound_ns);
	if (s == HVT_IO_QEMU_OWN) {
		double backend, unused;

		if (!hvt_io_stage_of(f, r, HVT_IO_BACKEND, &backend, &unused))
			return false;
		*ns -= backend;
		*bound_ns = 2000;	/* four stamps of QEMU's, each to the microsecond */
	}
	return true;
}

/* @ns rounded to an integer, within +/-9e18 (absurd times stay defined). */
static int64_t whole_ns(double ns)
{
	return ns < -9e18 ? (int64_t)-9e18 : ns > 9e18 ? (int64_t)9e18 : llround(ns);
}

static int hists_add(struct hvt_io_figures *fig, const int64_t x[3])
{
	return hvt_span_hist_add(&fig->d, x[0]) | hvt_span_hist_add(&fig->lo, x[1]) |
	       hvt_span_hist_add(&fig->hi, x[2]);
}

/* Past HVT_IO_EXACT: the exact figures into the histograms, which take the rest. */
static int go_coarse(struct hvt_io_figures *fig)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < fig->n; i++)
		ret |= hists_add(fig, &fig->exact[3 * i]);
	free(fig->exact);
	fig->exact = NULL;
	fig->cap_exact = 0;
	fig->coarse = true;
	return ret;
}

/* Room for one more exact figure; -1 if out of memory. */
static int exact_room(struct hvt_io_figures *fig)
{
	size_t cap = fig->cap_exact ? 2 * fig->cap_exact : 16;
	int64_t *grown;

	if (fig->n < fig->cap_exact)
		return 0;
	if (cap > HVT_IO_EXACT)
		cap = HVT_IO_EXACT;
	grown = realloc(fig->exact, 3 * cap * sizeof(*grown));
	if (!grown)
		return -1;
	fig->exact = grown;
	fig->cap_exact = cap;
	return 0;
}

int hvt_io_figures_add(struct hvt_io_figures *fig, double ns, double bound_ns)
{
	const int64_t x[3] = { whole_ns(ns), whole_ns(floor(ns - bound_ns)),
			       whole_ns(ceil(ns + bound_ns)) };
	int ret;

	if (!fig->coarse && fig->n == HVT_IO_EXACT && go_coarse(fig))
		return -1;
	if (fig->coarse) {
		ret = hists_add(fig, x);
	} else {
		ret = exact_room(fig);
		if (!ret)
			memcpy(&fig->exact[3 * fig->n], x, sizeof(x));
	}
	if (!ret)
		fig->n++;
	return ret ? -1 : 0;
}

static int by_value(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Rank @k of the exact figures: the duration's, the least low's and the greatest high's. */
static int exact_rank(const struct hvt_io_figures *fig, uint64_t k, int64_t *d, int64_t *lo,
		      int64_t *hi)
{
	size_t n = fig->n, i, c;
	int64_t *col = malloc(3 * n * sizeof(*col));

	if (!col)
		return -1;
	for (c = 0; c < 3; c++) {	/* each column sorted on its own */
		for (i = 0; i < n; i++)
			col[c * n + i] = fig->exact[3 * i + c];
		qsort(&col[c * n], n, sizeof(*col), by_value);
	}
	*d = col[k];
	*lo = col[n + k];
	*hi = col[2 * n + k];
	free(col);
	return 0;
}

void hvt_io_percentile(const struct hvt_io_figures *fig, double pct, double *v, double *pm)
{
	int64_t a, b, lo, unused, hi;
	uint64_t k, n = fig->n;

	*v = *pm = 0;
	if (!n || (fig->coarse && (fig->d.n != n || fig->lo.n != n || fig->hi.n != n)))
		return;
	k = (uint64_t)ceil(pct / 100.0 * (double)n);
	k = k ? k - 1 : 0;
	if (k >= n)
		k = n - 1;
	if (!fig->coarse) {
		if (exact_rank(fig, k, &a, &lo, &hi))
			return;
		b = a;
	} else {
		hvt_span_hist_rank(&fig->d, k, &a, &b);
		hvt_span_hist_rank(&fig->lo, k, &lo, &unused);
		hvt_span_hist_rank(&fig->hi, k, &unused, &hi);
	}
	*v = ((double)a + (double)b) / 2;
	*pm = *v - (double)lo > (double)hi - *v ? *v - (double)lo : (double)hi - *v;
}

static struct hvt_io_disk *disk_of(struct hvt_io_flows *f, struct hvt_io_vm *vm, uint32_t dev)
{
	struct hvt_io_disk *n;
	size_t i;

	for (i = 0; i < vm->nr_disks; i++)
		if (vm->disks[i].dev == dev)
			return &vm->disks[i];
	if (vm->nr_disks == HVT_IO_MAX_DISKS)
		return NULL;		/* a guest naming disks without end */
	if (vm->nr_disks == vm->cap_disks) {
		size_t cap = vm->cap_disks ? 2 * vm->cap_disks : 4;

		n = realloc(vm->disks, cap * sizeof(*n));
		if (!n) {
			f->failed = true;
			return NULL;
		}
		vm->disks = n;
		vm->cap_disks = cap;
	}
	n = &vm->disks[vm->nr_disks++];
	memset(n, 0, sizeof(*n));
	n->dev = dev;
	return n;
}

/* Cause @a, effect @b, in different clocks: judged for io-causal. */
static void causal_pair(struct hvt_io_flows *f, struct hvt_io_vm *vm,
			const struct hvt_io_request *r, enum hvt_io_point a, enum hvt_io_point b)
{
	struct hvt_io_causal *c = &vm->causal;
	double ns, bound;
	int64_t margin;

	if (!r->at[a].set || !r->at[b].set || r->at[a].bound_ns >= NO_BOUND ||
	    r->at[b].bound_ns >= NO_BOUND)
		return;
	span(f, &r->at[a], &r->at[b], &ns, &bound);
	margin = whole_ns(ns + bound);
	if (!c->pairs++ || margin < c->tightest_ns)
		c->tightest_ns = margin;
	if (margin < 0 && !c->late++) {
		c->first_late = *r;
		c->late_cause = a;
		c->late_effect = b;
	}
}

/* The figure a request is ranked by: the thread's wait, else the request's latency. */
static double slowness(const struct hvt_io_flows *f, const struct hvt_io_request *r)
{
	double ns, bound;

	if (hvt_io_stage_of(f, r, HVT_IO_THREAD_WAIT, &ns, &bound) ||
	    hvt_io_stage_of(f, r, HVT_IO_LATENCY, &ns, &bound))
		return ns;
	return -1;
}

static void slow_swap(struct hvt_io_disk *d, size_t i, size_t j)
{
	struct hvt_io_request r = d->slowest[i];
	double s = d->slowness[i];

	d->slowest[i] = d->slowest[j];
	d->slowness[i] = d->slowness[j];
	d->slowest[j] = r;
	d->slowness[j] = s;
}

/* The heap of the slowest kept: each no slower than its children. */
static void slow_sift_up(struct hvt_io_disk *d, size_t i)
{
	while (i && d->slowness[(i - 1) / 2] > d->slowness[i]) {
		slow_swap(d, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void slow_sift_down(struct hvt_io_disk *d, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < d->nr_slowest && d->slowness[l] < d->slowness[m])
			m = l;
		if (r < d->nr_slowest && d->slowness[r] < d->slowness[m])
			m = r;
		if (m == i)
			return;
		slow_swap(d, i, m);
		i = m;
	}
}

/* Room for one more of the slowest (they grow as they come); false if out of memory. */
static bool slow_room(struct hvt_io_disk *d, size_t keep)
{
	size_t cap = d->cap_slowest ? 2 * d->cap_slowest : 8;
	struct hvt_io_request *r;
	double *s;

	if (d->nr_slowest < d->cap_slowest)
		return true;
	if (cap > keep)
		cap = keep;
	r = realloc(d->slowest, cap * sizeof(*r));
	if (r)
		d->slowest = r;
	s = r ? realloc(d->slowness, cap * sizeof(*s)) : NULL;
	if (!s)
		return false;
	d->slowness = s;
	d->cap_slowest = cap;
	return true;
}

/*
 * Kept if among the f->keep_slowest slowest so far (one as slow as the
 * least kept, when they are all there, is not: the first come stay).
 */
static void keep_if_slow(struct hvt_io_flows *f, struct hvt_io_disk *d,
			 const struct hvt_io_request *r)
{
	size_t keep = f->keep_slowest < HVT_IO_SLOWEST_MAX ? f->keep_slowest : HVT_IO_SLOWEST_MAX;
	double s = slowness(f, r);

	if (d->nr_slowest < keep) {
		if (!slow_room(d, keep)) {
			f->failed = true;
			return;
		}
		d->slowest[d->nr_slowest] = *r;
		d->slowness[d->nr_slowest] = s;
		slow_sift_up(d, d->nr_slowest++);
	} else if (keep && s > d->slowness[0]) {
		d->slowest[0] = *r;
		d->slowness[0] = s;
		slow_sift_down(d, 0);
	}
}

/* qsort_r()'s order of the kept: slowest first, then the one issued first. */
static int by_slowness(const void *x, const void *y, void *disk)
{
	const struct hvt_io_disk *d = disk;
	size_t i = (size_t)(*(const struct hvt_io_request *const *)x - d->slowest);
	size_t j = (size_t)(*(const struct hvt_io_request *const *)y - d->slowest);
	uint64_t ti = d->slowest[i].at[HVT_IO_ISSUE].ts, tj = d->slowest[j].at[HVT_IO_ISSUE].ts;

	if (d->slowness[i] != d->slowness[j])
		return d->slowness[i] > d->slowness[j] ? -1 : 1;
	return (ti > tj) - (ti < tj);
}

void hvt_io_slowest_sorted(const struct hvt_io_disk *d, const struct hvt_io_request **out)
{
	size_t i;

	for (i = 0; i < d->nr_slowest; i++)
		out[i] = &d->slowest[i];
	qsort_r(out, d->nr_slowest, sizeof(*out), by_slowness, (void *)d);
}

enum hvt_io_outcome hvt_io_outcome_of(const struct hvt_io_request *r)
{
	if (r->given_up)
		return HVT_IO_GIVEN_UP;
	if (!r->at[HVT_IO_COMPLETE].set)
		return HVT_IO_UNCOMPLETED;
	if (!r->at[HVT_IO_PICKUP].set)
		return HVT_IO_NO_QEMU;
	if (!r->at[HVT_IO_REQ_DONE].set)
		return HVT_IO_QEMU_CUT;
	return r->ambiguous ? HVT_IO_AMBIGUOUS : HVT_IO_LINKED;
}

/* Request @r of VM @v is finished: counted, its figures kept. */
static void settle(struct hvt_io_flows *f, size_t v, const struct hvt_io_request *r)
{
	struct hvt_io_vm *vm = &f->vms[v];
	enum hvt_io_outcome o;
	struct hvt_io_disk *d;
	unsigned int s;

	if (!r->at[HVT_IO_ISSUE].set) {
		vm->orphan_qemu++;
		return;
	}
	if (r->at[HVT_IO_ISSUE].ts < f->from || r->at[HVT_IO_ISSUE].ts >= f->to)
		return;		/* issued outside the time asked for */
	if (!(d = disk_of(f, vm, r->dev))) {
		vm->disks_over++;
		return;
	}
	o = hvt_io_outcome_of(r);
	d->outcomes[o]++;
	if (o == HVT_IO_LINKED || o == HVT_IO_AMBIGUOUS) {
		for (s = 0; s < HVT_IO_NR_STAGES; s++) {
			double ns, bound;

			if (!hvt_io_stage_of(f, r, s, &ns, &bound))
				continue;
			if (ns < -bound)
				d->negative[s]++;
			if (hvt_io_figures_add(&d->stage[s], ns, bound))
				f->failed = true;
		}
		keep_if_slow(f, d, r);
	}
	if (o == HVT_IO_LINKED) {
		causal_pair(f, vm, r, HVT_IO_ISSUE, HVT_IO_PICKUP);
		causal_pair(f, vm, r, r->at[HVT_IO_NOTIFY].set ? HVT_IO_NOTIFY : HVT_IO_REQ_DONE,
			    HVT_IO_COMPLETE);
		causal_pair(f, vm, r, HVT_IO_NOTIFY, HVT_IO_IRQ);	/* KVM's, if linked */
		causal_pair(f, vm, r, HVT_IO_INJECT, HVT_IO_COMPLETE);
	}
	if (f->done)
		f->done(f->done_ctx, f, v, d, r);
}

static void drop(struct hvt_io_vm *vm, size_t i)
{
	memmove(&vm->flight[i], &vm->flight[i + 1], (vm->nr_flight - i - 1) * sizeof(*vm->flight));
	vm->nr_flight--;
}

/* Whether nothing more can come to @r. */
static bool finished(const struct hvt_io_request *r)
{
	bool guest = r->at[HVT_IO_COMPLETE].set &&
		     (!r->blocked || r->no_wakeup || r->at[HVT_IO_RUN].set);

	return guest && r->at[HVT_IO_NOTIFY].set;
}

/*
 * Whether request @r can be settled at @now: finished; QEMU's alone, a
 * claim's time after QEMU took it up; completed, a grace after its last
 * point. A request in flight waits for its completion, however long.
 */
static bool ripe(const struct hvt_io_flows *f, const struct hvt_io_request *r, uint64_t now)
{
	uint64_t since, wait;

	if (finished(r))
		return true;
	if (!r->at[HVT_IO_ISSUE].set) {
		since = r->at[HVT_IO_PICKUP].ts;
		wait = f->claim;
	} else if (r->at[HVT_IO_COMPLETE].set) {
		since = r->last;
		wait = f->grace;
	} else {
		return false;
	}
	return now > since && now - since > wait;
}

/* Settles request @i if it is ripe at @now. */
static bool settle_if_done(struct hvt_io_flows *f, size_t v, size_t i, uint64_t now)
{
	struct hvt_io_vm *vm = &f->vms[v];
	struct hvt_io_request *r = &vm->flight[i];

	if (!ripe(f, r, now))
		return false;
	settle(f, v, r);
	drop(vm, i);
	return true;
}

/* Settles every request ripe at @now, the others kept in order: one pass. */
static void sweep(struct hvt_io_flows *f, size_t v, uint64_t now)
{
	struct hvt_io_vm *vm = &f->vms[v];
	size_t i, kept = 0;

	for (i = 0; i < vm->nr_flight; i++) {
		if (ripe(f, &vm->flight[i], now)) {
			settle(f, v, &vm->flight[i]);
			continue;
		}
		if (kept != i)
			vm->flight[kept] = vm->flight[i];
		kept++;
	}
	vm->nr_flight = kept;
}

/* A new request in flight for VM @v, or NULL (out of memory). */
static struct hvt_io_request *fly(struct hvt_io_flows *f, size_t v)
{
	struct hvt_io_vm *vm = &f->vms[v];

	if (vm->nr_flight == HVT_IO_MAX_INFLIGHT) {	/* a flood: the oldest eighth given up */
		size_t i, n = HVT_IO_MAX_INFLIGHT / 8;

		for (i = 0; i < n; i++) {
			vm->flight[i].given_up = true;
			settle(f, v, &vm->flight[i]);
		}
		vm->given_up += n;
		memmove(vm->flight, vm->flight + n, (vm->nr_flight - n) * sizeof(*vm->flight));
		vm->nr_flight -= n;
	}
	if (vm->nr_flight == vm->cap_flight) {
		size_t cap = vm->cap_flight ? 2 * vm->cap_flight : 64;
		struct hvt_io_request *n = realloc(vm->flight, cap * sizeof(*n));

		if (!n) {
			f->failed = true;
			return NULL;
		}
		vm->flight = n;
		vm->cap_flight = cap;
	}
	memset(&vm->flight[vm->nr_flight], 0, sizeof(*vm->flight));
	vm->flight[vm->nr_flight].irq_vector = vm->flight[vm->nr_flight].irq_apic = -1;
	return &vm->flight[vm->nr_flight++];
}

static int64_t bound_of(const struct hvt_io_flows *f, const struct hvt_source *s)
{
	return f->bound_of ? f->bound_of(f->ses, s) : hvt_session_event_bound_ns(f->ses, s);
}

static void set_mark(struct hvt_io_flows *f, struct hvt_io_request *r, enum hvt_io_point p,
		     const struct hvt_fed_event *e)
{
	struct hvt_io_mark *m = &r->at[p];
	const char *name;
	int64_t bound = bound_of(f, e->src);

	m->ts = e->ts;
	m->bound_ns = bound < 0 || bound > NO_BOUND ? NO_BOUND : bound;
	m->tid = e->tid;
	m->cpu = e->cpu;
	m->qemu = e->src->layer == HVT_LAYER_VMM;
	m->host = e->src->layer == HVT_LAYER_HOST;
	m->set = true;
	name = f->names ? hvt_thread_names_get(f->names, e->src) : NULL;
	snprintf(m->name, sizeof(m->name), "%s", name ? name : "");
	if (e->ts > r->last)
		r->last = e->ts;
}

/* The VM of @e (0: none known). */
static size_t vm_of(const struct hvt_io_flows *f, const struct hvt_fed_event *e)
{
	size_t v = e->src->layer == HVT_LAYER_VMM ? e->src->vmm_vm : e->src->vm_number;

	return v <= f->ses->archive.nr_vms ? v : 0;
}

/* 'R', 'W', or 0 for another kind of request (flush, discard, ...). */
static char rw_kind(const char *rwbs)
{
	return rwbs[0] == 'R' || rwbs[0] == 'W' ? rwbs[0] : 0;
}

/* Whether guest disk @dev and QEMU device @vdev may be one (no pair said otherwise). */
static bool same_disk(const struct hvt_io_vm *vm, uint32_t dev, uint64_t vdev)
{
	size_t i;

	for (i = 0; i < vm->nr_disks; i++) {
		if (vm->disks[i].dev == dev && vm->disks[i].vdev)
			return vm->disks[i].vdev == vdev;
		if (vm->disks[i].dev != dev && vm->disks[i].vdev == vdev)
			return false;
	}
	return true;
}

/* The guest disk @dev is QEMU's @vdev. */
static void bind_disk(struct hvt_io_flows *f, struct hvt_io_vm *vm, uint32_t dev, uint64_t vdev)
{
	struct hvt_io_disk *d = disk_of(f, vm, dev);

	if (d && !d->vdev)
		d->vdev = vdev;
}

/*
 * The oldest request in flight that @fits (with @a and @b), and whether
 * another fits too.
 */
static struct hvt_io_request *oldest(struct hvt_io_vm *vm,
				     bool (*fits)(const struct hvt_io_request *r, const void *a,
						  const void *b),
				     const void *a, const void *b, bool *more)
{
	struct hvt_io_request *found = NULL;
	size_t i;

	*more = false;
	for (i = 0; i < vm->nr_flight; i++) {
		if (!fits(&vm->flight[i], a, b))
			continue;
		if (found) {
			*more = true;
			break;
		}
		found = &vm->flight[i];
	}
	return found;
}

struct io_key {
	char kind;
	uint64_t sector;
	uint32_t nr_sector;
	uint32_t dev;
	uint64_t vdev, req;
	uint64_t ts, claim;		/* the event's host TSC; HVT_IO_CLAIM_NS in ticks */
};

/* A QEMU request no guest issue has claimed yet, of the key, on a device @vm allows. */
static bool unclaimed_fits(const struct hvt_io_request *r, const void *key, const void *vm)
{
	const struct io_key *k = key;

	return !r->at[HVT_IO_ISSUE].set && r->kind == k->kind && r->sector == k->sector &&
	       r->nr_sector == k->nr_sector && r->at[HVT_IO_PICKUP].ts + k->claim >= k->ts &&
	       same_disk(vm, k->dev, r->vdev);
}

static void guest_issue(struct hvt_io_flows *f, size_t v, const struct hvt_fed_event *e)
{
	struct hvt_io_vm *vm = &f->vms[v - 1];
	const struct hvt_block_rq *b = &e->ev.block;
	struct io_key k = { rw_kind(b->rwbs), b->sector, b->nr_sector, b->dev, 0, 0, e->ts,
			    f->claim };
	struct hvt_io_request *r;
	bool more;

	if (!k.kind || !b->nr_sector) {
		vm->not_rw++;
		return;
	}
	r = oldest(vm, unclaimed_fits, &k, vm, &more);
	if (r) {
		r->ambiguous = more;
		if (!more)	/* an ambiguous pair says nothing of which disk is which */
			bind_disk(f, vm, b->dev, r->vdev);
	} else if (!(r = fly(f, v - 1))) {
		return;
	}
	r->dev = b->dev;
	r->sector = b->sector;
	r->nr_sector = b->nr_sector;
	r->kind = k.kind;
	set_mark(f, r, HVT_IO_ISSUE, e);
}

/* A guest request issued, not yet taken up, of the key, on a disk that may be @vdev. */
static bool issued_fits(const struct hvt_io_request *r, const void *key, const void *vm)
{
	const struct io_key *k = key;

	return r->at[HVT_IO_ISSUE].set && !r->at[HVT_IO_PICKUP].set && r->kind == k->kind &&
	       r->sector == k->sector && r->nr_sector == k->nr_sector &&
	       (!r->at[HVT_IO_COMPLETE].set || r->at[HVT_IO_COMPLETE].ts + k->claim >= k->ts) &&
	       same_disk(vm, r->dev, k->vdev);
}

static void qemu_handle(struct hvt_io_flows *f, size_t v, const struct hvt_fed_event *e)
{
	struct hvt_io_vm *vm = &f->vms[v - 1];
	const struct hvt_qemu_io *q = &e->ev.qio;
	struct io_key k = { q->write ? 'W' : 'R', q->sector, q->nr_sector, 0, q->dev, q->req,
			    e->ts, f->claim };
	struct hvt_io_request *r;
	bool more;

	r = oldest(vm, issued_fits, &k, vm, &more);
	if (r) {
		r->ambiguous = more;
		if (!more)
			bind_disk(f, vm, r->dev, q->dev);
	} else {
		if (!(r = fly(f, v - 1)))
			return;
		r->kind = k.kind;
		r->sector = q->sector;
		r->nr_sector = q->nr_sector;
	}
	r->vdev = q->dev;
	r->qreq = q->req;
	set_mark(f, r, HVT_IO_PICKUP, e);
}

/* QEMU's request (vdev, req) taken up, not yet done. */
static bool qemu_req_fits(const struct hvt_io_request *r, const void *key, const void *unused)
{
	const struct io_key *k = key;

	(void)unused;
	return r->at[HVT_IO_PICKUP].set && !r->at[HVT_IO_REQ_DONE].set && r->vdev == k->vdev &&
	       r->qreq == k->req;
}

static void qemu_req_done(struct hvt_io_flows *f, size_t v, const struct hvt_fed_event *e)
{
	struct hvt_io_vm *vm = &f->vms[v - 1];
	struct io_key k = { 0, 0, 0, 0, e->ev.qio.dev, e->ev.qio.req, e->ts, f->claim };
	struct hvt_io_request *r;
	bool more;

	r = oldest(vm, qemu_req_fits, &k, NULL, &more);
	if (!r) {
		vm->unknown_qemu++;
		return;
	}
	set_mark(f, r, HVT_IO_REQ_DONE, e);
}

static void pool_submit(struct hvt_io_flows *f, size_t v, const struct hvt_fed_event *e)
{
	struct hvt_io_vm *vm = &f->vms[v - 1];
	struct hvt_io_request *r = NULL;
	size_t i;

	/* the oldest request QEMU's thread took up and has not submitted yet */
	for (i = 0; i < vm->nr_flight; i++) {
		struct hvt_io_request *c = &vm->flight[i];

		if (c->at[HVT_IO_PICKUP].set && c->at[HVT_IO_PICKUP].tid == e->tid &&
		    !c->at[HVT_IO_SUBMIT].set && !c->at[HVT_IO_REQ_DONE].set &&
		    c->at[HVT_IO_PICKUP].ts + f->claim >= e->ts &&
		    (!r || c->at[HVT_IO_PICKUP].ts < r->at[HVT_IO_PICKUP].ts))
			r = c;
	}
	if (!r)
		return;
	r->pool_req = e->ev.qio.req;
	set_mark(f, r, HVT_IO_SUBMIT, e);
}

static void pool_complete(struct hvt_io_flows *f, size_t v, const struct hvt_fed_event *e)
{
	struct hvt_io_vm *vm = &f->vms[v - 1];
	size_t i;

	for (i = 0; i < vm->nr_flight; i++) {
		struct hvt_io_request *r = &vm->flight[i];

		if (r->at[HVT_IO_SUBMIT].set && !r->at[HVT_IO_BACKEND_DONE].set &&
		    r->pool_req == e->ev.qio.req) {
			set_mark(f, r, HVT_IO_BACKEND_DONE, e);
			return;
		}
	}
}

static void qemu_notify(struct hvt_io_flows *f, size_t v, const struct hvt_fed_event *e)
{
	struct hvt_io_vm *vm = &f->vms[v - 1];
	int64_t notify_bound = bound_of(f, e->src);
	size_t i = 0;

	if (notify_bound < 0)
		notify_bound = NO_BOUND;
	while (i < vm->nr_flight) {
		struct hvt_io_request *r = &vm->flight[i];
		const struct hvt_io_mark *c = &r->at[HVT_IO_COMPLETE];
		double late = 0;

		/* a guest completion before it (beyond both bounds) had another interrupt */
		if (c->set && c->ts < e->ts)
			late = (double)(e->ts - c->ts) * f->ns_per_tick - (double)c->bound_ns -
			       (double)notify_bound;
		if (r->vdev == e->ev.qio.dev && r->at[HVT_IO_REQ_DONE].set &&
		    !r->at[HVT_IO_NOTIFY].set && late <= 0) {
			set_mark(f, r, HVT_IO_NOTIFY, e);
			if (settle_if_done(f, v - 1, i, e->ts))
				continue;
		}
		i++;
	}
}

/* A guest request issued, not completed, of the key (its disk, sector and kind). */
static bool completes(const struct hvt_io_request *r, const void *key, const void *unused)
{
	const struct io_key *k = key;

	(void)unused;
	return r->at[HVT_IO_ISSUE].set && !r->at[HVT_IO_COMPLETE].set && r->dev == k->dev &&
	       r->sector == k->sector && r->kind == k->kind;
}

static void guest_complete(struct hvt_io_flows *f, size_t v, const struct hvt_fed_event *e)
{
	struct hvt_io_vm *vm = &f->vms[v - 1];
	const struct hvt_block_rq *b = &e->ev.block;
	struct io_key k = { rw_kind(b->rwbs), b->sector, 0, b->dev, 0, 0, e->ts, f->claim };
	struct hvt_io_request *r;
	bool more;

	if (!k.kind)
		return;		/* not followed: counted at its issue */
	r = oldest(vm, completes, &k, NULL, &more);
	if (!r) {
		vm->orphan_completes++;
		return;
	}
	set_mark(f, r, HVT_IO_COMPLETE, e);
	settle_if_done(f, v - 1, (size_t)(r - vm->flight), e->ts);
}

/* RUN: the issuer, switched in (not the task the switch event is current of). */
static void run_mark(struct hvt_io_flows *f, struct hvt_io_request *r,
		     const struct hvt_fed_event *e)
{
	set_mark(f, r, HVT_IO_RUN, e);
	r->at[HVT_IO_RUN].tid = e->ev.sw.next;		/* the issuer, by its name then */
	memcpy(r->at[HVT_IO_RUN].name, r->at[HVT_IO_ISSUE].name, sizeof(r->at[HVT_IO_RUN].name));
}

static void guest_switch(struct hvt_io_flows *f, size_t v, const struct hvt_fed_event *e)
{
	struct hvt_io_vm *vm = &f->vms[v - 1];
	const struct hvt_sched_switch *sw = &e->ev.sw;
	size_t i = 0;

	while (i < vm->nr_flight) {
		struct hvt_io_request *r = &vm->flight[i];
		const struct hvt_io_mark *is = &r->at[HVT_IO_ISSUE];
		bool done = r->at[HVT_IO_COMPLETE].set;

		if (is->set && is->tid > 0 && is->tid == sw->prev && !sw->runnable && !done) {
			r->blocked = true;
		} else if (is->set && is->tid > 0 && is->tid == sw->next && r->blocked) {
			if (!done)
				r->blocked = false;	/* it ran before its request was done */
			else if (r->at[HVT_IO_WAKEUP].set && !r->at[HVT_IO_RUN].set)
				run_mark(f, r, e);
			else if (!r->at[HVT_IO_WAKEUP].set)
				r->no_wakeup = true;
			if (done && settle_if_done(f, v - 1, i, e->ts))
				continue;
		}
		i++;
	}
}

static void guest_wakeup(struct hvt_io_flows *f, size_t v, const struct hvt_fed_event *e)
{
	struct hvt_io_vm *vm = &f->vms[v - 1];
	size_t i;

	for (i = 0; i < vm->nr_flight; i++) {
		struct hvt_io_request *r = &vm->flight[i];

		const struct hvt_io_mark *c = &r->at[HVT_IO_COMPLETE];

		/* woken from the completion's own context: its CPU, its current task */
		if (r->at[HVT_IO_ISSUE].set && r->at[HVT_IO_ISSUE].tid == e->ev.wakeup.tid &&
		    c->set && c->cpu == e->cpu && c->tid == e->tid && r->blocked &&
		    !r->no_wakeup && !r->at[HVT_IO_WAKEUP].set && e->ts <= c->ts + f->claim)
			set_mark(f, r, HVT_IO_WAKEUP, e);
	}
}

/*
 * A host kvm_msi_set_irq or kvm_set_irq: the interrupt of the requests
 * whose NOTIFY its thread (QEMU's, writing the irqfd) made just before.
 */
static void kvm_raise(struct hvt_io_flows *f, const struct hvt_fed_event *e)
{
	size_t v, i;

	for (v = 0; v < f->ses->archive.nr_vms; v++)
		for (i = 0; i < f->vms[v].nr_flight; i++) {
			struct hvt_io_request *r = &f->vms[v].flight[i];
			const struct hvt_io_mark *n = &r->at[HVT_IO_NOTIFY];

			if (!n->set || r->at[HVT_IO_IRQ].set || n->tid != e->tid ||
			    n->ts > e->ts + f->claim || e->ts > n->ts + f->claim)
				continue;
			set_mark(f, r, HVT_IO_IRQ, e);
			f->vms[v].kvm_events++;
			if (e->ev.kind == HVT_EV_KVM_MSI) {	/* Intel's MSI format */
				r->irq_vector = (int32_t)(e->ev.irq.b & 0xff);
				r->irq_apic = (int32_t)((e->ev.irq.a >> 12) & 0xff);
			}
		}
}

/* A host kvm_apic_accept_irq: the vector and vCPU of a GSI raised just before by its thread. */
static void kvm_accept(struct hvt_io_flows *f, const struct hvt_fed_event *e)
{
	size_t v, i;

	for (v = 0; v < f->ses->archive.nr_vms; v++)
		for (i = 0; i < f->vms[v].nr_flight; i++) {
			struct hvt_io_request *r = &f->vms[v].flight[i];

			if (r->at[HVT_IO_IRQ].set && r->irq_vector < 0 &&
			    r->at[HVT_IO_IRQ].tid == e->tid) {
				r->irq_vector = (int32_t)(e->ev.irq.b & 0xff);
				r->irq_apic = (int32_t)e->ev.irq.a;
			}
		}
}

/* vCPU index of host thread @tid in VM @v, or -1. */
static int32_t vcpu_of(const struct hvt_io_flows *f, size_t v, int32_t tid)
{
	const struct hvt_vm_ref *ref = &f->ses->archive.vms[v];
	size_t c;

	for (c = 0; tid > 0 && ref->vcpu_tids && c < ref->nr_vcpu_tids; c++)
		if (ref->vcpu_tids[c] == tid)
			return (int32_t)c;
	return -1;
}

/* A host kvm_inj_virq, on a vCPU's thread: the requests whose interrupt that was. */
static void kvm_inject(struct hvt_io_flows *f, const struct hvt_fed_event *e)
{
	size_t v, i;

	for (v = 0; v < f->ses->archive.nr_vms; v++) {
		int32_t vcpu = vcpu_of(f, v, e->tid);

		for (i = 0; vcpu >= 0 && i < f->vms[v].nr_flight; i++) {
			struct hvt_io_request *r = &f->vms[v].flight[i];

			if (r->at[HVT_IO_IRQ].set && !r->at[HVT_IO_INJECT].set &&
			    r->irq_vector == (int32_t)(e->ev.irq.a & 0xff) &&
			    (r->irq_apic < 0 || r->irq_apic == vcpu) && e->ts >= r->at[HVT_IO_IRQ].ts) {
				set_mark(f, r, HVT_IO_INJECT, e);
				f->vms[v].kvm_events++;
			}
		}
	}
}

/* The host's events: of no one VM (the requests say whose). */
static void host_event(struct hvt_io_flows *f, const struct hvt_fed_event *e)
{
	switch (e->ev.kind) {
	case HVT_EV_KVM_MSI:
	case HVT_EV_KVM_SET_IRQ:
		kvm_raise(f, e);
		break;
	case HVT_EV_KVM_APIC_ACCEPT:
		kvm_accept(f, e);
		break;
	case HVT_EV_KVM_INJ_VIRQ:
		kvm_inject(f, e);
		break;
	default:
		break;
	}
}

void hvt_io_flows_event(struct hvt_io_flows *f, const struct hvt_fed_event *e)
{
	size_t v = vm_of(f, e);
	bool qemu = e->src->layer == HVT_LAYER_VMM;

	if (e->src->layer == HVT_LAYER_HOST) {
		host_event(f, e);
		return;
	}
	if (!v)
		return;
	if (qemu)
		f->vms[v - 1].qemu_events++;
	else if (e->ev.kind == HVT_EV_BLOCK_RQ_ISSUE || e->ev.kind == HVT_EV_BLOCK_RQ_COMPLETE)
		f->vms[v - 1].guest_events++;
	switch (e->ev.kind) {
	case HVT_EV_BLOCK_RQ_ISSUE:
		if (!qemu)
			guest_issue(f, v, e);
		break;
	case HVT_EV_BLOCK_RQ_COMPLETE:
		if (!qemu)
			guest_complete(f, v, e);
		break;
	case HVT_EV_SCHED_SWITCH:
		if (!qemu)
			guest_switch(f, v, e);
		break;
	case HVT_EV_SCHED_WAKEUP:
		if (!qemu)
			guest_wakeup(f, v, e);
		break;
	case HVT_EV_VIRTIO_BLK_HANDLE:
		qemu_handle(f, v, e);
		break;
	case HVT_EV_VIRTIO_BLK_REQ_COMPLETE:
		qemu_req_done(f, v, e);
		break;
	case HVT_EV_VIRTIO_NOTIFY:
		qemu_notify(f, v, e);
		break;
	case HVT_EV_POOL_SUBMIT:
		pool_submit(f, v, e);
		break;
	case HVT_EV_POOL_COMPLETE:
		pool_complete(f, v, e);
		break;
	default:
		break;
	}
	if (e->ts >= f->vms[v - 1].next_sweep) {
		sweep(f, v - 1, e->ts);
		f->vms[v - 1].next_sweep = e->ts + f->claim;
	}
}

bool hvt_io_flows_skip(void *flows, const struct hvt_source *s)
{
	const struct hvt_io_flows *f = flows;
	const char *name = s->ev.name;

	return s->layer != HVT_LAYER_VMM && s->vm_number &&
	       s->vm_number <= f->ses->archive.nr_vms && !f->vms[s->vm_number - 1].nr_flight &&
	       name && !strncmp(name, "sched_", 6);
}

static void on_event(void *ctx, const struct hvt_fed_event *e)
{
	hvt_io_flows_event(ctx, e);
}

const struct hvt_event_listener hvt_io_flows_listener = {
	.guest = { [HVT_EV_SCHED_SWITCH] = on_event, [HVT_EV_SCHED_WAKEUP] = on_event,
		   [HVT_EV_BLOCK_RQ_ISSUE] = on_event, [HVT_EV_BLOCK_RQ_COMPLETE] = on_event },
	.vmm = { [HVT_EV_VIRTIO_BLK_HANDLE] = on_event, [HVT_EV_VIRTIO_BLK_REQ_COMPLETE] = on_event,
		 [HVT_EV_VIRTIO_NOTIFY] = on_event, [HVT_EV_POOL_SUBMIT] = on_event,
		 [HVT_EV_POOL_COMPLETE] = on_event },
	.host = { [HVT_EV_KVM_MSI] = on_event, [HVT_EV_KVM_SET_IRQ] = on_event,
		  [HVT_EV_KVM_APIC_ACCEPT] = on_event, [HVT_EV_KVM_INJ_VIRQ] = on_event },
	.skip = hvt_io_flows_skip,
};

void hvt_io_flows_finish(struct hvt_io_flows *f)
{
	size_t v;

	for (v = 0; v < f->ses->archive.nr_vms; v++) {
		struct hvt_io_vm *vm = &f->vms[v];

		while (vm->nr_flight) {		/* nothing more will come */
			settle(f, v, &vm->flight[0]);
			drop(vm, 0);
		}
	}
}
