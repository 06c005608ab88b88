// SPDX-License-Identifier: GPL-2.0-only
/*
 * heap.c - binary min-heap of merge keys (heap.h), in an array: the children
 * of entry i are 2i+1 and 2i+2.
 */
#include <stdlib.h>

#include "tools/heap.h"

#define CMP(x, y)	((x) < (y) ? -1 : (x) > (y))

int hvt_merge_key_cmp(const struct hvt_merge_key *a, const struct hvt_merge_key *b)
{
	if (a->time != b->time)
		return CMP(a->time, b->time);
	if (a->layer != b->layer)
		return CMP(a->layer, b->layer);
	if (a->stream != b->stream)
		return CMP(a->stream, b->stream);
	return CMP(a->seq, b->seq);
}

int hvt_heap_init(struct hvt_heap *h, size_t cap)
{
	h->n = 0;
	h->cap = cap;
	h->e = calloc(cap ? cap : 1, sizeof(*h->e));
	return h->e ? 0 : -1;
}

void hvt_heap_free(struct hvt_heap *h)
{
	free(h->e);
	h->e = NULL;
	h->n = h->cap = 0;
}

static int less(const struct hvt_heap *h, size_t i, size_t j)
{
	return hvt_merge_key_cmp(&h->e[i].key, &h->e[j].key) < 0;
}

static void swap(struct hvt_heap *h, size_t i, size_t j)
{
	struct hvt_heap_entry t = h->e[i];

	h->e[i] = h->e[j];
	h->e[j] = t;
}

int hvt_heap_push(struct hvt_heap *h, const struct hvt_merge_key *key, void *item)
{
	size_t i = h->n;

	if (h->n == h->cap)
		return -1;
	h->e[h->n].key = *key;
	h->e[h->n].item = item;
	h->n++;
	while (i > 0 && less(h, i, (i - 1) / 2)) {
		swap(h, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	return 0;
}

void *hvt_heap_pop(struct hvt_heap *h, struct hvt_merge_key *key)
{
	void *item;
	size_t i = 0;

	if (!h->n)
		return NULL;
	item = h->e[0].item;
	if (key)
		*key = h->e[0].key;
	h->e[0] = h->e[--h->n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, min = i;

		if (l < h->n && less(h, l, min))
			min = l;
		if (r < h->n && less(h, r, min))
			min = r;
		if (min == i)
			break;
		swap(h, i, min);
		i = min;
	}
	return item;
}
