// SPDX-License-Identifier: GPL-2.0-only
/*
 * kvm_tsc.c - the exact per-vCPU guest TSC timeline of a KVM VM (kvm_tsc.h).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "tools/kvm_tsc.h"

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
static int add_change(struct hvt_ftrace_cpu *c, const struct hvt_ftrace_event *ev, void *ctx)
{
	struct hvt_kvm_changes *out = ctx;
	struct hvt_kvm_change ch = { .host = ev->ts };
	uint64_t vcpu;

	if (hvt_ftrace_field_u64(c, "vcpu_id", &vcpu) || vcpu > UINT32_MAX ||
	    hvt_ftrace_field_u64(c, "previous_tsc_offset", &ch.prev) ||
	    hvt_ftrace_field_u64(c, "next_tsc_offset", &ch.next))
		return 0;
	ch.vcpu = (uint32_t)vcpu;
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
	return (a->vcpu > b->vcpu) - (a->vcpu < b->vcpu);
}

int hvt_kvm_changes_read(const struct hvt_archive *a, struct hvt_ftrace *ft,
			 struct hvt_kvm_changes *out)
{
	if (hvt_ftrace_scan(a, ft, "kvm_write_tsc_offset", add_change, out))
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

static int cmp_u32(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	return (a > b) - (a < b);
}

static int cmp_reading(const void *pa, const void *pb)
{
	const struct hvt_kvm_reading *a = pa, *b = pb;

	return (a->before > b->before) - (a->before < b->before);
}

/* The vCPU ids that appear anywhere, sorted, each once. */
static uint32_t *vcpu_ids(const struct hvt_kvm_changes *ch, const struct hvt_kvm_reading *r,
			  size_t nr, size_t *n)
{
	size_t total = (ch ? ch->n : 0) + nr, i, k = 0;
	uint32_t *ids = malloc((total ? total : 1) * sizeof(*ids));

	if (!ids)
		return NULL;
	for (i = 0; ch && i < ch->n; i++)
		ids[k++] = ch->v[i].vcpu;
	for (i = 0; i < nr; i++)
		ids[k++] = r[i].vcpu;
	qsort(ids, k, sizeof(*ids), cmp_u32);
	for (i = 0, *n = 0; i < k; i++)
		if (!*n || ids[*n - 1] != ids[i])
			ids[(*n)++] = ids[i];
	return ids;
}

/* Inputs for one vCPU. */
struct vcpu_input {
	uint32_t id;
	const struct hvt_kvm_changes *ch;
	const struct hvt_kvm_reading *r;	/* all readings, by time */
	size_t nr;
};

/* The scaling at @host: the latest debugfs ratio before it, else the first; else none. */
static void ratio_at(const struct vcpu_input *in, uint64_t host, struct hvt_tsc_xform *x)
{
	const struct hvt_kvm_reading *best = NULL;
	size_t i;

	for (i = 0; i < in->nr; i++) {
		const struct hvt_kvm_reading *r = &in->r[i];

		if (r->vcpu != in->id || !r->ratio)
			continue;
		if (!best || r->before <= host)
			best = r;
		if (r->before > host)
			break;
	}
	x->ratio = best ? best->ratio : 1;
	x->frac = best ? best->frac : 0;
}

static void disagree(struct hvt_kvm_vcpu *v, uint64_t host, enum hvt_tsc_source src,
		     uint64_t said, uint64_t used, int ratio)
{
	if (!v->disagreements++ || host < v->first.host)
		v->first = (struct hvt_kvm_disagreement){ host, src, said, used, ratio };
}

static int add_segment(struct hvt_kvm_vcpu *v, const struct vcpu_input *in, uint64_t host,
		       uint64_t offset, enum hvt_tsc_source src)
{
	struct hvt_tsc_segment s = { .host_start = host, .source = src };

	ratio_at(in, host, &s.x);
	s.x.offset = offset;
	return hvt_tsc_timeline_add(&v->tl, &s);
}

/* Before the first change: the earliest snapshot. */
static const struct hvt_kvm_reading *initial_reading(const struct vcpu_input *in,
						     uint64_t first_change)
{
	size_t i;

	for (i = 0; i < in->nr && in->r[i].after <= first_change; i++)
		if (in->r[i].vcpu == in->id)
			return &in->r[i];
	return NULL;
}

