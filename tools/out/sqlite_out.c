// SPDX-License-Identifier: GPL-2.0-only
/*
 * sqlite_out.c - the merged time line as an SQLite database: the file,
 * its schema and the event table (sqlite_out.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/log.h"
#include "tools/out/sql_private.h"
#include "tools/out/sql_schema.h"
#include "tools/util/output_path.h"
#include "tools/util/partial_file.h"
#include "tools/util/stream_warn.h"

#define STALE_PARTIAL_S	60	/* a gone writer's file, unchanged this long, is removed */
#define ARGS_BUFFER	(8u << 20)	/* an event's fields: a CTF packet's, escaped */
/*
 * Written once in one transaction, read afterwards: no journal, big pages.
 * A small cache and no sorter threads: the index builds' sorts then spill
 * in smaller runs, which was faster here than 64 MiB and 2 threads (4.3
 * against 5.4 s for 1 M events), at a peak RSS of 57 MiB, not 290, flat
 * in the number of events. tests/bench/sql_import_ref.sh gives its
 * reference the same.
 */
#define PRAGMAS		"PRAGMA page_size=65536; PRAGMA journal_mode=OFF; " \
			"PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE; " \
			"PRAGMA cache_size=-8192; PRAGMA threads=0;"

int64_t hvt_sql_ns(struct hvt_sql_out *o, uint64_t tsc)
{
	return hvt_host_clock_since_start(&o->ses->clock, tsc);
}

int64_t hvt_sql_ticks_ns(struct hvt_sql_out *o, uint64_t at, uint64_t ticks)
{
	double ns = hvt_host_clock_ticks_us(&o->ses->clock, at, ticks) * 1e3;

	return ns >= 9e18 ? INT64_MAX : (int64_t)ceil(ns);
}

bool hvt_sql_step(struct hvt_sql_out *o, sqlite3_stmt *st)
{
	int r = sqlite3_step(st);

	sqlite3_reset(st);	/* every parameter is bound anew each time */
	if (r == SQLITE_DONE)
		return true;
	if (!__atomic_exchange_n(&o->failed, true, __ATOMIC_RELAXED))
		hvt_err("%s: %s", o->path, sqlite3_errmsg(o->db));
	return false;
}

void hvt_sql_bind(sqlite3_stmt *st, int i, int64_t v, bool null)
{
	if (null)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, v);
}

/* Fields past the buffer: there is no such event (a packet is at most 1 MiB); said if one is. */
static ssize_t sink_write(void *cookie, const char *buf, size_t size)
{
	(void)buf;
	*(bool *)cookie = true;
	return (ssize_t)size;
}

static int args_init(struct hvt_sql_out *o)
{
	static const cookie_io_functions_t sink = { .write = sink_write };

	o->args_buf = malloc(ARGS_BUFFER);
	o->args_sink = fopencookie(&o->args_overflow, "w", sink);
	if (!o->args_buf || !o->args_sink || hvt_sched_state_init(&o->states))
		return -1;
	setvbuf(o->args_sink, NULL, _IONBF, 0);
	hvt_text_init(&o->args, o->args_sink, o->args_buf, ARGS_BUFFER);
	return 0;
}

/* @s's fields as a JSON object in o->args; their length, 0 if none, -1 if they did not fit. */
static int64_t args_of(struct hvt_sql_out *o, struct hvt_source *s)
{
	o->args.p = o->args.buf;
	o->args_overflow = false;
	hvt_source_json_fields(s, &o->args, hvt_sched_state_of(&o->states, s));	/* ,"name":value */
	if (o->args_overflow || o->args.p == o->args.end)
		return -1;
	if (o->args.p == o->args.buf)
		return 0;
	o->args.buf[0] = '{';		/* the first field's comma */
	hvt_text_char(&o->args, '}');
	return o->args.p - o->args.buf;
}

static int exec(struct hvt_sql_out *o, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(o->db, sql, NULL, NULL, &err) == SQLITE_OK)
		return 0;
	hvt_err("%s: %s", o->path, err ? err : sqlite3_errmsg(o->db));
	sqlite3_free(err);
	return -1;
}

static int prepare(struct hvt_sql_out *o, sqlite3_stmt **st, const char *sql)
{
	if (sqlite3_prepare_v3(o->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) == SQLITE_OK)
		return 0;
	hvt_err("%s: %s", o->path, sqlite3_errmsg(o->db));
	return -1;
}

