/* SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR MIT */
/*
 * lockless_rb.h - the guest kernel's per-CPU ring buffer: lock-free
 * reserve/commit with local atomics, safe against nested writers on the same
 * CPU (interrupts, NMIs; signal handlers in the user-space build), in discard
 * or overwrite (flight recorder) mode. Sub-buffers are CTF packets as written
 * (docs/format.md, "Ring buffers"). The same source builds in the kernel and
 * in user space (tests/unit/test_lockless_rb.c, tests/bench/bench_ringbuf.c).
 *
 * Writers run on the buffer's own CPU with preemption off; they only
 * interrupt each other (nest), never run side by side, so the write side
 * needs no lock and no bus-locked instruction: a reservation is one local
 * compare-and-exchange of the write offset, a commit one local add.
 *
 *   offset        bytes reserved since creation; packet n occupies
 *                 [n * S, (n + 1) * S) and lives in slot n % nr. An offset
 *                 on a packet boundary means no packet is open.
 *   commit[slot]  low 40 bits: bytes committed to the slot (mod 2^40);
 *                 high 24 bits: events committed (mod 2^24). Packet n is
 *                 complete (delivered) once the slot's bytes reach
 *                 (n / nr + 1) * S: every reservation in it was committed,
 *                 padding included.
 *   consumed      the next packet the consumer takes. Discard mode: only the
 *                 consumer moves it, and a writer does not open packet n
 *                 while n - consumed >= nr. Overwrite mode: a writer opening
 *                 packet n pushes it past n - nr (cmpxchg), counting that
 *                 packet's events as lost; the consumer copies a packet and
 *                 keeps the copy only if its own cmpxchg of consumed wins.
 *
 * A reservation that does not fit the open packet closes it: it reserves
 * the rest of the slot as padding, writes the packet's end (content_size =
 * packet_size = the bytes used, timestamp_end, events_discarded) and commits
 * the padding; the packet is delivered when its last writer commits. The
 * timestamp is read inside the reservation loop, after the offset, so that
 * timestamps never decrease in buffer order even across nesting.
 *
 * Lost events are counted exactly: an event that finds no free slot
 * (discard), a slot whose previous packet is still being written (a nested
 * writer lapped the ring), or an event larger than a packet adds one; an
 * overwritten packet adds its event count. Each packet carries the count so
 * far in events_discarded, and packet_seq_num (= n) gaps show lost packets.
 *
 * The includer defines hvt_lrb_clock(), the trace clock, before including.
 */
#ifndef HVTRACE_LOCKLESS_RB_H
#define HVTRACE_LOCKLESS_RB_H

#include <hvtrace/compat.h>
#include <hvtrace/ctf.h>
#include <hvtrace/ringbuf.h>

#ifdef __KERNEL__
#include <asm/local.h>
#include <linux/atomic.h>

typedef local_t hvt_local_t;
typedef atomic_long_t hvt_shared_t;
#define hvt_local_read(l)		((unsigned long)local_read(l))
#define hvt_local_cmpxchg(l, o, n)	((unsigned long)local_cmpxchg(l, (long)(o), (long)(n)))
#define hvt_local_add_return(l, v)	((unsigned long)local_add_return((long)(v), l))
#define hvt_shared_read(s)		((unsigned long)atomic_long_read_acquire(s))
#define hvt_shared_set(s, v)		atomic_long_set_release(s, (long)(v))
#define hvt_shared_cmpxchg(s, o, n)	((unsigned long)atomic_long_cmpxchg(s, (long)(o), (long)(n)))
#else
/*
 * One CPU's atomics: a single instruction without the lock prefix is atomic
 * against signal handlers on the same thread, as the kernel's local_t is
 * against interrupts. x86-64 only, like every hvtrace format.
 */
typedef struct { unsigned long v; } hvt_local_t;
typedef unsigned long hvt_shared_t;

static inline unsigned long hvt_local_read(const hvt_local_t *l)
{
	return __atomic_load_n(&l->v, __ATOMIC_RELAXED);
}

static inline unsigned long hvt_local_cmpxchg(hvt_local_t *l, unsigned long old,
					      unsigned long new_val)
{
	__asm__ __volatile__("cmpxchgq %2, %1" : "+a"(old), "+m"(l->v) : "r"(new_val) : "memory");
	return old;
}

