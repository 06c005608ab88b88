// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_sql.c - merge --format=sqlite (tools/out/sqlite_out.c) on the
 * standard synthetic archive, whose every event is known: each event once
 * with its time, layer, thread and fields; the host's CPU slices as its
 * three sched_switch events make them; a guest event's bound; the vCPU
 * pieces as many as the analysis counts; the machines; equal fields in
 * one arg set, and an arg set's id never of another's text; the database
 * absent until complete, also when killed, an existing file kept without
 * --force; a
 * recording that did not finish marked incomplete; the selection applied.
 */
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "lib/fileio.h"
#include "tests/unit/archive_fixture.h"
#include "tests/unit/cmd_capture.h"
#include "tests/unit/open_timeline.h"
#include "tools/commands.h"
#include "tools/model/vm_analyses.h"
#include "tools/out/sql_private.h"
#include "tools/out/sqlite_out.h"

/* The first column of the first row of @sql on the database at @path, as an integer. */
static int64_t one(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int64_t v = -1;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_type(st, 0) == SQLITE_NULL ? INT64_MIN :
		    sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

/* The first column of the first row, as text, in @buf. */
static const char *text(const char *path, const char *sql, char *buf, size_t len)
{
	sqlite3 *db;
	sqlite3_stmt *st;

	buf[0] = '\0';
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return buf;
}

/* The archive at ROOT as a database at @db, written event by event; the events. */
static uint64_t export_to(const char *root, const char *db, bool force)
{
	struct hvt_sql_out *o;
	struct fx_opened m;
	struct hvt_source *s;
	uint64_t n = 0;

	assert_int_equal(fx_open(&m, root, false), 0);
	o = hvt_sql_out_open(&m.ses, db, force);
	assert_non_null(o);
	while ((s = hvt_timeline_next(&m.tl))) {
		hvt_sql_out_event(o, s);
		n++;
		/* written: nothing at the name yet, a killed run leaves none */
		if (!force)
			assert_int_not_equal(access(db, F_OK), 0);
	}
	assert_int_equal(hvt_sql_out_close(o), 0);
	fx_close(&m);
	return n;
}

/* The same at ROOT/out.db (the teardown removes it, also after a failure), its name in @db. */
static uint64_t export(const char *root, char *db, size_t len, bool force)
{
	snprintf(db, len, "%s/out.db", root);
	return export_to(root, db, force);
}

static void test_tables(void **state)
{
	const struct fx_options o = { .ftrace = true, .vcpu_tids = "[0, 4321]" };
	char db[128], buf[256], sql[256];
	uint64_t n;

	assert_int_equal(fx_standard_archive(*state, &o), 0);
	n = export(*state, db, sizeof(db), false);
	assert_true(n > 5);
	assert_int_equal(one(db, "SELECT count(*) FROM event"), (int64_t)n);
	assert_int_equal(one(db, "SELECT value FROM meta WHERE name = 'events'"), (int64_t)n);
	assert_int_equal(one(db, "SELECT value FROM meta WHERE name = 'complete'"), 1);
	/* the machines: the host, and the VM with its estimated clock */
	assert_int_equal(one(db, "SELECT count(*) FROM machine"), 2);
	assert_string_equal(text(db, "SELECT clock_source FROM machine WHERE id = 1", buf,
				 sizeof(buf)), "estimate");
	/* the guest's first sched_switch: where the fixture put it, within its bound */
	assert_int_equal(one(db, "SELECT abs(ts - 1240000) <= bound FROM event WHERE "
			     "layer = 'kernel' ORDER BY id"), 1);
	assert_int_equal(one(db, "SELECT json_extract(a.args, '$.prev_tid') FROM event e JOIN "
			     "arg_set a ON a.id = e.arg_set_id WHERE e.layer = 'kernel' "
			     "ORDER BY e.id"), 77);
	assert_true(one(db, "SELECT bound FROM event WHERE layer = 'kernel' ORDER BY id") >= 0);
	assert_int_equal(one(db, "SELECT count(*) FROM args WHERE arg_set_id = (SELECT arg_set_id "
			     "FROM event WHERE layer = 'kernel' ORDER BY id)"), 7);
	/* equal fields, one set: a set's text is in one row only (the cache held them all) */
	assert_int_equal(one(db, "SELECT count(*) - count(DISTINCT args) FROM arg_set"), 0);
	/* written in time order: id order is ts order */
	assert_int_equal(one(db, "SELECT count(*) FROM event a JOIN event b ON b.id = a.id + 1 "
			     "WHERE b.ts < a.ts"), 0);
	assert_int_equal(one(db, "SELECT t.tid FROM event e JOIN thread t USING (utid) WHERE "
			     "e.layer = 'user'"), 78);
	/* host CPU 1: swapper R until 1.3 ms, then qemu (vCPU 1's thread) D until 200 ms */
	assert_int_equal(one(db, "SELECT count(*) FROM sched WHERE machine_id = 0"), 2);
	snprintf(sql, sizeof(sql), "SELECT dur FROM sched s JOIN thread t USING (utid) WHERE "
		 "s.machine_id = 0 AND t.tid = 4321 AND s.ts = 1300000 AND s.end_state = 'D'");
	assert_int_equal(one(db, sql), 200000000 - 1300000);
	assert_int_equal(one(db, "SELECT count(*) FROM sched WHERE machine_id = 0 AND "
			     "ts = 1234567 AND dur = 65433 AND end_state = 'R' AND ts_bound = 0"), 1);
	assert_int_equal(one(db, "SELECT vcpu FROM thread WHERE machine_id = 0 AND tid = 4321"), 1);
	assert_int_equal(one(db, "SELECT c.host_utid = t.utid FROM cpu c, thread t WHERE "
			     "c.machine_id = 1 AND c.cpu = 1 AND t.tid = 4321"), 1);
	/* the clock: its exchanges */
	assert_int_equal(one(db, "SELECT count(*) FROM clock_exchange"), 5);
	assert_int_equal(one(db, "SELECT count(*) FROM clock_segment WHERE machine_id = 1"), 1);
	unlink(db);
}

/*
 * Arg sets past the cache's size, each asked for twice, some far apart:
 * whatever the cache forgot, an id is always of the text it was given for.
 */
static void test_arg_sets(void **state)
{
	const struct fx_options o = { .ftrace = true };
	enum { SETS = 100000 };
	struct hvt_sql_out *out;
	struct fx_opened m;
	int64_t *ids = calloc(2 * SETS, sizeof(*ids)), distinct;
	char db[128], set[64], sql[128];
	int i, len;

	assert_non_null(ids);
	assert_int_equal(fx_standard_archive(*state, &o), 0);
	snprintf(db, sizeof(db), "%s/out.db", (char *)*state);
	assert_int_equal(fx_open(&m, *state, false), 0);
	out = hvt_sql_out_open(&m.ses, db, false);
	assert_non_null(out);
	for (i = 0; i < 2 * SETS; i++) {	/* 0..SETS-1, then the same again */
		len = snprintf(set, sizeof(set), "{\"n\":%d}", i % SETS);
		ids[i] = hvt_sql_arg_set(out, set, (size_t)len);
		assert_true(ids[i] > 0);
		if (i % 7 == 0)		/* one asked again at once: found */
			assert_int_equal(hvt_sql_arg_set(out, set, (size_t)len), ids[i]);
	}
	assert_int_equal(hvt_sql_out_close(out), 0);
	fx_close(&m);
	for (i = 0; i < 2 * SETS; i += 997) {
		snprintf(sql, sizeof(sql), "SELECT json_extract(args, '$.n') FROM arg_set "
			 "WHERE id = %" PRId64, ids[i]);
		assert_int_equal(one(db, sql), i % SETS);
	}
	assert_int_equal(one(db, "SELECT count(*) - count(DISTINCT args) FROM arg_set WHERE "
			     "json_extract(args, '$.n') IS NULL"), 0);
	distinct = one(db, "SELECT count(DISTINCT args) FROM arg_set WHERE "
		       "json_extract(args, '$.n') IS NOT NULL");
	assert_int_equal(distinct, SETS);
	free(ids);
	unlink(db);
}

/* The vCPU pieces: as many, as long, as the analysis counts. */
static void test_vcpu_states(void **state)
{
	const struct fx_options o = { .ftrace = true, .vcpu_tids = "[0, 4321]" };
	const struct hvt_vm_analyses_opts every = { .from = 0, .to = UINT64_MAX };
	struct hvt_vm_analyses va;
	struct hvt_event_feed feed;
	struct hvt_account *acc;
	struct fx_opened m;
	struct hvt_source *s;
	uint64_t last = 0, pieces = 0;
	char db[128];
	int k;

	assert_int_equal(fx_standard_archive(*state, &o), 0);
	export(*state, db, sizeof(db), false);
	assert_int_equal(fx_open(&m, *state, false), 0);
	assert_int_equal(hvt_vm_analyses_init(&va, &m.ses, &every), 0);
	assert_null(va.why[0]);
	assert_int_equal(hvt_event_feed_init(&feed, &m.ses, &hvt_vm_analyses_listener, &va), 0);
	while ((s = hvt_timeline_next(&m.tl))) {
		hvt_event_feed(&feed, s);
		last = s->host_tsc;
	}
	hvt_vm_analyses_finish(&va, last);
	acc = hvt_vm_analysis_vcpu(&va.vms[0], 1);
	for (k = 0; k < HVT_NR_VCPU_STATES; k++)
		pieces += acc->pieces[k];
	assert_true(pieces > 0);
	assert_int_equal(one(db, "SELECT count(*) FROM vcpu_state WHERE vcpu = 1 AND NOT too_short"),
			 (int64_t)pieces);
	assert_int_equal(one(db, "SELECT sum(dur) FROM vcpu_state WHERE vcpu = 1 AND "
			     "state = 'blocked' AND NOT too_short"),
			 hvt_host_clock_since_start(&m.ses.clock, FX_T0 + acc->ticks[HVT_VCPU_BLOCKED]));
	hvt_event_feed_free(&feed);
	hvt_vm_analyses_free(&va);
	fx_close(&m);
	unlink(db);
}

/* Files beside @db named .BASE.hvtrace-partial-*. */
static int partials(const char *db)
{
	const char *slash = strrchr(db, '/');
	char dir[128], prefix[160];
	struct dirent *e;
	DIR *d;
	int n = 0;

	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - db), db);
	snprintf(prefix, sizeof(prefix), ".%s.hvtrace-partial-", slash + 1);
	d = opendir(dir);
	assert_non_null(d);
	while ((e = readdir(d)))
		n += !strncmp(e->d_name, prefix, strlen(prefix));
	closedir(d);
	return n;
}

