/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * output.h - where `hvtrace merge` writes the events: every output format
 * in one table (output.c), each with its name, its lines of --help, what it
 * accepts of merge's options, and its writer (text_out.h, json_out.h,
 * ctf_out.h, or none). A new format is one more entry and its writer;
 * the command takes it from the table.
 */
#ifndef HVT_TOOLS_OUT_OUTPUT_H
#define HVT_TOOLS_OUT_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "tools/out/ctf_out.h"
#include "tools/out/json_out.h"
#include "tools/out/jsonl_out.h"
#include "tools/out/sqlite_out.h"
#include "tools/out/text_out.h"
#include "tools/session/session.h"
#include "tools/util/output_path.h"
#include "tools/util/time_text.h"

struct hvt_output;

struct hvt_output_format {
	const char *name;		/* --format=NAME */
	const char *help;		/* its --help text, lines of at most 58 columns */
	const char *own_time;		/* it has its own time base, said so: --time is refused */
	bool to_directory;		/* writes a directory, which --output must name */
	bool to_path;			/* writes a file by its name, which --output must give */
	bool print_fmt;			/* takes --print-fmt and --bounds */
	bool writes;			/* writes anything at all (not: decode and merge only) */
	bool thread_names;		/* names each event's thread: needs opts->names */
	bool streams;			/* written as events come: merge --follow */
	int (*open)(struct hvt_output *o, struct hvt_session *ses);
	void (*event)(struct hvt_output *o, struct hvt_source *s);
	int (*close)(struct hvt_output *o);	/* with the file, if any, closed by the caller */
	void (*flush)(struct hvt_output *o);	/* a streaming format: what it holds, out */
};

struct hvt_output_opts {
	const char *path;		/* --output; NULL: standard output */
	enum hvt_time_mode time;	/* --time */
	bool print_fmt;			/* --print-fmt */
	bool bounds;			/* --bounds: text shows each event's error bound */
	bool delta;			/* --delta: text shows the time since the line before */
	bool force;			/* --force: replace an existing --output (output_path.h) */
	/* the names of the threads, learnt from every event read (thread_names.h) */
	const struct hvt_thread_names *names;
};

struct hvt_output {
	const struct hvt_output_format *fmt;
	const struct hvt_output_opts *opts;
	FILE *file;			/* NULL: it writes no file (ctf, null) */
	union {
		struct hvt_printer text;
		struct hvt_json_printer json;
		struct hvt_jsonl_printer jsonl;
		struct hvt_ctf_out ctf;
		struct hvt_sql_out *sql;
	};
};

/* The format named @name, or NULL. */
const struct hvt_output_format *hvt_output_format_find(const char *name);
/* The first format of the table: the default. */
const struct hvt_output_format *hvt_output_format_default(void);
/* "text|json|ctf|null", for a usage line. */
void hvt_output_formats_list(FILE *out);
/* Each format's --help entry, "  --format=NAME     help...". */
void hvt_output_formats_help(FILE *out);
/*
 * Whether @opts suit format @f: NULL, or why not (a whole sentence to put
 * after "hvtrace merge: error: ").
 */
const char *hvt_output_refuses(const struct hvt_output_format *f,
			       const struct hvt_output_opts *opts, char *buf, size_t len);
/*
 * Whether format @f may write its --output as @opts say, the rule of
 * util/output_path.h: refused (said), new, or there to be replaced.
 */
enum hvt_output_state hvt_output_check(const struct hvt_output_format *f,
				       const struct hvt_output_opts *opts);
/* Opens output @o of format @f for @ses's events; -1 after an error message. */
int hvt_output_open(struct hvt_output *o, const struct hvt_output_format *f,
		    struct hvt_session *ses, const struct hvt_output_opts *opts);
static inline void hvt_output_event(struct hvt_output *o, struct hvt_source *s)
{
	o->fmt->event(o, s);
}
/* What a streaming format holds goes out (merge --follow, as it catches up). */
static inline void hvt_output_flush(struct hvt_output *o)
{
	if (o->fmt->flush)
		o->fmt->flush(o);
}
/* Finishes it; -1 after an error message if anything failed to be written. */
int hvt_output_close(struct hvt_output *o);

#endif