static inline unsigned long hvt_local_add_return(hvt_local_t *l, unsigned long v)
{
	unsigned long prev = v;

	__asm__ __volatile__("xaddq %0, %1" : "+r"(prev), "+m"(l->v) : : "memory");
	return prev + v;
}

#define hvt_shared_read(s)	__atomic_load_n(s, __ATOMIC_ACQUIRE)
#define hvt_shared_set(s, v)	__atomic_store_n(s, v, __ATOMIC_RELEASE)

static inline unsigned long hvt_shared_cmpxchg(hvt_shared_t *s, unsigned long old,
					       unsigned long new_val)
{
	__atomic_compare_exchange_n(s, &old, new_val, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	return old;
}
#endif

#define HVT_LRB_BYTES_BITS	40
#define HVT_LRB_BYTES_MASK	((1ul << HVT_LRB_BYTES_BITS) - 1)
#define HVT_LRB_ONE_EVENT	(1ul << HVT_LRB_BYTES_BITS)
#define HVT_LRB_EVENTS_MASK	((1ul << (64 - HVT_LRB_BYTES_BITS)) - 1)

#define HVT_LRB_DISCARD		0u
#define HVT_LRB_OVERWRITE	1u

/* Per slot; written only by the writers of the buffer's CPU. */
struct hvt_lrb_slot {
	hvt_local_t commit;		/* see above */
	unsigned long events_at_open;	/* commit's event count when its packet opened */
};

struct hvt_lrb {
	hvt_local_t offset;
	hvt_local_t lost;		/* events lost since creation */
	hvt_local_t closed;		/* packets closed since creation */
	hvt_shared_t consumed;
	__u64 last_ts;			/* of the latest reservation; a hint, see reserve */
	unsigned char *data;		/* nr_subbufs * subbuf_size bytes */
	struct hvt_lrb_slot *slots;	/* nr_subbufs */
	__u32 subbuf_size;		/* S: power of two */
	__u32 nr_subbufs;		/* nr: power of two */
	__u32 mode;			/* HVT_LRB_DISCARD or HVT_LRB_OVERWRITE */
	__u32 cpu_id;			/* packet context cpu_id */
	__u64 stream_instance_id;
	__u8 uuid[HVT_UUID_LEN];
};

/* One reservation, filled by hvt_lrb_reserve() and read by hvt_lrb_commit(). */
struct hvt_lrb_ctx {
	unsigned long packet;		/* the packet the event is in */
	unsigned long commit_bytes;	/* its bytes there, packet header included */
	__u64 ts;
	int delivered;			/* the reservation's padding completed a packet */
};

/* @data holds nr * S bytes, @slots nr zeroed entries; geometry as hvt_rb_geometry_ok(). */
static inline void hvt_lrb_init(struct hvt_lrb *rb, unsigned char *data,
				struct hvt_lrb_slot *slots, __u32 subbuf_size,
				__u32 nr_subbufs, __u32 mode)
{
	memset(rb, 0, sizeof(*rb));
	rb->data = data;
	rb->slots = slots;
	rb->subbuf_size = subbuf_size;
	rb->nr_subbufs = nr_subbufs;
	rb->mode = mode;
}

/* @x / @pow2 for a power of two known only at run time: a shift, not a DIV. */
static inline unsigned long hvt_lrb_div(unsigned long x, unsigned long pow2)
{
	return x >> __builtin_ctzl(pow2);
}

static inline unsigned char *hvt_lrb_packet_addr(const struct hvt_lrb *rb, unsigned long packet)
{
	return hvt_rb_slot(rb->data, rb->subbuf_size, rb->nr_subbufs, packet);
}

static inline struct hvt_lrb_slot *hvt_lrb_slot_of(const struct hvt_lrb *rb, unsigned long packet)
{
	return &rb->slots[packet & (rb->nr_subbufs - 1)];
}

/* Commit bytes of @packet's slot once @packet is complete (mod 2^40). */
static inline unsigned long hvt_lrb_complete_bytes(const struct hvt_lrb *rb, unsigned long packet)
{
	return ((hvt_lrb_div(packet, rb->nr_subbufs) + 1) * rb->subbuf_size) & HVT_LRB_BYTES_MASK;
}

/* Whether @packet's bytes all arrived; in overwrite mode a later lap counts too. */
static inline int hvt_lrb_packet_complete(const struct hvt_lrb *rb, unsigned long packet,
					  unsigned long commit)
{
	unsigned long ahead = ((commit & HVT_LRB_BYTES_MASK) - hvt_lrb_complete_bytes(rb, packet)) &
			      HVT_LRB_BYTES_MASK;

	return ahead < (1ul << (HVT_LRB_BYTES_BITS - 1));
}

/* Adds committed bytes (and events) to @packet's slot; 1 if that completed it. */
static inline int hvt_lrb_commit_bytes(struct hvt_lrb *rb, unsigned long packet,
				       unsigned long add)
{
	unsigned long commit;

	hvt_smp_wmb();	/* the record before the count a consumer checks */
	commit = hvt_local_add_return(&hvt_lrb_slot_of(rb, packet)->commit, add);
	return (commit & HVT_LRB_BYTES_MASK) == hvt_lrb_complete_bytes(rb, packet);
}

/*
 * Whether a writer may open @packet: the slot's previous packet is complete
 * (no nested writer still in it) and, in discard mode, consumed. In
 * overwrite mode, pushes the consumer past the previous packet and counts
 * its events lost, unless the consumer took it first. *@events_at_open gets
 * the slot's event count, to be stored if the open wins.
 */
static inline int hvt_lrb_may_open(struct hvt_lrb *rb, unsigned long packet,
				   unsigned long *events_at_open)
{
	struct hvt_lrb_slot *slot = hvt_lrb_slot_of(rb, packet);
	unsigned long commit = hvt_local_read(&slot->commit);
	unsigned long prev = packet - rb->nr_subbufs, consumed, overwritten;

	*events_at_open = commit >> HVT_LRB_BYTES_BITS;
	if (packet < rb->nr_subbufs)
		return 1;
	if ((commit & HVT_LRB_BYTES_MASK) != hvt_lrb_complete_bytes(rb, prev))
		return 0;
	consumed = hvt_shared_read(&rb->consumed);
	if (consumed > prev)
		return 1;
	if (rb->mode == HVT_LRB_DISCARD)
		return 0;
	/*
	 * The count is taken before the push: once the push is done, a nested
	 * writer may open this packet and store the slot's new events_at_open.
	 */
	overwritten = (*events_at_open - slot->events_at_open) & HVT_LRB_EVENTS_MASK;
	if (hvt_shared_cmpxchg(&rb->consumed, prev, prev + 1) == prev)
		hvt_local_add_return(&rb->lost, overwritten);
	return 1;
}

/*
 * The packet header and the part of its context known when it opens. Only
 * those fields: a nested writer may already have closed the packet, writing
 * the others (hvt_rb_end_packet()), while this one was interrupted.
 */
static inline void hvt_lrb_open_packet(struct hvt_lrb *rb, unsigned long packet, __u64 ts,
				       unsigned long events_at_open)
{
	unsigned char *p = hvt_lrb_packet_addr(rb, packet);

	hvt_lrb_slot_of(rb, packet)->events_at_open = events_at_open;
	hvt_put_u32(p + __builtin_offsetof(struct hvt_ctf_packet, magic), HVT_CTF_MAGIC);
	memcpy(p + __builtin_offsetof(struct hvt_ctf_packet, uuid), rb->uuid, HVT_UUID_LEN);
	hvt_put_u32(p + __builtin_offsetof(struct hvt_ctf_packet, stream_id),
		    HVT_CTF_STREAM_EVENTS);
	hvt_put_u64(p + __builtin_offsetof(struct hvt_ctf_packet, stream_instance_id),
		    rb->stream_instance_id);
	hvt_put_u64(p + __builtin_offsetof(struct hvt_ctf_packet, timestamp_begin), ts);
	hvt_put_u64(p + __builtin_offsetof(struct hvt_ctf_packet, packet_seq_num), packet);
	hvt_put_u32(p + __builtin_offsetof(struct hvt_ctf_packet, cpu_id), rb->cpu_id);
}

/*
 * Ends @packet after @used bytes at time @ts and commits the @pad bytes after
 * them; 1 if that delivered it.
 */
static inline int hvt_lrb_close_packet(struct hvt_lrb *rb, unsigned long packet, __u32 used,
				       __u32 pad, __u64 ts)
{
	hvt_rb_end_packet(hvt_lrb_packet_addr(rb, packet), used, ts, hvt_local_read(&rb->lost));
	hvt_local_add_return(&rb->closed, 1);
	return hvt_lrb_commit_bytes(rb, packet, pad);
}

static inline void hvt_lrb_count_lost(struct hvt_lrb *rb)
{
	hvt_local_add_return(&rb->lost, 1);
}

static inline __u32 hvt_lrb_event_header_size(int compact)
{
	return compact ? HVT_CTF_COMPACT_HEADER_SIZE : HVT_CTF_EXTENDED_HEADER_SIZE;
}

/*
 * Reserves an event of @len payload bytes: reads the clock, writes the event
 * header and context, and returns where the payload goes (NULL: the event
 * was lost and counted). The caller fills the payload and calls
 * hvt_lrb_commit(@ctx); nested writers may reserve and commit in between.
 */
static inline unsigned char *hvt_lrb_reserve(struct hvt_lrb *rb, struct hvt_lrb_ctx *ctx,
					     __u32 id, __u32 cpu, __s32 tid, __u32 len)
{
	const unsigned long S = rb->subbuf_size;
	const __u32 fixed = HVT_CTF_EVENT_CONTEXT_SIZE + len;
	struct hvt_ctf_event_context ectx = { cpu, tid };
	unsigned long old, begin, end, in_packet, events_at_open = 0;
	unsigned char *p;
	int compact, opens;
	__u64 ts;

	if (hvt_unlikely(fixed + hvt_lrb_event_header_size(id < HVT_CTF_EXTENDED_ID) >
			 S - HVT_CTF_PACKET_HEADER_SIZE))
		goto lost;			/* larger than a packet */
	for (;;) {
		old = hvt_local_read(&rb->offset);
		ts = hvt_lrb_clock();
		in_packet = old & (S - 1);
		compact = hvt_ctf_can_compact(id, hvt_read_once(rb->last_ts), ts);
		begin = old;
		if (in_packet && in_packet + hvt_lrb_event_header_size(compact) + fixed > S)
			begin = old - in_packet + S;	/* it closes the open packet */
		opens = 0;
		if (begin & (S - 1)) {
			end = begin + hvt_lrb_event_header_size(compact) + fixed;
		} else if (hvt_lrb_may_open(rb, hvt_lrb_div(begin, S), &events_at_open)) {
			opens = 1;
			compact = id < HVT_CTF_EXTENDED_ID;	/* the packet begins at ts */
			end = begin + HVT_CTF_PACKET_HEADER_SIZE +
			      hvt_lrb_event_header_size(compact) + fixed;
		} else if (begin == old) {
			goto lost;			/* no packet open, none can open */
		} else {
			end = begin;			/* close the full packet, lose the event */
		}
		if (hvt_local_cmpxchg(&rb->offset, old, end) == old)
			break;
	}
	hvt_write_once(rb->last_ts, ts);
	ctx->delivered = 0;
	if (begin != old)
		ctx->delivered = hvt_lrb_close_packet(rb, hvt_lrb_div(old, S), (__u32)in_packet,
						      (__u32)(S - in_packet), ts);
	if (end == begin) {
		hvt_lrb_count_lost(rb);
		return (unsigned char *)0;
	}
	ctx->packet = hvt_lrb_div(end - 1, S);
	ctx->commit_bytes = end - begin;
	ctx->ts = ts;
	if (opens) {
		hvt_lrb_open_packet(rb, ctx->packet, ts, events_at_open);
		begin += HVT_CTF_PACKET_HEADER_SIZE;
	}
	if (!(end & (S - 1)))	/* the event fills its packet: end it now */
		hvt_lrb_close_packet(rb, ctx->packet, (__u32)S, 0, ts);
	p = hvt_lrb_packet_addr(rb, ctx->packet) + (begin & (S - 1));
	p += hvt_rb_put_event_header(p, id, ts, compact);
	memcpy(p, &ectx, sizeof(ectx));
	return p + sizeof(ectx);
lost:
	ctx->delivered = 0;
	hvt_lrb_count_lost(rb);
	return (unsigned char *)0;
}

/*
 * Publishes the event. Returns 1 if a packet was delivered (by this commit or
 * by the reservation's closing of the previous one), so that the caller can
 * wake a consumer once per packet, not once per event.
 */
static inline int hvt_lrb_commit(struct hvt_lrb *rb, const struct hvt_lrb_ctx *ctx)
{
	return hvt_lrb_commit_bytes(rb, ctx->packet, ctx->commit_bytes + HVT_LRB_ONE_EVENT) |
	       ctx->delivered;
}

/*
 * Closes the open packet, if any, so that a consumer can read it: from any
 * context on the buffer's CPU (nesting like a writer), or from anywhere while
 * no writer can run. Returns 1 if the packet was delivered at once.
 */
static inline int hvt_lrb_flush(struct hvt_lrb *rb)
{
	const unsigned long S = rb->subbuf_size;
	unsigned long old, in_packet;
	__u64 ts;

	do {
		old = hvt_local_read(&rb->offset);
		in_packet = old & (S - 1);
		if (!in_packet)
			return 0;
		ts = hvt_lrb_clock();
	} while (hvt_local_cmpxchg(&rb->offset, old, old - in_packet + S) != old);
	return hvt_lrb_close_packet(rb, hvt_lrb_div(old, S), (__u32)in_packet,
				    (__u32)(S - in_packet), ts);
}

/*
 * Consumer side: any CPU, one consumer at a time (the caller serialises).
 * Packets are taken in order from rb->consumed.
 */

/* Whether the next packet is delivered; its number in *@packet. */
static inline int hvt_lrb_ready(const struct hvt_lrb *rb, unsigned long *packet)
{
	unsigned long c = hvt_shared_read(&rb->consumed);
	unsigned long commit = hvt_local_read(&hvt_lrb_slot_of(rb, c)->commit);

	hvt_smp_rmb();	/* the count before the record it covers */
	*packet = c;
	return hvt_lrb_packet_complete(rb, c, commit);
}

/* A packet's length from its context (content_size), or 0 if it is not sane. */
static inline __u32 hvt_lrb_packet_len(const struct hvt_lrb *rb, const unsigned char *pkt)
{
	__u64 bits = hvt_get_u64(pkt + __builtin_offsetof(struct hvt_ctf_packet, content_size));

	if (bits % 8 || bits / 8 < HVT_CTF_PACKET_HEADER_SIZE || bits / 8 > rb->subbuf_size)
		return 0;
	return (__u32)(bits / 8);
}

/*
 * Copies the next delivered packet's slot (subbuf_size bytes) to @dst and
 * takes it. Returns the packet's length, 0 if none is ready, or -1 if the
 * copy is not a sane packet (taken all the same). *@packet gets its number.
 * In overwrite mode a packet overwritten during the copy is not taken: the
 * writer counted it lost, and the next one is tried.
 */
static inline long hvt_lrb_read_packet(struct hvt_lrb *rb, unsigned char *dst,
				       unsigned long *packet)
{
	__u32 len;

	for (;;) {
		if (!hvt_lrb_ready(rb, packet))
			return 0;
		memcpy(dst, hvt_lrb_packet_addr(rb, *packet), rb->subbuf_size);
		if (rb->mode == HVT_LRB_DISCARD) {
			hvt_shared_set(&rb->consumed, *packet + 1);
			break;
		}
		if (hvt_shared_cmpxchg(&rb->consumed, *packet, *packet + 1) == *packet)
			break;
	}
	len = hvt_lrb_packet_len(rb, dst);
	return len ? (long)len : -1;
}

/*
 * Discard mode without a copy: the next delivered packet stays in its slot,
 * where no writer touches it, until hvt_lrb_release(). Returns its length,
 * 0 if none is ready, -1 if it is not a sane packet.
 */
static inline long hvt_lrb_peek(const struct hvt_lrb *rb, unsigned long *packet)
{
	__u32 len;

	if (!hvt_lrb_ready(rb, packet))
		return 0;
	len = hvt_lrb_packet_len(rb, hvt_lrb_packet_addr(rb, *packet));
	return len ? (long)len : -1;
}

static inline void hvt_lrb_release(struct hvt_lrb *rb, unsigned long packet)
{
	hvt_shared_set(&rb->consumed, packet + 1);
}

static inline __u64 hvt_lrb_lost(const struct hvt_lrb *rb)
{
	return hvt_local_read(&rb->lost);
}

#endif /* HVTRACE_LOCKLESS_RB_H */
