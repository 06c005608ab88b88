/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * relay_proto.h - the viewer side of LTTng's live protocol, as lttng-relayd
 * speaks it (lttng-tools, src/bin/lttng-relayd/lttng-viewer-abi.hpp), version
 * 2.4: what babeltrace2's source.ctf.lttng-live and Trace Compass ask.
 *
 * A command is a 16-byte header (payload size u64, command u32, version
 * u32) and its payload; a reply is the command's reply structure; every
 * integer is big-endian. One viewer (one connection) at a time through
 * hvt_relay_command(): it consumes one command from what was received and
 * appends its reply, reading the published trace (relay_trace.h), never
 * changing it. The relay serves one session, id 1: the recording; its
 * trace is one CTF trace (id 1) whose metadata stream has id 1 and whose
 * data streams have ids 2, 3, ... in the order they were published.
 *
 * Attaching with "seek last" starts each stream at its next packet (from
 * now), "seek beginning" at its first; streams published later start at
 * their first packet, the metadata always at its start. A stream with no
 * packet to give answers an inactivity beacon (no event before the
 * trace's beacon, which holds for every stream, also those not published
 * yet) when that has moved, else "retry"; once everything is published
 * and read, "hung up".
 *
 * Anything else than the protocol (an unknown command, a payload of the
 * wrong size, a command before CONNECT, a major version other than 2) is a
 * protocol error: the caller closes the connection. Wrong ids in a
 * well-formed command get the command's error status, as from relayd.
 */
#ifndef HVT_TOOLS_RELAY_RELAY_PROTO_H
#define HVT_TOOLS_RELAY_RELAY_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/relay/relay_trace.h"

#define HVT_LIVE_MAJOR			2u
#define HVT_LIVE_MINOR			4u
#define HVT_LIVE_HEADER_SIZE		16u
#define HVT_LIVE_SESSION_ID		1u
#define HVT_LIVE_TRACE_ID		1u
#define HVT_LIVE_METADATA_STREAM	1u
#define HVT_LIVE_FIRST_DATA_STREAM	2u
#define HVT_LIVE_MAX_PACKET_READ	(2u << 20)	/* GET_PACKET's largest reply */
#define HVT_LIVE_MAX_METADATA_READ	(1u << 20)	/* ... GET_METADATA's */
#define HVT_LIVE_TIMER_US		200000u		/* the follower's period, said */

/* What a viewer was told of one data stream, and where it reads. */
struct hvt_relay_view_stream {
	uint64_t next;			/* the next packet to index */
	uint64_t beacon;		/* the last inactivity beacon sent (host TSC) */
	uint64_t metadata_needed;	/* ... of the packet indexed last */
	bool hung_up;			/* told it ends */
};

struct hvt_relay_viewer {
	uint64_t id;			/* its viewer session id */
	bool from_start;		/* "seek last" served as "seek beginning" too */
	bool connected;			/* CONNECT came */
	bool attached;
	uint32_t minor;			/* agreed */
	uint32_t known;			/* data streams told of (attach, new streams) */
	struct hvt_relay_view_stream *streams;	/* [known] */
	uint32_t cap_streams;
	uint64_t metadata_sent;
	uint64_t commands, packets_sent;
	char why[160];			/* the protocol error */
};

/* A reply being built. */
struct hvt_relay_out {
	unsigned char *buf;
	size_t len, cap;
};

void hvt_relay_viewer_init(struct hvt_relay_viewer *v, uint64_t id);
void hvt_relay_viewer_free(struct hvt_relay_viewer *v);
/* Whether @v was told that every stream of @t ends, and read all of them. */
bool hvt_relay_viewer_finished(const struct hvt_relay_viewer *v, const struct hvt_relay_trace *t);

/*
 * One command from @in (@avail bytes received): 1 when one was taken
 * (*@used bytes) and its reply appended to @out; 0 when more bytes are
 * needed; -1 on a protocol error (v->why says it) or out of memory.
 */
int hvt_relay_command(struct hvt_relay_viewer *v, const struct hvt_relay_trace *t,
		      const unsigned char *in, size_t avail, size_t *used,
		      struct hvt_relay_out *out);

void hvt_relay_out_free(struct hvt_relay_out *o);

#endif
