/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * task_list.h - the host's threads as /proc lists them, each with its
 * process and name: read when the host layer starts and when it stops,
 * kept in the archive as host/ftrace/tasks.tsv (docs/format.md) so that
 * offline a host event's thread has a process (merge --pid) and a name
 * before its first sched_switch. ftrace events carry neither; tracefs's
 * saved_tgids would, but only with record-tgid, a global option of the
 * host's tracing that a recording should not turn on for everyone.
 */
#ifndef HVT_HOST_TASK_LIST_H
#define HVT_HOST_TASK_LIST_H

#include <stddef.h>
#include <sys/types.h>

#define HVT_TASK_COMM_LEN	16

struct hvt_task_row {
	pid_t tid, pid;
	char comm[HVT_TASK_COMM_LEN];	/* control characters and '\\' as '?' */
};

struct hvt_task_list {
	struct hvt_task_row *v;
	size_t n, cap;
};

/*
 * Adds each thread of @proc ("/proc") not listed yet (by tid: the first
 * reading of a tid wins), and sorts the list by tid. 0, or -1 if @proc
 * cannot be read or memory ran out.
 */
int hvt_task_list_scan(struct hvt_task_list *l, const char *proc);
/* Writes the list to @path, atomically, sorted by tid: 0, or -1 with errno. */
int hvt_task_list_write(const struct hvt_task_list *l, const char *path);
void hvt_task_list_free(struct hvt_task_list *l);

#endif
