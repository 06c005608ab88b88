/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sql_cache.h - an archive's SQL database, built once and kept (`hvtrace
 * sql`): ARCHIVE/.hvtrace-cache/merged.db, or, where the archive cannot be
 * written to, $XDG_CACHE_HOME/hvtrace (~/.cache/hvtrace) under a name
 * taken from the archive's path. Neither is a file of the archive
 * (docs/format.md). The database records what it was built from: the size
 * and modification time of every file of the archive; when any differs (a
 * recording still being written, a file replaced), it is built again.
 */
#ifndef HVT_TOOLS_OUT_SQL_CACHE_H
#define HVT_TOOLS_OUT_SQL_CACHE_H

/*
 * The path of @archive's database in *@path (malloc'd), built if it is
 * missing or stale. 0, or -1 after an error message.
 */
int hvt_sql_cache(const char *archive, char **path);

#endif
