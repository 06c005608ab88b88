// SPDX-License-Identifier: GPL-2.0-only
/*
 * vcpu_windows.c - guest events against the windows where their vCPU could
 * run (vcpu_windows.h).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "tools/check/vcpu_windows.h"

enum vcpu_mode { VCPU_UNSEEN, VCPU_IN_GUEST, VCPU_OUT };

struct waiting {
	uint64_t host, bound;
	const void *tag;
	uint64_t index;
};

struct hvt_window_vcpu {
	enum vcpu_mode mode;
	uint64_t exit;			/* the last window's end, in mode VCPU_OUT */
	struct waiting *wait;		/* guest events after it, in time order */
	size_t nr_wait, cap;
};

void hvt_vcpu_windows_init(struct hvt_vcpu_windows *w)
{
	memset(w, 0, sizeof(*w));
}

void hvt_vcpu_windows_free(struct hvt_vcpu_windows *w)
{
	size_t i;

	for (i = 0; i < w->nr_vcpus; i++)
		free(w->vcpus[i].wait);
	free(w->vcpus);
	memset(w, 0, sizeof(*w));
}

/* vCPU @id's state, the array grown to hold it; NULL beyond the limit or memory. */
static struct hvt_window_vcpu *vcpu(struct hvt_vcpu_windows *w, uint32_t id)
{
	struct hvt_window_vcpu *v;
	size_t n;

	if (id < w->nr_vcpus)
		return &w->vcpus[id];
	if (id >= HVT_VCPU_WINDOWS_MAX_VCPUS)
		return NULL;
	n = (size_t)id + 1;
	v = realloc(w->vcpus, n * sizeof(*v));
	if (!v) {
		w->failed = true;
		return NULL;
	}
	memset(v + w->nr_vcpus, 0, (n - w->nr_vcpus) * sizeof(*v));
	w->vcpus = v;
	w->nr_vcpus = n;
	return &v[id];
}

static void miss(struct hvt_vcpu_windows *w, uint32_t id, const struct waiting *e,
		 uint64_t exit, uint64_t entry)
{
	if (!w->outside++)
		w->first = (struct hvt_window_miss){ .host = e->host, .bound = e->bound,
			.exit = exit, .entry = entry, .vcpu = id, .tag = e->tag,
			.tag_index = e->index };
}

/* vCPU @id's window opens at @entry: judge the events that waited for it. */
static void settle(struct hvt_vcpu_windows *w, uint32_t id, struct hvt_window_vcpu *v,
		   uint64_t entry)
{
	/* A window may be lost, or come before the first one seen. */
	bool blind = w->loss_end > v->exit || v->mode == VCPU_UNSEEN;
	size_t i;

	for (i = 0; i < v->nr_wait; i++) {
		const struct waiting *e = &v->wait[i];

		if (e->bound >= entry || e->host >= entry - e->bound)
			w->inside++;
		else if (blind)
			w->unjudged++;
		else
			miss(w, id, e, v->exit, entry);
	}
	v->nr_wait = 0;
}

void hvt_vcpu_windows_open(struct hvt_vcpu_windows *w, uint32_t id, uint64_t start)
{
	struct hvt_window_vcpu *v = vcpu(w, id);

	if (!v || v->mode == VCPU_IN_GUEST)
		return;
	w->host_events++;
	settle(w, id, v, start);
	v->mode = VCPU_IN_GUEST;
}

void hvt_vcpu_windows_close(struct hvt_vcpu_windows *w, uint32_t id, uint64_t end)
{
	struct hvt_window_vcpu *v = vcpu(w, id);

	if (!v)
		return;
	w->host_events++;
	/* Two ends in a row: the start between them was not recorded. */
	if (v->mode != VCPU_IN_GUEST) {
		w->unjudged += v->nr_wait;
		v->nr_wait = 0;
	}
	v->mode = VCPU_OUT;
	v->exit = end;
}

void hvt_vcpu_windows_host_lost(struct hvt_vcpu_windows *w, uint64_t until)
{
	if (until > w->loss_end)
		w->loss_end = until;
}

void hvt_vcpu_windows_guest(struct hvt_vcpu_windows *w, uint32_t id, uint64_t host,
			    uint64_t bound, const void *tag, uint64_t index)
{
	struct hvt_window_vcpu *v = vcpu(w, id);
	struct waiting *grown;

	if (!v || v->nr_wait >= HVT_VCPU_WINDOWS_MAX_WAIT) {
		w->unjudged++;
		return;
	}
	if (v->mode == VCPU_IN_GUEST ||
	    (v->mode == VCPU_OUT && (host <= v->exit || host - v->exit <= bound))) {
		w->inside++;
		return;
	}
	grown = hvt_grow(v->wait, v->nr_wait, &v->cap, sizeof(*v->wait));
	if (!grown) {
		w->failed = true;
		return;
	}
	v->wait = grown;
	v->wait[v->nr_wait++] = (struct waiting){ host, bound, tag, index };
}

void hvt_vcpu_windows_finish(struct hvt_vcpu_windows *w)
{
	size_t i;

	for (i = 0; i < w->nr_vcpus; i++) {
		w->unjudged += w->vcpus[i].nr_wait;
		w->vcpus[i].nr_wait = 0;
	}
}
