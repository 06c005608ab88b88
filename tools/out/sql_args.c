// SPDX-License-Identifier: GPL-2.0-only
/*
 * sql_args.c - the SQL export's arg sets: an event's fields as one JSON
 * object, a row of arg_set shared by every event with the same fields, as
 * Perfetto shares its arg sets (sql_private.h).
 *
 * Most events repeat the fields of an earlier one (a sched_switch between
 * the same two threads, a tracepoint's constant arguments): a cache of the
 * sets written lately finds the earlier row. It is direct mapped and of a
 * fixed size, so memory stays flat; a set it forgot is written again, as
 * a new row: two equal sets may have two ids, never one id two sets.
 */
#include <stdlib.h>
#include <string.h>

#include "tools/out/sql_private.h"

#define CACHE_SLOTS	(1u << 15)
#define CACHED_MAX	(SQL_ARG_SLOT_TEXT)	/* a longer set is written, not cached */

/* The cache's index and a first comparison: a word at a time, mixed (murmur3's constants). */
static uint64_t hash_of(const char *s, size_t len)
{
	uint64_t h = len * 0x9e3779b97f4a7c15ull, w;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, s + i, len - i);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	return h ^ h >> 29;
}

int hvt_sql_args_init(struct hvt_sql_out *o)
{
	o->arg_cache = calloc(CACHE_SLOTS, sizeof(*o->arg_cache));	/* pages touched when used */
	return o->arg_cache ? 0 : -1;
}

void hvt_sql_args_free(struct hvt_sql_out *o)
{
	free(o->arg_cache);
	o->arg_cache = NULL;
}

static int64_t insert_set(struct hvt_sql_out *o, const char *text, size_t len)
{
	int64_t id = ++o->arg_sets;

	hvt_sql_row(o, SQL_ARG_SET);
	hvt_sql_int(o, id);
	hvt_sql_text(o, text, len);
	hvt_sql_row_end(o);
	return id;
}

int64_t hvt_sql_arg_set(struct hvt_sql_out *o, const char *text, size_t len)
{
	uint64_t h = hash_of(text, len);
	struct sql_arg_slot *slot = &o->arg_cache[h & (CACHE_SLOTS - 1)];
	int64_t id;

	if (slot->id && slot->hash == h && slot->len == len && !memcmp(slot->text, text, len))
		return slot->id;
	id = insert_set(o, text, len);
	if (len <= CACHED_MAX) {
		slot->hash = h;
		slot->len = (uint32_t)len;
		slot->id = id;
		memcpy(slot->text, text, len);
	}
	return id;
}
