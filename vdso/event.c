// SPDX-License-Identifier: LGPL-2.1-only OR MIT
/*
 * event.c - event registration and the write path.
 *
 * Every translation unit that includes an event definition registers its own
 * struct hvt_event; copies with the same name share one id, and all copies
 * are enabled or disabled together. Events registered after the agent
 * connected (a dlopen'd library) are sent to it at once, so the metadata
 * always describes what the buffers hold. A library's events unregister
 * when it is unloaded; an id whose every copy is gone is kept with its
 * record, and given back if the same event registers again (the library
 * loaded anew), so reloading a library uses no new ids.
 *
 * The write path tests one word of the thread's buffer against the live
 * link's epoch (struct hvt_thread_buf.gate): it catches both a write
 * interrupted by a signal handler's and a buffer whose agent is gone, so
 * following agents across recordings costs the fast path nothing.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <hvtrace/app_proto.h>

#include "vdso/clock.h"
#include "vdso/internal.h"

static struct hvt_event *events;	/* every registered copy, newest first */
static uint32_t next_id;

/* An id no registered copy uses any more, and the record it was sent with. */
struct retired {
	struct retired *next;
	uint32_t id, size;
	unsigned char record[];
};
static struct retired *retired;
/*
 * initial-exec: one %fs-relative load per event. The default model of a
 * shared library calls __tls_get_addr() (LTTng-UST makes the same choice;
 * a pointer and an int fit glibc's static TLS surplus even under dlopen()).
 */
#define HVT_TLS __thread __attribute__((tls_model("initial-exec")))
static HVT_TLS struct hvt_thread_buf *tbuf;
static HVT_TLS uint32_t tbuf_failed;	/* 1 + the epoch in which this thread got no buffer */
static pthread_key_t tbuf_key;
static pthread_once_t tbuf_key_once = PTHREAD_ONCE_INIT;
static int tbuf_key_made;

static int same_layout(const struct hvt_event *a, const struct hvt_event *b)
{
	return a->nr_fields == b->nr_fields && a->payload_size == b->payload_size &&
	       !memcmp(a->fields, b->fields, a->nr_fields * sizeof(*a->fields)) &&
	       !strcmp(a->print_fmt, b->print_fmt);
}

static uint32_t record(const struct hvt_event *e, void *dst)
{
	return hvt_reg_event_write(dst, e->id, e->name, e->fields, e->nr_fields, e->print_fmt);
}

static int send_records(unsigned char *buf, uint32_t len)
{
	return len ? hvt_agent_send(HVT_A_REGISTRY, 0, buf, len, -1) : 0;
}

/*
 * Sends the description of every event, in as few messages as fit: one
 * record per id (copies of an id have one layout), in one pass.
 */
int hvt_events_send_registry(void)
{
	unsigned char *buf = malloc(HVT_APP_MAX_MSG), *sent = calloc(next_id / 8 + 1, 1);
	const struct hvt_event *e;
	uint32_t len = 0, nr = 0;
	int ret = 0;

	if (!buf || !sent) {
		free(buf);
		free(sent);
		return -1;
	}
	for (e = events; e && !ret; e = e->next) {
		uint32_t size;

		if (e->id == UINT32_MAX || (sent[e->id / 8] & (1u << (e->id % 8))))
			continue;
		sent[e->id / 8] |= (unsigned char)(1u << (e->id % 8));
		size = record(e, NULL);
		/* by bytes, and by records: a message may hold one update's worth */
		if (len + size > HVT_APP_MAX_MSG - sizeof(struct hvt_app_hdr) ||
		    nr == HVT_REG_MAX_PER_UPDATE) {
			ret = send_records(buf, len);
			len = 0;
			nr = 0;
		}
		len += record(e, buf + len);
		nr++;
	}
	if (!ret)
		ret = send_records(buf, len);
	free(buf);
	free(sent);
	return ret;
}

void hvt_events_set_enabled(int enabled)
{
	struct hvt_event *e;

	for (e = events; e; e = e->next)
		e->enabled = enabled && e->id != UINT32_MAX;
}

#define RECORD_MAX (sizeof(struct hvt_reg_event) + \
		    HVT_REG_MAX_FIELDS * sizeof(struct hvt_reg_field) + HVT_REG_MAX_FMT + 8)

/* The id @ev had before every copy of it was unregistered, if its record is the same. */
static uint32_t retired_id(const struct hvt_event *ev, unsigned char *rec)
{
	struct retired **pp, *r;
	uint32_t id;

	for (pp = &retired; (r = *pp); pp = &r->next)
		if (r->size == hvt_reg_event_write(rec, r->id, ev->name, ev->fields,
						   ev->nr_fields, ev->print_fmt) &&
		    !memcmp(rec, r->record, r->size)) {
			*pp = r->next;
			id = r->id;
			free(r);
			return id;
		}
	return UINT32_MAX;
}

