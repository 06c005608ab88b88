// SPDX-License-Identifier: GPL-2.0-only
/*
 * partial_file.c - a file written under a temporary name, renamed when
 * complete (partial_file.h).
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "tools/util/partial_file.h"

#define MARK	".hvtrace-partial-"

static const int guarded[] = { SIGINT, SIGTERM, SIGHUP };
static struct sigaction before[sizeof(guarded) / sizeof(guarded[0])];
static char *volatile guarded_path;

char *hvt_partial_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	int dir = slash ? (int)(slash - path + 1) : 0;
	char *tmp;

	if (asprintf(&tmp, "%.*s.%s" MARK "%ld", dir, path, path + dir, (long)getpid()) < 0)
		return NULL;
	return tmp;
}

/* The pid in @entry if it is a temporary name of file @base ("" if none), else 0. */
static pid_t pid_of(const char *entry, const char *base)
{
	size_t n = strlen(base);
	char *end;
	long pid;

	if (entry[0] != '.' || strncmp(entry + 1, base, n) || strncmp(entry + 1 + n, MARK,
								     strlen(MARK)))
		return 0;
	entry += 1 + n + strlen(MARK);
	errno = 0;
	pid = strtol(entry, &end, 10);
	return !errno && end != entry && !*end && pid > 0 && pid == (pid_t)pid ? (pid_t)pid : 0;
}

void hvt_partial_sweep(const char *path, int quiet_s)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, (size_t)(slash - path + 1)) : strdup("./");
	const char *base = slash ? slash + 1 : path;
	struct dirent *e;
	DIR *d = dir ? opendir(dir) : NULL;

	while (d && (e = readdir(d))) {
		pid_t pid = pid_of(e->d_name, base);
		struct stat st;
		char *p;

		if (!pid || pid == getpid() || !kill(pid, 0) || errno != ESRCH)
			continue;
		if (asprintf(&p, "%s%s", dir, e->d_name) < 0)
			break;
		if (!lstat(p, &st) && S_ISREG(st.st_mode) &&
		    time(NULL) - st.st_mtime >= quiet_s)
			unlink(p);
		free(p);
	}
	if (d)
		closedir(d);
	free(dir);
}

static void on_signal(int sig)
{
	char *p = guarded_path;

	if (p)
		unlink(p);
	signal(sig, SIG_DFL);
	raise(sig);
}

void hvt_partial_guard(const char *tmp)
{
	struct sigaction sa = { .sa_handler = on_signal };
	size_t i;

	guarded_path = (char *)tmp;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(guarded) / sizeof(guarded[0]); i++) {
		sigaction(guarded[i], NULL, &before[i]);
		if (before[i].sa_handler == SIG_DFL)	/* ignored or handled: left so */
			sigaction(guarded[i], &sa, NULL);
	}
}

void hvt_partial_unguard(void)
{
	size_t i;

	if (!guarded_path)
		return;
	for (i = 0; i < sizeof(guarded) / sizeof(guarded[0]); i++)
		sigaction(guarded[i], &before[i], NULL);
	guarded_path = NULL;
}
