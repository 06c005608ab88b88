/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * thread_pids.h - the process of each event's thread, for merge --pid.
 * Events carry a thread id only; the processes come from what the archive
 * lists: on the host, host/ftrace/tasks.tsv (the collector's /proc lists at
 * the start and the end); in a VM, its traced processes (each trace's pid,
 * and the tid of each of its streams), so a guest thread has a process
 * only if that process was traced; the host's own applications likewise.
 * The idle task (tid 0) is process 0.
 */
#ifndef HVT_TOOLS_SESSION_THREAD_PIDS_H
#define HVT_TOOLS_SESSION_THREAD_PIDS_H

#include <stddef.h>
#include <stdint.h>

#include "tools/session/source.h"

struct hvt_session;

struct hvt_thread_pid {
	uint32_t machine;		/* 0: the host; VM n: n (a source's vm_number) */
	int32_t tid, pid;
};

struct hvt_thread_pids {
	const struct hvt_session *ses;
	struct hvt_thread_pid *v;	/* the traced processes' threads, by (machine, tid) */
	size_t n;
};

/* From @ses's archive and traces; -1 if out of memory. */
int hvt_thread_pids_init(struct hvt_thread_pids *p, const struct hvt_session *ses);
/* The process of the thread current at @s's event; -1 if the archive does not say. */
int32_t hvt_thread_pids_get(const struct hvt_thread_pids *p, const struct hvt_source *s);
void hvt_thread_pids_free(struct hvt_thread_pids *p);

#endif