/* The pass's inserts, in enum sql_stmt's order, each row's values in this order. */
static const char *const inserts[SQL_NR_STMTS] = {
	[SQL_EVENT] = "INSERT INTO event(ts, bound, machine_id, layer, cpu, ucpu, utid, name, "
		      "arg_set_id) VALUES(?,?,?,?,?,?,?,?,?)",
	[SQL_ARG_SET] = "INSERT INTO arg_set(id, args) VALUES(?,?)",
	[SQL_SCHED] = "INSERT INTO sched(ts, dur, ts_bound, end_bound, machine_id, cpu, ucpu, "
		      "utid, end_state) VALUES(?,?,?,?,?,?,?,?,?)",
	[SQL_STATE] = "INSERT INTO thread_state(ts, dur, ts_bound, end_bound, machine_id, utid, "
		      "state, cpu, ucpu, waker_utid) VALUES(?,?,?,?,?,?,?,?,?,?)",
	[SQL_VCPU] = "INSERT INTO vcpu_state(machine_id, vcpu, state, ts, dur, bound, too_short, "
		     "start_not_recorded, utid, cause_utid, exit_reason) "
		     "VALUES(?,?,?,?,?,?,?,?,?,?,?)",
	[SQL_CPU] = "INSERT INTO cpu(id, machine_id, cpu) VALUES(?,?,?)",
};

static int statements(struct hvt_sql_out *o)
{
	int i;

	for (i = 0; i < SQL_NR_STMTS; i++)
		if (prepare(o, &o->stmt[i], inserts[i]))
			return -1;
	return 0;
}

static void finalize_statements(struct hvt_sql_out *o)
{
	int i;

	for (i = 0; i < SQL_NR_STMTS; i++) {
		sqlite3_finalize(o->stmt[i]);
		o->stmt[i] = NULL;
	}
}

static void out_free(struct hvt_sql_out *o)
{
	hvt_sql_rows_free(o);	/* the writer gone first: it uses the statements */
	finalize_statements(o);
	if (o->db)
		sqlite3_close(o->db);
	hvt_sql_models_free(o);
	hvt_sql_ids_free(o);
	hvt_sql_args_free(o);
	hvt_sched_state_free(&o->states);
	if (o->args_sink)
		fclose(o->args_sink);
	free(o->args_buf);
	free(o->extra_name);
	free(o->extra_value);
	free(o->path);
	free(o->tmp);
	free(o);
}

/* The open failed: nothing is left. */
static struct hvt_sql_out *abandon(struct hvt_sql_out *o)
{
	if (o->tmp)
		unlink(o->tmp);
	hvt_partial_unguard();
	out_free(o);
	return NULL;
}

struct hvt_sql_out *hvt_sql_out_open(struct hvt_session *ses, const char *path, bool force)
{
	struct hvt_sql_out *o;

	if (hvt_output_path_check(path, HVT_OUTPUT_FILE, force) == HVT_OUTPUT_REFUSED)
		return NULL;
	o = calloc(1, sizeof(*o));
	if (!o || !(o->path = strdup(path)) || !(o->tmp = hvt_partial_name(path)) || args_init(o)) {
		hvt_err("out of memory");
		return o ? abandon(o) : NULL;
	}
	o->ses = ses;
	o->force = force;
	hvt_partial_sweep(path, STALE_PARTIAL_S);
	unlink(o->tmp);		/* a leftover of this pid's: ours to replace */
	hvt_partial_guard(o->tmp);
	if (sqlite3_open_v2(o->tmp, &o->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE, NULL) != SQLITE_OK) {
		hvt_err("cannot create %s: %s", o->tmp, o->db ? sqlite3_errmsg(o->db) :
			"out of memory");
		return abandon(o);
	}
	if (exec(o, PRAGMAS) || exec(o, hvt_sql_tables) || exec(o, "BEGIN") || statements(o))
		return abandon(o);
	if (hvt_sql_ids_init(o) || hvt_sql_args_init(o) || hvt_sql_models_init(o) ||
	    hvt_sql_rows_start(o)) {
		hvt_err("out of memory");
		return abandon(o);
	}
	return o;
}

void hvt_sql_out_event(struct hvt_sql_out *o, struct hvt_source *s)
{
	uint32_t cpu = hvt_source_cpu(s), machine = (uint32_t)s->vm_number;
	int32_t tid = hvt_source_tid(s);
	int64_t bound = hvt_session_event_bound_ns(o->ses, s), len = args_of(o, s), set = -1;
	int64_t utid = tid >= 0 ? hvt_sql_utid(o, machine, tid,
					      cpu == HVT_NO_CPU ? -1 : (int32_t)cpu, NULL) : -1;
	int64_t ucpu = cpu != HVT_NO_CPU ? hvt_sql_ucpu(o, machine, cpu) : -1;
	const char *layer = hvt_layer_name(s->layer), *name = hvt_source_event_name(s);

	hvt_sql_models_event(o, s);
	o->last_tsc = s->host_tsc;
	o->events++;
	if (__atomic_load_n(&o->failed, __ATOMIC_RELAXED))
		return;
	if (len > 0)
		set = hvt_sql_arg_set(o, o->args.buf, (size_t)len);
	hvt_sql_row(o, SQL_EVENT);
	hvt_sql_int(o, hvt_sql_ns(o, s->host_tsc));
	hvt_sql_opt(o, bound, bound < 0);
	hvt_sql_int(o, machine);
	hvt_sql_text(o, layer, strlen(layer));
	hvt_sql_opt(o, cpu, cpu == HVT_NO_CPU);
	hvt_sql_opt(o, ucpu, ucpu < 0);
	hvt_sql_opt(o, utid, utid < 0);
	hvt_sql_text(o, name, strlen(name));
	hvt_sql_opt(o, set, set < 0);
	hvt_sql_row_end(o);
	if (len < 0)	/* not an event of any producer: its fields are left out, said */
		hvt_stream_warn(&s->warnings, s->name, "event at offset %" PRIu64 ": its fields "
				"do not fit in %u bytes of JSON; stored without them",
				s->ev.offset, ARGS_BUFFER);
}

