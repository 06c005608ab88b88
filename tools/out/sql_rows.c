// SPDX-License-Identifier: GPL-2.0-only
/*
 * sql_rows.c - the rows the pass makes (events, arg sets, slices, states,
 * vCPU pieces, CPUs), handed in batches to a thread of their own that
 * binds and inserts them (sql_private.h).
 *
 * The pass (reading, aligning, merging, the models, the fields' JSON) and
 * SQLite's inserts take about as long as each other; on two threads they
 * overlap. A batch holds a few thousand rows, their values and a copy of
 * their texts; a few batches go round between the two threads, so memory
 * is flat. Without a thread (pthread_create failed), each batch is written
 * where it fills. The connection is the writer's from hvt_sql_rows_start()
 * to hvt_sql_rows_finish(), the caller's before and after.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "tools/out/sql_private.h"

#define BATCH_ROWS	4096
#define ROW_VALUES	12		/* the most parameters of a statement */
#define BATCH_TEXT	(4u << 20)	/* a batch with more text goes at once */
#define NR_BATCHES	3

enum value_kind { VALUE_NULL, VALUE_INT, VALUE_TEXT };

struct sql_value {
	int64_t i;			/* VALUE_TEXT: its offset in the batch's text */
	uint32_t len;
	uint8_t kind;
};

struct sql_batch {
	struct sql_batch *next;
	size_t rows, values;
	uint8_t stmt[BATCH_ROWS], count[BATCH_ROWS];
	struct sql_value v[BATCH_ROWS * ROW_VALUES];
	char *text;
	size_t text_len, text_cap;
};

struct sql_rows {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct sql_batch *free, *full, **full_tail;
	struct sql_batch *fill;		/* the pass's */
	bool threaded, done;
	bool finished;			/* hvt_sql_rows_finish() ran: no more rows */
	pthread_t writer;
	size_t row_start;		/* fill's current row: its first value */
};

void hvt_sql_fail(struct hvt_sql_out *o, const char *why)
{
	if (!__atomic_exchange_n(&o->failed, true, __ATOMIC_RELAXED))
		hvt_err("%s: %s", o->path, why);
}

static void batch_reset(struct sql_batch *b)
{
	b->rows = b->values = b->text_len = 0;
	b->next = NULL;
}

