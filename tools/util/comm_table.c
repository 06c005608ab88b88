// SPDX-License-Identifier: GPL-2.0-only
/*
 * comm_table.c - threads' names by machine and tid (comm_table.h).
 */
#include <stdlib.h>
#include <string.h>

#include "tools/util/comm_table.h"

struct hvt_comm_entry {
	uint64_t key;			/* machine << 32 | tid, + 1; 0: free */
	char comm[HVT_COMM_TABLE_LEN];
};

static uint64_t key_of(uint32_t machine, int32_t tid)
{
	return ((uint64_t)machine << 32 | (uint32_t)tid) + 1;
}

static struct hvt_comm_entry *slot(struct hvt_comm_entry *v, size_t cap, uint64_t key)
{
	size_t i = (size_t)(key * 0x9e3779b97f4a7c15ull >> 40) & (cap - 1);

	while (v[i].key && v[i].key != key)
		i = (i + 1) & (cap - 1);
	return &v[i];
}

int hvt_comm_table_init(struct hvt_comm_table *t)
{
	t->n = 0;
	t->cap = 256;
	t->v = calloc(t->cap, sizeof(*t->v));
	return t->v ? 0 : -1;
}

static int grow(struct hvt_comm_table *t)
{
	size_t cap = t->cap * 2, i;
	struct hvt_comm_entry *v = calloc(cap, sizeof(*v));

	if (!v)
		return -1;
	for (i = 0; i < t->cap; i++)
		if (t->v[i].key)
			*slot(v, cap, t->v[i].key) = t->v[i];
	free(t->v);
	t->v = v;
	t->cap = cap;
	return 0;
}

int hvt_comm_table_set(struct hvt_comm_table *t, uint32_t machine, int32_t tid, const char *comm)
{
	struct hvt_comm_entry *e;
	size_t len;

	if (tid <= 0 || !comm[0])
		return 0;
	if (t->n * 2 >= t->cap && grow(t))
		return -1;
	e = slot(t->v, t->cap, key_of(machine, tid));
	if (!e->key) {
		e->key = key_of(machine, tid);
		t->n++;
	}
	len = strnlen(comm, sizeof(e->comm) - 1);	/* on every switch: no snprintf() */
	memcpy(e->comm, comm, len);
	e->comm[len] = '\0';
	return 0;
}

const char *hvt_comm_table_get(const struct hvt_comm_table *t, uint32_t machine, int32_t tid)
{
	const struct hvt_comm_entry *e;

	if (tid <= 0 || !t->v)
		return NULL;
	e = slot(t->v, t->cap, key_of(machine, tid));
	return e->key ? e->comm : NULL;
}

void hvt_comm_table_free(struct hvt_comm_table *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}
