// SPDX-License-Identifier: GPL-2.0-only
/*
 * sched_state.c - sched_switch's prev_state in letters (sched_state.h).
 */
#include <string.h>

#include "tools/out/sched_state.h"

int hvt_sched_state_init(struct hvt_sched_state *st)
{
	memset(st, 0, sizeof(*st));
	st->sub.name = "prev_state";
	st->sub.text = st->text;
	return hvt_event_decoder_init(&st->dec, HVT_EV_BIT(HVT_EV_SCHED_SWITCH), false);
}

void hvt_sched_state_free(struct hvt_sched_state *st)
{
	hvt_event_decoder_free(&st->dec);
}

const struct hvt_field_subst *hvt_sched_state_of(struct hvt_sched_state *st,
						 struct hvt_source *s)
{
	struct hvt_typed_event e;

	static const char name[] = "sched_switch";

	if (s->ev.name_len != sizeof(name) - 1 || memcmp(s->ev.name, name, sizeof(name) - 1) ||
	    hvt_decode_reader(&st->dec, &s->rd, &s->ev, &e) != HVT_EV_SCHED_SWITCH)
		return NULL;
	memcpy(st->text, e.sw.end_state, sizeof(st->text));
	return &st->sub;
}
