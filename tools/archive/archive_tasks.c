// SPDX-License-Identifier: GPL-2.0-only
/*
 * archive_tasks.c - host/ftrace/tasks.tsv: the host's threads with their
 * process and name, as the collector listed them in /proc at the start and
 * the end of the recording (docs/format.md). Optional: an archive without
 * it (older, or the list could not be written) has no host processes.
 *
 * A row that does not parse is warned about and skipped; of a tid listed
 * twice (the collector writes each once) one row is kept; the file and its
 * rows are bounded.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/fileio.h"
#include "lib/log.h"
#include "tools/archive/archive.h"
#include "tools/util/stream_warn.h"

#define TASKS_MAX_ROWS	(1u << 22)	/* the kernel's pid_max limit: rows read at most */
#define TASKS_MAX_LINE	64		/* two ids, a 15-byte name, tabs */
#define TASKS_HEADER	"tid\tpid\tcomm"

#define ROW_END		(-2)

/*
 * The next line of @f, without its '\n', in @buf (TASKS_MAX_LINE + 1
 * bytes): its length; -1 for a line too long or holding a NUL (read to its
 * end, not kept); ROW_END at the end of the file.
 */
static int next_row(FILE *f, char *buf)
{
	int c, n = 0;
	bool bad = false;

	while ((c = getc(f)) != EOF && c != '\n') {
		if (c == '\0' || n == TASKS_MAX_LINE)
			bad = true;
		else
			buf[n++] = (char)c;
	}
	if (c == EOF && !n && !bad)
		return ROW_END;
	buf[n] = '\0';
	return bad ? -1 : n;
}

/* "TID\tPID\tCOMM": 0, or -1 if it is not such a row. */
static int parse_row(char *line, struct hvt_host_task *t)
{
	char *end, *tab;
	long tid, pid;

	errno = 0;
	tid = strtol(line, &end, 10);
	if (end == line || *end != '\t' || tid <= 0 || tid > INT32_MAX || errno)
		return -1;
	line = end + 1;
	pid = strtol(line, &end, 10);
	if (end == line || *end != '\t' || pid <= 0 || pid > INT32_MAX || errno)
		return -1;
	line = end + 1;
	tab = strchr(line, '\t');
	if (tab || strlen(line) >= sizeof(t->comm))
		return -1;
	t->tid = (int32_t)tid;
	t->pid = (int32_t)pid;
	strcpy(t->comm, line);
	return 0;
}

static int by_tid(const void *a, const void *b)
{
	const struct hvt_host_task *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* Sorted by tid, one row per tid. */
static void sort_unique(struct hvt_archive *a)
{
	size_t i, n = 0;

	if (!a->nr_host_tasks)
		return;
	qsort(a->host_tasks, a->nr_host_tasks, sizeof(*a->host_tasks), by_tid);
	for (i = 0; i < a->nr_host_tasks; i++)
		if (!n || a->host_tasks[n - 1].tid != a->host_tasks[i].tid)
			a->host_tasks[n++] = a->host_tasks[i];
	a->nr_host_tasks = n;
}

static int add_row(struct hvt_archive *a, size_t *cap, const struct hvt_host_task *t)
{
	if (a->nr_host_tasks == *cap) {
		size_t c = *cap ? *cap * 2 : 1024;
		struct hvt_host_task *v = realloc(a->host_tasks, c * sizeof(*v));

		if (!v)
			return -1;
		a->host_tasks = v;
		*cap = c;
	}
	a->host_tasks[a->nr_host_tasks++] = *t;
	return 0;
}

int hvt_archive_load_tasks(struct hvt_archive *a)
{
	char path[HVT_PATH_LEN], line[TASKS_MAX_LINE + 1];
	unsigned long lineno = 0, bad = 0;
	size_t cap = 0;
	int n;
	uint64_t size;
	FILE *f;
	int fd;

	if (!a->ftrace_dir || hvt_path(path, sizeof(path), "%s/tasks.tsv", a->ftrace_dir))
		return 0;
	if (access(path, F_OK))
		return 0;	/* not recorded */
	fd = hvt_open_regular(path, (uint64_t)TASKS_MAX_ROWS * TASKS_MAX_LINE, &size);
	f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		hvt_warn("cannot open %s: %s; merge --pid knows no host process",
			 path, hvt_file_strerror(errno));
		if (fd >= 0)
			close(fd);
		a->warnings++;
		return 0;
	}
	while ((n = next_row(f, line)) != ROW_END) {
		struct hvt_host_task t;

		lineno++;
		if (lineno == 1) {
			if (n < 0 || strcmp(line, TASKS_HEADER)) {
				hvt_warn("%s: unexpected header line; expected \"tid\\tpid\\tcomm\"; "
					 "merge --pid knows no host process", path);
				a->warnings++;
				break;
			}
			continue;
		}
		if (n < 0 || parse_row(line, &t)) {
			hvt_stream_warn(&bad, path, "line %lu does not parse; skipping it", lineno);
			continue;
		}
		if (a->nr_host_tasks == TASKS_MAX_ROWS) {
			hvt_warn("%s: more than %u rows (a host has no more threads); the rest is "
				 "not read", path, TASKS_MAX_ROWS);
			a->warnings++;
			break;
		}
		if (add_row(a, &cap, &t)) {
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	a->warnings += bad;
	sort_unique(a);
	return 0;
}

const struct hvt_host_task *hvt_archive_host_task(const struct hvt_archive *a, int32_t tid)
{
	struct hvt_host_task key = { .tid = tid };

	if (!a->nr_host_tasks)
		return NULL;
	return bsearch(&key, a->host_tasks, a->nr_host_tasks, sizeof(key), by_tid);
}
