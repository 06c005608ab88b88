/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sql_query.h - asking a database hvtrace made (`hvtrace sql`): a file
 * recognised as one (meta.format 'hvtrace-sql'), SQL run with its rows
 * printed, and the two sqlite3 shell commands worth having without the
 * shell: .tables and .schema [TABLE]. The others are the shell's, and
 * said so with how to run it.
 */
#ifndef HVT_TOOLS_OUT_SQL_QUERY_H
#define HVT_TOOLS_OUT_SQL_QUERY_H

#include <stddef.h>

/*
 * Whether @path is an SQLite database: 0 not one (not a regular file, or
 * not SQLite's format), 1 one made by hvtrace (merge --format=sqlite, the
 * cache of hvtrace sql), -1 after an error message (another SQLite
 * database, or one that cannot be read).
 */
int hvt_sql_db_file(const char *path);
/*
 * NULL if @query is SQL or a dot command hvt_sql_query() runs; otherwise
 * why not, in @buf (@len bytes), for a usage error.
 */
const char *hvt_sql_query_refused(const char *query, char *buf, size_t len);
/*
 * Runs @query on database @db, read only: each SQL statement's rows (a
 * header, then tab-separated columns), or .tables (one name a line) or
 * .schema [TABLE] (the CREATE statements). Warns first if the database
 * (of @what: the archive or file the user gave) is incomplete. 0, or 1
 * after saying why.
 */
int hvt_sql_query(const char *db, const char *what, const char *query);

#endif
