/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sql_schema.h - the tables of `merge --format=sqlite` (docs/sql.md has
 * them, with how their names follow Perfetto's trace processor and where
 * they differ). Times are integer ns since the trace start on the host's
 * clock, as merge prints them; a guest row carries the error bounds of its
 * ends in ns (NULL: none guaranteed); a host row's are 0.
 */
#ifndef HVT_TOOLS_OUT_SQL_SCHEMA_H
#define HVT_TOOLS_OUT_SQL_SCHEMA_H

/* meta's version: a change of any table's columns or meaning raises it. */
#define HVT_SQL_SCHEMA_VERSION	2

/* Tables, before any row. */
extern const char hvt_sql_tables[];
/* Views and indexes, once the rows are in. */
extern const char hvt_sql_indexes[];

#endif
