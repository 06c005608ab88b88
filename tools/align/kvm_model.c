// SPDX-License-Identifier: GPL-2.0-only
/*
 * kvm_model.c - the exact per-vCPU guest TSC timeline of a KVM VM (kvm_model.h).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fileio.h"
#include "lib/grow.h"
#include "tools/align/host_scan.h"
#include "tools/align/kvm_model.h"

const char *hvt_tsc_source_name(enum hvt_tsc_source s)
{
	switch (s) {
	case HVT_TSC_SRC_TRACEPOINT: return "kvm_write_tsc_offset";
	case HVT_TSC_SRC_DEBUGFS: return "debugfs";
	case HVT_TSC_SRC_VCPU_IOCTL: return "vcpu fd";
	case HVT_TSC_SRC_ESTIMATE: return "estimate";
	}
	return "?";
}

/* One kvm_write_tsc_offset. */
static int add_change(const struct hvt_ftrace_event *ev, const struct hvt_typed_event *e,
		      void *ctx)
{
	struct hvt_kvm_changes *out = ctx;
	struct hvt_kvm_change ch = { .host = ev->ts, .order = out->n, .vcpu = e->tsc_offset.vcpu,
		.prev = e->tsc_offset.previous, .next = e->tsc_offset.next };

	out->v = hvt_grow(out->v, out->n, &out->cap, sizeof(*out->v));
	if (!out->v)
		return -1;
	out->v[out->n++] = ch;
	return 0;
}

static int cmp_change(const void *pa, const void *pb)
{
	const struct hvt_kvm_change *a = pa, *b = pb;

	if (a->host != b->host)
		return a->host < b->host ? -1 : 1;
	return (a->order > b->order) - (a->order < b->order);
}

int hvt_kvm_changes_read(const struct hvt_archive *a, struct hvt_ftrace *ft,
			 struct hvt_kvm_changes *out)
{
	if (hvt_host_scan(a, ft, HVT_EV_KVM_TSC_OFFSET, add_change, out))
		return -1;
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_change);
	return 0;
}

void hvt_kvm_changes_free(struct hvt_kvm_changes *c)
{
	free(c->v);
	memset(c, 0, sizeof(*c));
}

/* Readings by (vCPU, time); changes by (vCPU, time, order of reading). */
static int cmp_reading(const void *pa, const void *pb)
{
	const struct hvt_kvm_reading *a = pa, *b = pb;

	if (a->vcpu != b->vcpu)
		return a->vcpu < b->vcpu ? -1 : 1;
	return (a->before > b->before) - (a->before < b->before);
}

static int cmp_vcpu_change(const void *pa, const void *pb)
{
	const struct hvt_kvm_change *a = pa, *b = pb;

	if (a->vcpu != b->vcpu)
		return a->vcpu < b->vcpu ? -1 : 1;
	return cmp_change(pa, pb);
}

/* One vCPU's inputs: slices of the sorted arrays. */
struct vcpu_input {
	const struct hvt_kvm_change *ch;	/* by time */
	size_t nch;
	const struct hvt_kvm_reading *r;	/* by time */
	size_t nr;
	size_t ratio_next;			/* ratio_at()'s place in r */
	const struct hvt_kvm_reading *ratio;	/* latest reading with a ratio so far */
};

/*
 * The scaling at @host, for @host not decreasing from call to call: the
 * latest debugfs ratio read before it, else the first one read; else none.
 */
static void ratio_at(struct vcpu_input *in, uint64_t host, struct hvt_tsc_xform *x)
{
	const struct hvt_kvm_reading *best;
	size_t i;

	for (; in->ratio_next < in->nr && in->r[in->ratio_next].before <= host; in->ratio_next++)
		if (in->r[in->ratio_next].ratio)
			in->ratio = &in->r[in->ratio_next];
	best = in->ratio;
	for (i = in->ratio_next; !best && i < in->nr; i++)
		if (in->r[i].ratio)
			best = &in->r[i];
	x->ratio = best ? best->ratio : 1;
	x->frac = best ? best->frac : 0;
}

static void disagree(struct hvt_kvm_vcpu *v, uint64_t host, enum hvt_tsc_source src,
		     uint64_t said, uint64_t used, int ratio)
{
	if (!v->disagreements++ || host < v->first.host)
		v->first = (struct hvt_kvm_disagreement){ host, src, said, used, ratio };
}

static int add_segment(struct hvt_kvm_vcpu *v, struct vcpu_input *in, uint64_t host,
		       uint64_t offset, enum hvt_tsc_source src)
{
	struct hvt_tsc_segment s = { .host_start = host, .source = src };

	ratio_at(in, host, &s.x);
	s.x.offset = offset;
	return hvt_tsc_timeline_add(&v->tl, &s);
}

