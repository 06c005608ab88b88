/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * relay_server.h - the relay's viewers: a listening TCP socket and up to
 * HVT_RELAY_MAX_VIEWERS connections, each speaking the live protocol
 * (relay_proto.h) over the published trace (relay_trace.h).
 *
 * Nothing a viewer does can hold the relay up: every socket is
 * non-blocking, a viewer's next command is read only once its last reply
 * is sent (so a viewer that stops reading holds one reply, at most
 * HVT_LIVE_MAX_PACKET_READ bytes, and its own connection), and a protocol
 * error closes its connection, said with the viewer's address. When all
 * HVT_RELAY_MAX_VIEWERS places are taken, a newcomer gets the place of the
 * viewer that made no progress (no command, no byte of a reply taken) the
 * longest, if that was idle_ns or more: idle connections cannot keep the
 * others out. The recording itself is another process: the relay only
 * reads it.
 */
#ifndef HVT_TOOLS_RELAY_RELAY_SERVER_H
#define HVT_TOOLS_RELAY_RELAY_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "tools/relay/relay_proto.h"

#define HVT_RELAY_MAX_VIEWERS	16
#define HVT_RELAY_STR(x)	#x
#define HVT_RELAY_XSTR(x)	HVT_RELAY_STR(x)	/* a constant's digits, for --help */
#define HVT_RELAY_IDLE_S	10	/* idle_ns by default */

struct hvt_relay_conn {
	int fd;				/* -1: free */
	char peer[80];
	unsigned char in[64];		/* a command is 36 bytes at most */
	size_t in_len;
	struct hvt_relay_out out;
	size_t out_off;			/* sent of out */
	int64_t active_ns;		/* CLOCK_MONOTONIC of its last progress */
	struct hvt_relay_viewer v;
};

struct hvt_relay_server {
	int listen_fd;
	struct hvt_relay_trace *t;
	struct hvt_relay_conn conns[HVT_RELAY_MAX_VIEWERS];
	uint64_t next_id;		/* viewer session ids */
	bool from_start;		/* every viewer reads from the first packets */
	int64_t idle_ns;		/* a viewer idle this long yields its place */
	uint64_t accepted, refused, dropped;	/* connections: served, over the limit,
						 * closed on a protocol error */
	uint64_t evicted;		/* closed idle, for a newcomer */
};

/* Serves @t to the viewers that connect to @listen_fd (non-blocking, owned); idle_ns HVT_RELAY_IDLE_S. */
void hvt_relay_server_init(struct hvt_relay_server *s, int listen_fd, struct hvt_relay_trace *t);
/* Serves for @ns (0: what is ready now), returning early if a signal comes. */
void hvt_relay_server_run(struct hvt_relay_server *s, int64_t ns);
/* Whether a viewer is connected (after the end: it may still read or detach). */
bool hvt_relay_server_connected(const struct hvt_relay_server *s);
/* Whether a viewer is attached and has not read everything yet (t->done). */
bool hvt_relay_server_reading(const struct hvt_relay_server *s);
void hvt_relay_server_close(struct hvt_relay_server *s);

#endif
