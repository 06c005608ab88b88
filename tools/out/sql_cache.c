// SPDX-License-Identifier: GPL-2.0-only
/*
 * sql_cache.c - an archive's SQL database, built once (sql_cache.h).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/fileio.h"
#include "lib/log.h"
#include "tools/merge/timeline.h"
#include "tools/out/sql_cache.h"
#include "tools/out/sql_schema.h"
#include "tools/out/sqlite_out.h"

#define CACHE_DIR	".hvtrace-cache"
#define CACHE_FILE	"merged.db"

/* A running hash of what the archive's files are (FNV-1a over sizes, times, names). */
static void stamp_add(uint64_t *h, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--)
		*h = (*h ^ *b++) * 0x100000001b3ull;
}

/* Every file under @dir (@rel within the archive), into @h, in name order. */
static int stamp_dir(const char *dir, uint64_t *h, int depth)
{
	struct dirent **list;
	int n = scandir(dir, &list, NULL, alphasort), i, ret = 0;

	if (n < 0)
		return errno == ENOENT ? 0 : -1;
	for (i = 0; i < n; i++) {
		char *path = NULL;
		struct stat st;

		if (!ret && strcmp(list[i]->d_name, ".") && strcmp(list[i]->d_name, "..") &&
		    (path = hvt_join(dir, list[i]->d_name)) && !lstat(path, &st)) {
			stamp_add(h, list[i]->d_name, strlen(list[i]->d_name));
			stamp_add(h, &st.st_size, sizeof(st.st_size));
			stamp_add(h, &st.st_mtim, sizeof(st.st_mtim));
			if (S_ISDIR(st.st_mode) && depth < 8)
				ret = stamp_dir(path, h, depth + 1);
		}
		free(path);
		free(list[i]);
	}
	free(list);
	return ret;
}

/*
 * What @archive is now, and what would build its database (the schema's
 * version, this hvtrace's executable), as a text: a new hvtrace rebuilds.
 */
static int archive_stamp(const char *archive, char *buf, size_t len)
{
	static const char *const parts[] = { "hvtrace.json", "host", "vm" };
	uint64_t h = 0xcbf29ce484222325ull;
	struct stat st;
	size_t i;

	if (!stat("/proc/self/exe", &st)) {
		stamp_add(&h, &st.st_size, sizeof(st.st_size));
		stamp_add(&h, &st.st_mtim, sizeof(st.st_mtim));
	}

	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		char *path = hvt_join(archive, parts[i]);
		int ret = path && !lstat(path, &st) ? 0 : -1;

		if (!ret) {
			stamp_add(&h, &st.st_size, sizeof(st.st_size));
			stamp_add(&h, &st.st_mtim, sizeof(st.st_mtim));
			if (S_ISDIR(st.st_mode))
				ret = stamp_dir(path, &h, 0);
		}
		free(path);
		if (ret && errno != ENOENT)
			return -1;
	}
	snprintf(buf, len, "v%d-%016" PRIx64, HVT_SQL_SCHEMA_VERSION, h);
	return 0;
}

/* The stamp the database at @db was built from, in @buf; "" if none or unreadable. */
static void built_from(const char *db, char *buf, size_t len)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;

	buf[0] = '\0';
	if (access(db, R_OK) ||
	    sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(h, "SELECT value FROM meta WHERE name = 'archive_stamp'", -1, &st,
			       NULL) != SQLITE_OK)
		goto out;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st, 0));
out:
	sqlite3_finalize(st);
	sqlite3_close(h);
}

/*
 * Where @archive's database goes: in it if it can be written to, else in
 * the user's cache; NULL after saying why.
 */
static char *cache_path(const char *archive)
{
	char *dir = hvt_join(archive, CACHE_DIR), *path = NULL, real[PATH_MAX];
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	uint64_t h = 0xcbf29ce484222325ull;

	if (dir && (!mkdir(dir, 0755) || errno == EEXIST) && !access(dir, W_OK)) {
		path = hvt_join(dir, CACHE_FILE);
		free(dir);
		return path;
	}
	free(dir);
	if (!realpath(archive, real)) {
		hvt_err("%s: %s", archive, strerror(errno));
		return NULL;
	}
	stamp_add(&h, real, strlen(real));
	if ((xdg && *xdg ? asprintf(&dir, "%s/hvtrace", xdg) :
	     home && *home ? asprintf(&dir, "%s/.cache/hvtrace", home) : -1) < 0) {
		hvt_err("%s cannot be written to, and neither XDG_CACHE_HOME nor HOME says where "
			"a cache may be", archive);
		return NULL;
	}
	if (hvt_mkdir_p(dir)) {
		hvt_err("%s cannot be written to, nor the cache directory %s: %s", archive, dir,
			strerror(errno));
		path = NULL;
	} else if (asprintf(&path, "%s/%016" PRIx64 ".db", dir, h) < 0) {
		hvt_err("out of memory");
		path = NULL;
	}
	free(dir);
	return path;
}

/* Builds @archive's database at @path, stamped @stamp; -1 after an error message. */
static int build(const char *archive, const char *path, const char *stamp)
{
	struct hvt_session ses;
	struct hvt_timeline tl;
	struct hvt_sql_out *o;
	struct hvt_source *s;
	int ret = -1;

	hvt_info("%s: building its database, once: %s", archive, path);
	if (hvt_session_open(&ses, archive, NULL))
		return -1;
	if (!hvt_timeline_init(&tl, &ses, NULL, NULL) &&
	    (o = hvt_sql_out_open(&ses, path, true))) {
		while ((s = hvt_timeline_next(&tl)))
			hvt_sql_out_event(o, s);
		/* what it was built from, for the next time: in it, or no database */
		ret = hvt_sql_out_meta(o, "archive_stamp", stamp) | hvt_sql_out_close(o);
	}
	hvt_timeline_close(&tl);
	hvt_session_close(&ses);
	return ret ? -1 : 0;
}

int hvt_sql_cache(const char *archive, char **path)
{
	char now[32], then[32];
	struct stat st;

	if (stat(archive, &st)) {
		hvt_err("%s: %s", archive, errno == ENOENT ? "no such archive directory" :
			strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		hvt_err("%s is a file, not an archive's directory (hvtrace sql takes an archive, "
			"or a database merge --format=sqlite wrote)", archive);
		return -1;
	}
	if (archive_stamp(archive, now, sizeof(now))) {
		hvt_err("%s: %s", archive, strerror(errno));
		return -1;
	}
	*path = cache_path(archive);
	if (!*path)
		return -1;
	built_from(*path, then, sizeof(then));
	if (!strcmp(now, then))
		return 0;
	if (build(archive, *path, now)) {
		free(*path);
		*path = NULL;
		return -1;
	}
	return 0;
}
