// SPDX-License-Identifier: GPL-2.0-only
/*
 * heap.c - binary min-heap of merge keys (heap.h), in an array: the children
 * of entry i are 2i+1 and 2i+2.
 */
#include <stdlib.h>

#include "tools/merge/heap.h"

int hvt_heap_init(struct hvt_heap *h, size_t cap)
{
	h->n = 0;
	h->cap = cap;
	h->e = calloc(cap ? cap : 1, sizeof(*h->e));
	return h->e ? 0 : -1;
}

int hvt_heap_reserve(struct hvt_heap *h, size_t cap)
{
	struct hvt_heap_entry *e;

	if (cap <= h->cap)
		return 0;
	e = realloc(h->e, cap * sizeof(*e));
	if (!e)
		return -1;
	h->e = e;
	h->cap = cap;
	return 0;
}

void hvt_heap_free(struct hvt_heap *h)
{
	free(h->e);
	h->e = NULL;
	h->n = h->cap = 0;
}

int hvt_heap_push(struct hvt_heap *h, const struct hvt_merge_key *key, void *item)
{
	struct hvt_heap_entry x = { *key, item };
	size_t i = h->n;

	if (h->n == h->cap)
		return -1;
	h->n++;
	/* Move parents down into the hole until x fits there. */
	while (i > 0 && hvt_merge_key_cmp(&x.key, &h->e[(i - 1) / 2].key) < 0) {
		h->e[i] = h->e[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->e[i] = x;
	return 0;
}

/* Puts @x at the root, whose entry has been taken, and sifts it down. */
static void sift_down(struct hvt_heap *h, struct hvt_heap_entry x)
{
	size_t i = 0, n = h->n;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && hvt_merge_key_cmp(&h->e[c + 1].key, &h->e[c].key) < 0)
			c++;
		if (hvt_merge_key_cmp(&h->e[c].key, &x.key) >= 0)
			break;
		h->e[i] = h->e[c];
		i = c;
	}
	h->e[i] = x;
}

void *hvt_heap_pop(struct hvt_heap *h, struct hvt_merge_key *key)
{
	void *item;

	if (!h->n)
		return NULL;
	item = h->e[0].item;
	if (key)
		*key = h->e[0].key;
	if (--h->n)
		sift_down(h, h->e[h->n]);
	return item;
}

void hvt_heap_replace_top(struct hvt_heap *h, const struct hvt_merge_key *key)
{
	struct hvt_heap_entry x = { *key, h->e[0].item };

	sift_down(h, x);
}