/* An existing file is kept without --force, replaced with it. */
static void test_existing_file(void **state)
{
	const struct fx_options o = { .ftrace = true };
	struct hvt_sql_out *out;
	struct fx_opened m;
	char db[128];

	assert_int_equal(fx_standard_archive(*state, &o), 0);
	snprintf(db, sizeof(db), "%s/out.db", (char *)*state);
	{
		FILE *f = fopen(db, "w");

		assert_non_null(f);
		fputs("not a database", f);
		fclose(f);
	}
	assert_int_equal(fx_open(&m, *state, false), 0);
	assert_null(hvt_sql_out_open(&m.ses, db, false));
	fx_close(&m);
	{
		char *data;
		size_t len;

		assert_int_equal(hvt_read_file(db, 64, &data, &len), 0);
		assert_string_equal(data, "not a database");	/* kept */
		free(data);
	}
	export(*state, db, sizeof(db), true);
	assert_int_equal(one(db, "SELECT count(*) FROM machine"), 2);
	unlink(db);
	/* a file made at the name while the database is written: kept too */
	assert_int_equal(fx_open(&m, *state, false), 0);
	out = hvt_sql_out_open(&m.ses, db, false);
	assert_non_null(out);
	assert_int_equal(fx_write(*state, "out.db", "theirs", 6), 0);
	assert_int_equal(hvt_sql_out_close(out), -1);
	fx_close(&m);
	{
		char *data;
		size_t len;

		assert_int_equal(hvt_read_file(db, 64, &data, &len), 0);
		assert_string_equal(data, "theirs");
		free(data);
	}
	assert_int_equal(partials(db), 0);
}

