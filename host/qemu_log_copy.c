// SPDX-License-Identifier: GPL-2.0-only
/*
 * qemu_log_copy.c - QEMU's trace lines kept in the archive (qemu_log_copy.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/qemu_log_copy.h"
#include "lib/fileio.h"
#include "lib/log.h"

#define CHUNK	(1u << 20)

int hvt_qemu_log_open(struct hvt_qemu_log *l, const char *path, char *err, size_t errlen)
{
	struct stat st;

	l->path = path;
	l->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);	/* a FIFO: refused, not waited on */
	if (l->fd < 0 || fstat(l->fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "--qemu-log %s: %s", path, l->fd < 0 ? strerror(errno) :
			 "not a regular file (QEMU's -D FILE)");
		if (l->fd >= 0)
			close(l->fd);
		l->fd = -1;
		return -1;
	}
	l->from = st.st_size;
	return 0;
}

/* The length of @buf[0..n) up to and with its last '\n'; 0 if none. */
static size_t whole_lines(const char *buf, size_t n)
{
	while (n && buf[n - 1] != '\n')
		n--;
	return n;
}

int64_t hvt_qemu_log_save(struct hvt_qemu_log *l, const char *dst)
{
	char *buf = malloc(CHUNK);
	off_t at = l->from;
	uint64_t kept = 0, whole = 0;	/* bytes copied; of them, up to the last '\n' */
	bool cut = false;
	int out, ret = 0;
	ssize_t n;

	if (!buf)
		return -1;
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (out < 0) {
		free(buf);
		return -1;
	}
	/* as it is; then cut back to the last '\n' copied: whole lines only */
	while ((n = pread(l->fd, buf, CHUNK, at)) > 0) {
		size_t len = (size_t)n, lines;

		if (kept + len > HVT_QEMU_LOG_MAX) {
			len = (size_t)(HVT_QEMU_LOG_MAX - kept);
			cut = true;
		}
		if (hvt_write_all(out, buf, len)) {
			ret = -1;
			break;
		}
		lines = whole_lines(buf, len);
		if (lines)
			whole = kept + lines;
		kept += len;
		at += (off_t)len;
		if (cut)
			break;
	}
	if (!ret && kept != whole && ftruncate(out, (off_t)whole))
		ret = -1;
	kept = whole;
	if (n < 0)
		ret = -1;
	if (cut)
		hvt_warn("--qemu-log %s: more than %llu bytes written while recording; the rest is "
			 "not kept", l->path, (unsigned long long)HVT_QEMU_LOG_MAX);
	if (fsync(out) || close(out))
		ret = -1;
	free(buf);
	return ret ? -1 : (int64_t)kept;
}

void hvt_qemu_log_close(struct hvt_qemu_log *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}
