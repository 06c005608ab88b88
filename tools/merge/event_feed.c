// SPDX-License-Identifier: GPL-2.0-only
/*
 * event_feed.c - a time line's scheduling and KVM events as typed
 * callbacks, and the host layer's gaps (event_feed.h).
 */
#include <stdlib.h>
#include <string.h>

#include "tools/merge/event_feed.h"

typedef void (*fed_fn)(void *ctx, const struct hvt_fed_event *e);

static unsigned int host_kinds(const struct hvt_event_listener *l)
{
	return (l->host_switch ? HVT_EV_BIT(HVT_EV_SCHED_SWITCH) : 0) |
	       (l->host_wakeup ? HVT_EV_BIT(HVT_EV_SCHED_WAKEUP) : 0) |
	       (l->kvm_entry ? HVT_EV_BIT(HVT_EV_KVM_ENTRY) : 0) |
	       (l->kvm_exit ? HVT_EV_BIT(HVT_EV_KVM_EXIT) : 0);
}

static unsigned int guest_kinds(const struct hvt_event_listener *l)
{
	return (l->guest_switch ? HVT_EV_BIT(HVT_EV_SCHED_SWITCH) : 0) |
	       (l->guest_wakeup ? HVT_EV_BIT(HVT_EV_SCHED_WAKEUP) : 0);
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
	if (!f->damage || hvt_event_decoder_init(&f->host, host_kinds(l), l->comms) ||
	    hvt_event_decoder_init(&f->guest, guest_kinds(l), l->comms)) {
		hvt_event_feed_free(f);
		return -1;
	}
	/* Pages lost or damaged before a host CPU's first event. */
	for (i = 0; i < ses->nr_sources; i++) {
		struct hvt_source *s = ses->sources[i];

		if (s->layer != HVT_LAYER_HOST || s->host_cpu < 0)
			continue;
		f->damage[i] = hvt_source_damage(s);
		if (f->damage[i] && l->host_lost)
			l->host_lost(ctx, (uint32_t)s->host_cpu, 0, s->host_tsc);
	}
	return 0;
}

void hvt_event_feed_free(struct hvt_event_feed *f)
{
	free(f->damage);
	hvt_event_decoder_free(&f->host);
	hvt_event_decoder_free(&f->guest);
	memset(f, 0, sizeof(*f));
}

static fed_fn host_fn(const struct hvt_event_listener *l, enum hvt_ev_kind k)
{
	switch (k) {
	case HVT_EV_SCHED_SWITCH:
		return l->host_switch;
	case HVT_EV_SCHED_WAKEUP:
		return l->host_wakeup;
	case HVT_EV_KVM_ENTRY:
		return l->kvm_entry;
	case HVT_EV_KVM_EXIT:
		return l->kvm_exit;
	default:
		return NULL;
	}
}

static fed_fn guest_fn(const struct hvt_event_listener *l, enum hvt_ev_kind k)
{
	return k == HVT_EV_SCHED_SWITCH ? l->guest_switch :
	       k == HVT_EV_SCHED_WAKEUP ? l->guest_wakeup : NULL;
}

void hvt_event_feed(struct hvt_event_feed *f, struct hvt_source *s)
{
	bool host = s->layer == HVT_LAYER_HOST;
	struct hvt_fed_event e;
	fed_fn fn;

	if (f->prev && f->prev->layer == HVT_LAYER_HOST && f->prev->host_cpu >= 0)
		note_gap(f, f->prev, f->prev_tsc);
	f->prev = s;
	f->prev_tsc = s->host_tsc;
	if (host ? s->host_cpu < 0 || !f->host.kinds : !s->vm_number || !f->guest.kinds)
		return;
	if (!hvt_decode_reader(host ? &f->host : &f->guest, &s->rd, &s->ev, &e.ev))
		return;
	fn = host ? host_fn(f->l, e.ev.kind) : guest_fn(f->l, e.ev.kind);
	if (!fn)
		return;
	e.src = s;
	e.ts = s->host_tsc;
	e.cpu = host ? (uint32_t)s->host_cpu : s->ev.cpu;
	e.tid = s->ev.tid;
	fn(f->ctx, &e);
}