static int build_timeline(struct hvt_kvm_vcpu *v, struct vcpu_input *in)
{
	uint64_t first = in->nch ? in->ch[0].host : UINT64_MAX;
	size_t i;

	/*
	 * Before the first change: the earliest snapshot, else that change's
	 * previous offset (the vCPU is in one or the other).
	 */
	if (in->nr && in->r[0].after <= first ?
	    add_segment(v, in, 0, in->r[0].offset, (enum hvt_tsc_source)in->r[0].source) :
	    add_segment(v, in, 0, in->ch[0].prev, HVT_TSC_SRC_TRACEPOINT))
		return -1;
	for (i = 0; i < in->nch; i++) {
		const struct hvt_kvm_change *c = &in->ch[i];
		const struct hvt_tsc_segment *cur = &v->tl.seg[v->tl.n - 1];

		if (cur->x.offset != c->prev)
			disagree(v, c->host, HVT_TSC_SRC_TRACEPOINT, c->prev, cur->x.offset, 0);
		/* host 0 is the initial segment's */
		if (add_segment(v, in, c->host ? c->host : 1, c->next, HVT_TSC_SRC_TRACEPOINT))
			return -1;
		v->changes++;
	}
	return 0;
}

/* Every snapshot not straddling a change must agree with the timeline. */
static void check_readings(struct hvt_kvm_vcpu *v, const struct vcpu_input *in)
{
	size_t i, j = 0;

	for (i = 0; i < in->nr; i++) {
		const struct hvt_kvm_reading *r = &in->r[i];
		const struct hvt_tsc_segment *s;

		v->readings++;
		while (j < in->nch && in->ch[j].host < r->before)
			j++;
		if (j < in->nch && in->ch[j].host <= r->after)
			continue;
		s = hvt_tsc_timeline_at(&v->tl, r->before);
		if (s->x.offset != r->offset)
			disagree(v, r->before, (enum hvt_tsc_source)r->source, r->offset,
				 s->x.offset, 0);
		else if (r->ratio && (s->x.ratio != r->ratio || s->x.frac != r->frac))
			disagree(v, r->before, (enum hvt_tsc_source)r->source, r->ratio,
				 s->x.ratio, 1);
	}
}

static const char *single_vm(const struct hvt_kvm_reading *r, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (r[i].vm_fd != r[0].vm_fd)
			return "the VMM process holds several KVM VMs, and kvm_write_tsc_offset "
			       "does not say which one a vCPU belongs to";
	return NULL;
}

/* How many distinct vCPUs the two sorted arrays name. */
static size_t count_vcpus(const struct hvt_kvm_change *ch, size_t nch,
			  const struct hvt_kvm_reading *r, size_t nr)
{
	size_t i = 0, j = 0, n = 0;

	while (i < nch || j < nr) {
		uint32_t id = i < nch && (j == nr || ch[i].vcpu <= r[j].vcpu) ? ch[i].vcpu
									: r[j].vcpu;

		while (i < nch && ch[i].vcpu == id)
			i++;
		while (j < nr && r[j].vcpu == id)
			j++;
		n++;
	}
	return n;
}

/* Builds every vCPU's timeline from the arrays sorted by vCPU. */
static int build_vcpus(struct hvt_kvm_model *m, const struct hvt_kvm_change *ch, size_t nch,
		       const struct hvt_kvm_reading *r, size_t nr)
{
	size_t i = 0, j = 0;

	while (i < nch || j < nr) {
		uint32_t id = i < nch && (j == nr || ch[i].vcpu <= r[j].vcpu) ? ch[i].vcpu
									: r[j].vcpu;
		struct hvt_kvm_vcpu *v = &m->vcpus[m->nr_vcpus++];
		/* no changes or no readings: NULL arrays, which take no offset */
		struct vcpu_input in = { .ch = ch ? ch + i : NULL, .r = r ? r + j : NULL };

		while (i + in.nch < nch && ch[i + in.nch].vcpu == id)
			in.nch++;
		while (j + in.nr < nr && r[j + in.nr].vcpu == id)
			in.nr++;
		i += in.nch;
		j += in.nr;
		v->id = id;
		hvt_tsc_timeline_init(&v->tl);
		if (build_timeline(v, &in))
			return -1;
		check_readings(v, &in);
	}
	return 0;
}

