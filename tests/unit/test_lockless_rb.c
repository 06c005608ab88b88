// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_lockless_rb.c - the guest kernel's ring buffer core
 * (include/hvtrace/lockless_rb.h) built in user space: packets decode back
 * to what was written, lost events are counted exactly in discard and
 * overwrite mode, and writers nested by signal handlers (the user-space
 * stand-in for interrupts and NMIs) keep every committed record intact.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <cmocka.h>

/* The clock: ticks on each read, atomically even against signal handlers. */
static uint64_t fake_clock, clock_step = 1;
#define hvt_lrb_clock() __atomic_add_fetch(&fake_clock, clock_step, __ATOMIC_RELAXED)
#include <hvtrace/lockless_rb.h>

#include "lib/packet.h"

#define GOLDEN 0x9e3779b97f4a7c15ull
#define MAX_WRITERS 4

struct record {
	uint64_t tag;		/* writer << 48 | its sequence number */
	uint64_t inverse;	/* ~tag */
	uint64_t product;	/* tag * GOLDEN */
};

struct fixture {
	struct hvt_lrb rb;
	unsigned char *data;
	struct hvt_lrb_slot *slots;
	unsigned char *copy;
	/* what the reader saw */
	uint64_t recorded, next_seq[MAX_WRITERS], first_seq[MAX_WRITERS], packets;
	uint64_t last_ts, last_packet, last_discarded;
	int seen[MAX_WRITERS], any_packet;
	unsigned int compact, extended;
};

static struct fixture *make(uint32_t subbuf, uint32_t nr, uint32_t mode)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->data = calloc(nr, subbuf);
	f->slots = calloc(nr, sizeof(*f->slots));
	f->copy = malloc(subbuf);
	assert_true(f->data && f->slots && f->copy);
	hvt_lrb_init(&f->rb, f->data, f->slots, subbuf, nr, mode);
	memset(f->rb.uuid, 0x5a, HVT_UUID_LEN);
	f->rb.cpu_id = 1;
	f->rb.stream_instance_id = 1;
	fake_clock = 1000;
	clock_step = 1;
	return f;
}

static void destroy(struct fixture *f)
{
	free(f->data);
	free(f->slots);
	free(f->copy);
	free(f);
}

/* Writes event @id, a record of writer id % 32; 1 if committed, 0 if lost. */
static int emit(struct fixture *f, unsigned int id, uint64_t seq)
{
	unsigned int writer = id % 32;
	struct hvt_lrb_ctx ctx;
	struct record r;
	unsigned char *p = hvt_lrb_reserve(&f->rb, &ctx, id, 1, 100 + (int)writer, sizeof(r));

	if (!p)
		return 0;
	r.tag = (uint64_t)writer << 48 | seq;
	r.inverse = ~r.tag;
	r.product = r.tag * GOLDEN;
	memcpy(p, &r, sizeof(r));
	hvt_lrb_commit(&f->rb, &ctx);
	return 1;
}