/* A recording that did not finish: marked so, with why. */
static void test_incomplete(void **state)
{
	const struct fx_options o = { .ftrace = true, .status = "recording" };
	char db[128], buf[256];

	assert_int_equal(fx_standard_archive(*state, &o), 0);
	export(*state, db, sizeof(db), false);
	assert_int_equal(one(db, "SELECT value FROM meta WHERE name = 'complete'"), 0);
	assert_non_null(strstr(text(db, "SELECT value FROM meta WHERE name = 'incomplete_reason'",
				    buf, sizeof(buf)), "did not finish"));
	unlink(db);
}

static pid_t killed_pid;

/* The archive's database half written in a child that @sig ends; its exit status. */
static int killed_export(const char *root, const char *db, int sig)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (!pid) {
		struct fx_opened m;
		struct hvt_sql_out *o;
		struct hvt_source *s;
		int n = 0;

		if (fx_open(&m, root, false) || !(o = hvt_sql_out_open(&m.ses, db, false)))
			_exit(100);
		while ((s = hvt_timeline_next(&m.tl)) && n++ < 3)
			hvt_sql_out_event(o, s);
		raise(sig);
		_exit(101);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	killed_pid = pid;
	return status;
}

/*
 * Killed while it writes: no database at the name; SIGTERM leaves no
 * temporary file, SIGKILL one that the next run removes once it is old.
 */
