/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * agent_link.h - the agent's one link to the host, as every part of the
 * agent uses it: opening it, frames out (wire.h), the log that the host
 * also gets, the recording's trace and stream ids, the totals FINISH
 * reports. What the host's frames mean is agent.c's.
 */
#ifndef HVT_TOOLS_AGENT_AGENT_LINK_H
#define HVT_TOOLS_AGENT_AGENT_LINK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>
#include <hvtrace/wire.h>

#include "lib/wire_io.h"

struct agent_link {
	int port;			/* the link's descriptor, -1 until it is open */
	bool host_gone;			/* lost or closed: nothing more is sent */
	uint32_t next_trace_id;		/* 0 is the kernel's; ids are never reused */
	uint32_t next_stream_id;
	uint64_t packets_sent, lost;
	char why[HVT_WIRE_WHY_MAX];	/* scratch: why a payload is refused */
	/*
	 * Called after each batch of packets sent, never from within itself:
	 * the agent answers the host's clock exchanges there, so that a reply
	 * waits behind one batch, not behind a whole drain (agent.c).
	 */
	void (*between_packets)(void *ctx);
	void *between_ctx;
	bool in_between;
};

/*
 * Opens the link: descriptor @link_fd if it is not -1 (already connected),
 * else the collector's socket @connect_to if given, else the virtio-serial
 * port @port_path (found by its name if NULL), waiting @wait_s seconds for
 * the host (0: no limit). -1 after an error message.
 */
int agent_link_open(struct agent_link *l, int link_fd, const char *connect_to,
		    const char *port_path, int wait_s);

/* A frame to the host; -1 once the link is lost (said once, on the loss). */
int agent_send(struct agent_link *l, uint16_t type, uint32_t id, const void *payload,
	       uint32_t len);
/* Frames laid out by the caller (hvt_wire_writev()), in one system call where it can. */
int agent_sendv(struct agent_link *l, struct iovec *iov, int n_iov);
/* A warning here, and a LOG frame to the host while the link is up. */
void agent_log(struct agent_link *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The next trace or stream id; -1 once the protocol's limit (wire.h) is reached. */
int agent_new_trace_id(struct agent_link *l, uint32_t *id);
int agent_new_stream_id(struct agent_link *l, uint32_t *id);

#endif
