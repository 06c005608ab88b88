// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_ringbuf.c - the guest kernel's ring buffer core
 * (include/hvtrace/lockless_rb.h) built in user space, one writer on one
 * core: reserve, a 3 x u64 payload, commit. The clock is RDTSC, read once
 * per event by the core, as in a guest with the module; the reference is a
 * bare RDTSC loop measured in the same run.
 *
 *   overwrite   64 x 64 KiB sub-buffers, no consumer: the steady state laps
 *               the ring, so it includes packet switches and the writer's
 *               push of the consumer past each overwritten packet, but no
 *               event is ever refused for lack of room. hvt_lrb_commit()'s
 *               result is used (counted), as a writer waking a consumer
 *               would. The target, 30 M events/s, is for this row.
 *   discard     the same buffer; every time hvt_lrb_commit() says a packet
 *               was delivered the writer drains it with
 *               hvt_lrb_read_packet() into a scratch buffer, so the row
 *               includes the consumer's 64 KiB copy per packet.
 *   hvt_rb      the older single-producer core (include/hvtrace/ringbuf.h)
 *               with the same payload and clock, the consumer releasing
 *               closed packets every 1024 events: a second reference.
 *
 * The payload of every event is (a, 2a, 3a), a counting every event emitted
 * into that buffer, so the checks after the timing can tell what was
 * recorded: in overwrite mode every event emitted is either counted lost
 * (an overwritten packet) or decodes from the packets left in the ring; in
 * discard mode none is lost, the delivered packets are numbered without a
 * gap and the slots' commit counts add up to the events emitted. A failed
 * check exits non-zero; a missed target does not (the machines are shared).
 *
 * Last, one line of JSON with every number, for tracking across runs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#define hvt_lrb_clock() __rdtsc()
#include <hvtrace/lockless_rb.h>
#include <hvtrace/ringbuf.h>

#include "tests/bench/bench.h"

#define N		2000000ull	/* events per round */
#define SUBBUF		(64u << 10)
#define NR_SUBBUFS	64u
#define EVENT_ID	1u		/* compact headers */
#define BENCH_CPU	0u
#define BENCH_TID	4242
#define TARGET_MEVS	30.0		/* the target, overwrite mode */
#define OLD_RELEASE	1023u		/* hvt_rb: the consumer runs every 1024 events */

struct payload {
	uint64_t a, b, c;
};

static int failures;

static void check(int ok, const char *what)
{
	if (!ok) {
		printf("CHECK FAILED: %s\n", what);
		failures++;
	}
}

static void *zalloc(size_t size)
{
	void *p = aligned_alloc(4096, size);

	if (!p) {
		fprintf(stderr, "bench_ringbuf: out of memory\n");
		exit(1);
	}
	memset(p, 0, size);	/* faults the pages in, out of the timed loops */
	return p;
}

/* ---- lockless_rb.h ---- */

struct lrb {
	struct hvt_lrb rb;
	struct hvt_lrb_slot *slots;
	unsigned char *data;
	uint64_t seq;		/* events emitted: the next payload's a */
};

static void lrb_make(struct lrb *l, uint32_t mode)
{
	l->data = zalloc((size_t)NR_SUBBUFS * SUBBUF);
	l->slots = zalloc(NR_SUBBUFS * sizeof(*l->slots));
	hvt_lrb_init(&l->rb, l->data, l->slots, SUBBUF, NR_SUBBUFS, mode);
	memset(l->rb.uuid, 0x5a, HVT_UUID_LEN);
	l->rb.cpu_id = BENCH_CPU;
	l->rb.stream_instance_id = BENCH_CPU;
	l->seq = 0;
}

static void lrb_free(struct lrb *l)
{
	free(l->data);
	free(l->slots);
}

/* One event: 1 if a packet was delivered, as hvt_lrb_commit() says. */
static inline int lrb_emit(struct lrb *l)
{
	struct payload pl = { l->seq, 2 * l->seq, 3 * l->seq };
	struct hvt_lrb_ctx ctx;
	unsigned char *p = hvt_lrb_reserve(&l->rb, &ctx, EVENT_ID, BENCH_CPU, BENCH_TID,
					   sizeof(pl));

	l->seq++;
	if (hvt_unlikely(!p))
		return 0;	/* lost, and counted in rb.lost */
	memcpy(p, &pl, sizeof(pl));
	return hvt_lrb_commit(&l->rb, &ctx);
}

