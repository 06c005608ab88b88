// SPDX-License-Identifier: GPL-2.0-only
/*
 * kmod_test.c - the guest module's tracer, tested inside a guest
 * (hvtrace.test=kmod; tests/e2e/guest_suite.sh kmod): events registered by another
 * module (hvtrace_selftest.ko) with every field kind, decoded back value by
 * value; exact lost counts in both buffer modes; two sessions at once; the
 * filter chain; mmap + get/put-subbuffer + poll; and 200 session cycles with
 * module unloads under a fork/exec/syscall/irq load.
 *
 * Packets are decoded here with the registry the module gives (struct
 * hvt_reg_event), so a layout the registry does not describe fails a test.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <hvtrace/abi.h>
#include <hvtrace/ctf.h>
#include <hvtrace/registry.h>

#include "tests/guest/guest_test.h"

#define SELFTEST_PARAM(p)	"/sys/module/" SELFTEST_NAME "/parameters/" p
#define MAX_IDS			HVTRACE_MAX_EVENT_IDS
#define BUF_BYTES		(8u << 20)

/* ---- the registry and a decoder driven by it ---- */

struct reg {
	unsigned char *raw;
	const struct hvt_reg_event *ev[MAX_IDS];
	uint64_t generation;
};

/*
 * Adds the session's registry to @r. Records already in @r stay: an event
 * unregistered since still decodes in packets written before (ids are never
 * reused), as for any reader that kept the registry it was given.
 */
static void reg_load(const char *name, int session, struct reg *r)
{
	struct hvtrace_registry_buf rb = { 0 };
	size_t off;

	if (ioctl(session, HVTRACE_SESSION_REGISTRY, &rb) == 0 || errno != ENOSPC)
		fail(name, "REGISTRY size: %s", strerror(errno));
	r->raw = malloc(rb.size);
	rb.addr = (uintptr_t)r->raw;
	if (!r->raw || ioctl(session, HVTRACE_SESSION_REGISTRY, &rb))
		fail(name, "REGISTRY: %s", strerror(errno));
	r->generation = rb.generation;
	for (off = 0; off < rb.size;) {
		const struct hvt_reg_event *e = (const void *)(r->raw + off);

		if (e->magic != HVT_REG_EVENT_MAGIC || e->size < sizeof(*e) || e->id >= MAX_IDS)
			fail(name, "registry record at %zu is corrupt", off);
		r->ev[e->id] = e;
		off += e->size;
	}
}

static int reg_id(const struct reg *r, const char *event)
{
	int i;

	for (i = 0; i < MAX_IDS; i++)
		if (r->ev[i] && !strcmp(r->ev[i]->name, event))
			return i;
	return -1;
}

static const struct hvt_reg_field *reg_fields(const struct hvt_reg_event *e)
{
	return (const void *)(e + 1);
}

/* The payload size of event @e at @p (at most @room bytes), or -1. */
static long payload_size(const struct hvt_reg_event *e, const unsigned char *p, size_t room)
{
	const struct hvt_reg_field *f = reg_fields(e);
	size_t off = 0;
	unsigned int i;

	for (i = 0; i < e->nr_fields; i++) {
		const unsigned char *nul;
		uint32_t len;

		switch (f[i].kind) {
		case HVT_FIELD_INT:
			off += f[i].int_bits / 8;
			break;
		case HVT_FIELD_ARRAY:
			off += (size_t)f[i].length * f[i].int_bits / 8;
			break;
		case HVT_FIELD_STRING:
			nul = off < room ? memchr(p + off, 0, room - off) : NULL;
			if (!nul)
				return -1;
			off = (size_t)(nul - p) + 1;
			break;
		case HVT_FIELD_BLOB:
			if (off + 4 > room)
				return -1;
			memcpy(&len, p + off, 4);
			off += 4 + (size_t)len;
			break;
		default:
			return -1;
		}
		if (off > room)
			return -1;
	}
	return (long)off;
}

struct event {
	uint32_t id;
	uint64_t ts;
	uint32_t cpu;
	int32_t tid;
	const unsigned char *payload;
	size_t size;
};

struct walk {
	uint64_t events, packets, last_seq_num, seq_gaps, discarded, max_seq_num;
	int any;
};

typedef void (*event_fn)(const char *name, const struct event *ev, void *arg);

