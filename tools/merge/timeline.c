// SPDX-License-Identifier: GPL-2.0-only
/*
 * timeline.c - the k-way merge of a session's sources (timeline.h).
 */
#include <string.h>

#include "lib/log.h"
#include "tools/merge/timeline.h"

static struct hvt_merge_key key_of(const struct hvt_source *s)
{
	return (struct hvt_merge_key){ s->host_tsc, s->layer, s->index };
}

int hvt_timeline_init(struct hvt_timeline *tl, struct hvt_session *ses, hvt_source_want_fn want,
		      void *ctx)
{
	size_t i;

	memset(tl, 0, sizeof(*tl));
	tl->ses = ses;
	if (hvt_heap_init(&tl->heap, ses->nr_sources)) {
		hvt_err("out of memory opening %s", ses->archive.root);
		return -1;
	}
	for (i = 0; i < ses->nr_sources; i++) {
		struct hvt_source *s = ses->sources[i];
		struct hvt_merge_key key;

		if (!s->aligned)
			continue;
		s->unwanted = want && !want(s, ctx);
		if (s->unwanted || !hvt_source_next(s))
			continue;
		key = key_of(s);
		hvt_heap_push(&tl->heap, &key, s);	/* cannot fail: one entry per source */
	}
	return 0;
}

struct hvt_source *hvt_timeline_next(struct hvt_timeline *tl)
{
	struct hvt_source *s = tl->current;

	/*
	 * The previous event has been used: its source, still the heap's top,
	 * moves on and is re-keyed in place, or leaves at its end.
	 */
	if (s) {
		if (hvt_source_next(s)) {
			struct hvt_merge_key key = key_of(s);

			hvt_heap_replace_top(&tl->heap, &key);
		} else {
			hvt_heap_pop(&tl->heap, NULL);
		}
	}
	s = hvt_heap_top(&tl->heap);
	tl->current = s;
	if (s)
		tl->events[s->layer]++;
	return s;
}

void hvt_timeline_close(struct hvt_timeline *tl)
{
	hvt_heap_free(&tl->heap);
	memset(tl, 0, sizeof(*tl));
}
