/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fileio.h - small I/O helpers: whole writes, whole-file reads, directories,
 * files replaced atomically.
 */
#ifndef HVT_LIB_FILEIO_H
#define HVT_LIB_FILEIO_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* write() until done, retrying EINTR; -1 with errno on failure. */
int hvt_write_all(int fd, const void *buf, size_t len);
/*
 * pread() of exactly @len bytes at @off, retrying EINTR and short reads; -1
 * with errno on failure, or with errno 0 if the file ends first.
 */
int hvt_pread_all(int fd, void *buf, size_t len, off_t off);
/*
 * Opens @path to read if it is a regular file of at most @max bytes: its
 * descriptor and *@size, else -1 with errno: open()'s, EISDIR, EINVAL if
 * it is no regular file (a FIFO, which would block a reader forever, a
 * device, a socket), EFBIG if it is larger. Archive readers open every
 * file through it. (procfs and sysfs files are regular, but their sizes
 * are not what a read gives: 0, 4096.)
 */
int hvt_open_regular(const char *path, uint64_t max, uint64_t *size);
/* strerror() of hvt_open_regular()'s and hvt_read_file()'s errors. */
const char *hvt_file_strerror(int err);
/*
 * Reads a whole regular file (hvt_open_regular()) of at most @max bytes
 * into a NUL-terminated buffer; -1 with errno.
 */
int hvt_read_file(const char *path, size_t max, char **data, size_t *len);
/* Replaces @path with @len bytes: writes PATH.tmp, fsyncs it, renames it. */
int hvt_write_file_atomic(const char *path, const void *data, size_t len);
/* mkdir -p @path with mode 0755. */
int hvt_mkdir_p(const char *path);
/*
 * Whether writing @path would change @input: @path exists and is @input or,
 * for a directory, one of the regular files below it, by whatever name
 * (symbolic or hard links, ".."). A file that does not exist yet touches
 * nothing.
 */
bool hvt_path_touches(const char *path, const char *input);
/* "@dir/@rel" in a new malloc'd string; NULL if out of memory. */
char *hvt_join(const char *dir, const char *rel);
/*
 * The size of a buffer for a path built on a directory of up to PATH_MAX
 * bytes (the archive's, tracefs', debugfs') with names appended: a VM's, a
 * trace's, a file's, an event format's. One size for all of them, large
 * enough for any such suffix, so that no buffer needs sizing by what it
 * appends; hvt_path() still refuses what does not fit, and a path beyond
 * PATH_MAX is refused by the system call anyway (ENAMETOOLONG).
 */
#define HVT_PATH_LEN	(PATH_MAX + 512)
/* snprintf that fails (-1, errno ENAMETOOLONG) instead of truncating. */
int hvt_path(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
