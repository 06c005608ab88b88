/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sql_private.h - the SQL export's insides, shared by its files:
 * sqlite_out.c (the database, the events), sql_rows.c (the pass's rows,
 * inserted by a thread of their own), sql_args.c (the events' fields),
 * sql_ids.c (threads, CPUs, processes and machines as rows), sql_models.c
 * (slices, thread states and vCPU states from the models), sql_clock.c
 * (what the alignment used).
 */
#ifndef HVT_TOOLS_OUT_SQL_PRIVATE_H
#define HVT_TOOLS_OUT_SQL_PRIVATE_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "tools/merge/event_feed.h"
#include "tools/model/sched_model.h"
#include "tools/model/vm_analyses.h"
#include "tools/out/sched_state.h"
#include "tools/out/sqlite_out.h"
#include "tools/util/text_buffer.h"

/* A thread of a machine: its row of the thread table. */
struct sql_thread {
	bool used;			/* false: an empty slot of the map */
	uint32_t machine;
	int32_t key;			/* its tid; an idle task (tid 0) -1 - its CPU */
	int32_t tid;
	int64_t utid;
	int64_t upid;			/* -1: not known */
	char name[HVT_COMM_LEN];
	int32_t vcpu_machine, vcpu;	/* a host thread running a vCPU; -1 none */
};

/* A process of a machine: its row of the process table. */
struct sql_process {
	uint32_t machine;
	int32_t pid;
	char name[HVT_COMM_LEN];
};

/* The tables the pass inserts into, a statement each. */
enum sql_stmt { SQL_EVENT, SQL_ARG_SET, SQL_SCHED, SQL_STATE, SQL_VCPU, SQL_CPU, SQL_NR_STMTS };

struct sql_rows;

/* A cached arg set (sql_args.c): its text, and its row's id; 0: an empty slot. */
#define SQL_ARG_SLOT_TEXT	236
struct sql_arg_slot {
	uint64_t hash;
	int64_t id;
	uint32_t len;
	char text[SQL_ARG_SLOT_TEXT];
};

/* One machine: its scheduling, as slices and states. */
struct sql_machine {
	struct hvt_sql_out *owner;
	uint32_t id;			/* 0: the host; n: VM n */
	struct hvt_sched_model sched;
};

struct hvt_sql_out {
	struct hvt_session *ses;
	sqlite3 *db;
	char *path, *tmp;		/* the file, and its name while written */
	bool force;			/* replace a file at path */
	struct hvt_sched_state states;	/* prev_state in letters, in the args */
	sqlite3_stmt *stmt[SQL_NR_STMTS];	/* the pass's inserts, sql_rows.c's */
	struct sql_rows *rows;
	struct hvt_text args;		/* an event's fields, as JSON */
	struct sql_arg_slot *arg_cache;	/* the sets written lately, by hash */
	int64_t arg_sets;		/* the last arg_set row's id */
	char *args_buf;
	FILE *args_sink;		/* where fields past the buffer go: nowhere, said */
	bool args_overflow;
	struct sql_thread *threads;	/* open addressing by (machine, tid) */
	size_t nr_threads, cap_threads;
	struct sql_process *procs;
	size_t nr_procs, cap_procs;
	int64_t **ucpu;			/* per machine, by CPU: the cpu table's id; 0: none */
	size_t *nr_ucpu;
	int64_t next_ucpu;
	struct sql_machine *machines;	/* 1 + the archive's VMs */
	struct hvt_vm_analyses analyses;
	struct hvt_event_feed feed;
	char *extra_name, *extra_value;	/* one more meta row (hvt_sql_out_meta) */
	const char *models_gap;		/* why sched or thread_state lack rows; NULL: none */
	uint64_t last_tsc;
	uint64_t events;
	bool failed;			/* an insert failed: said once (atomic: two threads) */
};

/* sqlite_out.c */
/* @tsc as ns since the trace start. */
int64_t hvt_sql_ns(struct hvt_sql_out *o, uint64_t tsc);
/* @ticks host ticks at @at as ns, rounded up (a bound stays a bound). */
int64_t hvt_sql_ticks_ns(struct hvt_sql_out *o, uint64_t at, uint64_t ticks);
/* Runs @st (reset after; its bindings stay); false after saying why, once. */
bool hvt_sql_step(struct hvt_sql_out *o, sqlite3_stmt *st);
/* Binds @v to parameter @i of @st, NULL if @null (the tables written at the end). */
void hvt_sql_bind(sqlite3_stmt *st, int i, int64_t v, bool null);

/* sql_rows.c: the pass's rows, written by a thread of their own */
int hvt_sql_rows_start(struct hvt_sql_out *o);
/* The database cannot be completed because of @why: said once, from either thread. */
void hvt_sql_fail(struct hvt_sql_out *o, const char *why);
/* A row of @stmt's table: hvt_sql_row, its values in the statement's order, hvt_sql_row_end. */
void hvt_sql_row(struct hvt_sql_out *o, enum sql_stmt stmt);
void hvt_sql_int(struct hvt_sql_out *o, int64_t v);
/* @v, or NULL if @null. */
void hvt_sql_opt(struct hvt_sql_out *o, int64_t v, bool null);
/* @len bytes of @s, copied; NULL if @s is. */
void hvt_sql_text(struct hvt_sql_out *o, const char *s, size_t len);
void hvt_sql_row_end(struct hvt_sql_out *o);
/* Every row written, the thread gone: the connection is the caller's; -1 if a row failed. */
int hvt_sql_rows_finish(struct hvt_sql_out *o);
void hvt_sql_rows_free(struct hvt_sql_out *o);

/* sql_args.c */
int hvt_sql_args_init(struct hvt_sql_out *o);
void hvt_sql_args_free(struct hvt_sql_out *o);
/* The id of the arg_set row of @text (a JSON object), queued if not seen lately. */
int64_t hvt_sql_arg_set(struct hvt_sql_out *o, const char *text, size_t len);

/* sql_ids.c */
int hvt_sql_ids_init(struct hvt_sql_out *o);
void hvt_sql_ids_free(struct hvt_sql_out *o);
/*
 * The utid of @tid (>= 0) of machine @machine, named @comm (the latest
 * given wins); an idle task (tid 0) is one per CPU, @cpu (-1: not known).
 * -1 if out of memory.
 */
int64_t hvt_sql_utid(struct hvt_sql_out *o, uint32_t machine, int32_t tid, int32_t cpu,
		     const char *comm);
/* The ucpu of CPU @cpu of machine @machine; -1 if out of memory or absurd. */
int64_t hvt_sql_ucpu(struct hvt_sql_out *o, uint32_t machine, uint32_t cpu);
/* The ids the pass did not make: the traced processes, the vCPUs (their CPU rows queued). */
void hvt_sql_ids_complete(struct hvt_sql_out *o);
/* The machine, process and thread tables, once every id is known; -1 after saying why. */
int hvt_sql_ids_write(struct hvt_sql_out *o);

/* sql_models.c */
int hvt_sql_models_init(struct hvt_sql_out *o);
void hvt_sql_models_free(struct hvt_sql_out *o);
/* The event to the models (the feed's listener); after the last one, their ends. */
void hvt_sql_models_event(struct hvt_sql_out *o, struct hvt_source *s);
void hvt_sql_models_finish(struct hvt_sql_out *o);

/* sql_clock.c */
int hvt_sql_clock_write(struct hvt_sql_out *o);

#endif
