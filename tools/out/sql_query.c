// SPDX-License-Identifier: GPL-2.0-only
/*
 * sql_query.c - asking a database hvtrace made (sql_query.h).
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/log.h"
#include "tools/out/sql_query.h"
#include "tools/out/sql_schema.h"

#define SHELL_HINT	"run the sqlite3 shell: sqlite3 \"$(hvtrace sql ARCHIVE --path)\""

/* meta's value @name in @h, in @buf; false if there is none. */
static bool meta_text(sqlite3 *h, const char *name, char *buf, size_t len)
{
	sqlite3_stmt *st;
	bool found = false;

	if (sqlite3_prepare_v2(h, "SELECT value FROM meta WHERE name = ?", -1, &st, NULL))
		return false;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
		snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st, 0));
		found = true;
	}
	sqlite3_finalize(st);
	return found;
}

static bool sqlite_header(const char *path)
{
	char head[16] = "";
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(head, 1, sizeof(head), f) : 0;

	if (f)
		fclose(f);
	return n == sizeof(head) && !memcmp(head, "SQLite format 3", sizeof(head));
}

int hvt_sql_db_file(const char *path)
{
	char format[32] = "", version[32] = "";
	struct stat st;
	sqlite3 *h;
	int ret = -1;

	if (stat(path, &st) || !S_ISREG(st.st_mode) || !sqlite_header(path))
		return 0;
	if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		hvt_err("%s: %s", path, sqlite3_errmsg(h));
	} else if (!meta_text(h, "format", format, sizeof(format)) ||
		   strcmp(format, "hvtrace-sql")) {
		hvt_err("%s is an SQLite database, but not one hvtrace made (its meta table "
			"has no format 'hvtrace-sql'): open it with sqlite3 %s, or give hvtrace "
			"sql an archive", path, path);
	} else {
		ret = 1;
		if (meta_text(h, "version", version, sizeof(version)) &&
		    atoi(version) != HVT_SQL_SCHEMA_VERSION)
			hvt_warn("%s has tables of version %s, this hvtrace writes version %d "
				 "(docs/sql.md): a query may not fit it; 'hvtrace merge "
				 "--format=sqlite --force' writes it anew", path, version,
				 HVT_SQL_SCHEMA_VERSION);
	}
	sqlite3_close(h);
	return ret;
}

/* @query past its leading blanks. */
static const char *skip_blanks(const char *query)
{
	while (isspace((unsigned char)*query))
		query++;
	return query;
}

/* Dot command @query's name in @name, its first word after it in @arg; how many words follow. */
static int dot_words(const char *query, char *name, size_t nlen, char *arg, size_t alen)
{
	const char *p = skip_blanks(query), *end = p + strcspn(p, " \t\n");
	int n = 0;

	snprintf(name, nlen, "%.*s", (int)(end - p), p);
	*arg = 0;
	for (p = skip_blanks(end); *p; p = skip_blanks(end), n++) {
		end = p + strcspn(p, " \t\n");
		if (!n)
			snprintf(arg, alen, "%.*s", (int)(end - p), p);
	}
	return n;
}

const char *hvt_sql_query_refused(const char *query, char *buf, size_t len)
{
	char name[64], arg[256];
	int words;

	if (*skip_blanks(query) != '.')
		return NULL;
	words = dot_words(query, name, sizeof(name), arg, sizeof(arg));
	if ((!strcmp(name, ".tables") && !words) || (!strcmp(name, ".schema") && words <= 1))
		return NULL;
	if (!strcmp(name, ".tables") || !strcmp(name, ".schema"))
		snprintf(buf, len, "'%s': hvtrace sql runs %s with %s; for more, %s",
			 skip_blanks(query), name, !strcmp(name, ".tables") ? "no pattern" :
			 "one TABLE at most", SHELL_HINT);
	else
		snprintf(buf, len, "'%s' is a command of the sqlite3 shell, not SQL: hvtrace sql "
			 "runs .tables and .schema [TABLE] only; for the others, %s", name,
			 SHELL_HINT);
	return buf;
}

/*
 * Says, on every run, that database @h of @what (the archive or the file
 * asked) is incomplete and why (the warnings were printed once, when it
 * was built). True if it lacks recorded events (a part of the archive
 * could not be read): then, as merge, the command ends with status 1.
 */
