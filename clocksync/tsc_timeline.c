// SPDX-License-Identifier: GPL-2.0-only
/*
 * tsc_timeline.c - piecewise exact transforms (tsc_timeline.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "clocksync/tsc_timeline.h"

void hvt_tsc_timeline_init(struct hvt_tsc_timeline *tl)
{
	tl->seg = NULL;
	tl->first = tl->last = NULL;
	tl->n = tl->cap = 0;
}

void hvt_tsc_timeline_free(struct hvt_tsc_timeline *tl)
{
	free(tl->seg);
	free(tl->first);
	free(tl->last);
	hvt_tsc_timeline_init(tl);
}

/* The guest values where segment i begins and ends, kept for the cursor. */
static void note_ends(struct hvt_tsc_timeline *tl, size_t i)
{
	const struct hvt_tsc_segment *s = &tl->seg[i];

	tl->first[i] = hvt_tsc_to_guest(&s->x, s->host_start);
	tl->last[i] = UINT64_MAX;
	if (i > 0)
		tl->last[i - 1] = hvt_tsc_to_guest(&tl->seg[i - 1].x, s->host_start - 1);
}

int hvt_tsc_timeline_add(struct hvt_tsc_timeline *tl, const struct hvt_tsc_segment *s)
{
	if (!hvt_tsc_xform_ok(&s->x) || (tl->n && s->host_start < tl->seg[tl->n - 1].host_start)) {
		errno = EINVAL;
		return -1;
	}
	if (tl->n && s->host_start == tl->seg[tl->n - 1].host_start) {
		tl->seg[tl->n - 1] = *s;
		note_ends(tl, tl->n - 1);
		return 0;
	}
	if (tl->n == tl->cap) {
		size_t cap = tl->cap ? 2 * tl->cap : 8;
		struct hvt_tsc_segment *seg = realloc(tl->seg, cap * sizeof(*seg));
		uint64_t *first, *last;

		if (!seg)
			return -1;	/* errno ENOMEM */
		tl->seg = seg;
		first = realloc(tl->first, cap * sizeof(*first));
		if (!first)
			return -1;
		tl->first = first;
		last = realloc(tl->last, cap * sizeof(*last));
		if (!last)
			return -1;
		tl->last = last;
		tl->cap = cap;
	}
	tl->seg[tl->n++] = *s;
	note_ends(tl, tl->n - 1);
	return 0;
}

static size_t index_at(const struct hvt_tsc_timeline *tl, uint64_t host)
{
	size_t lo = 0, hi = tl->n;	/* the last segment starting at or before host */

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (tl->seg[mid].host_start <= host)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

const struct hvt_tsc_segment *hvt_tsc_timeline_at(const struct hvt_tsc_timeline *tl,
						  uint64_t host)
{
	return tl->n ? &tl->seg[index_at(tl, host)] : NULL;
}

uint64_t hvt_tsc_timeline_to_guest(const struct hvt_tsc_timeline *tl, uint64_t host)
{
	const struct hvt_tsc_segment *s = hvt_tsc_timeline_at(tl, host);

	return s ? hvt_tsc_to_guest(&s->x, host) : host;
}

/* Without history: the earliest segment that shows @guest. */
static size_t first_showing(const struct hvt_tsc_timeline *tl, uint64_t guest)
{
	size_t i;

	for (i = 0; i + 1 < tl->n; i++)
		if (guest <= tl->last[i])
			return i;
	return tl->n - 1;
}

uint64_t hvt_tsc_timeline_to_host(const struct hvt_tsc_timeline *tl, struct hvt_tsc_cursor *c,
				  uint64_t guest)
{
	const struct hvt_tsc_segment *s;
	int stepped = 0;

	if (!tl->n)
		return guest;
	if (!c->started) {
		c->i = first_showing(tl, guest);
		c->started = 1;
	}
	while (c->i + 1 < tl->n) {
		uint64_t next_start = tl->first[c->i + 1];
		int beyond = guest > tl->last[c->i];
		/* one step back is evidence for one boundary, not for every later one */
		int stepped_back = !stepped && guest < c->last_guest && guest >= next_start;

		if (!beyond && !stepped_back)
			break;
		stepped |= stepped_back;
		c->i++;
	}
	c->last_guest = guest;
	s = &tl->seg[c->i];
	/* A value inside a forward jump's gap was never shown: the jump's instant. */
	if (c->i > 0 && guest < tl->first[c->i])
		return s->host_start;
	return hvt_tsc_to_host(&s->x, guest);
}