/* What the writer's drains took (discard mode). */
struct drain {
	unsigned char *copy;		/* SUBBUF bytes */
	uint64_t packets, bad, next;	/* bad: not sane, or out of sequence */
	long last_len;
};

static __attribute__((noinline)) void drain(struct lrb *l, struct drain *d)
{
	unsigned long packet;
	long len;

	while ((len = hvt_lrb_read_packet(&l->rb, d->copy, &packet)) != 0) {
		d->bad += len < 0 || packet != d->next;
		d->next = packet + 1;
		d->packets++;
		d->last_len = len;
	}
}

/* What decode() saw. */
struct decoded {
	uint64_t packets, events, bad, first_a, last_a;
	unsigned long last_packet;
	int any;
};

/*
 * Checks the packet @packet of @len bytes: its header and context, and
 * every event: id, context, payload (a, 2a, 3a) with a one more than the
 * previous event's, unless packets were skipped in between (overwritten).
 */
static void decode(const unsigned char *pkt, long len, unsigned long packet, struct decoded *d)
{
	struct hvt_ctf_packet h;
	uint64_t pos;

	if (len < (long)sizeof(h)) {
		d->bad++;
		return;
	}
	memcpy(&h, pkt, sizeof(h));
	d->bad += h.magic != HVT_CTF_MAGIC || h.packet_seq_num != packet ||
		  h.content_size != (uint64_t)len * 8 || h.packet_size != h.content_size ||
		  h.cpu_id != BENCH_CPU || h.timestamp_end < h.timestamp_begin;
	d->packets++;
	for (pos = sizeof(h); pos < (uint64_t)len;) {
		uint32_t word = hvt_get_u32(pkt + pos), id = word & 31;
		struct payload pl;

		if (id == HVT_CTF_EXTENDED_ID) {
			id = hvt_get_u32(pkt + pos + 1);
			pos += HVT_CTF_EXTENDED_HEADER_SIZE;
		} else {
			pos += HVT_CTF_COMPACT_HEADER_SIZE;
		}
		if (pos + HVT_CTF_EVENT_CONTEXT_SIZE + sizeof(pl) > (uint64_t)len) {
			d->bad++;
			return;
		}
		d->bad += id != EVENT_ID || hvt_get_u32(pkt + pos) != BENCH_CPU ||
			  (int32_t)hvt_get_u32(pkt + pos + 4) != BENCH_TID;
		pos += HVT_CTF_EVENT_CONTEXT_SIZE;
		memcpy(&pl, pkt + pos, sizeof(pl));
		pos += sizeof(pl);
		d->bad += pl.b != 2 * pl.a || pl.c != 3 * pl.a;
		if (!d->any)
			d->first_a = pl.a;
		else if (packet == d->last_packet || packet == d->last_packet + 1)
			d->bad += pl.a != d->last_a + 1;
		else
			d->bad += pl.a <= d->last_a;
		d->any = 1;
		d->last_a = pl.a;
		d->last_packet = packet;
		d->events++;
	}
	d->bad += pos != (uint64_t)len;
}

/* Flushes the open packet and decodes every packet the consumer may still take. */
static void lrb_read_rest(struct lrb *l, unsigned char *copy, struct decoded *d)
{
	unsigned long packet;
	long len;

	hvt_lrb_flush(&l->rb);
	while ((len = hvt_lrb_read_packet(&l->rb, copy, &packet)) != 0)
		decode(copy, len, packet, d);
}

/* Events committed, from the slots' counts (each below 2^24 at these sizes). */
static uint64_t lrb_committed(const struct lrb *l)
{
	uint64_t n = 0;
	unsigned int s;

	for (s = 0; s < NR_SUBBUFS; s++)
		n += hvt_local_read(&l->slots[s].commit) >> HVT_LRB_BYTES_BITS;
	return n;
}

/* ---- ringbuf.h, the single-producer core ---- */

struct old {
	struct hvt_rb rb;
	struct hvt_rb_prod prod;
	struct hvt_rb_cons cons;
	unsigned char *data;
	uint64_t seq;
};

