/* SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR MIT */
/*
 * ringbuf.h - hvtrace's "lite" ring buffer: one producer, one consumer,
 * sub-buffers that are CTF packets as written (docs/format.md, "Ring
 * buffers").
 *
 * libhvtrace writes it (one buffer per thread, in a memfd shared with the
 * agent); the guest kernel module has its own nesting-safe buffers
 * (lockless_rb.h), which reuse this file's packet helpers. Its state is split
 * in two so that each side writes only its own memory:
 *
 *   struct hvt_rb_prod	written by the producer, read by the consumer
 *   struct hvt_rb_cons	written by the consumer, read by the producer
 *
 * followed by nr_subbufs sub-buffers of subbuf_size bytes. Sub-buffer i holds
 * packet number i, i + nr_subbufs, ... A packet is "closed" once the producer
 * advanced prod->produced past it; the consumer copies closed packets and then
 * advances cons->consumed, which lets the producer reuse the slot. When every
 * slot is full the producer discards new events and counts them in prod->lost
 * (discard mode); prod->lost is stored into each packet's events_discarded
 * when the packet closes, so a reader knows exactly how many were lost.
 *
 * A closed packet is complete as it stands: its context says where it ends
 * (content_size = packet_size = the bytes written), so a consumer copies
 * content_size / 8 bytes and stores them unchanged.
 *
 * The open packet's committed length is prod->write_pos: after the producer
 * died, a consumer can still recover every committed event, completed the
 * way closing would have (hvt_rb_recover_open_packet()).
 */
#ifndef HVTRACE_RINGBUF_H
#define HVTRACE_RINGBUF_H

#include <hvtrace/compat.h>
#include <hvtrace/ctf.h>

#define HVT_RB_MAGIC		0x48565242u	/* "BRVH" in memory: HVRB */
#define HVT_RB_VERSION		1u
#define HVT_RB_MIN_SUBBUF	4096u
#define HVT_RB_MAX_SUBBUF	HVT_CTF_MAX_PACKET
#define HVT_RB_MAX_SUBBUFS	1024u

struct hvt_rb_prod {
	__u32 magic;
	__u32 version;
	__u32 subbuf_size;	/* bytes, power of two */
	__u32 nr_subbufs;	/* power of two */
	__u64 produced;		/* packets closed since creation */
	__u64 write_pos;	/* bytes committed in the open packet; 0: none */
	__u64 last_ts;		/* timestamp of the last committed event */
	__u64 lost;		/* events discarded since creation */
	__u64 reserved[2];
};

struct hvt_rb_cons {
	__u64 consumed;		/* packets the consumer released */
	__u64 reserved[7];
};

/* The producer's handle; private to the producer. */
struct hvt_rb {
	struct hvt_rb_prod *prod;
	const struct hvt_rb_cons *cons;
	unsigned char *data;		/* nr_subbufs * subbuf_size bytes */
	__u32 subbuf_size;
	__u32 nr_subbufs;
	__u32 cpu_id;			/* packet context cpu_id */
	__u64 stream_instance_id;
	__u8 uuid[HVT_UUID_LEN];
	/*
	 * Called by hvt_rb_reserve() right after it closed a full packet, once
	 * per packet, never per event: libhvtrace wakes the consumer there. NULL
	 * for none; hvt_rb_init() clears it.
	 */
	void (*packet_closed)(struct hvt_rb *rb);
};

static inline int hvt_rb_geometry_ok(__u32 subbuf_size, __u32 nr_subbufs)
{
	return subbuf_size >= HVT_RB_MIN_SUBBUF &&
	       subbuf_size <= HVT_RB_MAX_SUBBUF &&
	       !(subbuf_size & (subbuf_size - 1)) &&
	       nr_subbufs >= 2 && nr_subbufs <= HVT_RB_MAX_SUBBUFS &&
	       !(nr_subbufs & (nr_subbufs - 1));
}

static inline unsigned char *hvt_rb_slot(unsigned char *data, __u32 subbuf_size,
					 __u32 nr_subbufs, __u64 packet)
{
	return data + (unsigned long)(packet & (nr_subbufs - 1)) * subbuf_size;
}

