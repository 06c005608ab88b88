// SPDX-License-Identifier: GPL-2.0-only
/*
 * relay_trace.c - the relay's live CTF trace (relay_trace.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/fileio.h"
#include "lib/log.h"
#include "tools/relay/relay_trace.h"

int hvt_relay_trace_init(struct hvt_relay_trace *t, const char *dir, const char *session,
			 const char *hostname)
{
	char *index = NULL, *meta = NULL;

	memset(t, 0, sizeof(*t));
	t->metadata_fd = -1;
	if (mkdir(dir, 0700) && errno != EEXIST) {
		hvt_err("cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	t->dir = strdup(dir);
	t->session = strdup(session);
	t->hostname = strdup(hostname);
	index = hvt_join(dir, "index");
	meta = hvt_join(dir, "metadata");
	if (!t->dir || !t->session || !t->hostname || !index || !meta) {
		hvt_err("out of memory");
		goto fail;
	}
	if (mkdir(index, 0700)) {
		hvt_err("cannot create %s: %s", index, strerror(errno));
		goto fail;
	}
	t->metadata_fd = open(meta, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (t->metadata_fd < 0) {
		hvt_err("cannot create %s: %s", meta, strerror(errno));
		goto fail;
	}
	free(index);
	free(meta);
	return 0;
fail:
	free(index);
	free(meta);
	hvt_relay_trace_free(t);
	return -1;
}

static void remove_file(const char *dir, const char *name)
{
	char *path = hvt_join(dir, name);

	if (path)
		unlink(path);
	free(path);
}

void hvt_relay_trace_free(struct hvt_relay_trace *t)
{
	uint32_t i;

	for (i = 0; i < t->nr_streams; i++) {
		struct hvt_relay_stream *st = &t->streams[i];
		char idx[300];

		close(st->data_fd);
		close(st->index_fd);
		if (t->dir && st->name) {
			remove_file(t->dir, st->name);
			snprintf(idx, sizeof(idx), "index/%s.idx", st->name);
			remove_file(t->dir, idx);
		}
		free(st->name);
	}
	if (t->metadata_fd >= 0)
		close(t->metadata_fd);
	if (t->dir) {
		char *index = hvt_join(t->dir, "index");

		remove_file(t->dir, "metadata");
		if (index)
			rmdir(index);
		free(index);
		rmdir(t->dir);
	}
	free(t->streams);
	free(t->dir);
	free(t->session);
	free(t->hostname);
	memset(t, 0, sizeof(*t));
	t->metadata_fd = -1;
}

int hvt_relay_trace_metadata(struct hvt_relay_trace *t, const char *text, size_t len)
{
	if (hvt_write_all(t->metadata_fd, text, len))
		return -1;
	t->metadata_len += len;
	t->listed = t->nr_streams > 0;
	return 0;
}

/* A stream file, its index made beside it; -1 with errno. */
static int open_stream(struct hvt_relay_trace *t, struct hvt_relay_stream *st, const char *name)
{
	char rel[300];
	char *data = NULL, *index = NULL;
	int err;

	if (strlen(name) > 250 || strchr(name, '/') || name[0] == '.') {
		errno = EINVAL;
		return -1;
	}
	snprintf(rel, sizeof(rel), "index/%s.idx", name);
	st->name = strdup(name);
	data = hvt_join(t->dir, name);
	index = hvt_join(t->dir, rel);
	st->data_fd = st->index_fd = -1;
	if (!st->name || !data || !index) {
		errno = ENOMEM;
		goto fail;
	}
	st->data_fd = open(data, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (st->data_fd < 0)
		goto fail;
	st->index_fd = open(index, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (st->index_fd < 0)
		goto fail;
	free(data);
	free(index);
	return 0;
fail:
	err = errno;
	if (st->data_fd >= 0) {
		close(st->data_fd);
		unlink(data);
	}
	free(st->name);
	free(data);
	free(index);
	errno = err;
	return -1;
}

/* The stream of file @name, made if new; -1 with errno. */
static int stream_named(struct hvt_relay_trace *t, const char *name)
{
	uint32_t i;

	for (i = t->nr_streams; i-- > 0;)
		if (!strcmp(t->streams[i].name, name))
			return (int)i;
	if (t->nr_streams == t->cap_streams) {
		uint32_t cap = t->cap_streams ? 2 * t->cap_streams : 16;
		struct hvt_relay_stream *grown = realloc(t->streams, cap * sizeof(*grown));

		if (!grown) {
			errno = ENOMEM;
			return -1;
		}
		t->streams = grown;
		t->cap_streams = cap;
	}
	memset(&t->streams[t->nr_streams], 0, sizeof(t->streams[0]));
	if (open_stream(t, &t->streams[t->nr_streams], name))
		return -1;
	return (int)t->nr_streams++;
}

int hvt_relay_trace_packet(struct hvt_relay_trace *t, const char *name, const void *data,
			   size_t len, struct hvt_relay_index *ix)
{
	int i = stream_named(t, name);
	struct hvt_relay_stream *st;

	if (i < 0)
		return -1;
	st = &t->streams[i];
	ix->offset = st->bytes;
	ix->metadata_len = t->metadata_len;
	if (pwrite(st->data_fd, data, len, (off_t)st->bytes) != (ssize_t)len ||
	    pwrite(st->index_fd, ix, sizeof(*ix), (off_t)(st->packets * sizeof(*ix))) !=
	    (ssize_t)sizeof(*ix)) {
		if (!errno)
			errno = ENOSPC;
		return -1;
	}
	if (!st->packets)
		st->first_ts = ix->timestamp_begin;
	st->bytes += len;
	st->packets++;
	st->last_ts = ix->timestamp_end;
	t->listed = t->metadata_len > 0;
	return i;
}

int hvt_relay_trace_read_index(const struct hvt_relay_trace *t, uint32_t stream, uint64_t k,
			       struct hvt_relay_index *ix)
{
	if (stream >= t->nr_streams || k >= t->streams[stream].packets) {
		errno = EINVAL;
		return -1;
	}
	return hvt_pread_all(t->streams[stream].index_fd, ix, sizeof(*ix),
			     (off_t)(k * sizeof(*ix)));
}

int hvt_relay_trace_read(const struct hvt_relay_trace *t, uint32_t stream, uint64_t off,
			 void *buf, size_t len)
{
	if (stream >= t->nr_streams || off > t->streams[stream].bytes ||
	    len > t->streams[stream].bytes - off) {
		errno = EINVAL;
		return -1;
	}
	return hvt_pread_all(t->streams[stream].data_fd, buf, len, (off_t)off);
}

int hvt_relay_trace_read_metadata(const struct hvt_relay_trace *t, uint64_t off, void *buf,
				  size_t len)
{
	if (off > t->metadata_len || len > t->metadata_len - off) {
		errno = EINVAL;
		return -1;
	}
	return hvt_pread_all(t->metadata_fd, buf, len, (off_t)off);
}
