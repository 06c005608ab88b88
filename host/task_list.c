// SPDX-License-Identifier: GPL-2.0-only
/*
 * task_list.c - the host's threads from /proc (task_list.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/task_list.h"
#include "lib/fileio.h"

/* A decimal directory name: its number, or -1. */
static pid_t number(const char *name)
{
	char *end;
	long v;

	if (*name < '0' || *name > '9')
		return -1;
	errno = 0;
	v = strtol(name, &end, 10);
	return errno || *end || v <= 0 || v > 0x3fffffff ? -1 : (pid_t)v;
}

static int by_tid(const void *a, const void *b)
{
	const struct hvt_task_row *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

/*
 * Whether @tid was listed by an earlier scan (its rows, sorted, are the
 * first @sorted). Within one scan /proc names each thread once.
 */
static int listed(const struct hvt_task_list *l, size_t sorted, pid_t tid)
{
	struct hvt_task_row key = { .tid = tid };

	return sorted && bsearch(&key, l->v, sorted, sizeof(*l->v), by_tid);
}

/* Sorted by tid, each once (of a thread seen twice in one scan, one row). */
static void sort_unique(struct hvt_task_list *l)
{
	size_t i, n = 0;

	if (!l->n)
		return;
	qsort(l->v, l->n, sizeof(*l->v), by_tid);
	for (i = 0; i < l->n; i++)
		if (!n || l->v[n - 1].tid != l->v[i].tid)
			l->v[n++] = l->v[i];
	l->n = n;
}

/* @path's first line, cut to @len - 1 bytes, in @buf; "" if it cannot be read. */
static void read_comm(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t i;

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	for (i = 0; buf[i]; i++)
		if ((unsigned char)buf[i] < ' ' || buf[i] == 0x7f || buf[i] == '\\')
			buf[i] = '?';
}

static int add(struct hvt_task_list *l, pid_t tid, pid_t pid, const char *proc)
{
	char path[HVT_PATH_LEN];
	struct hvt_task_row *r;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 1024;
		struct hvt_task_row *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	r = &l->v[l->n];
	r->tid = tid;
	r->pid = pid;
	if (hvt_path(path, sizeof(path), "%s/%d/task/%d/comm", proc, (int)pid, (int)tid))
		r->comm[0] = '\0';
	else
		read_comm(path, r->comm, sizeof(r->comm));
	if (!r->comm[0])
		return 0;	/* gone meanwhile */
	l->n++;
	return 0;
}

/* The threads of process @pid; a process gone meanwhile has none. */
static int scan_process(struct hvt_task_list *l, size_t sorted, pid_t pid, const char *proc)
{
	char path[HVT_PATH_LEN];
	struct dirent *e;
	DIR *d;
	int ret = 0;

	if (hvt_path(path, sizeof(path), "%s/%d/task", proc, (int)pid) || !(d = opendir(path)))
		return 0;
	while (!ret && (e = readdir(d))) {
		pid_t tid = number(e->d_name);

		if (tid > 0 && !listed(l, sorted, tid))
			ret = add(l, tid, pid, proc);
	}
	closedir(d);
	return ret;
}

int hvt_task_list_scan(struct hvt_task_list *l, const char *proc)
{
	size_t sorted = l->n;	/* hvt_task_list_scan() leaves the list sorted */
	struct dirent *e;
	DIR *d = opendir(proc);
	int ret = 0;

	if (!d)
		return -1;
	while (!ret && (e = readdir(d))) {
		pid_t pid = number(e->d_name);

		if (pid > 0)
			ret = scan_process(l, sorted, pid, proc);
	}
	closedir(d);
	sort_unique(l);
	return ret;
}

int hvt_task_list_write(const struct hvt_task_list *l, const char *path)
{
	size_t cap = 32 + l->n * (2 * 11 + HVT_TASK_COMM_LEN + 3), len, i;
	char *text = malloc(cap);
	int ret;

	if (!text)
		return -1;
	len = (size_t)snprintf(text, cap, "tid\tpid\tcomm\n");
	for (i = 0; i < l->n; i++)
		len += (size_t)snprintf(text + len, cap - len, "%d\t%d\t%s\n", (int)l->v[i].tid,
					(int)l->v[i].pid, l->v[i].comm);
	ret = hvt_write_file_atomic(path, text, len);
	free(text);
	return ret;
}

void hvt_task_list_free(struct hvt_task_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}
