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

static int bad(struct hvt_packet_walk *w, uint32_t events, uint32_t offset, uint32_t id,
	       const char *why)
{
	w->events = events;
	w->offset = offset;
	w->id = id;
	snprintf(w->why, sizeof(w->why), "event %u at byte %" PRIu32 " (id %" PRIu32 "): %s",
		 events, offset, id, why);
	return HVT_PACKET_EVENTS_BAD;
}

int hvt_packet_events_check(const void *buf, const struct hvt_ctf_packet *pkt,
			    const struct hvt_registry *reg, struct hvt_packet_walk *w)
{
	const unsigned char *p = buf;
	const uint32_t end = (uint32_t)(pkt->content_size / 8);
	/* timestamps within TS_MARGIN of the packet's span, saturated */
	const uint64_t lo = pkt->timestamp_begin > TS_MARGIN ? pkt->timestamp_begin - TS_MARGIN : 0;
	const uint64_t hi = pkt->timestamp_end < UINT64_MAX - TS_MARGIN ?
			    pkt->timestamp_end + TS_MARGIN : UINT64_MAX;
	const struct hvt_event_type *type = NULL;
	long fixed = -1;		/* type's payload size, if fixed */
	uint64_t ts, prev = pkt->timestamp_begin;
	uint32_t off = HVT_CTF_PACKET_HEADER_SIZE, hdr, id, type_id = UINT32_MAX, n = 0;
	long len;

	w->why[0] = '\0';
	for (; off < end; n++) {
		const unsigned char *e = p + off;
		uint32_t avail = end - off;

		if ((e[0] & 31) != HVT_CTF_EXTENDED_ID) {	/* the common, compact form */
			id = e[0] & 31;
			if (avail < HVT_CTF_COMPACT_HEADER_SIZE)
				goto truncated;
			ts = hvt_ctf_expand_ts(prev, hvt_get_u32(e) >> HVT_CTF_COMPACT_ID_BITS);
			hdr = HVT_CTF_COMPACT_HEADER_SIZE;
		} else {
			id = HVT_CTF_EXTENDED_ID;
			if (avail < HVT_CTF_EXTENDED_HEADER_SIZE)
				goto truncated;
			id = hvt_get_u32(e + 1);
			ts = hvt_get_u64(e + 5);
			hdr = HVT_CTF_EXTENDED_HEADER_SIZE;
		}
		if (id != type_id) {	/* packets hold runs of a few ids: look up on change */
			if (id >= HVT_REG_MAX_EVENTS)
				return bad(w, n, off, id, "event id beyond any registry");
			type = hvt_registry_get(reg, id);
			fixed = type ? type->fixed_size : -1;
			type_id = id;
		}
		if (ts < lo || ts > hi)
			return bad(w, n, off, id, "timestamp far outside its packet's");
		if (avail < hdr + HVT_CTF_EVENT_CONTEXT_SIZE)
			return bad(w, n, off, id, "event context runs past content_size");
		if (!type) {
			w->events = n;
			w->offset = off;
			w->id = id;
			return HVT_PACKET_EVENTS_UNREGISTERED;
		}
		avail -= hdr + HVT_CTF_EVENT_CONTEXT_SIZE;
		if (fixed >= 0)
			len = fixed <= (long)avail ? fixed : -1;
		else
			len = hvt_event_payload_walk(type, e + hdr + HVT_CTF_EVENT_CONTEXT_SIZE,
						     avail);
		if (len < 0)
			return bad(w, n, off, id, "payload runs past content_size");
		prev = ts;
		off += hdr + HVT_CTF_EVENT_CONTEXT_SIZE + (uint32_t)len;
	}
	w->events = n;
	w->offset = off;
	return HVT_PACKET_EVENTS_OK;
truncated:
	return bad(w, n, off, id, "truncated event header");
}
