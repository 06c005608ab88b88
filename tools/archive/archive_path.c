// SPDX-License-Identifier: GPL-2.0-only
/*
 * archive_path.c - a path given as an archive that is something else
 * (archive_path.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cli.h"
#include "lib/fileio.h"
#include "tools/archive/archive_path.h"

#define MAX_UP	8	/* an archive's deepest file: vm/NAME/user-N/stream-M */

/* The first @n bytes of file @path in @buf; how many were read (0 on error). */
static size_t head_of(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ssize_t got;

	if (fd < 0)
		return 0;
	got = read(fd, buf, n);
	close(fd);
	return got > 0 ? (size_t)got : 0;
}

static int has_file(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	return snprintf(path, sizeof(path), "%s/%s", dir, name) < (int)sizeof(path) &&
	       !stat(path, &st) && S_ISREG(st.st_mode);
}

/*
 * The archive @real (a canonical path) lies in, in @root: the nearest
 * ancestor with an hvtrace.json. Its part below the archive in *@rel.
 */
static int archive_above(const char *real, char root[PATH_MAX], const char **rel)
{
	char *slash;
	int up;

	snprintf(root, PATH_MAX, "%s", real);
	for (up = 0; up < MAX_UP && (slash = strrchr(root, '/')) && slash != root; up++) {
		*slash = '\0';
		if (has_file(root, "hvtrace.json")) {
			*rel = real + strlen(root) + 1;
			return 0;
		}
	}
	return -1;
}

/* "... --vm NAME" when @rel is under vm/NAME/. */
static void vm_hint(const char *rel, char *buf, size_t len)
{
	const char *name = !strncmp(rel, "vm/", 3) ? rel + 3 : NULL;
	size_t n = name ? strcspn(name, "/") : 0;

	if (n)
		snprintf(buf, len, " (to see that VM alone: hvtrace merge or analyze ARCHIVE "
			 "--vm %.*s)", (int)n, name);
	else
		buf[0] = '\0';
}

static const char *inside_archive(const char *path, const char *real, bool dir, char *buf,
				  size_t len)
{
	char root[PATH_MAX], vm[300];
	const char *rel;

	if (archive_above(real, root, &rel))
		return NULL;
	vm_hint(rel, vm, sizeof(vm));
	snprintf(buf, len, "%s is the %s %s inside the archive %s: give the archive itself%s",
		 path, dir ? "folder" : "file", rel, root, vm);
	return buf;
}

static bool is_ctf_metadata(const char *path)
{
	char head[8];

	return head_of(path, head, sizeof(head)) >= 6 && !memcmp(head, "/* CTF", 6);
}

/*
 * The archives in directory @dir: those named within two typos of @name
 * (a name given that does not exist), or all of them (@name NULL: the
 * directory given holds archives). Appended to @buf as "; did you mean
 * DIR/a?" or "; it holds archives: a, b"; nothing if none.
 */
static void archives_near(const char *dir, const char *name, char *buf, size_t len)
{
	size_t used = strlen(buf), found = 0, more = 0;
	char sub[PATH_MAX];
	struct dirent *e;
	DIR *d = opendir(dir);

	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.' || (name && hvt_edit_distance(name, e->d_name) > 2) ||
		    snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) >= (int)sizeof(sub) ||
		    !has_file(sub, "hvtrace.json"))
			continue;
		if (found == 8 || used >= len) {	/* named: 8 at most; the rest counted */
			more++;
			continue;
		}
		used += (size_t)snprintf(buf + used, len - used, "%s%s%s%s",
					 found++ ? ", " : name ? "; did you mean " :
					 "; it holds archives: ", name ? dir : "", name ? "/" : "",
					 e->d_name);
	}
	if (d)
		closedir(d);
	if (more && used < len)
		used += (size_t)snprintf(buf + used, len - used, " and %zu more", more);
	if (found && name && used < len)
		snprintf(buf + used, len - used, "?");
}

static const char *misgiven_dir(const char *path, const char *real, char *buf, size_t len)
{
	char metadata[PATH_MAX];

	char root[PATH_MAX];
	const char *rel;

	if (has_file(real, "hvtrace.json"))
		return NULL;
	/* the archive's own folders first: a guest trace there is CTF too */
	if (!archive_above(real, root, &rel) && (!strncmp(rel, "vm/", 3) || !strncmp(rel, "host", 4)))
		return inside_archive(path, real, true, buf, len);
	if (snprintf(metadata, sizeof(metadata), "%s/metadata", real) < (int)sizeof(metadata) &&
	    is_ctf_metadata(metadata))
		snprintf(buf, len, "%s is a CTF trace, not an hvtrace archive (merge --format=ctf "
			 "writes these): read it with babeltrace2 %s", path, path);
	else if (!inside_archive(path, real, true, buf, len)) {
		snprintf(buf, len, "%s is a directory without hvtrace.json: not an hvtrace archive "
			 "('hvtrace record -o DIR' makes one)", path);
		archives_near(real, NULL, buf, len);
	}
	return buf;
}

static const char *misgiven_file(const char *path, const char *real, char *buf, size_t len)
{
	static const char tracedat_magic[] = "\027\010\104tracing";
	char head[16];
	size_t n = head_of(real, head, sizeof(head));

	if (n >= sizeof(tracedat_magic) - 1 &&
	    !memcmp(head, tracedat_magic, sizeof(tracedat_magic) - 1))
		return NULL;	/* a trace-cmd trace.dat, wherever it lies */
	if (n >= 16 && !memcmp(head, "SQLite format 3", 16))
		snprintf(buf, len, "%s is an SQLite database (merge --format=sqlite writes these), "
			 "not an archive: ask it with hvtrace sql %s QUERY, or sqlite3 %s", path,
			 path, path);
	else if (is_ctf_metadata(real))
		snprintf(buf, len, "%s is the metadata of a CTF trace: read the trace, its "
			 "directory, with babeltrace2", path);
	else
		return inside_archive(path, real, false, buf, len);
	return buf;
}

const char *hvt_archive_path_misgiven(const char *path, char *buf, size_t len)
{
	char real[PATH_MAX];
	struct stat st;

	if (!*path) {
		snprintf(buf, len, "the archive's path is empty: name an archive directory");
		return buf;
	}
	if (stat(path, &st)) {
		char dir[PATH_MAX];
		const char *slash = strrchr(path, '/');

		snprintf(buf, len, "%s: %s", path, hvt_file_strerror(errno));
		if (errno == ENOENT && (!slash || slash[1])) {	/* a typo of an archive's name? */
			snprintf(dir, sizeof(dir), "%.*s",
				 !slash ? 1 : slash == path ? 1 : (int)(slash - path),
				 !slash ? "." : slash == path ? "/" : path);
			archives_near(dir, slash ? slash + 1 : path, buf, len);
		}
		return buf;
	}
	if (!realpath(path, real))
		return NULL;
	if (S_ISDIR(st.st_mode))
		return misgiven_dir(path, real, buf, len);
	return S_ISREG(st.st_mode) ? misgiven_file(path, real, buf, len) : NULL;
}