/* What the database is of, and whether the recording was read whole. */
static int write_meta(struct hvt_sql_out *o)
{
	struct hvt_session *ses = o->ses;
	unsigned long warnings = hvt_session_warnings(ses);
	char why[256] = "", lacks_text[256];
	const char *lacks = hvt_session_lacks(ses, lacks_text, sizeof(lacks_text));
	sqlite3_stmt *st;
	int ret;

	if (lacks)
		snprintf(why, sizeof(why), "it lacks recorded events: %s", lacks);
	else if (!ses->archive.complete && !ses->tracedat_only)
		snprintf(why, sizeof(why), "the recording did not finish (its status is not "
			 "complete)");
	else if (warnings)
		snprintf(why, sizeof(why), "merge warned %lu time%s: see the warnings it printed",
			 warnings, warnings == 1 ? "" : "s");
	else if (o->models_gap)
		snprintf(why, sizeof(why), "%s", o->models_gap);
	if (prepare(o, &st, "INSERT INTO meta VALUES(?, ?)"))
		return -1;
#define META_TEXT(k, v) (sqlite3_bind_text(st, 1, k, -1, SQLITE_STATIC), \
			 sqlite3_bind_text(st, 2, v, -1, SQLITE_TRANSIENT), hvt_sql_step(o, st))
#define META_INT(k, v) (sqlite3_bind_text(st, 1, k, -1, SQLITE_STATIC), \
			sqlite3_bind_int64(st, 2, (int64_t)(v)), hvt_sql_step(o, st))
	ret = !(META_TEXT("archive", ses->archive.root) && META_TEXT("format", "hvtrace-sql") &&
		META_INT("version", HVT_SQL_SCHEMA_VERSION) && META_INT("complete", !why[0]) &&
		META_TEXT("incomplete_reason", why) && META_TEXT("lacks", lacks ? lacks : "") &&
		META_INT("warnings", warnings) &&
		META_INT("lost_events", hvt_session_lost(ses)) && META_INT("events", o->events) &&
		META_INT("tsc_hz", ses->archive.tsc_freq_hz) &&
		META_INT("start_host_tsc", ses->archive.pairs[0].tsc) &&
		META_INT("start_realtime_ns", hvt_host_clock_realtime(&ses->clock,
								      ses->archive.pairs[0].tsc)) &&
		META_TEXT("time_unit", "ns since the trace start, on the host's clock") &&
		(!o->extra_name || META_TEXT(o->extra_name, o->extra_value)));
#undef META_TEXT
#undef META_INT
	sqlite3_finalize(st);
	return ret ? -1 : 0;
}

int hvt_sql_out_meta(struct hvt_sql_out *o, const char *name, const char *value)
{
	free(o->extra_name);
	free(o->extra_value);
	o->extra_name = strdup(name);
	o->extra_value = strdup(value);
	if (o->extra_name && o->extra_value)
		return 0;
	hvt_sql_fail(o, "out of memory");
	return -1;
}

/* The temporary file to its name: over a file there only with --force; -1 after saying why. */
static int put_in_place(struct hvt_sql_out *o)
{
	if (o->force ? !rename(o->tmp, o->path) :
	    !renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->path, RENAME_NOREPLACE))
		return 0;
	if (!o->force && errno == EINVAL && !link(o->tmp, o->path)) {	/* no renameat2 there */
		unlink(o->tmp);
		return 0;
	}
	if (errno == EEXIST)
		hvt_err("%s appeared while the database was written, and is kept: name a new "
			"file, or replace it with --force", o->path);
	else
		hvt_err("cannot rename %s to %s: %s", o->tmp, o->path, strerror(errno));
	return -1;
}

int hvt_sql_out_close(struct hvt_sql_out *o)
{
	int ret = -1;

	hvt_sql_models_finish(o);
	hvt_sql_ids_complete(o);
	if (!hvt_sql_rows_finish(o) && !hvt_sql_ids_write(o) && !hvt_sql_clock_write(o) &&
	    !write_meta(o) && !exec(o, hvt_sql_indexes) && !exec(o, "COMMIT") && !o->failed) {
		hvt_sql_rows_free(o);
		finalize_statements(o);
		if (sqlite3_close(o->db) != SQLITE_OK)
			hvt_err("%s: %s", o->path, sqlite3_errmsg(o->db));
		else
			ret = put_in_place(o);
		o->db = NULL;
	}
	if (ret)
		unlink(o->tmp);
	hvt_partial_unguard();
	out_free(o);
	return ret;
}