/* Checks one packet and calls @fn for each event in it; fails on any flaw. */
static void walk_packet(const char *name, const struct reg *r, const uint8_t *uuid,
			uint32_t cpu, const unsigned char *pkt, size_t len, struct walk *w,
			event_fn fn, void *arg)
{
	struct hvt_ctf_packet h;
	uint64_t ts;
	size_t pos;

	if (len < sizeof(h))
		fail(name, "CPU %u: a packet of %zu bytes", cpu, len);
	memcpy(&h, pkt, sizeof(h));
	if (h.magic != HVT_CTF_MAGIC || memcmp(h.uuid, uuid, HVT_UUID_LEN) ||
	    h.content_size != len * 8 || h.packet_size != h.content_size || h.cpu_id != cpu ||
	    h.stream_instance_id != cpu || h.timestamp_end < h.timestamp_begin)
		fail(name, "CPU %u: packet %llu: bad header or context", cpu,
		     (unsigned long long)h.packet_seq_num);
	if (w->any && h.packet_seq_num <= w->last_seq_num)
		fail(name, "CPU %u: packet_seq_num went from %llu to %llu", cpu,
		     (unsigned long long)w->last_seq_num, (unsigned long long)h.packet_seq_num);
	if (w->any && h.packet_seq_num != w->last_seq_num + 1)
		w->seq_gaps += h.packet_seq_num - w->last_seq_num - 1;
	if (w->any && h.events_discarded < w->discarded)
		fail(name, "CPU %u: events_discarded went down", cpu);
	w->any = 1;
	w->last_seq_num = h.packet_seq_num;
	if (h.packet_seq_num > w->max_seq_num)
		w->max_seq_num = h.packet_seq_num;
	w->discarded = h.events_discarded;
	w->packets++;
	ts = h.timestamp_begin;
	for (pos = sizeof(h); pos < len;) {
		struct event ev;
		uint32_t word;
		long size;

		if (pos + 4 > len)
			fail(name, "CPU %u: truncated event header", cpu);
		memcpy(&word, pkt + pos, 4);
		if ((word & 31) == HVT_CTF_EXTENDED_ID) {
			if (pos + HVT_CTF_EXTENDED_HEADER_SIZE > len)
				fail(name, "CPU %u: truncated extended header", cpu);
			memcpy(&ev.id, pkt + pos + 1, 4);
			memcpy(&ev.ts, pkt + pos + 5, 8);
			if (ev.ts < ts)
				fail(name, "CPU %u: time went backwards", cpu);
			pos += HVT_CTF_EXTENDED_HEADER_SIZE;
		} else {
			ev.id = word & 31;
			ev.ts = hvt_ctf_expand_ts(ts, word >> 5);
			pos += HVT_CTF_COMPACT_HEADER_SIZE;
		}
		ts = ev.ts;
		if (pos + HVT_CTF_EVENT_CONTEXT_SIZE > len)
			fail(name, "CPU %u: truncated event context", cpu);
		memcpy(&ev.cpu, pkt + pos, 4);
		memcpy(&ev.tid, pkt + pos + 4, 4);
		pos += HVT_CTF_EVENT_CONTEXT_SIZE;
		if (ev.cpu != cpu || ev.id >= MAX_IDS || !r->ev[ev.id])
			fail(name, "CPU %u: event of id %u on CPU %u", cpu, ev.id, ev.cpu);
		size = payload_size(r->ev[ev.id], pkt + pos, len - pos);
		if (size < 0)
			fail(name, "CPU %u: %s does not fit its packet", cpu, r->ev[ev.id]->name);
		ev.payload = pkt + pos;
		ev.size = (size_t)size;
		pos += (size_t)size;
		if (ts > h.timestamp_end)
			fail(name, "CPU %u: an event after timestamp_end", cpu);
		w->events++;
		if (fn)
			fn(name, &ev, arg);
	}
}

/* ---- sessions ---- */

struct session {
	int fd;
	struct hvtrace_session_config cfg;
	struct reg reg;
};

static void session_open(const char *name, struct session *s, uint32_t subbuf, uint32_t nr,
			 uint32_t mode, const char *const *events)
{
	int dev = open_dev();

	memset(s, 0, sizeof(*s));
	s->cfg.subbuf_size = subbuf;
	s->cfg.nr_subbufs = nr;
	s->cfg.mode = mode;
	if (dev < 0 || (s->fd = ioctl(dev, HVTRACE_IOC_CREATE_SESSION, &s->cfg)) < 0)
		fail(name, "CREATE_SESSION: %s", strerror(errno));
	close(dev);
	for (; *events; events++) {
		struct hvtrace_event_name ev = { { 0 } };

		snprintf(ev.name, sizeof(ev.name), "%s", *events);
		if (ioctl(s->fd, HVTRACE_SESSION_ENABLE_EVENT, &ev) < 0)
			fail(name, "enable %s: %s", *events, strerror(errno));
	}
	reg_load(name, s->fd, &s->reg);
}

