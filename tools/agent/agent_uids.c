// SPDX-License-Identifier: GPL-2.0-only
/*
 * agent_uids.c - each user's share of the agent's trace ids, stream ids
 * and connections (agent_uids.h).
 */
#include <stdlib.h>

#include "tools/agent/agent_uids.h"

uint32_t agent_uid_share(const struct agent_uids *u, uint32_t total)
{
	unsigned int percent = u->percent ? u->percent : AGENT_UID_SHARE_DEFAULT;
	uint64_t share = (uint64_t)total * (percent > 100 ? 100 : percent) / 100;

	return share ? (uint32_t)share : 1;
}

static struct agent_uid_use *find(struct agent_uids *u, uint32_t uid, int add)
{
	struct agent_uid_use *v;
	unsigned int i;

	for (i = 0; i < u->n; i++)
		if (u->v[i].uid == uid)
			return &u->v[i];
	if (!add || u->n == AGENT_UIDS_MAX)
		return NULL;
	if (u->n == u->cap) {
		unsigned int cap = u->cap ? 2 * u->cap : 16;

		v = realloc(u->v, cap * sizeof(*v));
		if (!v)
			return NULL;
		u->v = v;
		u->cap = cap;
	}
	u->v[u->n] = (struct agent_uid_use){ .uid = uid };
	return &u->v[u->n++];
}

int agent_uid_take(struct agent_uids *u, uint32_t uid, enum agent_uid_kind kind,
		   uint32_t total)
{
	struct agent_uid_use *e;

	if (!uid && !u->limit_root)
		return 0;
	e = find(u, uid, 1);
	if (!e || e->used[kind] >= agent_uid_share(u, total))
		return -1;
	e->used[kind]++;
	return 0;
}

void agent_uid_put(struct agent_uids *u, uint32_t uid, enum agent_uid_kind kind)
{
	struct agent_uid_use *e = find(u, uid, 0);

	if (e && e->used[kind])
		e->used[kind]--;
}

void agent_uids_free(struct agent_uids *u)
{
	free(u->v);
	*u = (struct agent_uids){ .percent = u->percent, .limit_root = u->limit_root };
}
