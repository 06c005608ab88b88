/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sqlite_out.h - the merged time line as an SQLite database (merge
 * --format=sqlite, docs/sql.md): every event merge writes, the machines,
 * CPUs, processes and threads they are of, each machine's CPU slices and
 * thread states (model/sched_model.h), each analysable VM's vCPU states
 * (model/vm_analysis.h, the pieces `hvtrace analyze` counts), and what the
 * alignment used (clock exchanges, clock segments).
 *
 * The database is written under a temporary name beside the file asked
 * for, in one transaction, and renamed to it only when complete: killed on
 * the way, the file is absent, never half written: a SIGINT, SIGTERM or
 * SIGHUP removes the temporary file too, and what a SIGKILL leaves the
 * next writer of the same name removes (util/partial_file.h). An existing file is
 * replaced only when the caller says so (merge --force). A recording merge
 * warned about is marked incomplete in the meta table, with why. The rows
 * go to SQLite from a thread of their own (sql_rows.c), beside the pass
 * that makes them. Memory: the models' (a record per CPU and thread), a
 * few batches of rows, the arg sets' cache and SQLite's page cache, flat
 * in the number of events.
 */
#ifndef HVT_TOOLS_OUT_SQLITE_OUT_H
#define HVT_TOOLS_OUT_SQLITE_OUT_H

#include <stdbool.h>
#include <stdint.h>

#include "tools/session/session.h"

struct hvt_sql_out;

/*
 * A database at @path for the events of @ses's time line, just opened
 * (@force: replace a file there). NULL after an error message.
 */
struct hvt_sql_out *hvt_sql_out_open(struct hvt_session *ses, const char *path, bool force);
/* Each event merge writes, in its order. */
void hvt_sql_out_event(struct hvt_sql_out *o, struct hvt_source *s);
/* One more row of the meta table (copied); -1 if out of memory. */
int hvt_sql_out_meta(struct hvt_sql_out *o, const char *name, const char *value);
/* Completes the database and puts it in place; -1 after an error message (nothing left). */
int hvt_sql_out_close(struct hvt_sql_out *o);

#endif