static void session_ctl(const char *name, struct session *s, unsigned long req)
{
	if (ioctl(s->fd, req))
		fail(name, "%s: %s", req == HVTRACE_SESSION_START ? "START" : "STOP",
		     strerror(errno));
}

/* Reads every packet of every CPU with read(), walking each; lost in *@lost. */
static void session_drain(const char *name, struct session *s, struct walk *w, uint64_t *lost,
			  event_fn fn, void *arg)
{
	static unsigned char pkt[1 << 20];
	uint32_t cpu;

	reg_load(name, s->fd, &s->reg);
	*lost = 0;
	for (cpu = 0; cpu < s->cfg.nr_cpus; cpu++) {
		struct hvtrace_stream_stats st = { 0 };
		struct walk one = { 0 };
		int stream = ioctl(s->fd, HVTRACE_SESSION_STREAM, &cpu);
		ssize_t n;

		if (stream < 0)
			continue;
		while ((n = read(stream, pkt, sizeof(pkt))) > 0)
			walk_packet(name, &s->reg, s->cfg.uuid, cpu, pkt, (size_t)n, &one, fn, arg);
		if (n < 0 && errno != EAGAIN)
			fail(name, "CPU %u: read: %s", cpu, strerror(errno));
		if (ioctl(stream, HVTRACE_STREAM_STATS, &st))
			fail(name, "STATS: %s", strerror(errno));
		*lost += st.lost;
		w->events += one.events;
		w->packets += one.packets;
		w->seq_gaps += one.seq_gaps;
		if (one.max_seq_num > w->max_seq_num)
			w->max_seq_num = one.max_seq_num;
		close(stream);
	}
}

static void emit(const char *name, unsigned int n)
{
	char text[16];

	snprintf(text, sizeof(text), "%u", n);
	if (write_file(SELFTEST_PARAM("emit"), text))
		fail(name, "emit %u: %s", n, strerror(errno));
}

/* Loaded, with no filter left on by a test that failed half way. */
static void load_selftest(const char *name)
{
	if (load_named_module(SELFTEST_NAME, "") && errno != EEXIST)
		fail(name, "load %s: %s", SELFTEST_NAME, strerror(errno));
	if (write_file(SELFTEST_PARAM("filter_odd"), "N"))
		fail(name, "filter_odd=N: %s", strerror(errno));
}

/* ---- expected field values (hvtrace_selftest.c) ---- */

struct fields_rec {
	int8_t s8v;
	uint8_t u8v;
	int16_t s16v;
	uint16_t u16v;
	int32_t s32v;
	uint32_t u32v;
	int64_t s64v;
	uint64_t seq;
	uint32_t hexv;
	char comm[16];
	uint16_t arr[4];
	int32_t pid;
} __attribute__((packed));

struct check {
	int fields_id, blob_id;
	uint64_t fields, blobs, next_fields_seq, next_blob_seq, first_seq;
	int any;
	int only_even;
};

static void check_event(const char *name, const struct event *ev, void *arg)
{
	struct check *c = arg;
	struct fields_rec f;
	char text[32];
	uint64_t seq;
	uint32_t len, i;

	if ((int)ev->id == c->fields_id) {
		if (ev->size < sizeof(f) + 1)
			fail(name, "fields event of %zu bytes", ev->size);
		memcpy(&f, ev->payload, sizeof(f));
		seq = f.seq;
		snprintf(text, sizeof(text), "selftest-%llu", (unsigned long long)seq);
		if (f.s8v != (int8_t)-(int64_t)(seq % 100) || f.u8v != (uint8_t)(seq % 256) ||
		    f.s16v != (int16_t)-(int64_t)(seq * 3 % 30000) || f.u16v != (uint16_t)(seq * 5) ||
		    f.s32v != (int32_t)-(int64_t)(seq * 7) || f.u32v != (uint32_t)(seq * 11) ||
		    f.s64v != -(int64_t)(seq * 13) || f.hexv != (0xdead0000u | (seq & 0xffff)) ||
		    f.arr[0] != (uint16_t)seq || f.arr[3] != (uint16_t)(seq + 3) ||
		    f.pid != ev->tid || strcmp((const char *)ev->payload + sizeof(f), text) ||
		    ev->size != sizeof(f) + strlen(text) + 1)
			fail(name, "fields event seq %llu: a value is wrong", (unsigned long long)seq);
		if (c->only_even && (f.pid & 1))
			fail(name, "an event of odd pid %d passed the filter", f.pid);
		if (c->fields && seq <= c->next_fields_seq - 1)
			fail(name, "fields seq %llu after %llu", (unsigned long long)seq,
			     (unsigned long long)c->next_fields_seq - 1);
		if (!c->fields)
			c->first_seq = seq;
		c->next_fields_seq = seq + 1;
		c->fields++;
	} else if ((int)ev->id == c->blob_id) {
		memcpy(&seq, ev->payload, 8);
		memcpy(&len, ev->payload + 8, 4);
		if (len != seq % 40 || ev->size != 12 + len)
			fail(name, "blob seq %llu: length %u", (unsigned long long)seq, len);
		for (i = 0; i < len; i++)
			if (ev->payload[12 + i] != (uint8_t)(seq + i))
				fail(name, "blob seq %llu: byte %u is wrong", (unsigned long long)seq, i);
		c->next_blob_seq = seq + 1;
		c->blobs++;
	}
}

