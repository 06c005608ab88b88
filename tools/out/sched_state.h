/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sched_state.h - sched_switch's prev_state as merge's text and JSON show
 * it, for the host and every guest alike: the kernel's letters as it and
 * trace-cmd print them ("R", "R+", "S", "D", "D|W"), from the event
 * decoder, the one place that reads each producer's bits (ftrace's differ
 * between kernel versions, hvtrace.ko's are its own). The recorded number
 * stays in the CTF export, whose metadata declares the field an integer.
 */
#ifndef HVT_TOOLS_OUT_SCHED_STATE_H
#define HVT_TOOLS_OUT_SCHED_STATE_H

#include "tools/read/event_decoder.h"
#include "tools/read/field_subst.h"
#include "tools/session/source.h"

struct hvt_sched_state {
	struct hvt_event_decoder dec;	/* sched_switch only */
	struct hvt_field_subst sub;	/* prev_state, as text */
	char text[8];
};

/* -1 if out of memory. */
int hvt_sched_state_init(struct hvt_sched_state *st);
void hvt_sched_state_free(struct hvt_sched_state *st);
/*
 * For the current event of @s, the field printers' substitution: its
 * prev_state in letters if it is a sched_switch, else NULL (its fields as
 * they are). Valid until the next call.
 */
const struct hvt_field_subst *hvt_sched_state_of(struct hvt_sched_state *st,
						 struct hvt_source *s);

#endif
