/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * relay_trace.h - what `hvtrace relay` serves: the CTF trace that
 * `merge --format=ctf` would write, written packet by packet as the
 * follower hands the events on, in a directory of its own.
 *
 * Each stream is a file of CTF packets and an index (one entry per
 * packet, index/NAME.idx), both appended to only; a stream exists once it
 * has a packet. The metadata is appended whole declarations at a time,
 * the event classes before the first packet that uses them. What is
 * published (packets, bytes, metadata length) only grows, so that a
 * viewer's place in it stays valid; readers pread() the files. Memory is
 * a few words per stream, whatever the length of the recording.
 */
#ifndef HVT_TOOLS_RELAY_RELAY_TRACE_H
#define HVT_TOOLS_RELAY_RELAY_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One packet as the live protocol indexes it. */
struct hvt_relay_index {
	uint64_t offset;		/* bytes, in the stream's file */
	uint64_t packet_size;		/* bits */
	uint64_t content_size;		/* bits */
	uint64_t timestamp_begin;	/* host TSC */
	uint64_t timestamp_end;
	uint64_t events_discarded;	/* cumulative */
	uint64_t metadata_len;		/* the metadata when it was published: what it needs */
};

struct hvt_relay_stream {
	char *name;			/* its file in the directory */
	int data_fd, index_fd;
	uint64_t packets;		/* published */
	uint64_t bytes;			/* ... their size in the file */
	uint64_t first_ts;		/* host TSC of its first packet's beginning */
	uint64_t last_ts;		/* ... of its last packet's end */
};

struct hvt_relay_trace {
	char *dir;
	char *session;			/* the session's name (the archive's directory name) */
	char *hostname;			/* where it was recorded */
	bool listed;			/* it has metadata and a stream: viewers may attach
					 * (babeltrace2 2.0 attached to a session without a
					 * data stream never asks for new ones) */
	bool done;			/* everything is published: streams end once read */
	struct hvt_relay_stream *streams;
	uint32_t nr_streams, cap_streams;
	int metadata_fd;
	uint64_t metadata_len;
	uint64_t beacon;		/* no stream brings an event before this host TSC */
	uint32_t viewers;		/* attached now (the server counts them) */
};

/*
 * Makes @dir (or takes it empty: mkdtemp()'s) for the trace of session @session
 * recorded on @hostname; -1 after an error message.
 */
int hvt_relay_trace_init(struct hvt_relay_trace *t, const char *dir, const char *session,
			 const char *hostname);
/* Removes the directory and what it holds; frees @t. */
void hvt_relay_trace_free(struct hvt_relay_trace *t);
/* Appends @len bytes of metadata (whole declarations). 0, or -1 with errno. */
int hvt_relay_trace_metadata(struct hvt_relay_trace *t, const char *text, size_t len);
/*
 * Publishes a packet of the stream of file @name (made on its first
 * packet): @data, @len bytes, indexed by @ix (its offset and metadata_len
 * are set here).
 * The stream's number, or -1 with errno.
 */
int hvt_relay_trace_packet(struct hvt_relay_trace *t, const char *name, const void *data,
			   size_t len, struct hvt_relay_index *ix);
/* Entry @k of stream @stream's index; -1 with errno (EINVAL: not published). */
int hvt_relay_trace_read_index(const struct hvt_relay_trace *t, uint32_t stream, uint64_t k,
			       struct hvt_relay_index *ix);
/* @len published bytes of stream @stream from @off; -1 with errno (EINVAL: beyond). */
int hvt_relay_trace_read(const struct hvt_relay_trace *t, uint32_t stream, uint64_t off,
			 void *buf, size_t len);
/* @len published bytes of the metadata from @off; -1 with errno. */
int hvt_relay_trace_read_metadata(const struct hvt_relay_trace *t, uint64_t off, void *buf,
				  size_t len);

#endif
