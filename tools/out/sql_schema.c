// SPDX-License-Identifier: GPL-2.0-only
/*
 * sql_schema.c - the tables, views and indexes of the SQL export
 * (sql_schema.h).
 */
#include "tools/out/sql_schema.h"

const char hvt_sql_tables[] =
	/* what the database is of: archive, hvtrace, complete, ... */
	"CREATE TABLE meta(name TEXT PRIMARY KEY, value) WITHOUT ROWID;\n"
	/* 0: the host; n: the archive's VM n, in hvtrace.json's order */
	"CREATE TABLE machine(id INTEGER PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL,\n"
	"  accel TEXT, cpus INTEGER, clock_source TEXT NOT NULL, alignment TEXT,\n"
	"  bound_p50_ns INTEGER, bound_max_ns INTEGER);\n"
	/* id: Perfetto's ucpu, unique across machines; a vCPU's host thread */
	"CREATE TABLE cpu(id INTEGER PRIMARY KEY, machine_id INTEGER NOT NULL,\n"
	"  cpu INTEGER NOT NULL, host_utid INTEGER);\n"
	"CREATE TABLE process(upid INTEGER PRIMARY KEY, machine_id INTEGER NOT NULL,\n"
	"  pid INTEGER, name TEXT);\n"
	/* a host thread that runs a vCPU: which (vcpu_machine_id, vcpu) */
	"CREATE TABLE thread(utid INTEGER PRIMARY KEY, machine_id INTEGER NOT NULL,\n"
	"  tid INTEGER NOT NULL, upid INTEGER, name TEXT, vcpu_machine_id INTEGER,\n"
	"  vcpu INTEGER);\n"
	/* who ran on each CPU from one sched_switch to the next */
	"CREATE TABLE sched(id INTEGER PRIMARY KEY, ts INTEGER NOT NULL, dur INTEGER NOT NULL,\n"
	"  ts_bound INTEGER, end_bound INTEGER, machine_id INTEGER NOT NULL,\n"
	"  cpu INTEGER NOT NULL, ucpu INTEGER NOT NULL, utid INTEGER, end_state TEXT);\n"
	/* each thread's state: Running, R, R+, S, D, ... */
	"CREATE TABLE thread_state(id INTEGER PRIMARY KEY, ts INTEGER NOT NULL,\n"
	"  dur INTEGER NOT NULL, ts_bound INTEGER, end_bound INTEGER,\n"
	"  machine_id INTEGER NOT NULL, utid INTEGER NOT NULL, state TEXT NOT NULL,\n"
	"  cpu INTEGER, ucpu INTEGER, waker_utid INTEGER);\n"
	/* every event merge writes, in its order; its fields: an arg_set */
	"CREATE TABLE event(id INTEGER PRIMARY KEY, ts INTEGER NOT NULL, bound INTEGER,\n"
	"  machine_id INTEGER NOT NULL, layer TEXT NOT NULL, cpu INTEGER, ucpu INTEGER,\n"
	"  utid INTEGER, name TEXT NOT NULL, arg_set_id INTEGER);\n"
	/* an event's fields, a JSON object, shared by the events with the same */
	"CREATE TABLE arg_set(id INTEGER PRIMARY KEY, args TEXT NOT NULL);\n"
	/* hvtrace analyze's pieces: vcpu NULL for a guest thread's wait in the guest */
	"CREATE TABLE vcpu_state(id INTEGER PRIMARY KEY, machine_id INTEGER NOT NULL,\n"
	"  vcpu INTEGER, state TEXT NOT NULL, ts INTEGER NOT NULL, dur INTEGER NOT NULL,\n"
	"  bound INTEGER, too_short INTEGER NOT NULL, start_not_recorded INTEGER NOT NULL,\n"
	"  utid INTEGER, cause_utid INTEGER, exit_reason INTEGER);\n"
	"CREATE TABLE clock_exchange(machine_id INTEGER NOT NULL, seq INTEGER NOT NULL,\n"
	"  host_send_ts INTEGER NOT NULL, host_recv_ts INTEGER NOT NULL,\n"
	"  guest_recv INTEGER NOT NULL, guest_send INTEGER NOT NULL, round_trip_ns INTEGER,\n"
	"  cpu_recv INTEGER, cpu_send INTEGER);\n"
	/* guest = ((host * ratio) >> frac) + offset from ts on; vcpu NULL: every vCPU */
	"CREATE TABLE clock_segment(machine_id INTEGER NOT NULL, vcpu INTEGER,\n"
	"  segment INTEGER NOT NULL, source TEXT NOT NULL, ts INTEGER, end_ts INTEGER,\n"
	"  guest_first INTEGER, guest_last INTEGER, tsc_offset INTEGER, ratio INTEGER,\n"
	"  frac INTEGER, bound_start_ns INTEGER, bound_mid_ns INTEGER, bound_end_ns INTEGER);\n";

const char hvt_sql_indexes[] =
	/* each field of each arg set, a row apiece (SQLite's json_each) */
	"CREATE VIEW args AS SELECT arg_set.id AS arg_set_id, j.key AS key, j.value AS value,\n"
	"  j.type AS value_type FROM arg_set, json_each(arg_set.args) AS j;\n"
	/*
	 * Keys without ts: an index's entries are in rowid order within a key,
	 * and rows are written in time order within a key (a CPU's slices, a
	 * thread's states, every event), so each is in time order all the same,
	 * and `id > ?` narrows it; a ts in every entry would make the database
	 * 14% larger.
	 */
	"CREATE INDEX event_ts ON event(ts);\n"
	"CREATE INDEX event_name ON event(name);\n"
	"CREATE INDEX event_utid ON event(utid);\n"
	"CREATE INDEX sched_ucpu ON sched(ucpu);\n"
	"CREATE INDEX sched_utid ON sched(utid);\n"
	"CREATE INDEX thread_state_utid ON thread_state(utid);\n"
	"CREATE INDEX vcpu_state_vcpu ON vcpu_state(machine_id, vcpu);\n"
	"CREATE INDEX thread_tid ON thread(machine_id, tid);\n"
	"ANALYZE;\n";
