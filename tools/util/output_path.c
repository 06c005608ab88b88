// SPDX-License-Identifier: GPL-2.0-only
/*
 * output_path.c - may an output be written at a path (output_path.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/log.h"
#include "tools/util/output_path.h"

/*
 * What directory @path holds: -1 (unreadable, said), 0 nothing, 1 a CTF
 * trace's files only (a metadata file and regular files), 2 anything else,
 * its first such entry in @other.
 */
static int dir_holds(const char *path, char *other, size_t len)
{
	DIR *d = opendir(path);
	struct dirent *e;
	bool any = false, metadata = false, foreign = false;
	struct stat st;

	if (!d) {
		hvt_err("%s exists and cannot be read as a directory: %s", path, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		any = true;
		metadata |= !strcmp(e->d_name, "metadata");
		if (!foreign && (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
				 !S_ISREG(st.st_mode))) {
			foreign = true;
			snprintf(other, len, "%s", e->d_name);
		}
	}
	closedir(d);
	if (!any)
		return 0;
	if (!metadata && !foreign)
		snprintf(other, len, "no metadata file");
	return metadata && !foreign ? 1 : 2;
}

static enum hvt_output_state check_dir(const char *path, const struct stat *st, bool force)
{
	char other[256];
	int holds;

	if (!S_ISDIR(st->st_mode)) {
		hvt_err("--output %s exists and is not a directory: --format=ctf writes a "
			"directory; name a new or empty one", path);
		return HVT_OUTPUT_REFUSED;
	}
	if ((holds = dir_holds(path, other, sizeof(other))) <= 0)
		return holds < 0 ? HVT_OUTPUT_REFUSED : HVT_OUTPUT_NEW;
	if (!force) {
		hvt_err("--output %s is not empty: name a new or empty directory, or replace "
			"the CTF trace in it with --force", path);
		return HVT_OUTPUT_REFUSED;
	}
	if (holds > 1) {
		hvt_err("--output %s holds more than a CTF trace (%s): --force replaces only a "
			"directory of a CTF trace's files; name a new or empty directory",
			path, other);
		return HVT_OUTPUT_REFUSED;
	}
	return HVT_OUTPUT_EXISTS;
}

enum hvt_output_state hvt_output_path_check(const char *path, enum hvt_output_kind kind,
					    bool force)
{
	struct stat st;

	if (stat(path, &st)) {
		if (errno == ENOENT)
			return HVT_OUTPUT_NEW;
		hvt_err("--output %s: %s", path, strerror(errno));
		return HVT_OUTPUT_REFUSED;
	}
	if (kind == HVT_OUTPUT_DIR)
		return check_dir(path, &st, force);
	if (S_ISDIR(st.st_mode)) {
		hvt_err("--output %s is a directory: name a file", path);
		return HVT_OUTPUT_REFUSED;
	}
	if (!S_ISREG(st.st_mode) || (kind == HVT_OUTPUT_STREAM && !strncmp(path, "/dev/", 5))) {
		if (kind == HVT_OUTPUT_STREAM)	/* /dev/null, a FIFO, /dev/stdout: as it is */
			return HVT_OUTPUT_EXISTS;
		hvt_err("--output %s is not a regular file: name a new file for the database",
			path);
		return HVT_OUTPUT_REFUSED;
	}
	if (!force) {
		hvt_err("--output %s exists: name a new file, or replace it with --force", path);
		return HVT_OUTPUT_REFUSED;
	}
	return HVT_OUTPUT_EXISTS;
}