static void old_make(struct old *o)
{
	memset(o, 0, sizeof(*o));
	o->data = zalloc((size_t)NR_SUBBUFS * SUBBUF);
	hvt_rb_init(&o->rb, &o->prod, &o->cons, o->data, SUBBUF, NR_SUBBUFS);
	memset(o->rb.uuid, 0x5a, HVT_UUID_LEN);
	o->rb.cpu_id = BENCH_CPU;
	o->rb.stream_instance_id = BENCH_CPU;
}

static inline void old_emit(struct old *o)
{
	struct payload pl = { o->seq, 2 * o->seq, 3 * o->seq };
	__u64 ts = __rdtsc(), end;
	unsigned char *p = hvt_rb_reserve(&o->rb, EVENT_ID, ts, BENCH_CPU, BENCH_TID,
					  sizeof(pl), &end);

	if (hvt_unlikely(!(o->seq++ & OLD_RELEASE)))	/* the consumer releases */
		hvt_store_release(&o->cons.consumed, hvt_load_acquire(&o->prod.produced));
	if (hvt_unlikely(!p))
		return;
	memcpy(p, &pl, sizeof(pl));
	hvt_rb_commit(&o->rb, ts, end);
}

/* ---- the table ---- */

static void header(const char *title)
{
	printf("\n%s\n%-46s %9s %8s  %-28s %8s %7s\n", title, "operation", "ns/event", "M ev/s",
	       "reference", "ref ns", "ratio");
}

static void row(const char *op, double ns, const char *ref, double ref_ns)
{
	printf("%-46s %9.2f %8.2f  %-28s %8.2f %7.2f\n", op, ns, 1e3 / ns, ref, ref_ns,
	       ns / ref_ns);
}

