/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * archive_path.h - what a path given as an archive is when it is not one:
 * a folder or a file inside an archive, a CTF trace, an SQLite database,
 * nothing at all. The commands say so, with what to give instead, before
 * a reader fails on it with a message about the wrong format.
 */
#ifndef HVT_TOOLS_ARCHIVE_ARCHIVE_PATH_H
#define HVT_TOOLS_ARCHIVE_ARCHIVE_PATH_H

#include <stddef.h>

/*
 * Why @path cannot be an archive or a trace.dat, with what to give
 * instead, in @buf (@len bytes); NULL if it may be one (an archive
 * directory, or a file that is not recognisably something else: the
 * trace.dat reader judges it).
 */
const char *hvt_archive_path_misgiven(const char *path, char *buf, size_t len);

#endif