/* Checks one packet and every record in it; counts them in @f. */
static void decode(struct fixture *f, const unsigned char *pkt, long len, unsigned long packet)
{
	struct hvt_ctf_packet h;
	uint64_t ts, pos;
	const char *why = hvt_packet_check(pkt, (size_t)len, f->rb.uuid, &h);

	if (why)
		fail_msg("packet %lu: %s", packet, why);
	assert_int_equal(h.packet_seq_num, packet);
	assert_int_equal(h.cpu_id, 1);
	assert_int_equal(h.content_size, (uint64_t)len * 8);
	assert_int_equal(h.packet_size, h.content_size);
	if (f->any_packet) {
		assert_true(packet > f->last_packet);
		assert_true(h.timestamp_begin >= f->last_ts);
		assert_true(h.events_discarded >= f->last_discarded);
	}
	f->any_packet = 1;
	f->last_packet = packet;
	f->last_discarded = h.events_discarded;
	f->packets++;
	ts = h.timestamp_begin;
	for (pos = sizeof(h); pos < (uint64_t)len;) {
		uint32_t word = hvt_get_u32(pkt + pos), id;
		struct record r;
		uint64_t writer, seq;

		if ((word & 31) == HVT_CTF_EXTENDED_ID) {
			id = hvt_get_u32(pkt + pos + 1);
			assert_true(hvt_get_u64(pkt + pos + 5) >= ts);
			ts = hvt_get_u64(pkt + pos + 5);
			pos += HVT_CTF_EXTENDED_HEADER_SIZE;
			f->extended++;
		} else {
			id = word & 31;
			ts = hvt_ctf_expand_ts(ts, word >> 5);
			pos += HVT_CTF_COMPACT_HEADER_SIZE;
			f->compact++;
		}
		assert_true(pos + HVT_CTF_EVENT_CONTEXT_SIZE + sizeof(r) <= (uint64_t)len);
		assert_int_equal(hvt_get_u32(pkt + pos), 1);
		assert_int_equal((int32_t)hvt_get_u32(pkt + pos + 4), 100 + (int)(id % 32));
		pos += HVT_CTF_EVENT_CONTEXT_SIZE;
		memcpy(&r, pkt + pos, sizeof(r));
		pos += sizeof(r);
		assert_int_equal(r.inverse, ~r.tag);
		assert_int_equal(r.product, r.tag * GOLDEN);
		writer = r.tag >> 48;
		seq = r.tag & ((1ull << 48) - 1);
		assert_int_equal(writer, id % 32);
		assert_true(writer < MAX_WRITERS);
		/* one writer's records in order; gaps only where events were lost */
		if (f->seen[writer])
			assert_true(seq >= f->next_seq[writer]);
		else
			f->first_seq[writer] = seq;
		f->seen[writer] = 1;
		f->next_seq[writer] = seq + 1;
		f->recorded++;
	}
	assert_int_equal(pos, (uint64_t)len);
	assert_int_equal(h.timestamp_end >= ts, 1);
	f->last_ts = h.timestamp_end;
}

/* Reads every delivered packet, by copy. */
static void drain(struct fixture *f)
{
	unsigned long packet;
	long len;

	while ((len = hvt_lrb_read_packet(&f->rb, f->copy, &packet)) != 0) {
		assert_true(len > 0);
		decode(f, f->copy, len, packet);
	}
}

/* Events of growing gaps and ids come back in order, in both header forms. */
static void test_roundtrip(void **state)
{
	struct fixture *f = make(4096, 4, HVT_LRB_DISCARD);
	uint64_t i;

	(void)state;
	for (i = 0; i < 5000; i++) {
		clock_step = (i % 100 == 99) ? (1ull << 28) : 7;
		assert_true(emit(f, (unsigned int)(i % 2) * 32 + (unsigned int)(i % 2), i / 2));
		drain(f);
	}
	hvt_lrb_flush(&f->rb);
	drain(f);
	assert_int_equal(f->recorded, 5000);
	assert_int_equal(hvt_lrb_lost(&f->rb), 0);
	assert_int_equal(f->last_discarded, 0);
	assert_true(f->compact > 0 && f->extended > 0);
	assert_int_equal(f->packets, f->last_packet + 1);	/* no seq gap */
	destroy(f);
}

/* A flush of an empty buffer, or twice in a row, produces nothing more. */
static void test_flush_idempotent(void **state)
{
	struct fixture *f = make(4096, 2, HVT_LRB_DISCARD);
	unsigned long packet;

	(void)state;
	assert_int_equal(hvt_lrb_flush(&f->rb), 0);
	assert_int_equal(hvt_lrb_ready(&f->rb, &packet), 0);
	assert_true(emit(f, 0, 0));
	assert_int_equal(hvt_lrb_flush(&f->rb), 1);
	assert_int_equal(hvt_lrb_flush(&f->rb), 0);
	drain(f);
	assert_int_equal(f->packets, 1);
	assert_int_equal(f->recorded, 1);
	destroy(f);
}

/* An event that fills its packet to the byte closes it at once. */
static void test_exact_fill(void **state)
{
	struct fixture *f = make(4096, 2, HVT_LRB_DISCARD);
	const uint32_t len = 4096 - HVT_CTF_PACKET_HEADER_SIZE - HVT_CTF_COMPACT_HEADER_SIZE -
			     HVT_CTF_EVENT_CONTEXT_SIZE;
	struct hvt_lrb_ctx ctx;
	unsigned long packet;
	unsigned char *p;

	(void)state;
	p = hvt_lrb_reserve(&f->rb, &ctx, 0, 1, 100, len);
	assert_non_null(p);
	memset(p, 0x11, len);
	assert_int_equal(hvt_lrb_ready(&f->rb, &packet), 0);	/* not committed yet */
	assert_int_equal(hvt_lrb_commit(&f->rb, &ctx), 1);
	assert_int_equal(hvt_lrb_ready(&f->rb, &packet), 1);
	assert_int_equal(packet, 0);
	assert_int_equal(hvt_lrb_read_packet(&f->rb, f->copy, &packet), 4096);
	assert_int_equal(hvt_lrb_flush(&f->rb), 0);		/* nothing open */
	assert_true(emit(f, 0, 0));				/* packet 1 opens */
	hvt_lrb_flush(&f->rb);
	drain(f);
	assert_int_equal(f->last_packet, 1);
	destroy(f);
}