static void test_killed(void **state)
{
	const struct fx_options o = { .ftrace = true };
	const struct timespec old[2] = { { .tv_sec = 1 }, { .tv_sec = 1 } };
	char db[128], partial[160];
	int status;

	assert_int_equal(fx_standard_archive(*state, &o), 0);
	/* in the archive's directory: the teardown removes what a failure leaves */
	snprintf(db, sizeof(db), "%s/killed.db", (char *)*state);
	status = killed_export(*state, db, SIGTERM);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	assert_int_not_equal(access(db, F_OK), 0);
	assert_int_equal(partials(db), 0);

	status = killed_export(*state, db, SIGKILL);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_int_not_equal(access(db, F_OK), 0);
	assert_int_equal(partials(db), 1);
	/* a run now keeps it (just written: its writer may be of another pid namespace) */
	export_to(*state, db, false);
	assert_int_equal(partials(db), 1);
	unlink(db);
	/* once it has not changed for a while, it goes */
	snprintf(partial, sizeof(partial), "%s/.killed.db.hvtrace-partial-%d", (char *)*state,
		 killed_pid);
	assert_int_equal(utimensat(AT_FDCWD, partial, old, 0), 0);
	export_to(*state, db, false);
	assert_int_equal(partials(db), 0);
	assert_int_equal(one(db, "SELECT value FROM meta WHERE name = 'complete'"), 1);
	unlink(db);
}

/*
 * A vCPU with no guest event of its own (here vCPU 2, with a host thread
 * named for it): still a CPU of its VM, with that thread.
 */
static void test_quiet_vcpu(void **state)
{
	const struct fx_options o = { .ftrace = true, .vcpu_tids = "[0, 4321, 4399]" };
	char db[128];

	assert_int_equal(fx_standard_archive(*state, &o), 0);
	export(*state, db, sizeof(db), false);
	assert_int_equal(one(db, "SELECT count(*) FROM event WHERE machine_id = 1 AND cpu = 2"), 0);
	assert_int_equal(one(db, "SELECT t.tid FROM cpu c JOIN thread t ON t.utid = c.host_utid "
			     "WHERE c.machine_id = 1 AND c.cpu = 2"), 4399);
	assert_int_equal(one(db, "SELECT vcpu FROM thread WHERE machine_id = 0 AND tid = 4399"), 2);
}

/* A damaged stream: merge warns, the database is marked incomplete, the rest is in it. */
static void test_damaged(void **state)
{
	const struct fx_options o = { .ftrace = true };
	char db[128], buf[256];

	assert_int_equal(fx_standard_archive(*state, &o), 0);
	assert_int_equal(fx_write(*state, "vm/demo/user-1/stream-0", "garbage", 7), 0);
	export(*state, db, sizeof(db), false);
	assert_int_equal(one(db, "SELECT value FROM meta WHERE name = 'complete'"), 0);
	assert_true(one(db, "SELECT value FROM meta WHERE name = 'warnings'") > 0);
	assert_non_null(strstr(text(db, "SELECT value FROM meta WHERE name = 'incomplete_reason'",
				    buf, sizeof(buf)), "it lacks recorded events"));
	assert_string_equal(text(db, "SELECT value FROM meta WHERE name = 'lacks'", buf,
				 sizeof(buf)), "1 stream is missing, cut short or damaged");
	assert_int_equal(one(db, "SELECT count(*) FROM event WHERE layer = 'user'"), 0);
	assert_true(one(db, "SELECT count(*) FROM event WHERE layer = 'kernel'") > 0);
	unlink(db);
}