static bool say_incomplete(sqlite3 *h, const char *what)
{
	char complete[8], why[512], archive[4096], lacks[8];

	if (!meta_text(h, "complete", complete, sizeof(complete)) || strcmp(complete, "0") ||
	    !meta_text(h, "incomplete_reason", why, sizeof(why)))
		return false;
	if (!meta_text(h, "archive", archive, sizeof(archive)))
		snprintf(archive, sizeof(archive), "%s", what);
	hvt_warn("the database of %s is incomplete: %s ('hvtrace merge --format=null %s' "
		 "prints the warnings again)", what, why, archive);
	return meta_text(h, "lacks", lacks, sizeof(lacks)) && lacks[0];
}

/* One row's columns, tab-separated. */
static void print_row(sqlite3_stmt *st, int n, FILE *out)
{
	int i;

	for (i = 0; i < n; i++) {
		const unsigned char *v = sqlite3_column_text(st, i);

		if (i)
			fputc('\t', out);
		for (; v && *v; v++)	/* one row, one line */
			fputc(*v == '\t' || *v == '\n' ? ' ' : *v, out);
	}
	fputc('\n', out);
}

/* Runs each statement of @sql on @h, printing the rows of each; 0, or 1 after saying why. */
static int run_sql(sqlite3 *h, const char *sql)
{
	sqlite3_stmt *st = NULL;
	const char *next = sql;
	int ret = 0, i, n, r;

	while (!ret && next && *next) {
		if (sqlite3_prepare_v2(h, next, -1, &st, &next) != SQLITE_OK) {
			hvt_err("query: %s", sqlite3_errmsg(h));
			return 1;
		}
		if (!st)	/* white space or a comment */
			continue;
		n = sqlite3_column_count(st);
		for (i = 0; i < n; i++)
			printf("%s%s", i ? "\t" : "", sqlite3_column_name(st, i));
		if (n)
			putchar('\n');
		while ((r = sqlite3_step(st)) == SQLITE_ROW)
			print_row(st, n, stdout);
		if (r != SQLITE_DONE) {
			hvt_err("query: %s", sqlite3_errmsg(h));
			ret = 1;
		}
		sqlite3_finalize(st);
	}
	return ret;
}

/*
 * .tables: the tables and views, one a line; .schema [TABLE]: the CREATE
 * statements (of TABLE, a name or a LIKE pattern as sqlite3 takes it, and
 * its indexes). 0, or 1 after saying why.
 */
static int run_dot(sqlite3 *h, const char *query)
{
	char name[64], arg[256];
	bool tables, any = false;
	sqlite3_stmt *st;
	int r;

	dot_words(query, name, sizeof(name), arg, sizeof(arg));
	tables = !strcmp(name, ".tables");
	if (sqlite3_prepare_v2(h, tables ?
			       "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') "
			       "AND name NOT LIKE 'sqlite_%' ORDER BY name" :
			       "SELECT sql || ';' FROM sqlite_schema WHERE sql IS NOT NULL AND "
			       "name NOT LIKE 'sqlite_%' AND (?1 IS NULL OR tbl_name LIKE ?1) "
			       "ORDER BY tbl_name, type DESC, name", -1, &st, NULL) != SQLITE_OK) {
		hvt_err("%s: %s", name, sqlite3_errmsg(h));
		return 1;
	}
	if (!tables && *arg)
		sqlite3_bind_text(st, 1, arg, -1, SQLITE_STATIC);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		printf("%s\n", (const char *)sqlite3_column_text(st, 0));
		any = true;
	}
	sqlite3_finalize(st);
	if (r != SQLITE_DONE) {
		hvt_err("%s: %s", name, sqlite3_errmsg(h));
		return 1;
	}
	if (!tables && *arg && !any) {
		hvt_err(".schema %s: no table or view of that name ('.tables' lists them)", arg);
		return 1;
	}
	return 0;
}

int hvt_sql_query(const char *db, const char *what, const char *query)
{
	sqlite3 *h;
	bool lacking;
	int ret;

	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		hvt_err("%s: %s", db, sqlite3_errmsg(h));
		sqlite3_close(h);
		return 1;
	}
	lacking = say_incomplete(h, what);
	ret = *skip_blanks(query) == '.' ? run_dot(h, query) : run_sql(h, query);
	sqlite3_close(h);
	return ret ? ret : lacking;
}
