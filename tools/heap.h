/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * heap.h - the binary min-heap of the k-way merge: one entry per stream,
 * holding that stream's next event.
 *
 * The order is total and stable, so a merge prints the same lines in the same
 * order every time:
 *   1. host time (host TSC ticks, after alignment): earlier first;
 *   2. layer: host, then guest kernel, then guest user space - on a tie the
 *      cause is more likely below the effect;
 *   3. stream index: the order streams were opened in (host CPUs as the
 *      manifest lists them, then each VM's streams as info.json lists them);
 *   4. sequence number of the event in its stream.
 */
#ifndef HVT_TOOLS_HEAP_H
#define HVT_TOOLS_HEAP_H

#include <stddef.h>
#include <stdint.h>

struct hvt_merge_key {
	uint64_t time;
	uint32_t layer;
	uint32_t stream;
	uint64_t seq;
};

struct hvt_heap_entry {
	struct hvt_merge_key key;
	void *item;
};

struct hvt_heap {
	struct hvt_heap_entry *e;
	size_t n, cap;
};

int hvt_merge_key_cmp(const struct hvt_merge_key *a, const struct hvt_merge_key *b);

/* An empty heap for up to @cap entries; -1 if out of memory. */
int hvt_heap_init(struct hvt_heap *h, size_t cap);
void hvt_heap_free(struct hvt_heap *h);
/* -1 if the heap is full. */
int hvt_heap_push(struct hvt_heap *h, const struct hvt_merge_key *key, void *item);
/* The smallest entry's item (its key in *@key if not NULL), or NULL if empty. */
void *hvt_heap_pop(struct hvt_heap *h, struct hvt_merge_key *key);

#endif