/* Through the command: the selection applies; the options it needs are asked for. */
static void test_command(void **state)
{
	const struct fx_options o = { .ftrace = true, .vcpu_tids = "[0, 4321]" };
	char db[128], fmt[] = "--format=sqlite", layer[] = "--layer", kernel[] = "kernel",
	     out[] = "--output", merge[] = "merge", force[] = "--force", text_fmt[] = "--format=text";
	char *argv[] = { merge, *state, fmt, layer, kernel, out, db, NULL };
	char *no_out[] = { merge, *state, fmt, NULL };
	char *force_text[] = { merge, *state, text_fmt, force, NULL };

	assert_int_equal(fx_standard_archive(*state, &o), 0);
	snprintf(db, sizeof(db), "%s/out.db", (char *)*state);
	assert_int_equal(hvt_cmd_merge(7, argv), 0);
	assert_int_equal(one(db, "SELECT count(*) FROM event WHERE layer != 'kernel'"), 0);
	assert_int_equal(one(db, "SELECT count(*) FROM event WHERE layer = 'kernel'"), 4);
	assert_int_equal(one(db, "SELECT count(*) FROM sched WHERE machine_id = 0"), 0);
	assert_int_equal(hvt_cmd_merge(7, argv), 1);	/* there now: kept */
	assert_int_equal(hvt_cmd_merge(3, no_out), 2);
	assert_int_equal(hvt_cmd_merge(4, force_text), 2);
	unlink(db);
}

/* hvtrace sql's standard output of @query on @what, in *@out; its exit status. */
static int sql_cmd(const char *root, char *what, char *query, char **out)
{
	char path[160], sql[] = "sql";
	char *argv[] = { sql, what, query, NULL };

	snprintf(path, sizeof(path), "%s/stdout.txt", root);
	return capture_cmd(hvt_cmd_sql, query ? 3 : 2, argv, path, out);
}

/*
 * hvtrace sql on a database file hvtrace made: asked as it is; another
 * SQLite file refused; .tables and .schema [TABLE] run, the shell's other
 * dot commands a usage error that says how to run the shell.
 */
static void test_sql_database(void **state)
{
	const struct fx_options o = { .ftrace = true };
	char db[128], other[128], fmt[] = "--format=sqlite", out[] = "--output", merge[] = "merge",
	     count[] = "SELECT count(*) FROM machine", tables[] = " .tables",
	     schema[] = ".schema machine", none[] = ".schema nothing", mode[] = ".mode csv",
	     *text_out;
	char *argv[] = { merge, *state, fmt, out, db, NULL };
	sqlite3 *h;

	assert_int_equal(fx_standard_archive(*state, &o), 0);
	snprintf(db, sizeof(db), "%s/out.db", (char *)*state);
	assert_int_equal(hvt_cmd_merge(5, argv), 0);
	assert_int_equal(sql_cmd(*state, db, count, &text_out), 0);
	assert_string_equal(text_out, "count(*)\n2\n");
	free(text_out);
	assert_int_equal(sql_cmd(*state, db, tables, &text_out), 0);
	assert_non_null(strstr(text_out, "\nevent\n"));
	assert_non_null(strstr(text_out, "\nvcpu_state\n"));
	assert_null(strstr(text_out, "sqlite_"));
	free(text_out);
	assert_int_equal(sql_cmd(*state, db, schema, &text_out), 0);
	assert_true(!strncmp(text_out, "CREATE TABLE machine(", 21));
	assert_null(strstr(text_out, "CREATE TABLE event("));
	free(text_out);
	assert_int_equal(sql_cmd(*state, db, none, &text_out), 1);
	free(text_out);
	assert_int_equal(sql_cmd(*state, db, mode, &text_out), 2);
	free(text_out);
	assert_int_equal(sql_cmd(*state, *state, tables, &text_out), 0);	/* the archive's */
	assert_non_null(strstr(text_out, "\nevent\n"));
	free(text_out);
	/* an SQLite database of another's: said, not asked */
	snprintf(other, sizeof(other), "%s/other.db", (char *)*state);
	assert_int_equal(sqlite3_open(other, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "CREATE TABLE t(x)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	assert_int_equal(sql_cmd(*state, other, tables, &text_out), 1);
	assert_string_equal(text_out, "");
	free(text_out);
	unlink(db);
	unlink(other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tables, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_arg_sets, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_vcpu_states, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_existing_file, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_incomplete, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_killed, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_quiet_vcpu, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_damaged, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_command, fx_setup_root, fx_teardown_root),
		cmocka_unit_test_setup_teardown(test_sql_database, fx_setup_root, fx_teardown_root),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
