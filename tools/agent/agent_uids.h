/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * agent_uids.h - each user's share of what the agent gives applications:
 * the recording's trace ids and stream ids (never reused) and the agent's
 * connections (held while a process is connected). One user may take at
 * most --uid-share percent of each, so that one user's processes (a
 * daemon forking workers, or a hostile local user on the host agent of
 * hvtrace record --host-apps) cannot leave the others' untraced.
 */
#ifndef HVT_TOOLS_AGENT_AGENT_UIDS_H
#define HVT_TOOLS_AGENT_AGENT_UIDS_H

#include <stdbool.h>
#include <stdint.h>

#define AGENT_UID_SHARE_DEFAULT	25	/* percent */
#define AGENT_UIDS_MAX		4096	/* users known at once; past it, none more */

enum agent_uid_kind {
	AGENT_UID_TRACES,	/* trace ids taken over the recording */
	AGENT_UID_STREAMS,	/* stream ids taken over the recording */
	AGENT_UID_CONNECTIONS,	/* connections held now */
	AGENT_UID_NR_KINDS
};

struct agent_uid_use {
	uint32_t uid;
	uint32_t used[AGENT_UID_NR_KINDS];
};

struct agent_uids {
	unsigned int percent;		/* 1..100; 0 is taken as the default */
	bool limit_root;		/* root's processes too (tests); by default not:
					 * root can stop the agent anyway, and a guest
					 * often runs everything as root */
	struct agent_uid_use *v;
	unsigned int n, cap;
};

/* How many of @total one user may have: @percent of it, at least 1. */
uint32_t agent_uid_share(const struct agent_uids *u, uint32_t total);
/*
 * Takes one of @kind (of @total in all) for @uid: 0, or -1 when the user
 * has its share already (or is one user too many, or memory ran out).
 */
int agent_uid_take(struct agent_uids *u, uint32_t uid, enum agent_uid_kind kind,
		   uint32_t total);
/* Gives one back (a connection that ended, an id that was not used after all). */
void agent_uid_put(struct agent_uids *u, uint32_t uid, enum agent_uid_kind kind);
void agent_uids_free(struct agent_uids *u);

#endif