static int build_timeline(struct hvt_kvm_vcpu *v, const struct vcpu_input *in)
{
	uint64_t first = UINT64_MAX;
	const struct hvt_kvm_reading *init;
	size_t i;

	for (i = 0; in->ch && i < in->ch->n; i++)
		if (in->ch->v[i].vcpu == in->id) {
			first = in->ch->v[i].host;
			break;
		}
	init = initial_reading(in, first);
	/* The vCPU appears in a reading or a change: without the one, the other. */
	if (init ? add_segment(v, in, 0, init->offset, (enum hvt_tsc_source)init->source)
		 : add_segment(v, in, 0, in->ch->v[i].prev, HVT_TSC_SRC_TRACEPOINT))
		return -1;
	for (; in->ch && i < in->ch->n; i++) {
		const struct hvt_kvm_change *c = &in->ch->v[i];
		const struct hvt_tsc_segment *cur;

		if (c->vcpu != in->id)
			continue;
		cur = &v->tl.seg[v->tl.n - 1];
		if (cur->x.offset != c->prev)
			disagree(v, c->host, HVT_TSC_SRC_TRACEPOINT, c->prev, cur->x.offset, 0);
		if (add_segment(v, in, c->host ? c->host : 1, c->next, HVT_TSC_SRC_TRACEPOINT))
			return -1;
		v->changes++;
	}
	return 0;
}

static int change_within(const struct vcpu_input *in, uint64_t from, uint64_t to)
{
	size_t i;

	for (i = 0; in->ch && i < in->ch->n && in->ch->v[i].host <= to; i++)
		if (in->ch->v[i].vcpu == in->id && in->ch->v[i].host >= from)
			return 1;
	return 0;
}

/* Every snapshot not straddling a change must agree with the timeline. */
static void check_readings(struct hvt_kvm_vcpu *v, const struct vcpu_input *in)
{
	size_t i;

	for (i = 0; i < in->nr; i++) {
		const struct hvt_kvm_reading *r = &in->r[i];
		const struct hvt_tsc_segment *s;

		if (r->vcpu != in->id)
			continue;
		v->readings++;
		if (change_within(in, r->before, r->after))
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

int hvt_kvm_model_build(struct hvt_kvm_model *m, const struct hvt_vm_info *vm,
			const struct hvt_kvm_changes *changes)
{
	struct hvt_kvm_reading *r = NULL;
	uint32_t *ids = NULL;
	size_t i, nr_ids = 0;
	char *path = hvt_join(vm->dir, "kvm_tsc.tsv");
	int ret = -1;

	memset(m, 0, sizeof(*m));
	if (!path || hvt_kvm_tsc_tsv_read(path, &r, &m->nr_readings, &m->warnings))
		goto out;
	if (r)
		qsort(r, m->nr_readings, sizeof(*r), cmp_reading);
	m->unusable = single_vm(r, m->nr_readings);
	if (m->unusable) {
		ret = 0;
		goto out;
	}
	ids = vcpu_ids(changes, r, m->nr_readings, &nr_ids);
	if (!ids)
		goto out;
	if (!nr_ids) {
		m->unusable = changes ? "no KVM TSC change or snapshot was recorded"
				      : "the host layer was not recorded and no snapshot was taken";
		ret = 0;
		goto out;
	}
	m->vcpus = calloc(nr_ids, sizeof(*m->vcpus));
	if (!m->vcpus)
		goto out;
	for (i = 0; i < nr_ids; i++) {
		struct vcpu_input in = { ids[i], changes, r, m->nr_readings };
		struct hvt_kvm_vcpu *v = &m->vcpus[i];

		v->id = ids[i];
		hvt_tsc_timeline_init(&v->tl);
		m->nr_vcpus++;
		if (build_timeline(v, &in))
			goto out;
		check_readings(v, &in);
	}
	ret = 0;
out:
	if (ret)
		hvt_kvm_model_free(m);
	free(ids);
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

/* Host ticks the inverse may return early: ceil(2^frac / ratio) - 1 when scaled down. */
static uint64_t rounding_slack(const struct hvt_tsc_segment *s)
{
	unsigned __int128 one = (unsigned __int128)1 << s->x.frac;

	if (s->x.ratio >= one)
		return 0;
	return (uint64_t)((one + s->x.ratio - 1) / s->x.ratio) - 1;
}

static bool changed_during(const struct hvt_kvm_vcpu *v, uint64_t from, uint64_t to)
{
	size_t i;

	for (i = 1; i < v->tl.n; i++)
		if (v->tl.seg[i].host_start >= from && v->tl.seg[i].host_start <= to)
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
		const struct hvt_kvm_vcpu *vr = hvt_kvm_model_vcpu(m, recs[i].cpu_recv);
		const struct hvt_kvm_vcpu *vs = hvt_kvm_model_vcpu(m, recs[i].cpu_send);
		struct hvt_tsc_cursor cr = { 0 }, cs = { 0 };
		uint64_t recv, sent;

		if (!vr || !vs)
			return &recs[i];
		if (changed_during(vr, ex->host_send, ex->host_recv) ||
		    changed_during(vs, ex->host_send, ex->host_recv)) {
			(*exempt)++;
			continue;
		}
		recv = hvt_tsc_timeline_to_host(&vr->tl, &cr, ex->guest_recv);
		sent = hvt_tsc_timeline_to_host(&vs->tl, &cs, ex->guest_send);
		if (recv + rounding_slack(hvt_tsc_timeline_at(&vr->tl, recv)) < ex->host_send ||
		    sent > ex->host_recv)
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