int hvt_kvm_model_build(struct hvt_kvm_model *m, const struct hvt_vm_info *vm,
			const struct hvt_kvm_changes *changes)
{
	struct hvt_kvm_reading *r = NULL;
	struct hvt_kvm_change *ch = NULL;
	size_t nch = changes ? changes->n : 0, n;
	char *path = vm->dir ? hvt_join(vm->dir, "kvm_tsc.tsv") : NULL;
	int ret = -1;

	memset(m, 0, sizeof(*m));
	if (vm->dir && !path)
		goto out;
	/* a VM of a host trace.dat (no directory) has no snapshots: the changes alone */
	if (path && hvt_tsv_read_kvm_tsc(path, &r, &m->nr_readings, &m->warnings)) {
		m->unusable = "kvm_tsc.tsv cannot be read (see the warning)";
		m->warnings++;
		ret = 0;
		goto out;
	}
	m->unusable = single_vm(r, m->nr_readings);
	if (m->unusable) {
		ret = 0;
		goto out;
	}
	if (nch && !(ch = malloc(nch * sizeof(*ch))))
		goto out;
	if (nch) {
		memcpy(ch, changes->v, nch * sizeof(*ch));
		qsort(ch, nch, sizeof(*ch), cmp_vcpu_change);
	}
	if (r)
		qsort(r, m->nr_readings, sizeof(*r), cmp_reading);
	n = count_vcpus(ch, nch, r, m->nr_readings);
	if (!n) {
		m->unusable = changes ? "no KVM TSC change or snapshot was recorded"
				      : "the host layer was not recorded and no snapshot was taken";
		ret = 0;
		goto out;
	}
	m->vcpus = calloc(n, sizeof(*m->vcpus));
	if (!m->vcpus || build_vcpus(m, ch, nch, r, m->nr_readings))
		goto out;
	ret = 0;
out:
	if (ret)
		hvt_kvm_model_free(m);
	free(ch);
	free(r);
	free(path);
	return ret;
}

const struct hvt_kvm_vcpu *hvt_kvm_model_vcpu(const struct hvt_kvm_model *m, uint32_t id)
{
	size_t lo = 0, hi = m->nr_vcpus;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->vcpus[mid].id == id)
			return &m->vcpus[mid];
		if (m->vcpus[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static bool same_transforms(const struct hvt_tsc_timeline *a, const struct hvt_tsc_timeline *b)
{
	size_t i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (memcmp(&a->seg[i].x, &b->seg[i].x, sizeof(a->seg[i].x)))
			return false;
	return true;
}

const struct hvt_tsc_timeline *hvt_kvm_model_common(const struct hvt_kvm_model *m)
{
	size_t i;

	if (!m->nr_vcpus)
		return NULL;
	for (i = 1; i < m->nr_vcpus; i++)
		if (!same_transforms(&m->vcpus[0].tl, &m->vcpus[i].tl))
			return NULL;
	return &m->vcpus[0].tl;
}

const struct hvt_tsc_timeline *hvt_kvm_model_stream(const struct hvt_kvm_model *m, int32_t cpu)
{
	const struct hvt_tsc_timeline *common = hvt_kvm_model_common(m);
	const struct hvt_kvm_vcpu *v;

	if (common || cpu < 0)
		return common;
	v = hvt_kvm_model_vcpu(m, (uint32_t)cpu);
	return v ? &v->tl : NULL;
}

static bool changed_during(const struct hvt_tsc_timeline *tl, uint64_t from, uint64_t to)
{
	size_t i;

	for (i = 1; i < tl->n; i++)
		if (tl->seg[i].host_start >= from && tl->seg[i].host_start <= to)
			return true;
	return false;
}

const struct hvt_sync_rec *hvt_kvm_model_first_violation(const struct hvt_kvm_model *m,
							 const struct hvt_sync_rec *recs,
							 size_t n, size_t *exempt)
{
	size_t i;

	*exempt = 0;
	for (i = 0; i < n; i++) {
		const struct hvt_exchange *ex = &recs[i].ex;
		const struct hvt_tsc_timeline *tr = hvt_kvm_model_stream(m, (int32_t)recs[i].cpu_recv);
		const struct hvt_tsc_timeline *ts = hvt_kvm_model_stream(m, (int32_t)recs[i].cpu_send);

		if (!tr || !ts || recs[i].cpu_recv > INT32_MAX || recs[i].cpu_send > INT32_MAX)
			return &recs[i];
		if (changed_during(tr, ex->host_send, ex->host_recv) ||
		    changed_during(ts, ex->host_send, ex->host_recv)) {
			(*exempt)++;
			continue;
		}
		/* In the guest's domain, exactly: no rounding to allow for. */
		if (hvt_tsc_timeline_to_guest(tr, ex->host_send) > ex->guest_recv ||
		    ex->guest_send > hvt_tsc_timeline_to_guest(ts, ex->host_recv))
			return &recs[i];
	}
	return NULL;
}

void hvt_kvm_model_free(struct hvt_kvm_model *m)
{
	size_t i;

	for (i = 0; i < m->nr_vcpus; i++)
		hvt_tsc_timeline_free(&m->vcpus[i].tl);
	free(m->vcpus);
	memset(m, 0, sizeof(*m));
}
