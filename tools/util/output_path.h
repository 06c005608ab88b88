/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * output_path.h - the one rule for where an output may be written, the
 * same for every format of `hvtrace merge --output` and for the SQL
 * database: a name where nothing is is written; something already there is
 * replaced only when the user said --force, since it may be work that no
 * new run gives back (a database with tables of the user's own, a trace
 * kept from an earlier recording). A device or FIFO (/dev/null, a pipe),
 * or a name under /dev (/dev/stdout, whatever the shell opened there), is
 * written as it is: it holds nothing to lose, or it is what was asked. What merge reads is
 * never an output, --force or not (cmd_merge.c checks that first).
 */
#ifndef HVT_TOOLS_UTIL_OUTPUT_PATH_H
#define HVT_TOOLS_UTIL_OUTPUT_PATH_H

#include <stdbool.h>

enum hvt_output_kind {
	HVT_OUTPUT_STREAM,	/* a file opened and written in place (text, JSON) */
	HVT_OUTPUT_FILE,	/* a regular file put in place by a rename (SQLite) */
	HVT_OUTPUT_DIR,		/* a directory of files (CTF): new or empty */
};

enum hvt_output_state {
	HVT_OUTPUT_REFUSED = -1,	/* said why, naming the path and --force */
	HVT_OUTPUT_NEW,			/* nothing there (or an empty directory) */
	HVT_OUTPUT_EXISTS,		/* there, and may be written over */
};

/*
 * Whether an output of @kind may be written at @path, and whether it is
 * there: an existing regular file only with @force; a directory with files
 * in it only with @force and only if they are one CTF trace's (a metadata
 * file, regular files only: what the CTF writer removes before writing);
 * a device, FIFO or name under /dev/ only as a stream.
 */
enum hvt_output_state hvt_output_path_check(const char *path, enum hvt_output_kind kind,
					    bool force);

#endif
