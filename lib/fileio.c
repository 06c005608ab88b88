// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/fileio.h"

int hvt_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int hvt_pread_all(int fd, void *buf, size_t len, off_t off)
{
	char *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = 0;
			return -1;
		}
		p += n;
		off += n;
		len -= (size_t)n;
	}
	return 0;
}

int hvt_open_regular(const char *path, uint64_t max, uint64_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st)) {
		int saved = errno;

		close(fd);
		errno = saved;
		return -1;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
		close(fd);
		errno = S_ISDIR(st.st_mode) ? EISDIR : S_ISREG(st.st_mode) ? EFBIG : EINVAL;
		return -1;
	}
	*size = (uint64_t)st.st_size;
	return fd;
}

const char *hvt_file_strerror(int err)
{
	return err == EINVAL ? "not a regular file" : strerror(err);
}

int hvt_read_file(const char *path, size_t max, char **data, size_t *len)
{
	size_t cap = 4096, used = 0;
	uint64_t size;
	char *buf = NULL;
	int fd, saved;

	/* sysfs says 4096 bytes, procfs 0: the bound is kept while reading */
	fd = hvt_open_regular(path, UINT64_MAX, &size);
	if (fd < 0)
		return -1;
	for (;;) {
		ssize_t n;

		if (used + 1 >= cap || !buf) {
			char *nb;

			if (buf)
				cap *= 2;
			nb = realloc(buf, cap);
			if (!nb)
				goto fail;
			buf = nb;
		}
		n = read(fd, buf + used, cap - used - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		if (n == 0)
			break;
		used += (size_t)n;
		if (used > max) {
			errno = EFBIG;
			goto fail;
		}
	}
	close(fd);
	buf[used] = '\0';
	*data = buf;
	*len = used;
	return 0;
fail:
	saved = errno;
	free(buf);
	close(fd);
	errno = saved;
	return -1;
}

int hvt_write_file_atomic(const char *path, const void *data, size_t len)
{
	char tmp[4096];
	int fd, saved;

	if (hvt_path(tmp, sizeof(tmp), "%s.tmp", path))
		return -1;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	if (hvt_write_all(fd, data, len) || fsync(fd))
		goto fail;
	if (close(fd)) {
		fd = -1;
		goto fail;
	}
	if (rename(tmp, path))
		goto fail_closed;
	return 0;
fail:
	saved = errno;
	close(fd);
	errno = saved;
fail_closed:
	saved = errno;
	unlink(tmp);
	errno = saved;
	return -1;
}

int hvt_mkdir_p(const char *path)
{
	char buf[4096];
	char *p;

	if (hvt_path(buf, sizeof(buf), "%s", path))
		return -1;
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, 0755) && errno != EEXIST)
		return -1;
	return 0;
}

int hvt_path(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

char *hvt_join(const char *dir, const char *rel)
{
	size_t len = strlen(dir) + strlen(rel) + 2;
	char *s = malloc(len);

	if (s)
		snprintf(s, len, "%s/%s", dir, rel);
	return s;
}

static struct stat link_target;	/* for same_inode(), under nftw() */

static int same_inode(const char *file, const struct stat *st, int type, struct FTW *ftw)
{
	(void)file, (void)ftw;
	return type == FTW_F && st->st_dev == link_target.st_dev &&
	       st->st_ino == link_target.st_ino;
}

bool hvt_path_touches(const char *path, const char *input)
{
	struct stat a, b;

	if (stat(path, &a) || stat(input, &b))
		return false;	/* a new file touches nothing */
	if (a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return true;
	link_target = a;
	return S_ISREG(a.st_mode) && S_ISDIR(b.st_mode) &&
	       nftw(input, same_inode, 16, FTW_PHYS) == 1;
}