void hvt_event_register(struct hvt_event *ev)
{
	const struct hvt_event *e;
	unsigned char rec[RECORD_MAX];
	int fresh = 1;

	pthread_mutex_lock(&hvt_lock);
	/* a copy that holds the name's id: disabled copies of another layout do not */
	for (e = events; e; e = e->next)
		if (e->id != UINT32_MAX && !strcmp(e->name, ev->name)) {
			fresh = 0;
			break;
		}
	if (!fresh && !same_layout(e, ev)) {
		hvt_debug_msg("event %s defined twice with different fields; "
			      "this definition stays disabled", ev->name);
		ev->id = UINT32_MAX;
	} else if (!fresh) {
		ev->id = e->id;
	} else {
		ev->id = retired_id(ev, rec);
		if (ev->id == UINT32_MAX)
			ev->id = next_id++;
	}
	ev->next = events;
	events = ev;
	if (ev->id != UINT32_MAX && hvt_agent_state() == 1) {
		if (fresh && send_records(rec, record(ev, rec)))
			hvt_agent_disconnect();
		else
			ev->enabled = 1;
	} else if (hvt_agent_state() == 0) {
		hvt_agent_connected();
	}
	pthread_mutex_unlock(&hvt_lock);
}

void hvt_event_unregister(struct hvt_event *ev)
{
	struct hvt_event **pp, *e;
	struct retired *r;
	uint32_t size;

	pthread_mutex_lock(&hvt_lock);
	for (pp = &events; *pp && *pp != ev; pp = &(*pp)->next)
		;
	if (*pp) {
		*pp = ev->next;
		for (e = events; e && e->id != ev->id; e = e->next)
			;
		/* the last copy of its id: keep the id for the same event later */
		if (!e && ev->id != UINT32_MAX) {
			size = record(ev, NULL);
			r = malloc(sizeof(*r) + size);
			if (r) {
				r->id = ev->id;
				r->size = record(ev, r->record);
				r->next = retired;
				retired = r;
			}
		}
	}
	ev->enabled = 0;
	ev->next = NULL;
	pthread_mutex_unlock(&hvt_lock);
}

static void thread_exit(void *p)
{
	tbuf = NULL;
	hvt_thread_buf_release(p, 1);
}

static void make_key(void)
{
	tbuf_key_made = !pthread_key_create(&tbuf_key, thread_exit);
}

/*
 * The write path's exceptions: no buffer yet; a write in progress that a
 * signal handler's interrupted (refused, counted as lost); or a buffer whose
 * agent is gone, replaced by one registered with the live agent.
 */
static struct hvt_thread_buf *thread_buf_slow(struct hvt_thread_buf *tb)
{
	uint32_t epoch = hvt_epoch;

	if (tb && !tb->gate) {
		tb->nested_lost++;
		return NULL;
	}
	if (tb) {
		tbuf = NULL;
		pthread_setspecific(tbuf_key, NULL);
		hvt_thread_buf_release(tb, 0);
	}
	if (tbuf_failed == epoch + 1)
		return NULL;
	pthread_once(&tbuf_key_once, make_key);
	tb = hvt_thread_buf_create();
	if (!tb) {
		tbuf_failed = epoch + 1;
		return NULL;
	}
	tbuf = tb;
	pthread_setspecific(tbuf_key, tb);
	return tb;
}

void *hvt_event_reserve(struct hvt_event *ev, unsigned int size, struct hvt_write *w)
{
	struct hvt_thread_buf *tb = tbuf;
	uint32_t cpu;
	__u64 end;
	void *p;

	if (hvt_unlikely(!tb) || hvt_unlikely(tb->gate != hvt_epoch)) {
		tb = thread_buf_slow(tb);
		if (!tb)
			return NULL;
	}
	tb->gate = 0;		/* busy */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	w->ts = hvt_clock_read_event(&cpu);
	p = hvt_rb_reserve(&tb->rb, ev->id, w->ts, cpu, tb->tid, size, &end);
	if (hvt_unlikely(!p)) {
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		tb->gate = tb->epoch;
		return NULL;
	}
	w->buffer = tb;
	w->end = end;
	return p;
}

void hvt_event_commit(struct hvt_write *w)
{
	struct hvt_thread_buf *tb = w->buffer;

	hvt_rb_commit(&tb->rb, w->ts, w->end);
	if (hvt_unlikely(tb->nested_lost)) {
		sig_atomic_t n = __atomic_exchange_n(&tb->nested_lost, 0, __ATOMIC_RELAXED);

		hvt_write_once(tb->rb.prod->lost, tb->rb.prod->lost + (uint64_t)n);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	tb->gate = tb->epoch;
}

/* In a forked child: the buffers are the parent's; forget them, reconnect lazily. */
static void after_fork_child(void)
{
	pthread_mutex_init(&hvt_lock, NULL);
	if (tbuf)
		hvt_thread_buf_release(tbuf, 0);
	hvt_buffers_forget();
	tbuf = NULL;
	tbuf_failed = 0;
	if (tbuf_key_made)
		pthread_setspecific(tbuf_key, NULL);
	hvt_agent_forget();
	hvt_watch_forget();
	/* the child's first event connects, and starts its watcher (agent.c) */
	hvt_events_set_enabled(1);
}

static void before_fork(void)
{
	pthread_mutex_lock(&hvt_lock);
}

static void after_fork_parent(void)
{
	pthread_mutex_unlock(&hvt_lock);
}

__attribute__((constructor)) static void hvt_init(void)
{
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}
