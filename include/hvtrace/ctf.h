/* SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR MIT */
/*
 * ctf.h - binary layout of hvtrace's CTF 1.8 packets (docs/format.md, "CTF
 * streams").
 *
 * A stream is a sequence of packets; a packet is a ring buffer sub-buffer as
 * the producer wrote it: packet header, packet context, then events. Every
 * integer is little-endian and byte-aligned (TSDL "align = 8" bits), so the
 * layout has no padding. lib/tsdl.c writes the TSDL text that describes this
 * layout to babeltrace2: its numbers are the constants below, and static
 * assertions there tie the field lists it spells out to these sizes.
 */
#ifndef HVTRACE_CTF_H
#define HVTRACE_CTF_H

#include <hvtrace/compat.h>

#define HVT_CTF_MAGIC			0xC1FC1FC1u
#define HVT_UUID_LEN			16

/* Packet header (trace scope) followed by packet context (stream scope). */
struct hvt_ctf_packet {
	/* packet.header */
	__u32 magic;
	__u8  uuid[HVT_UUID_LEN];
	__u32 stream_id;		/* stream class: HVT_CTF_STREAM_EVENTS */
	__u64 stream_instance_id;	/* CPU (kernel) or thread id (user) */
	/* packet.context */
	__u64 timestamp_begin;		/* clock value of the first event */
	__u64 timestamp_end;		/* clock value of the last event */
	__u64 content_size;		/* bits used, headers included */
	__u64 packet_size;		/* bits this packet occupies in the file */
	__u64 packet_seq_num;		/* per stream, from 0; gaps = lost packets */
	__u64 events_discarded;		/* per stream, cumulative at packet close */
	__u32 cpu_id;			/* CPU of a per-CPU stream, else ~0 */
} __attribute__((packed));

#define HVT_CTF_PACKET_HEADER_SIZE	((__u32)sizeof(struct hvt_ctf_packet))
#define HVT_CTF_MAX_PACKET		(1u << 20)	/* = the largest sub-buffer */
#define HVT_CTF_STREAM_EVENTS		0u
#define HVT_CTF_NO_CPU			0xFFFFFFFFu

/*
 * Event header, LTTng's "compact" form: a 5-bit id and the low 27 bits of the
 * timestamp in one 32-bit word. id 31 selects the extended form: one byte
 * holding 31, a 32-bit id and the full 64-bit timestamp (13 bytes). A reader
 * rebuilds a compact timestamp from the previous clock value of the stream,
 * so the writer uses the compact form only when the event id is below 31 and
 * the time since the previous event is below 2^27 ticks.
 */
#define HVT_CTF_COMPACT_ID_BITS		5
#define HVT_CTF_COMPACT_TS_BITS		27
#define HVT_CTF_EXTENDED_ID		31u
#define HVT_CTF_COMPACT_HEADER_SIZE	4u
#define HVT_CTF_EXTENDED_HEADER_SIZE	13u

/* Event context common to every stream: where and by whom it was emitted. */
struct hvt_ctf_event_context {
	__u32 cpu_id;
	__s32 tid;
} __attribute__((packed));

#define HVT_CTF_EVENT_CONTEXT_SIZE	((__u32)sizeof(struct hvt_ctf_event_context))

static inline int hvt_ctf_can_compact(__u32 id, __u64 prev_ts, __u64 ts)
{
	return id < HVT_CTF_EXTENDED_ID && ts >= prev_ts &&
	       ts - prev_ts < (1ull << HVT_CTF_COMPACT_TS_BITS);
}

/* Writes the event header at @p; returns its size. */
static inline __u32 hvt_ctf_put_event_header(unsigned char *p, __u32 id,
					     __u64 prev_ts, __u64 ts)
{
	if (hvt_ctf_can_compact(id, prev_ts, ts)) {
		__u32 word = id | (__u32)((ts & ((1ull << HVT_CTF_COMPACT_TS_BITS) - 1))
					  << HVT_CTF_COMPACT_ID_BITS);

		hvt_put_u32(p, word);
		return HVT_CTF_COMPACT_HEADER_SIZE;
	}
	p[0] = HVT_CTF_EXTENDED_ID;
	hvt_put_u32(p + 1, id);
	hvt_put_u64(p + 5, ts);
	return HVT_CTF_EXTENDED_HEADER_SIZE;
}

/*
 * Rebuilds a compact timestamp: the low bits replace those of the previous
 * value, with one wrap if they went backwards (CTF 1.8 section 8).
 */
static inline __u64 hvt_ctf_expand_ts(__u64 prev_ts, __u32 low_bits)
{
	const __u64 mask = (1ull << HVT_CTF_COMPACT_TS_BITS) - 1;
	__u64 ts = (prev_ts & ~mask) | low_bits;

	if (low_bits < (prev_ts & mask))
		ts += mask + 1;
	return ts;
}

#endif /* HVTRACE_CTF_H */
