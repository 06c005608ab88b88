// SPDX-License-Identifier: GPL-2.0-only
/*
 * timeline.c - the k-way merge of a session's sources (timeline.h).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "tools/merge/timeline.h"

static struct hvt_merge_key key_of(const struct hvt_source *s)
{
	return (struct hvt_merge_key){ s->host_tsc, s->layer, s->index };
}

/* Sources the time line has not asked about yet: wanted or not, and queued. */
static int take_sources(struct hvt_timeline *tl)
{
	struct hvt_session *ses = tl->ses;
	bool *grown;
	size_t i;

	if (hvt_heap_reserve(&tl->heap, ses->nr_sources + 1))
		goto nomem;
	grown = realloc(tl->queued, (ses->nr_sources + 1) * sizeof(*grown));
	if (!grown)
		goto nomem;
	tl->queued = grown;
	memset(tl->queued + tl->nr_known, 0, (ses->nr_sources + 1 - tl->nr_known) * sizeof(*grown));
	for (i = tl->nr_known; i < ses->nr_sources; i++) {
		struct hvt_source *s = ses->sources[i];

		if (s->aligned)
			s->unwanted = tl->want && !tl->want(s, tl->ctx);
	}
	tl->nr_known = ses->nr_sources;
	return 0;
nomem:
	hvt_err("out of memory opening %s", ses->archive.root);
	return -1;
}

/* Puts each source that is not in the heap and has an event in. */
static void queue_ready(struct hvt_timeline *tl)
{
	size_t i;

	for (i = 0; i < tl->nr_known; i++) {
		struct hvt_source *s = tl->ses->sources[i];
		struct hvt_merge_key key;

		if (tl->queued[i] || !s->aligned || s->unwanted || !hvt_source_next(s))
			continue;
		key = key_of(s);
		hvt_heap_push(&tl->heap, &key, s);	/* cannot fail: room for each source */
		tl->queued[i] = true;
	}
}

int hvt_timeline_init(struct hvt_timeline *tl, struct hvt_session *ses, hvt_source_want_fn want,
		      void *ctx)
{
	memset(tl, 0, sizeof(*tl));
	tl->ses = ses;
	tl->want = want;
	tl->ctx = ctx;
	if (hvt_heap_init(&tl->heap, 0) || take_sources(tl))
		return -1;
	queue_ready(tl);
	return 0;
}

/* The source of the event returned last moves on: re-keyed in place, or out at its end. */
static void advance(struct hvt_timeline *tl)
{
	struct hvt_source *s = tl->current;

	if (!s)
		return;
	if (hvt_source_next(s)) {
		struct hvt_merge_key key = key_of(s);

		hvt_heap_replace_top(&tl->heap, &key);
	} else {
		hvt_heap_pop(&tl->heap, NULL);
		tl->queued[s->index] = false;
	}
	tl->current = NULL;
}

struct hvt_source *hvt_timeline_next(struct hvt_timeline *tl)
{
	struct hvt_source *s;

	advance(tl);	/* the previous event has been used */
	s = hvt_heap_top(&tl->heap);
	tl->current = s;
	if (s) {
		tl->events[s->layer]++;
		s->pending = false;	/* taken: a refit leaves it where it is */
	}
	return s;
}

struct hvt_source *hvt_timeline_peek(struct hvt_timeline *tl)
{
	advance(tl);
	return hvt_heap_top(&tl->heap);
}

/* The queued sources keyed anew: a refit may have placed their pending events anew. */
static void rekey(struct hvt_timeline *tl)
{
	size_t i;

	tl->heap.n = 0;
	for (i = 0; i < tl->nr_known; i++)
		if (tl->queued[i]) {
			struct hvt_merge_key key = key_of(tl->ses->sources[i]);

			hvt_heap_push(&tl->heap, &key, tl->ses->sources[i]);	/* had room */
		}
}

int hvt_timeline_refresh(struct hvt_timeline *tl)
{
	advance(tl);
	rekey(tl);
	if (take_sources(tl))
		return -1;
	queue_ready(tl);
	return 0;
}

void hvt_timeline_close(struct hvt_timeline *tl)
{
	hvt_heap_free(&tl->heap);
	free(tl->queued);
	memset(tl, 0, sizeof(*tl));
}