static void check_init(struct check *c, const struct reg *r)
{
	memset(c, 0, sizeof(*c));
	c->fields_id = reg_id(r, "hvtrace_selftest_fields");
	c->blob_id = reg_id(r, "hvtrace_selftest_blob");
}

/* One session on CPU 0: @n self-test emits recorded, then every event checked. */
static void record_selftest(const char *name, struct session *s, uint32_t subbuf, uint32_t nr,
			    uint32_t mode, const char *const *events, unsigned int n,
			    struct check *c, struct walk *w, uint64_t *lost)
{
	load_selftest(name);
	pin(0);
	session_open(name, s, subbuf, nr, mode, events);
	session_ctl(name, s, HVTRACE_SESSION_START);
	emit(name, n);
	session_ctl(name, s, HVTRACE_SESSION_STOP);
	check_init(c, &s->reg);
	session_drain(name, s, w, lost, check_event, c);
}

/* ---- the tests ---- */

/*
 * Registered during an active session: the session asked for the name
 * before any event had it (ENABLE_EVENT says 1), the registry generation
 * moves, the event gets enabled in it, and both listings show it.
 */
static void test_late_registration(const char *name)
{
	static const char *const none[] = { NULL };
	struct hvtrace_event_name ev = { "hvtrace_selftest_fields" };
	struct hvtrace_enabled_events en;
	struct session s;
	uint64_t gen0, gen1;
	char list[8192];
	int id, ret;

	unload_named_module(SELFTEST_NAME);
	session_open(name, &s, 4096, 4, HVTRACE_MODE_DISCARD, none);
	ret = ioctl(s.fd, HVTRACE_SESSION_ENABLE_EVENT, &ev);
	if (ret != 1)
		fail(name, "ENABLE_EVENT of an unregistered name returned %d, not 1", ret);
	session_ctl(name, &s, HVTRACE_SESSION_START);
	if (ioctl(s.fd, HVTRACE_SESSION_REGISTRY_GEN, &gen0))
		fail(name, "REGISTRY_GEN: %s", strerror(errno));
	load_selftest(name);
	if (ioctl(s.fd, HVTRACE_SESSION_REGISTRY_GEN, &gen1) || gen1 == gen0)
		fail(name, "the registry generation did not move (%llu)", (unsigned long long)gen1);
	reg_load(name, s.fd, &s.reg);
	id = reg_id(&s.reg, "hvtrace_selftest_fields");
	if (id < 0 || reg_id(&s.reg, "hvtrace_selftest_blob") < 0)
		fail(name, "the registry lacks the self-test's events");
	if (ioctl(s.fd, HVTRACE_SESSION_ENABLED, &en) || !(en.ids[id / 64] & (1ull << (id % 64))))
		fail(name, "the event was not enabled in the session that asked for it");
	if (read_file("/sys/class/misc/hvtrace/available_events", list, sizeof(list)) ||
	    !strstr(list, " hvtrace_selftest_fields own") || !strstr(list, " sched_switch tracepoint"))
		fail(name, "available_events does not list it: %.200s", list);
	if (read_file("/sys/class/misc/hvtrace/enabled_events", list, sizeof(list)) ||
	    !strstr(list, " active hvtrace_selftest_fields"))
		fail(name, "enabled_events does not list it: %.200s", list);
	pass(name, "pending enable, generation %llu -> %llu, enabled at registration, listed",
	     (unsigned long long)gen0, (unsigned long long)gen1);
}

/* Every field kind comes back with the value written, in order. */
static void test_fields_roundtrip(const char *name)
{
	static const char *const events[] = { "hvtrace_selftest_fields", "hvtrace_selftest_blob",
					      NULL };
	struct session s;
	struct check c;
	struct walk w = { 0 };
	uint64_t lost;

	record_selftest(name, &s, 65536, 8, HVTRACE_MODE_DISCARD, events, 500, &c, &w, &lost);
	if (c.fields != 500 || c.blobs != 500 || lost)
		fail(name, "%llu fields and %llu blob events of 500 each, %llu lost",
		     (unsigned long long)c.fields, (unsigned long long)c.blobs,
		     (unsigned long long)lost);
	pass(name, "500 + 500 events: s8..u64, hex, text, array, string and blob fields as written");
}

