// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_sql.c - `hvtrace sql ARCHIVE [QUERY]`: the archive's SQL database,
 * built once (out/sql_cache.h), asked a query, or opened in the sqlite3
 * shell. Options, help and the exit status; the tables are docs/sql.md's.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/cli.h"
#include "lib/log.h"
#include "tools/commands.h"
#include "tools/out/sql_cache.h"
#include "tools/archive/archive_path.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: hvtrace sql ARCHIVE [QUERY]\n"
		"       hvtrace sql ARCHIVE --path\n\n"
		"Builds ARCHIVE's SQLite database once (merge --format=sqlite: every event,\n"
		"each machine's CPU slices and thread states, the vCPU states analyze counts,\n"
		"the clock exchanges; docs/sql.md has the tables and a cookbook) and keeps it\n"
		"in ARCHIVE/.hvtrace-cache, or in $XDG_CACHE_HOME/hvtrace (~/.cache/hvtrace)\n"
		"where the archive cannot be written to; it is built again when the archive\n"
		"changes.\n"
		"With QUERY, runs it and prints the rows: a header, then tab-separated\n"
		"columns (NULL as an empty field). Without, opens the sqlite3 shell on it.\n\n"
		"  --path          print the database's path (built if need be), nothing else\n"
		"  -v, --verbose   also say how each VM's clock was aligned, in detail\n"
		"  -q, --quiet     print no information: warnings, errors and the rows only\n"
		"  -h, --help      this help\n"
		"Times are integer ns since the trace start on the host's clock; a guest row\n"
		"carries the bound of its ends in ns.\n"
		"Exit status: 0 done, 1 the archive cannot be read or the query failed,\n"
		"2 usage error.\n");
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

/*
 * Says, on every run, that database @h of @archive is incomplete and why
 * (the warnings were printed once, when it was built).
 */
static void say_incomplete(sqlite3 *h, const char *archive)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(h, "SELECT value FROM meta WHERE name = 'incomplete_reason' "
			       "AND (SELECT value FROM meta WHERE name = 'complete') = 0", -1, &st,
			       NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		hvt_warn("the database of %s is incomplete: %s ('hvtrace merge --format=null %s' "
			 "prints the warnings again)", archive, sqlite3_column_text(st, 0), archive);
	sqlite3_finalize(st);
}

/* Runs each statement of @sql on @db, printing the rows of each; 0, or 1 after saying why. */
static int run_query(const char *db, const char *archive, const char *sql)
{
	sqlite3 *h;
	sqlite3_stmt *st = NULL;
	const char *next = sql;
	int ret = 0, i, n, r;

	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		hvt_err("%s: %s", db, sqlite3_errmsg(h));
		sqlite3_close(h);
		return 1;
	}
	say_incomplete(h, archive);
	while (!ret && next && *next) {
		if (sqlite3_prepare_v2(h, next, -1, &st, &next) != SQLITE_OK) {
			hvt_err("query: %s", sqlite3_errmsg(h));
			ret = 1;
			break;
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
	sqlite3_close(h);
	return ret;
}

int hvt_cmd_sql(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "path", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		HVT_CLI_VERBOSITY_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	bool path_only = false;
	char *db = NULL, why[2 * PATH_MAX];
	int c, ret;

	optind = 0;	/* glibc: start over, the command may run more than once */
	opterr = 0;
	hvt_cli_verbosity_reset();
	while ((c = getopt_long(argc, argv, "hvq", longopts, NULL)) != -1) {
		if (hvt_cli_verbosity(c))
			continue;
		if (c == 'h') {
			usage(stdout);
			return 0;
		}
		if (c != 'p') {
			hvt_usage_bad_option("sql", argv, "hvq", longopts);
			return 2;
		}
		path_only = true;
	}
	if (optind >= argc || argc - optind > 2 || (path_only && argc - optind > 1)) {
		hvt_usage_error("sql", "expected an ARCHIVE directory and at most one QUERY");
		return 2;
	}
	if (hvt_archive_path_misgiven(argv[optind], why, sizeof(why))) {
		hvt_err("%s", why);	/* before a cache is made beside it */
		return 1;
	}
	if (hvt_sql_cache(argv[optind], &db))
		return 1;
	if (path_only) {
		printf("%s\n", db);
		ret = 0;
	} else if (argc - optind == 2) {
		ret = run_query(db, argv[optind], argv[optind + 1]);
	} else {
		fflush(stdout);
		execlp("sqlite3", "sqlite3", db, (char *)NULL);
		hvt_err("cannot run the sqlite3 shell: %s (apt-get install sqlite3); the "
			"database is %s", strerror(errno), db);
		ret = 1;
	}
	free(db);
	return ret;
}