/* An event larger than a packet is lost and counted, and nothing else. */
static void test_oversized(void **state)
{
	struct fixture *f = make(4096, 2, HVT_LRB_DISCARD);
	struct hvt_lrb_ctx ctx;

	(void)state;
	assert_null(hvt_lrb_reserve(&f->rb, &ctx, 0, 1, 100, 4096));
	assert_int_equal(hvt_lrb_lost(&f->rb), 1);
	assert_true(emit(f, 0, 0));
	hvt_lrb_flush(&f->rb);
	drain(f);
	assert_int_equal(f->recorded, 1);
	assert_int_equal(f->last_discarded, 1);
	destroy(f);
}

/* Nothing read until the end: recorded + lost == emitted, in each mode. */
static void overrun(uint32_t mode)
{
	struct fixture *f = make(4096, 4, mode);
	const uint64_t emitted = 10007;
	uint64_t i, committed = 0;

	for (i = 0; i < emitted; i++)
		committed += (uint64_t)emit(f, 0, i);
	hvt_lrb_flush(&f->rb);
	drain(f);
	assert_int_equal(f->recorded + hvt_lrb_lost(&f->rb), emitted);
	assert_true(f->recorded > 0 && f->recorded < emitted);
	if (mode == HVT_LRB_DISCARD) {
		/* the first events are kept, in the ring's first packets; every
		 * loss came after the last packet closed (the stream's tail count) */
		assert_int_equal(f->recorded, committed);
		assert_int_equal(f->first_seq[0], 0);
		assert_int_equal(f->packets, 4);
		assert_int_equal(f->packets, f->last_packet + 1);
		assert_int_equal(f->last_discarded, 0);
	} else {
		/* every event is committed, the last ones are kept, the packets
		 * before them are gaps, and the last packet counts every loss */
		assert_int_equal(committed, emitted);
		assert_int_equal(f->next_seq[0], emitted);
		assert_true(f->first_seq[0] > 0);
		assert_true(f->last_packet + 1 > f->packets);
		assert_int_equal(f->last_discarded, hvt_lrb_lost(&f->rb));
	}
	destroy(f);
}

static void test_overrun_discard(void **state)
{
	(void)state;
	overrun(HVT_LRB_DISCARD);
}

static void test_overrun_overwrite(void **state)
{
	(void)state;
	overrun(HVT_LRB_OVERWRITE);
}

/* A consumer thread reads while the writer runs: exact counts still. */
struct race {
	struct fixture *f;
	int stop;
};

static void *consumer(void *arg)
{
	struct race *r = arg;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE))
		drain(r->f);
	return NULL;
}

static void concurrent(uint32_t mode)
{
	struct race r = { make(4096, 4, mode), 0 };
	const uint64_t emitted = 400000;
	pthread_t t;
	uint64_t i;

	assert_int_equal(pthread_create(&t, NULL, consumer, &r), 0);
	for (i = 0; i < emitted; i++)
		emit(r.f, 0, i);
	hvt_lrb_flush(&r.f->rb);
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(t, NULL), 0);
	drain(r.f);
	assert_int_equal(r.f->recorded + hvt_lrb_lost(&r.f->rb), emitted);
	assert_true(r.f->recorded > 0);
	if (mode == HVT_LRB_OVERWRITE)	/* the newest events are never the ones lost */
		assert_int_equal(r.f->next_seq[0], emitted);
	destroy(r.f);
}

static void test_concurrent_discard(void **state)
{
	(void)state;
	concurrent(HVT_LRB_DISCARD);
}

static void test_concurrent_overwrite(void **state)
{
	(void)state;
	concurrent(HVT_LRB_OVERWRITE);
}