/* A tiny buffer and no reader: recorded + lost == emitted, exactly. */
static void overrun(const char *name, uint32_t mode)
{
	static const char *const events[] = { "hvtrace_selftest_fields", NULL };
	const unsigned int emitted = 3000;
	struct session s;
	struct check c;
	struct walk w = { 0 };
	uint64_t lost;

	record_selftest(name, &s, 4096, 2, mode, events, emitted, &c, &w, &lost);
	if (c.fields + lost != emitted || !c.fields || c.fields == emitted)
		fail(name, "recorded %llu + lost %llu != emitted %u", (unsigned long long)c.fields,
		     (unsigned long long)lost, emitted);
	/* overwrite: the newest events are left, in packets numbered past those read */
	if (mode == HVTRACE_MODE_OVERWRITE && (c.next_fields_seq - c.first_seq != c.fields ||
					       w.max_seq_num + 1 <= w.packets))
		fail(name, "overwrite: the newest %llu events are not what is left",
		     (unsigned long long)c.fields);
	pass(name, "recorded %llu + lost %llu == emitted %u; %llu packets%s",
	     (unsigned long long)c.fields, (unsigned long long)lost, emitted,
	     (unsigned long long)w.packets,
	     mode == HVTRACE_MODE_OVERWRITE ? ", the newest kept, seq gaps for the rest" : "");
}

static void test_overrun_discard(const char *name)
{
	overrun(name, HVTRACE_MODE_DISCARD);
}

static void test_overrun_overwrite(const char *name)
{
	overrun(name, HVTRACE_MODE_OVERWRITE);
}

struct id_count {
	uint64_t n[MAX_IDS];
};

static void count_ids(const char *name, const struct event *ev, void *arg)
{
	(void)name;
	((struct id_count *)arg)->n[ev->id]++;
}

/* Two sessions at once, with different event sets, sizes and modes. */
static void test_two_sessions(const char *name)
{
	static const char *const a_events[] = { "sched_switch", "hvtrace_selftest_fields", NULL };
	static const char *const b_events[] = { "hvtrace_selftest_blob", NULL };
	struct id_count *ca = calloc(1, sizeof(*ca)), *cb = calloc(1, sizeof(*cb));
	struct session a, b;
	struct walk wa = { 0 }, wb = { 0 };
	uint64_t lost_a, lost_b, others = 0;
	int i, sw, fl, bl;

	load_selftest(name);
	session_open(name, &a, 4096, 8, HVTRACE_MODE_DISCARD, a_events);
	session_open(name, &b, 16384, 4, HVTRACE_MODE_OVERWRITE, b_events);
	session_ctl(name, &a, HVTRACE_SESSION_START);
	session_ctl(name, &b, HVTRACE_SESSION_START);
	for (i = 0; i < 10; i++) {
		emit(name, 10);
		usleep(1000);	/* context switches */
	}
	session_ctl(name, &a, HVTRACE_SESSION_STOP);
	session_ctl(name, &b, HVTRACE_SESSION_STOP);
	session_drain(name, &a, &wa, &lost_a, count_ids, ca);
	session_drain(name, &b, &wb, &lost_b, count_ids, cb);
	sw = reg_id(&a.reg, "sched_switch");
	fl = reg_id(&a.reg, "hvtrace_selftest_fields");
	bl = reg_id(&a.reg, "hvtrace_selftest_blob");
	for (i = 0; i < MAX_IDS; i++)
		if (i != sw && i != fl)
			others += ca->n[i];
	if (sw < 0 || fl < 0 || bl < 0 || !ca->n[sw] || ca->n[fl] != 100 || others)
		fail(name, "session A: %llu sched_switch, %llu fields (100), %llu others (0)",
		     (unsigned long long)(sw < 0 ? 0 : ca->n[sw]),
		     (unsigned long long)(fl < 0 ? 0 : ca->n[fl]), (unsigned long long)others);
	if (cb->n[bl] != 100 || wb.events != 100 || lost_b)
		fail(name, "session B: %llu blob events of %llu (100), %llu lost",
		     (unsigned long long)cb->n[bl], (unsigned long long)wb.events,
		     (unsigned long long)lost_b);
	pass(name, "A (discard, 8 x 4 KiB): %llu sched_switch + 100 fields; B (overwrite, "
		   "4 x 16 KiB): 100 blobs only", (unsigned long long)ca->n[sw]);
}

