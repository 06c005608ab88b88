/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * heap.h - the binary min-heap of the k-way merge: one entry per stream,
 * holding that stream's next event.
 *
 * The order is total and stable, so a merge prints the same lines in the same
 * order every time:
 *   1. host time (host TSC ticks, after alignment): earlier first;
 *   2. layer: host, then guest kernel, then guest user space, then the
 *      hypervisor's own (vmm) events - on a tie the cause is more likely
 *      below the effect;
 *   3. stream index: the order streams were opened in (host CPUs as the
 *      manifest lists them, then each VM's streams as info.json lists them).
 * A stream has at most one entry at a time, so no two entries tie on all
 * three; events of one stream come out in the stream's own order, since
 * the next is only keyed once the one before has been taken.
 *
 * The merge takes the smallest entry with hvt_heap_top() and, when its
 * stream has another event, re-keys it in place with hvt_heap_replace_top():
 * one sift-down per event instead of a pop and a push.
 */
#ifndef HVT_TOOLS_MERGE_HEAP_H
#define HVT_TOOLS_MERGE_HEAP_H

#include <stddef.h>
#include <stdint.h>

struct hvt_merge_key {
	uint64_t time;
	uint32_t layer;
	uint32_t stream;
};

struct hvt_heap_entry {
	struct hvt_merge_key key;
	void *item;
};

struct hvt_heap {
	struct hvt_heap_entry *e;
	size_t n, cap;
};

/* <0, 0, >0 as @a orders before, with, after @b. */
static inline int hvt_merge_key_cmp(const struct hvt_merge_key *a, const struct hvt_merge_key *b)
{
	uint64_t x = (uint64_t)a->layer << 32 | a->stream, y = (uint64_t)b->layer << 32 | b->stream;

	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return (x > y) - (x < y);
}

/* An empty heap for up to @cap entries; -1 if out of memory. */
int hvt_heap_init(struct hvt_heap *h, size_t cap);
/* Room for @cap entries in all; -1 if out of memory (the heap as it was). */
int hvt_heap_reserve(struct hvt_heap *h, size_t cap);
void hvt_heap_free(struct hvt_heap *h);
/* -1 if the heap is full. */
int hvt_heap_push(struct hvt_heap *h, const struct hvt_merge_key *key, void *item);
/* The smallest entry's item (its key in *@key if not NULL), or NULL if empty. */
void *hvt_heap_pop(struct hvt_heap *h, struct hvt_merge_key *key);
/* Gives the smallest entry, which must exist, the key @key; its item stays. */
void hvt_heap_replace_top(struct hvt_heap *h, const struct hvt_merge_key *key);

/* The smallest entry's item, left in place, or NULL if empty. */
static inline void *hvt_heap_top(const struct hvt_heap *h)
{
	return h->n ? h->e[0].item : NULL;
}

#endif
