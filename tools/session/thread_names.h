/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * thread_names.h - the name of the thread current at each event of a time
 * line, as it streams: the last name a sched_switch of the event's machine
 * (the host, or the VM) gave the thread; before its first switch, a host
 * thread's name as the recording listed it (host/ftrace/tasks.tsv); for a
 * user event whose thread no switch named, its process's name as the trace
 * recorded it. Read by
 * merge's --comm and by the text output's thread column.
 *
 * hvt_thread_names_learn() must see every event read, selected or not, in
 * time-line order: a thread's events on a CPU follow its switch in there.
 */
#ifndef HVT_TOOLS_SESSION_THREAD_NAMES_H
#define HVT_TOOLS_SESSION_THREAD_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "tools/read/event_decoder.h"
#include "tools/util/comm_table.h"
#include "tools/session/source.h"

struct hvt_session;

struct hvt_thread_names {
	const struct hvt_session *ses;	/* its VMs' traces: user events' process names */
	struct hvt_event_decoder dec;	/* sched_switch, with its comms */
	struct hvt_comm_table names;	/* (machine, tid) -> the last name */
};

/* Knows no name yet; -1 if out of memory. */
int hvt_thread_names_init(struct hvt_thread_names *n, const struct hvt_session *ses);
/* Learns from the current event of @s (a sched_switch names two threads). */
void hvt_thread_names_learn(struct hvt_thread_names *n, struct hvt_source *s);
/*
 * The name of the thread current at @s's event: from its machine's
 * switches, else (a host event) the recording's list of host threads, else
 * (a user event) its process's; NULL if none is known.
 */
const char *hvt_thread_names_get(const struct hvt_thread_names *n, const struct hvt_source *s);
/* The process name the trace of user event @s's stream recorded; NULL if none. */
const char *hvt_thread_names_process(const struct hvt_thread_names *n,
				     const struct hvt_source *s);
void hvt_thread_names_free(struct hvt_thread_names *n);

/*
 * @comm as one word of text output, in @out (HVT_COMM_TABLE_LEN bytes):
 * a blank or control character becomes '_' (so "CPU 0/TCG" reads
 * "CPU_0/TCG"); whether anything was replaced.
 */
bool hvt_thread_name_word(const char *comm, char *out);

#endif