/* Initialises the shared state; the caller has zeroed @prod and @cons. */
static inline void hvt_rb_init(struct hvt_rb *rb, struct hvt_rb_prod *prod,
			       const struct hvt_rb_cons *cons, unsigned char *data,
			       __u32 subbuf_size, __u32 nr_subbufs)
{
	rb->prod = prod;
	rb->cons = cons;
	rb->data = data;
	rb->subbuf_size = subbuf_size;
	rb->nr_subbufs = nr_subbufs;
	rb->packet_closed = (void (*)(struct hvt_rb *))0;
	prod->subbuf_size = subbuf_size;
	prod->nr_subbufs = nr_subbufs;
	prod->version = HVT_RB_VERSION;
	hvt_store_release(&prod->magic, HVT_RB_MAGIC);
}

/* Starts a packet at time @ts; returns 0 when every slot is still unread. */
static inline int hvt_rb_open_packet(struct hvt_rb *rb, __u64 ts)
{
	struct hvt_rb_prod *prod = rb->prod;
	__u64 produced = prod->produced;
	struct hvt_ctf_packet pkt;

	if (produced - hvt_load_acquire(&rb->cons->consumed) >= rb->nr_subbufs)
		return 0;
	pkt.magic = HVT_CTF_MAGIC;
	memcpy(pkt.uuid, rb->uuid, HVT_UUID_LEN);
	pkt.stream_id = HVT_CTF_STREAM_EVENTS;
	pkt.stream_instance_id = rb->stream_instance_id;
	pkt.timestamp_begin = ts;
	pkt.timestamp_end = ts;
	pkt.content_size = 0;		/* both set when the packet closes */
	pkt.packet_size = 0;
	pkt.packet_seq_num = produced;
	pkt.events_discarded = prod->lost;
	pkt.cpu_id = rb->cpu_id;
	memcpy(hvt_rb_slot(rb->data, rb->subbuf_size, rb->nr_subbufs, produced),
	       &pkt, sizeof(pkt));
	prod->last_ts = ts;
	hvt_store_release(&prod->write_pos, (__u64)HVT_CTF_PACKET_HEADER_SIZE);
	return 1;
}

/*
 * Writes the packet context known only at the end: the packet at @p ends
 * after @len bytes (content_size = packet_size), its last event is stamped
 * @last_ts, @lost events were discarded so far. Closing a packet and
 * recovering a dead producer's open packet both end a packet this way.
 */
static inline void hvt_rb_end_packet(unsigned char *p, __u64 len, __u64 last_ts, __u64 lost)
{
	hvt_put_u64(p + __builtin_offsetof(struct hvt_ctf_packet, timestamp_end), last_ts);
	hvt_put_u64(p + __builtin_offsetof(struct hvt_ctf_packet, content_size), len * 8);
	hvt_put_u64(p + __builtin_offsetof(struct hvt_ctf_packet, packet_size), len * 8);
	hvt_put_u64(p + __builtin_offsetof(struct hvt_ctf_packet, events_discarded), lost);
}

/* Closes the open packet, if any, and hands it to the consumer. */
static inline void hvt_rb_close_packet(struct hvt_rb *rb)
{
	struct hvt_rb_prod *prod = rb->prod;
	__u64 pos = prod->write_pos;
	__u64 produced = prod->produced;

	if (!pos)
		return;
	hvt_rb_end_packet(hvt_rb_slot(rb->data, rb->subbuf_size, rb->nr_subbufs, produced),
			  pos, prod->last_ts, prod->lost);
	hvt_store_release(&prod->produced, produced + 1);
	hvt_write_once(prod->write_pos, 0);
}

/* Writes an event header in the form already chosen (hvt_ctf_put_event_header()). */
static inline __u32 hvt_rb_put_event_header(unsigned char *p, __u32 id, __u64 ts, int compact)
{
	if (compact) {
		hvt_put_u32(p, id | (__u32)((ts & ((1ull << HVT_CTF_COMPACT_TS_BITS) - 1))
					    << HVT_CTF_COMPACT_ID_BITS));
		return HVT_CTF_COMPACT_HEADER_SIZE;
	}
	p[0] = HVT_CTF_EXTENDED_ID;
	hvt_put_u32(p + 1, id);
	hvt_put_u64(p + 5, ts);
	return HVT_CTF_EXTENDED_HEADER_SIZE;
}

/*
 * Reserves an event of @len payload bytes stamped @ts and writes its header
 * and context. Returns where the payload goes, with the position to commit in
 * *@end; or NULL when the event was discarded (and counted in prod->lost).
 * Must not be re-entered for the same buffer (the kernel writes with
 * interrupts off; user space guards against signal handlers).
 *
 * The write path of every event: the header form is decided once and the
 * sub-buffer's address computed once.
 */
