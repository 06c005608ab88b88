/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * field_subst.h - one field of an event written as a given text instead of
 * its recorded value, by the field printers of every reader: how merge's
 * text and JSON show sched_switch's prev_state as the kernel's letters,
 * the same for the host and the guests (out/sched_state.h).
 */
#ifndef HVT_TOOLS_READ_FIELD_SUBST_H
#define HVT_TOOLS_READ_FIELD_SUBST_H

struct hvt_field_subst {
	const char *name;	/* the field's name */
	const char *text;	/* a word: written as it is in text, as a string in JSON */
};

#endif