int main(void)
{
	struct lrb ow, dc;
	struct old old;
	struct drain dr = { 0 };
	struct decoded ow_dec = { 0 }, dc_dec = { 0 }, last_dec = { 0 }, old_dec = { 0 };
	unsigned char *copy = zalloc(SUBBUF);
	double rdtsc_ns, ow_ns, dc_ns, old_ns, mevs;
	uint64_t ow_delivered = 0, ow_closed, ow_lost, dc_lost, dc_committed, old_len;
	int met;

	dr.copy = zalloc(SUBBUF);
	BENCH_NS_PER_OP(rdtsc_ns, N, bench_sink += __rdtsc());

	/*
	 * overwrite, no consumer; the first round's laps warm the ring. The
	 * deliveries are counted, as a writer would use them to wake a consumer.
	 */
	lrb_make(&ow, HVT_LRB_OVERWRITE);
	BENCH_NS_PER_OP(ow_ns, N, ow_delivered += (uint64_t)lrb_emit(&ow));

	/* discard, the writer draining each delivered packet */
	lrb_make(&dc, HVT_LRB_DISCARD);
	BENCH_NS_PER_OP(dc_ns, N, if (hvt_unlikely(lrb_emit(&dc))) drain(&dc, &dr));

	/* the single-producer core */
	old_make(&old);
	BENCH_NS_PER_OP(old_ns, N, old_emit(&old));

	header("ring buffer core, one writer: reserve + 3 x u64 payload + commit, RDTSC clock");
	row("rdtsc (bare loop)", rdtsc_ns, "rdtsc", rdtsc_ns);
	row("lockless_rb overwrite, 64 x 64 KiB", ow_ns, "rdtsc", rdtsc_ns);
	row("lockless_rb discard + drain (incl. 64 KiB copy)", dc_ns, "rdtsc", rdtsc_ns);
	row("ringbuf.h hvt_rb (single producer)", old_ns, "rdtsc", rdtsc_ns);
	row("lockless_rb overwrite, 64 x 64 KiB", ow_ns, "hvt_rb (single producer)", old_ns);
	row("lockless_rb discard + drain (incl. 64 KiB copy)", dc_ns, "hvt_rb (single producer)",
	    old_ns);

	mevs = 1e3 / ow_ns;
	met = mevs >= TARGET_MEVS;
	printf("target: >= %.0f M events/s on one core, 3 x u64 (overwrite): %s on this run "
	       "(%.1f M events/s, %.2f ns/event against %.2f; %.2f x rdtsc)\n", TARGET_MEVS,
	       met ? "met" : "NOT met", mevs, ow_ns, 1e3 / TARGET_MEVS, ow_ns / rdtsc_ns);

	/* overwrite: every event emitted is lost (overwritten) or still in the ring */
	ow_lost = hvt_lrb_lost(&ow.rb);
	ow_closed = hvt_local_read(&ow.rb.closed);
	lrb_read_rest(&ow, copy, &ow_dec);
	check(ow_dec.bad == 0, "overwrite: the packets left in the ring decode");
	check(ow_dec.packets >= NR_SUBBUFS - 1 && ow_dec.packets <= NR_SUBBUFS,
	      "overwrite: the ring holds a full lap of packets");
	check(ow_dec.any && ow_dec.last_a == ow.seq - 1, "overwrite: the last event is the last emitted");
	check(ow_lost + ow_dec.events == ow.seq, "overwrite: events lost + recorded = emitted");
	check(ow_lost == ow_dec.first_a, "overwrite: only whole overwritten packets are lost");
	check(ow_delivered == ow_closed, "overwrite: each closed packet delivered once");
	printf("overwrite: %llu events emitted, %llu overwritten (counted lost), %llu decoded "
	       "from the %llu packets left; %llu packets closed, %llu delivered\n",
	       (unsigned long long)ow.seq, (unsigned long long)ow_lost,
	       (unsigned long long)ow_dec.events, (unsigned long long)ow_dec.packets,
	       (unsigned long long)ow_closed, (unsigned long long)ow_delivered);

	/* discard: nothing lost, every packet delivered in order */
	dc_lost = hvt_lrb_lost(&dc.rb);
	dc_committed = lrb_committed(&dc);
	decode(dr.copy, dr.last_len, dr.next - 1, &last_dec);	/* the last one drained */
	lrb_read_rest(&dc, copy, &dc_dec);
	check(dc_lost == 0, "discard: no event lost");
	check(dr.bad == 0 && dr.packets > 0, "discard: drained packets sane and in sequence");
	check(dc_committed == dc.seq, "discard: the slots' commit counts add up to the events");
	check(last_dec.bad == 0 && last_dec.events > 0, "discard: the last drained packet decodes");
	check(dc_dec.bad == 0 && (dc_dec.any ? dc_dec.last_a == dc.seq - 1 &&
				  dc_dec.first_a == last_dec.last_a + 1 :
				  last_dec.last_a == dc.seq - 1),
	      "discard: the packet left open decodes, following the last drained one");
	printf("discard: %llu events emitted, %llu committed, %llu lost; %llu packets drained "
	       "by the writer, %llu out of sequence or not sane\n",
	       (unsigned long long)dc.seq, (unsigned long long)dc_committed,
	       (unsigned long long)dc_lost, (unsigned long long)dr.packets,
	       (unsigned long long)dr.bad);

	/* hvt_rb: nothing lost, the last packet decodes */
	hvt_rb_close_packet(&old.rb);
	old_len = hvt_get_u64(hvt_rb_slot(old.data, SUBBUF, NR_SUBBUFS, old.prod.produced - 1) +
			      __builtin_offsetof(struct hvt_ctf_packet, content_size)) / 8;
	decode(hvt_rb_slot(old.data, SUBBUF, NR_SUBBUFS, old.prod.produced - 1),
	       (long)old_len, (unsigned long)old.prod.produced - 1, &old_dec);
	check(old.prod.lost == 0, "hvt_rb: no event lost");
	check(old_dec.bad == 0 && old_dec.any && old_dec.last_a == old.seq - 1,
	      "hvt_rb: the last packet decodes");
	printf("hvt_rb: %llu events emitted, %llu lost, %llu packets closed\n",
	       (unsigned long long)old.seq, (unsigned long long)old.prod.lost,
	       (unsigned long long)old.prod.produced);

	printf("{\"bench\":\"ringbuf\",\"rdtsc_ns\":%.2f,\"overwrite_ns\":%.2f,"
	       "\"discard_drain_ns\":%.2f,\"hvt_rb_ns\":%.2f,\"overwrite_mevs\":%.2f,"
	       "\"target_mevs\":%.0f,\"target_met\":%s,\"checks_failed\":%d}\n", rdtsc_ns,
	       ow_ns, dc_ns, old_ns, mevs, TARGET_MEVS, met ? "true" : "false", failures);

	lrb_free(&ow);
	lrb_free(&dc);
	free(old.data);
	free(copy);
	free(dr.copy);
	if (failures)
		fprintf(stderr, "bench_ringbuf: %d checks failed: the events were not recorded "
			"as emitted\n", failures);
	return failures ? 1 : 0;
}
