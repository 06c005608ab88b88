/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * replace_async.h - files replaced atomically (hvt_write_file_atomic():
 * a temporary file, fsync, rename) by a thread of their own.
 *
 * The collector rewrites each VM's info.json on its tick, so that a
 * follower reads its counts within 100 ms. The fsync in that rewrite waits
 * for the file system's journal, which under a heavy write load takes 10
 * to 100 ms; on the collector's thread it stopped the draining of every
 * link for as long, and a clock exchange answered meanwhile waited with
 * it. A slot hands the rewrite to the thread instead: the latest text
 * queued for a file replaces an older one not written yet, so a slow disk
 * delays counts, never the collector.
 *
 * The thread looks at its queue every 50 ms, unwoken (replace_async.c
 * says why). The caller orders what must be ordered: hvt_replace_cancel()
 * before a write of its own to the same path (one that must be on disk
 * before what follows it) and before the slot goes.
 */
#ifndef HVT_HOST_REPLACE_ASYNC_H
#define HVT_HOST_REPLACE_ASYNC_H

#include <stdbool.h>
#include <stddef.h>

struct hvt_replace_slot {
	/* under the thread's lock */
	struct hvt_replace_slot *next;	/* in the queue */
	char *path, *text;		/* queued; NULL when none */
	size_t len;
	bool queued, busy;		/* in the queue; being written */
	int err;			/* errno of a failed write not said yet */
};

/*
 * Queues @text (@len bytes, taken: freed once written) to replace @path
 * (copied). -1 with errno if it cannot be queued (no memory, no thread):
 * the caller then writes it itself.
 */
int hvt_replace_async(struct hvt_replace_slot *s, const char *path, char *text, size_t len);

/*
 * Waits until nothing queued in @s is left to write. -1 with errno if a
 * write failed that hvt_replace_error() has not taken, else 0.
 */
int hvt_replace_wait(struct hvt_replace_slot *s);

/*
 * Drops a text queued in @s and not being written yet (the caller writes a
 * newer one itself), and waits for one being written. Returns as
 * hvt_replace_wait() does.
 */
int hvt_replace_cancel(struct hvt_replace_slot *s);

/* The errno of a failed write not said yet, and forgets it; 0 if none. */
int hvt_replace_error(struct hvt_replace_slot *s);

#endif
