// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_sql.c - `hvtrace sql ARCHIVE|DATABASE [QUERY]`: the archive's SQL
 * database, built once (out/sql_cache.h), or a database file hvtrace made,
 * asked a query or .tables/.schema (out/sql_query.h), or opened in the
 * sqlite3 shell. Options, help and the exit status; the tables are
 * docs/sql.md's.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/cli.h"
#include "lib/log.h"
#include "tools/commands.h"
#include "tools/out/sql_cache.h"
#include "tools/out/sql_query.h"
#include "tools/archive/archive_path.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: hvtrace sql ARCHIVE|DATABASE [QUERY]\n"
		"       hvtrace sql ARCHIVE|DATABASE --path\n\n"
		"Builds ARCHIVE's SQLite database once (merge --format=sqlite: every event,\n"
		"each machine's CPU slices and thread states, the vCPU states analyze counts,\n"
		"the clock exchanges; docs/sql.md has the tables and a cookbook) and keeps it\n"
		"in ARCHIVE/.hvtrace-cache, or in $XDG_CACHE_HOME/hvtrace (~/.cache/hvtrace)\n"
		"where the archive cannot be written to; it is built again when the archive\n"
		"changes. DATABASE, a file hvtrace made (merge --format=sqlite, or the\n"
		"cache), is asked as it is.\n"
		"With QUERY, runs it and prints the rows: a header, then tab-separated\n"
		"columns (NULL as an empty field). Without, opens the sqlite3 shell on it.\n"
		"Of the sqlite3 shell's dot commands QUERY may be .tables (the tables and\n"
		"views, one a line) or .schema [TABLE] (their CREATE statements); for the\n"
		"others run the shell: sqlite3 \"$(hvtrace sql ARCHIVE --path)\".\n\n"
		"  --path          print the database's path (built if need be), nothing else\n"
		"  -v, --verbose   also say how each VM's clock was aligned, in detail\n"
		"  -q, --quiet     print no information: warnings, errors and the rows only\n"
		"  -h, --help      this help\n"
		"Times are integer ns since the trace start on the host's clock; a guest row\n"
		"carries the bound of its ends in ns.\n"
		"Exit status: 0 done, 1 the archive or the database cannot be read (or is\n"
		"not hvtrace's), the query failed, or the database lacks recorded events (a\n"
		"part of the archive could not be read: said on every run; the rows are\n"
		"still printed), 2 usage error.\n");
}

/*
 * The database of @arg in *@db (malloc'd): @arg itself if it is a database
 * hvtrace made, else the archive's, built if need be. 0, or 1 after an
 * error message.
 */
static int database_of(const char *arg, char **db)
{
	char why[2 * PATH_MAX];
	int file = hvt_sql_db_file(arg);

	if (file < 0)
		return 1;
	if (file) {
		if (!(*db = strdup(arg))) {
			hvt_err("out of memory");
			return 1;
		}
		return 0;
	}
	if (hvt_archive_path_misgiven(arg, why, sizeof(why))) {
		hvt_err("%s", why);	/* before a cache is made beside it */
		return 1;
	}
	return hvt_sql_cache(arg, db) ? 1 : 0;
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
	char *db = NULL, why[512];
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
		hvt_usage_error("sql", "expected an ARCHIVE directory or a DATABASE, and at most one QUERY");
		return 2;
	}
	if (argc - optind == 2 && hvt_sql_query_refused(argv[optind + 1], why, sizeof(why))) {
		hvt_usage_error("sql", "%s", why);
		return 2;
	}
	if (database_of(argv[optind], &db))
		return 1;
	if (path_only) {
		printf("%s\n", db);
		ret = 0;
	} else if (argc - optind == 2) {
		ret = hvt_sql_query(db, argv[optind], argv[optind + 1]);
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