/* Per CPU: the idle events seen, and whether each entry was followed by its exit. */
struct idle_check {
	int idle_id, switch_id;
	uint64_t entries, exits;
	uint64_t wrong_cpu;		/* cpu_id is not the stream's CPU */
	uint64_t switch_in_idle;	/* sched_switch between an entry and its exit */
	uint64_t unpaired;		/* two entries, or two exits, in a row */
	int state[64];			/* per CPU: -1 unknown, 1 idle, 0 not */
};

static void check_idle(const char *name, const struct event *ev, void *arg)
{
	struct idle_check *c = arg;
	int *st = &c->state[ev->cpu % 64];
	uint32_t state, cpu_id;

	if ((int)ev->id == c->switch_id) {
		c->switch_in_idle += *st == 1;
		return;
	}
	if ((int)ev->id != c->idle_id)
		return;
	if (ev->size < 8)
		fail(name, "cpu_idle: a payload of %zu bytes", ev->size);
	memcpy(&state, ev->payload, 4);
	memcpy(&cpu_id, ev->payload + 4, 4);
	c->wrong_cpu += cpu_id != ev->cpu;
	if (state == UINT32_MAX) {
		c->exits++;
		c->unpaired += *st == 0;
		*st = 0;
	} else {
		c->entries++;
		c->unpaired += *st == 1;
		*st = 1;
	}
}

/*
 * cpu_idle: a sleeping guest idles its CPUs; every event names the CPU of
 * its stream, entries and exits alternate, and no switch comes between an
 * entry and its exit: entry is the vCPU's last event before it halts, exit
 * its first after (what merge's run intervals rely on).
 */
static void test_cpu_idle(const char *name)
{
	static const char *const events[] = { "sched_switch", "cpu_idle", NULL };
	struct idle_check c = { .entries = 0 };
	struct session s;
	struct walk w = { 0 };
	uint64_t lost;
	int i;

	for (i = 0; i < 64; i++)
		c.state[i] = -1;
	session_open(name, &s, 65536, 8, HVTRACE_MODE_DISCARD, events);
	session_ctl(name, &s, HVTRACE_SESSION_START);
	for (i = 0; i < 20; i++)
		usleep(5000);
	session_ctl(name, &s, HVTRACE_SESSION_STOP);
	c.idle_id = reg_id(&s.reg, "cpu_idle");
	c.switch_id = reg_id(&s.reg, "sched_switch");
	if (c.idle_id < 0 || c.switch_id < 0)
		fail(name, "cpu_idle or sched_switch not registered");
	session_drain(name, &s, &w, &lost, check_idle, &c);
	if (lost || !c.entries || !c.exits || c.wrong_cpu || c.unpaired || c.switch_in_idle)
		fail(name, "%llu entries, %llu exits, %llu lost (0), %llu on another CPU's "
		     "stream (0), %llu unpaired (0), %llu switches while idle (0)",
		     (unsigned long long)c.entries, (unsigned long long)c.exits,
		     (unsigned long long)lost, (unsigned long long)c.wrong_cpu,
		     (unsigned long long)c.unpaired, (unsigned long long)c.switch_in_idle);
	pass(name, "%llu idle entries and %llu exits in 100 ms, paired, on their own CPU's "
		   "stream, no switch in between", (unsigned long long)c.entries,
	     (unsigned long long)c.exits);
}

