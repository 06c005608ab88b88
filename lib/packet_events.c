// SPDX-License-Identifier: GPL-2.0-only
/*
 * packet_events.c - a packet's events checked against their trace's
 * registry before the packet is stored (docs/format.md, section 2): what
 * babeltrace2 and hvtrace's readers will decode must decode.
 */
#include <inttypes.h>
#include <stdio.h>

#include "lib/packet.h"

#define TS_MARGIN	(1ull << 32)	/* as the readers' damaged-time rule */

static int bad(struct hvt_packet_walk *w, const char *why)
{
	snprintf(w->why, sizeof(w->why), "event %u at byte %" PRIu32 " (id %" PRIu32 "): %s",
		 w->events, w->offset, w->id, why);
	return HVT_PACKET_EVENTS_BAD;
}

static int time_outside(const struct hvt_ctf_packet *pkt, uint64_t ts)
{
	uint64_t lo = pkt->timestamp_begin > TS_MARGIN ? pkt->timestamp_begin - TS_MARGIN : 0;
	uint64_t hi = pkt->timestamp_end < UINT64_MAX - TS_MARGIN ?
		      pkt->timestamp_end + TS_MARGIN : UINT64_MAX;

	return ts < lo || ts > hi;
}

int hvt_packet_events_check(const void *buf, const struct hvt_ctf_packet *pkt,
			    const struct hvt_registry *reg, struct hvt_packet_walk *w)
{
	const unsigned char *p = buf;
	uint32_t end = (uint32_t)(pkt->content_size / 8), hdr;
	uint64_t ts, prev = pkt->timestamp_begin;

	w->events = 0;
	w->why[0] = '\0';
	for (w->offset = HVT_CTF_PACKET_HEADER_SIZE; w->offset < end; w->events++) {
		const unsigned char *e = p + w->offset;
		uint32_t avail = end - w->offset;
		const struct hvt_event_type *type;
		long len;

		if ((e[0] & 31) == HVT_CTF_EXTENDED_ID) {
			w->id = HVT_CTF_EXTENDED_ID;
			if (avail < HVT_CTF_EXTENDED_HEADER_SIZE)
				return bad(w, "truncated event header");
			w->id = hvt_get_u32(e + 1);
			ts = hvt_get_u64(e + 5);
			hdr = HVT_CTF_EXTENDED_HEADER_SIZE;
		} else {
			w->id = e[0] & 31;
			if (avail < HVT_CTF_COMPACT_HEADER_SIZE)
				return bad(w, "truncated event header");
			ts = hvt_ctf_expand_ts(prev, hvt_get_u32(e) >> HVT_CTF_COMPACT_ID_BITS);
			hdr = HVT_CTF_COMPACT_HEADER_SIZE;
		}
		if (w->id >= HVT_REG_MAX_EVENTS)
			return bad(w, "event id beyond any registry");
		if (time_outside(pkt, ts))
			return bad(w, "timestamp far outside its packet's");
		if (avail < hdr + HVT_CTF_EVENT_CONTEXT_SIZE)
			return bad(w, "event context runs past content_size");
		type = hvt_registry_get(reg, w->id);
		if (!type)
			return HVT_PACKET_EVENTS_UNREGISTERED;
		len = hvt_event_payload_size(type, e + hdr + HVT_CTF_EVENT_CONTEXT_SIZE,
					     avail - hdr - HVT_CTF_EVENT_CONTEXT_SIZE);
		if (len < 0)
			return bad(w, "payload runs past content_size");
		prev = ts;
		w->offset += hdr + HVT_CTF_EVENT_CONTEXT_SIZE + (uint32_t)len;
	}
	return HVT_PACKET_EVENTS_OK;
}