static inline unsigned char *hvt_rb_reserve(struct hvt_rb *rb, __u32 id, __u64 ts,
					    __u32 cpu, __s32 tid, __u32 len,
					    __u64 *end)
{
	struct hvt_rb_prod *prod = rb->prod;
	__u64 pos = prod->write_pos;
	__u32 fixed = HVT_CTF_EVENT_CONTEXT_SIZE + len;
	struct hvt_ctf_event_context ctx = { cpu, tid };
	unsigned char *slot, *p;
	int compact;

	if (hvt_unlikely(len > rb->subbuf_size - HVT_CTF_PACKET_HEADER_SIZE -
			       HVT_CTF_EXTENDED_HEADER_SIZE - HVT_CTF_EVENT_CONTEXT_SIZE))
		goto lost;
	compact = hvt_ctf_can_compact(id, prod->last_ts, ts);
	if (hvt_likely(pos) &&
	    hvt_unlikely(pos + (compact ? HVT_CTF_COMPACT_HEADER_SIZE :
				HVT_CTF_EXTENDED_HEADER_SIZE) + fixed > rb->subbuf_size)) {
		hvt_rb_close_packet(rb);
		if (rb->packet_closed)
			rb->packet_closed(rb);
		pos = 0;
	}
	if (hvt_unlikely(!pos)) {
		if (!hvt_rb_open_packet(rb, ts))
			goto lost;
		pos = HVT_CTF_PACKET_HEADER_SIZE;
		compact = id < HVT_CTF_EXTENDED_ID;	/* the packet begins at @ts */
	}
	slot = hvt_rb_slot(rb->data, rb->subbuf_size, rb->nr_subbufs, prod->produced);
	p = slot + pos;
	p += hvt_rb_put_event_header(p, id, ts, compact);
	memcpy(p, &ctx, sizeof(ctx));
	p += sizeof(ctx);
	*end = (__u64)(p - slot) + len;
	return p;
lost:
	hvt_write_once(prod->lost, prod->lost + 1);
	return (unsigned char *)0;
}

/* Publishes the event reserved by hvt_rb_reserve(). */
static inline void hvt_rb_commit(struct hvt_rb *rb, __u64 ts, __u64 end)
{
	rb->prod->last_ts = ts;
	hvt_store_release(&rb->prod->write_pos, end);
}

/*
 * Consumer side. These read shared state that may come from an untrusted
 * producer (a traced application): they validate before they index.
 */

/* Closed packets ready after @consumed, or -1 if the producer state is corrupt. */
static inline long long hvt_rb_ready(const struct hvt_rb_prod *prod, __u64 consumed,
				     __u32 nr_subbufs)
{
	__u64 produced = hvt_load_acquire(&prod->produced);

	if (produced < consumed || produced - consumed > nr_subbufs)
		return -1;
	return (long long)(produced - consumed);
}

/*
 * Committed length of the open packet (0 if none), for recovering the last
 * events of a producer that exited or crashed; -1 if the state is corrupt.
 */
static inline long long hvt_rb_open_packet_len(const struct hvt_rb_prod *prod,
					       __u32 subbuf_size)
{
	__u64 pos = hvt_load_acquire(&prod->write_pos);

	if (pos && (pos < HVT_CTF_PACKET_HEADER_SIZE || pos > subbuf_size))
		return -1;
	return (long long)pos;
}

/*
 * After the producer died: copies the committed bytes of its open packet,
 * number @packet (the producer's prod->produced), from the sub-buffers at
 * @data into @dst (room for @subbuf_size bytes) and ends the copy as
 * hvt_rb_close_packet() would have. @subbuf_size and @nr_subbufs are the
 * consumer's own, checked values. Returns the copy's length, 0 if no packet
 * was open, -1 if the producer state is corrupt. The copy is not validated:
 * check it like any packet before use.
 */
static inline long long hvt_rb_recover_open_packet(const struct hvt_rb_prod *prod,
						   const unsigned char *data,
						   __u32 subbuf_size, __u32 nr_subbufs,
						   __u64 packet, unsigned char *dst)
{
	long long len = hvt_rb_open_packet_len(prod, subbuf_size);

	if (len <= 0)
		return len;
	memcpy(dst, data + (unsigned long)(packet & (nr_subbufs - 1)) * subbuf_size,
	       (unsigned long)len);
	hvt_rb_end_packet(dst, (__u64)len, hvt_read_once(prod->last_ts),
			  hvt_read_once(prod->lost));
	return len;
}

#endif /* HVTRACE_RINGBUF_H */