/* A filter registered by another module that drops odd pids leaves only even ones. */
static void test_filter_odd_pids(const char *name)
{
	static const char *const events[] = { "hvtrace_selftest_fields", NULL };
	unsigned int even = 0, i;
	struct session s;
	struct check c;
	struct walk w = { 0 };
	uint64_t lost;

	load_selftest(name);
	pin(0);		/* the children too: one stream, in emission order */
	session_open(name, &s, 65536, 4, HVTRACE_MODE_DISCARD, events);
	if (write_file(SELFTEST_PARAM("filter_odd"), "Y"))
		fail(name, "filter_odd=Y: %s", strerror(errno));
	session_ctl(name, &s, HVTRACE_SESSION_START);
	for (i = 0; i < 20; i++) {
		pid_t pid = fork();
		int status;

		if (pid == 0) {
			emit(name, 5);
			_exit(0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid || status)
			fail(name, "child %u failed", i);
		even += !(pid & 1);
	}
	session_ctl(name, &s, HVTRACE_SESSION_STOP);
	write_file(SELFTEST_PARAM("filter_odd"), "N");
	check_init(&c, &s.reg);
	c.only_even = 1;
	session_drain(name, &s, &w, &lost, check_event, &c);
	if (c.fields != 5ull * even || lost)
		fail(name, "%llu events, expected 5 x %u even children", (unsigned long long)c.fields,
		     even);
	if (even == 0 || even == 20)
		fail(name, "the children's pids were all %s: inconclusive", even ? "even" : "odd");
	pass(name, "%u of 20 children had even pids: %llu events, all of even pids",
	     even, (unsigned long long)c.fields);
}

/*
 * The mapping: read-only, GET_SUBBUF gives a packet in it only once one is
 * delivered, poll wakes then, PUT_SUBBUF checks its argument.
 */
static void test_mmap_poll(const char *name)
{
	static const char *const events[] = { "hvtrace_selftest_fields", NULL };
	struct hvtrace_stream_stats st = { 0 };
	struct hvtrace_subbuf sb;
	struct session s;
	struct pollfd p;
	uint32_t cpu = 0;
	const unsigned char *map;
	uint64_t bad = 12345;
	int stream;

	load_selftest(name);
	pin(0);
	session_open(name, &s, 4096, 4, HVTRACE_MODE_DISCARD, events);
	stream = ioctl(s.fd, HVTRACE_SESSION_STREAM, &cpu);
	if (stream < 0 || ioctl(stream, HVTRACE_STREAM_STATS, &st))
		fail(name, "stream: %s", strerror(errno));
	/* shared writable: the O_RDONLY fd already refuses it; private: the module */
	if (mmap(NULL, st.map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, stream, 0) != MAP_FAILED ||
	    errno != EPERM)
		fail(name, "a private writable mapping was not refused with EPERM");
	if (mmap(NULL, st.map_size, PROT_READ | PROT_EXEC, MAP_SHARED, stream, 0) != MAP_FAILED)
		fail(name, "an executable mapping was allowed");
	map = mmap(NULL, st.map_size, PROT_READ, MAP_SHARED, stream, 0);
	if (map == MAP_FAILED)
		fail(name, "mmap %llu bytes: %s", (unsigned long long)st.map_size, strerror(errno));
	p = (struct pollfd){ .fd = stream, .events = POLLIN };
	if (poll(&p, 1, 0) != 0)
		fail(name, "readable before any packet");
	if (ioctl(stream, HVTRACE_STREAM_GET_SUBBUF, &sb) == 0 || errno != EAGAIN)
		fail(name, "GET_SUBBUF with nothing delivered: %s", strerror(errno));
	session_ctl(name, &s, HVTRACE_SESSION_START);
	emit(name, 2);
	if (poll(&p, 1, 200) != 0)
		fail(name, "woken for two events, before any packet was delivered");
	emit(name, 100);	/* about 10 KiB: packets delivered */
	if (poll(&p, 1, 2000) != 1 || !(p.revents & POLLIN))
		fail(name, "poll did not wake for a delivered packet");
	if (ioctl(stream, HVTRACE_STREAM_GET_SUBBUF, &sb))
		fail(name, "GET_SUBBUF: %s", strerror(errno));
	if (sb.offset + sb.len > st.map_size || sb.len < HVT_CTF_PACKET_HEADER_SIZE ||
	    *(const uint32_t *)(map + sb.offset) != HVT_CTF_MAGIC)
		fail(name, "GET_SUBBUF: offset %llu length %llu is not a packet",
		     (unsigned long long)sb.offset, (unsigned long long)sb.len);
	if (ioctl(stream, HVTRACE_STREAM_GET_SUBBUF, &sb) == 0 || errno != EBUSY)
		fail(name, "a second GET_SUBBUF before PUT was allowed");
	if (ioctl(stream, HVTRACE_STREAM_PUT_SUBBUF, &bad) == 0 || errno != EINVAL)
		fail(name, "PUT_SUBBUF of another packet was allowed");
	if (ioctl(stream, HVTRACE_STREAM_PUT_SUBBUF, &sb.seq))
		fail(name, "PUT_SUBBUF: %s", strerror(errno));
	/* a packet got and never put is put when its fd closes: no reader sticks */
	if (ioctl(stream, HVTRACE_STREAM_GET_SUBBUF, &sb))
		fail(name, "GET_SUBBUF of the next packet: %s", strerror(errno));
	munmap((void *)map, st.map_size);
	close(stream);
	stream = ioctl(s.fd, HVTRACE_SESSION_STREAM, &cpu);
	if (stream < 0 || ioctl(stream, HVTRACE_STREAM_GET_SUBBUF, &sb) == 0 || errno != EAGAIN)
		fail(name, "after a holder closed: %s, not EAGAIN", strerror(errno));
	emit(name, 100);
	if (ioctl(stream, HVTRACE_STREAM_GET_SUBBUF, &sb))
		fail(name, "GET_SUBBUF after a holder closed: %s", strerror(errno));
	session_ctl(name, &s, HVTRACE_SESSION_STOP);
	pass(name, "read-only mapping of %llu bytes; poll quiet for 2 events, woken by a "
		   "packet; GET/PUT checked; a closed holder's packet put",
	     (unsigned long long)st.map_size);
}

#define CYCLES 200

/* A fork/exec/syscall load until killed. */
static void load_loop(void)
{
	for (;;) {
		pid_t pid = fork();

		if (pid == 0) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
		getppid();
	}
}

/*
 * 200 sessions enabled, started, stopped and closed under a fork/exec load,
 * the self-test module unloaded under an active session every 25 cycles;
 * every packet decodes, no oops, no leak.
 *
 * A holder session, opened before the load starts and closed after it ends,
 * keeps every probe connected: connecting a tracepoint patches kernel text
 * (its static key and static calls), and under TCG a vCPU running that text
 * while another patches it was seen stuck for good (re-executing a stale
 * int3). So the cycles change the refcounts, the enables and the sessions,
 * not the kernel's text; hvtrace.ko's own load/unload cycles are the clock
 * suite's.
 */
static void test_cycles(const char *name)
{
	static const char *const events[] = {
		"sched_switch", "sched_wakeup", "sched_process_fork", "sched_process_exec",
		"sched_process_exit", "irq_handler_entry", "irq_handler_exit", "softirq_entry",
		"softirq_exit", "sys_enter", "sys_exit", "cpu_idle", "hvtrace_selftest_fields", NULL
	};
	char problem[256] = "";
	int problems_before = kernel_log_problems(problem, sizeof(problem)), i, problems;
	uint64_t events_seen = 0, packets = 0, lost_total = 0;
	long warm = -1, after;
	pid_t loader[2];

	struct session holder;

	load_selftest(name);
	session_open(name, &holder, 4096, 2, HVTRACE_MODE_OVERWRITE, events);
	for (i = 0; i < 2; i++) {
		loader[i] = fork();
		if (loader[i] == 0)
			load_loop();
	}
	for (i = 0; i < CYCLES; i++) {
		struct session s;
		struct walk w = { 0 };
		uint64_t lost;

		session_open(name, &s, i % 2 ? 8192 : 4096, i % 3 ? 4 : 2,
			     i % 2 ? HVTRACE_MODE_OVERWRITE : HVTRACE_MODE_DISCARD, events);
		session_ctl(name, &s, HVTRACE_SESSION_START);
		emit(name, 10);
		usleep(2000);
		if (i % 25 == 24 && unload_named_module(SELFTEST_NAME))
			fail(name, "cycle %d: unload the self-test under a session: %s", i,
			     strerror(errno));
		session_ctl(name, &s, HVTRACE_SESSION_STOP);
		session_drain(name, &s, &w, &lost, NULL, NULL);
		close(s.fd);
		events_seen += w.events;
		packets += w.packets;
		lost_total += lost;
		if (i % 25 == 24)
			load_selftest(name);
		if (i == CYCLES / 4)
			warm = mem_free_kb();
	}
	after = mem_free_kb();
	for (i = 0; i < 2; i++) {
		kill(loader[i], SIGKILL);
		waitpid(loader[i], NULL, 0);
	}
	close(holder.fd);
	problems = kernel_log_problems(problem, sizeof(problem));
	if (problems < 0 || problems_before < 0)
		fail(name, "cannot read the kernel log");
	if (problems > problems_before)
		fail(name, "%d new suspicious kernel log lines, the last: %s",
		     problems - problems_before, problem);
	if (warm < 0 || after < 0 || warm - after > 4096)
		fail(name, "MemFree %ld kB at cycle %d, %ld kB at the end: leaked", warm,
		     CYCLES / 4, after);
	if (!events_seen)
		fail(name, "no event recorded in %d cycles", CYCLES);
	pass(name, "%d cycles, %llu events in %llu packets decoded (%llu lost), self-test "
		   "unloaded 8 times under a session; no oops; MemFree %+ld kB",
	     CYCLES, (unsigned long long)events_seen, (unsigned long long)packets,
	     (unsigned long long)lost_total, after - warm);
}

const struct guest_test kmod_tests[] = {
	{ "late_registration", test_late_registration },
	{ "fields_roundtrip", test_fields_roundtrip },
	{ "overrun_discard", test_overrun_discard },
	{ "overrun_overwrite", test_overrun_overwrite },
	{ "two_sessions", test_two_sessions },
	{ "cpu_idle", test_cpu_idle },
	{ "filter_odd_pids", test_filter_odd_pids },
	{ "mmap_poll", test_mmap_poll },
	{ "cycles_200", test_cycles },
};
const unsigned int nr_kmod_tests = sizeof(kmod_tests) / sizeof(kmod_tests[0]);