static void bind_value(sqlite3_stmt *st, int i, const struct sql_batch *b,
		       const struct sql_value *v)
{
	if (v->kind == VALUE_INT)
		sqlite3_bind_int64(st, i, v->i);
	else if (v->kind == VALUE_TEXT)	/* "" may come before the batch has a text */
		sqlite3_bind_text(st, i, v->len ? b->text + v->i : "", (int)v->len, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

/* Every row of @b into its table; after a failure (said once), none. */
static void write_batch(struct hvt_sql_out *o, const struct sql_batch *b)
{
	const struct sql_value *v = b->v;
	size_t r;
	int j;

	for (r = 0; r < b->rows && !__atomic_load_n(&o->failed, __ATOMIC_RELAXED); r++) {
		sqlite3_stmt *st = o->stmt[b->stmt[r]];

		for (j = 0; j < b->count[r]; j++)
			bind_value(st, j + 1, b, &v[j]);
		v += b->count[r];
		hvt_sql_step(o, st);
	}
}

static void *writer_main(void *arg)
{
	struct hvt_sql_out *o = arg;
	struct sql_rows *q = o->rows;
	struct sql_batch *b;

	for (;;) {
		pthread_mutex_lock(&q->lock);
		while (!q->full && !q->done)
			pthread_cond_wait(&q->changed, &q->lock);
		b = q->full;
		if (b) {
			q->full = b->next;
			if (!q->full)
				q->full_tail = &q->full;
		}
		pthread_mutex_unlock(&q->lock);
		if (!b)
			return NULL;	/* done, and nothing left */
		write_batch(o, b);
		batch_reset(b);
		pthread_mutex_lock(&q->lock);
		b->next = q->free;
		q->free = b;
		pthread_cond_broadcast(&q->changed);
		pthread_mutex_unlock(&q->lock);
	}
}

int hvt_sql_rows_start(struct hvt_sql_out *o)
{
	struct sql_rows *q = calloc(1, sizeof(*q));
	int i;

	if (!q)
		return -1;
	o->rows = q;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->changed, NULL);
	q->full_tail = &q->full;
	for (i = 0; i < NR_BATCHES; i++) {
		struct sql_batch *b = calloc(1, sizeof(*b));

		if (!b)
			return -1;
		b->next = q->free;
		q->free = b;
	}
	q->fill = q->free;
	q->free = q->fill->next;
	batch_reset(q->fill);
	q->threaded = !pthread_create(&q->writer, NULL, writer_main, o);
	return 0;
}

/* The batch being filled goes to the writer; the pass takes a free one. */
static void submit(struct hvt_sql_out *o)
{
	struct sql_rows *q = o->rows;
	struct sql_batch *b = q->fill;

	if (!q->threaded) {
		write_batch(o, b);
		batch_reset(b);
		return;
	}
	pthread_mutex_lock(&q->lock);
	*q->full_tail = b;
	q->full_tail = &b->next;
	pthread_cond_broadcast(&q->changed);
	while (!q->free)
		pthread_cond_wait(&q->changed, &q->lock);
	q->fill = q->free;
	q->free = q->fill->next;
	pthread_mutex_unlock(&q->lock);
	batch_reset(q->fill);
}

void hvt_sql_row(struct hvt_sql_out *o, enum sql_stmt stmt)
{
	struct sql_batch *b = o->rows->fill;

	if (o->rows->finished)	/* a row nobody would write: lost, so the database fails */
		hvt_sql_fail(o, "an SQL row after the last (a bug)");

	b->stmt[b->rows] = (uint8_t)stmt;
	b->count[b->rows] = 0;
	o->rows->row_start = b->values;
}

static struct sql_value *next_value(struct hvt_sql_out *o)
{
	static struct sql_value spare;	/* past a row's last: a caller's mistake, said */
	struct sql_batch *b = o->rows->fill;

	if (b->values - o->rows->row_start >= ROW_VALUES) {
		hvt_sql_fail(o, "an SQL row of too many values (a bug)");
		return &spare;
	}
	b->count[b->rows]++;
	return &b->v[b->values++];
}

void hvt_sql_int(struct hvt_sql_out *o, int64_t v)
{
	*next_value(o) = (struct sql_value){ .i = v, .kind = VALUE_INT };
}

void hvt_sql_opt(struct hvt_sql_out *o, int64_t v, bool null)
{
	*next_value(o) = (struct sql_value){ .i = v, .kind = null ? VALUE_NULL : VALUE_INT };
}

void hvt_sql_text(struct hvt_sql_out *o, const char *s, size_t len)
{
	struct sql_batch *b = o->rows->fill;
	struct sql_value *v = next_value(o);

	*v = (struct sql_value){ .kind = VALUE_NULL };
	if (!s)
		return;
	if (b->text_len + len > b->text_cap) {
		size_t cap = b->text_cap ? b->text_cap : 64 << 10;
		char *t;

		while (cap < b->text_len + len)
			cap *= 2;
		t = realloc(b->text, cap);
		if (!t) {
			hvt_sql_fail(o, "out of memory");
			return;
		}
		b->text = t;
		b->text_cap = cap;
	}
	if (len)
		memcpy(b->text + b->text_len, s, len);
	*v = (struct sql_value){ .i = (int64_t)b->text_len, .len = (uint32_t)len,
				 .kind = VALUE_TEXT };
	b->text_len += len;
}

void hvt_sql_row_end(struct hvt_sql_out *o)
{
	struct sql_batch *b = o->rows->fill;

	b->rows++;
	if (b->rows == BATCH_ROWS || b->text_len >= BATCH_TEXT)
		submit(o);
}

int hvt_sql_rows_finish(struct hvt_sql_out *o)
{
	struct sql_rows *q = o->rows;

	if (!q || !q->fill)
		return -1;
	if (q->fill->rows && !q->finished)
		submit(o);
	q->finished = true;
	if (q->threaded) {
		pthread_mutex_lock(&q->lock);
		q->done = true;
		pthread_cond_broadcast(&q->changed);
		pthread_mutex_unlock(&q->lock);
		pthread_join(q->writer, NULL);
		q->threaded = false;
	}
	return __atomic_load_n(&o->failed, __ATOMIC_RELAXED) ? -1 : 0;
}

void hvt_sql_rows_free(struct hvt_sql_out *o)
{
	struct sql_rows *q = o->rows;
	struct sql_batch *lists[3], *b, *next;
	int i;

	if (!q)
		return;
	hvt_sql_rows_finish(o);
	lists[0] = q->free;
	lists[1] = q->full;
	lists[2] = q->fill;
	if (q->fill)
		q->fill->next = NULL;
	for (i = 0; i < 3; i++)
		for (b = lists[i]; b; b = next) {
			next = b->next;
			free(b->text);
			free(b);
		}
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->changed);
	free(q);
	o->rows = NULL;
}
