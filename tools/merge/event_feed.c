// SPDX-License-Identifier: GPL-2.0-only
/*
 * event_feed.c - a time line's scheduling and KVM events as typed
 * callbacks, and the host layer's gaps (event_feed.h).
 */
#include <stdlib.h>
#include <string.h>

#include "tools/merge/event_feed.h"

/* The kinds @fn has a function for, as decoder bits. */
static unsigned int kinds_of(const hvt_fed_fn *fn)
{
	unsigned int k, bits = 0;

	for (k = 0; k < HVT_NR_EV_KINDS; k++)
		if (fn[k])
			bits |= HVT_EV_BIT(k);
	return bits;
}

/* Host CPU file @s has a gap after its event at @was: until its current one, or its end. */
static void note_gap(struct hvt_event_feed *f, struct hvt_source *s, uint64_t was)
{
	uint64_t now = hvt_source_damage(s);

	if (now == f->damage[s->index])
		return;
	f->damage[s->index] = now;
	if (f->l->host_lost)
		f->l->host_lost(f->ctx, (uint32_t)s->host_cpu, was,
				s->host_tsc > was ? s->host_tsc : UINT64_MAX);
}

int hvt_event_feed_init(struct hvt_event_feed *f, const struct hvt_session *ses,
			const struct hvt_event_listener *l, void *ctx)
{
	size_t i;

	memset(f, 0, sizeof(*f));
	f->l = l;
	f->ctx = ctx;
	f->ses = ses;
	f->damage = calloc(ses->nr_sources + 1, sizeof(*f->damage));
	if (!f->damage || hvt_event_decoder_init(&f->host, kinds_of(l->host), l->comms) ||
	    hvt_event_decoder_init(&f->guest, kinds_of(l->guest), l->comms) ||
	    hvt_event_decoder_init(&f->vmm, kinds_of(l->vmm), l->comms)) {
		hvt_event_feed_free(f);
		return -1;
	}
	/* Pages lost or damaged before a host CPU's first event. */
	for (i = 0; i < ses->nr_sources; i++) {
		struct hvt_source *s = ses->sources[i];

		if (s->layer != HVT_LAYER_HOST || s->host_cpu < 0)
			continue;
		if (!hvt_reader_opened(&s->rd)) {	/* its file could not be read: nothing known */
			if (l->host_lost)
				l->host_lost(ctx, (uint32_t)s->host_cpu, 0, UINT64_MAX);
			continue;
		}
		f->damage[i] = hvt_source_damage(s);
		if (f->damage[i] && l->host_lost)	/* no event at all: lost to the end */
			l->host_lost(ctx, (uint32_t)s->host_cpu, 0,
				     s->events ? s->host_tsc : UINT64_MAX);
	}
	return 0;
}

void hvt_event_feed_free(struct hvt_event_feed *f)
{
	free(f->damage);
	hvt_event_decoder_free(&f->host);
	hvt_event_decoder_free(&f->guest);
	hvt_event_decoder_free(&f->vmm);
	memset(f, 0, sizeof(*f));
}

/* The decoder of @s's events, or NULL if none of its kinds is wanted. */
static struct hvt_event_decoder *decoder_of(struct hvt_event_feed *f, const struct hvt_source *s)
{
	struct hvt_event_decoder *d;

	if (s->layer == HVT_LAYER_HOST)
		d = s->host_cpu >= 0 ? &f->host : NULL;
	else if (s->layer == HVT_LAYER_VMM)
		d = &f->vmm;
	else
		d = s->vm_number ? &f->guest : NULL;
	return d && d->kinds ? d : NULL;
}

void hvt_event_feed(struct hvt_event_feed *f, struct hvt_source *s)
{
	struct hvt_event_decoder *d;
	struct hvt_fed_event e;
	hvt_fed_fn fn;

	if (f->prev && f->prev->layer == HVT_LAYER_HOST && f->prev->host_cpu >= 0)
		note_gap(f, f->prev, f->prev_tsc);
	f->prev = s;
	f->prev_tsc = s->host_tsc;
	if (!(d = decoder_of(f, s)) || (f->l->skip && f->l->skip(f->ctx, s)) ||
	    !hvt_decode_reader(d, &s->rd, &s->ev, &e.ev))
		return;
	fn = d == &f->host ? f->l->host[e.ev.kind] : d == &f->vmm ? f->l->vmm[e.ev.kind] :
		f->l->guest[e.ev.kind];
	e.src = s;
	e.ts = s->host_tsc;
	e.cpu = s->layer == HVT_LAYER_HOST ? (uint32_t)s->host_cpu : s->ev.cpu;
	e.tid = s->ev.tid;
	fn(f->ctx, &e);
}
