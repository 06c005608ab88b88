/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * packet.h - checking a CTF packet's header and context before use.
 */
#ifndef HVT_LIB_PACKET_H
#define HVT_LIB_PACKET_H

#include <stddef.h>
#include <stdint.h>
#include <hvtrace/ctf.h>

#include "lib/event_registry.h"

/*
 * Decodes and checks the packet at @buf (@len bytes available): magic, stream
 * class, UUID (unless @uuid is NULL), sizes consistent with each other and
 * with @len, timestamps ordered. NULL if usable, else why not.
 */
const char *hvt_packet_check(const void *buf, size_t len, const __u8 *uuid,
			     struct hvt_ctf_packet *out);

enum {
	HVT_PACKET_EVENTS_OK,
	HVT_PACKET_EVENTS_UNREGISTERED,	/* an id the registry may still get */
	HVT_PACKET_EVENTS_BAD,
};

/* Where a walk over a packet's events stopped, and why. */
struct hvt_packet_walk {
	uint32_t events;		/* whole events before it */
	uint32_t offset;		/* byte of the event it stopped at */
	uint32_t id;			/* that event's id */
	char why[96];			/* HVT_PACKET_EVENTS_BAD: the reason, placed */
};

/*
 * Walks the events of the packet at @buf, whose header @pkt passed
 * hvt_packet_check(), against @reg: every event header, context and
 * payload within content_size, every id below HVT_REG_MAX_EVENTS, every
 * timestamp within 2^32 ticks of the packet's span (the readers' rule for a
 * damaged time). Stops at the first event whose id @reg does not have:
 * HVT_PACKET_EVENTS_UNREGISTERED, @w->id that id; the packet may be checked
 * again once the registry grows.
 */
int hvt_packet_events_check(const void *buf, const struct hvt_ctf_packet *pkt,
			    const struct hvt_registry *reg, struct hvt_packet_walk *w);

#endif