/*
 * Nesting: signal handlers write into the buffer the main loop is writing,
 * at any instruction of its reserve/commit, and a second signal nests in the
 * first. Every committed record must decode intact, in order per writer, and
 * committed + lost must equal attempted.
 */
static struct fixture *nest_f;
static uint64_t nest_attempts[MAX_WRITERS], nest_commits[MAX_WRITERS];

/* Handlers that ran while the main loop was inside a reserve or commit. */
static volatile sig_atomic_t main_writing;
static uint64_t nested_inside;

static void nest_emit(unsigned int writer)
{
	if (writer == 0)
		main_writing = 1;
	else if (main_writing)
		nested_inside++;
	nest_commits[writer] += (uint64_t)emit(nest_f, writer, nest_attempts[writer]++);
	if (writer == 0)
		main_writing = 0;
}

static void on_sigusr2(int sig)
{
	(void)sig;
	nest_emit(2);
}

static void on_sigusr1(int sig)
{
	(void)sig;
	nest_emit(1);
	raise(SIGUSR2);		/* delivered at once: nests inside this handler */
	nest_emit(1);
}

static void nesting(uint32_t mode)
{
	struct sigaction sa = { 0 };
	struct sigevent sev = { 0 };
	struct itimerspec its1 = { { 0, 200000 }, { 0, 200000 } };
	struct itimerspec its2 = { { 0, 130000 }, { 0, 130000 } };
	timer_t timer1, timer2;
	uint64_t i, attempts = 0, commits = 0;
	unsigned int w;
	struct race r;
	pthread_t t;

	nest_f = make(4096, 8, mode);
	memset(nest_attempts, 0, sizeof(nest_attempts));
	memset(nest_commits, 0, sizeof(nest_commits));
	nested_inside = 0;
	r.f = nest_f;
	r.stop = 0;
	sa.sa_handler = on_sigusr1;
	sa.sa_flags = SA_RESTART;
	assert_int_equal(sigaction(SIGUSR1, &sa, NULL), 0);
	sa.sa_handler = on_sigusr2;
	assert_int_equal(sigaction(SIGUSR2, &sa, NULL), 0);
	assert_int_equal(pthread_create(&t, NULL, consumer, &r), 0);
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGUSR1;
	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	assert_int_equal(timer_create(CLOCK_MONOTONIC, &sev, &timer1), 0);
	sev.sigev_signo = SIGUSR2;	/* a second timer: nests anywhere in the first */
	assert_int_equal(timer_create(CLOCK_MONOTONIC, &sev, &timer2), 0);
	assert_int_equal(timer_settime(timer1, 0, &its1, NULL), 0);
	assert_int_equal(timer_settime(timer2, 0, &its2, NULL), 0);
	for (i = 0; i < 1000000 || nest_attempts[1] < 2000; i++)
		nest_emit(0);
	assert_int_equal(timer_delete(timer1), 0);
	assert_int_equal(timer_delete(timer2), 0);
	hvt_lrb_flush(&nest_f->rb);
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(t, NULL), 0);
	drain(nest_f);
	for (w = 0; w < 3; w++) {
		attempts += nest_attempts[w];
		commits += nest_commits[w];
	}
	assert_true(nest_attempts[2] > 0);
	assert_true(nested_inside > 0);	/* handlers did land inside writes */
	/* every event is read back intact or counted lost, exactly */
	assert_int_equal(nest_f->recorded + hvt_lrb_lost(&nest_f->rb), attempts);
	if (mode == HVT_LRB_DISCARD)	/* and none committed went missing */
		assert_int_equal(nest_f->recorded, commits);
	signal(SIGUSR1, SIG_DFL);
	signal(SIGUSR2, SIG_DFL);
	destroy(nest_f);
}

static void test_nesting_discard(void **state)
{
	(void)state;
	nesting(HVT_LRB_DISCARD);
}

static void test_nesting_overwrite(void **state)
{
	(void)state;
	nesting(HVT_LRB_OVERWRITE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_flush_idempotent),
		cmocka_unit_test(test_exact_fill),
		cmocka_unit_test(test_oversized),
		cmocka_unit_test(test_overrun_discard),
		cmocka_unit_test(test_overrun_overwrite),
		cmocka_unit_test(test_concurrent_discard),
		cmocka_unit_test(test_concurrent_overwrite),
		cmocka_unit_test(test_nesting_discard),
		cmocka_unit_test(test_nesting_overwrite),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
