/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * event_feed.h - a time line's scheduling and KVM events as typed
 * callbacks, for the readers that follow the host's and the guests'
 * scheduling (check, analyze, the JSON output's vCPU tracks).
 *
 * Fed every event a time line returns, in its order, the feed decodes
 * (read/event_decoder.h) the host layer's, the guests' kernels' and QEMU's
 * logs' events of the kinds its listener takes, and calls the listener's function for each.
 * It knows no kind: a new one is the decoder's, and its reader's. It also
 * tells of the host layer's losses: a host CPU file that lost events, or
 * skipped damaged data, between two of its events (or before its first)
 * has a gap where anything may have happened, said as host_lost(cpu,
 * from, until) - from the event before the gap (0: the start) to the one
 * after it (UINT64_MAX: none came). A gap is told when the time line
 * moves past the event before it, so before any later event of the time
 * line; the gaps before each CPU's first event come at hvt_event_feed_init(),
 * and so does one gap over the whole trace (0 to UINT64_MAX) for each host
 * CPU whose file could not be read at all.
 */
#ifndef HVT_TOOLS_MERGE_EVENT_FEED_H
#define HVT_TOOLS_MERGE_EVENT_FEED_H

#include <stdbool.h>
#include <stdint.h>

#include "tools/read/event_decoder.h"
#include "tools/session/session.h"

/* One decoded event of the time line. */
struct hvt_fed_event {
	struct hvt_source *src;		/* its source: layer, VM (vm_number), ... */
	uint64_t ts;			/* its host TSC (src->host_tsc) */
	uint32_t cpu;			/* host events: the host CPU; guest events: the
					 * guest's CPU (HVT_NO_CPU: none, and QEMU's) */
	int32_t tid;			/* the task current when it was recorded */
	struct hvt_typed_event ev;
};

typedef void (*hvt_fed_fn)(void *ctx, const struct hvt_fed_event *e);

/*
 * What a reader of the feed takes: a function per kind of event
 * (read/event_decoder.h) of the host layer and of the guests' kernels;
 * kinds without one are not decoded.
 */
struct hvt_event_listener {
	hvt_fed_fn host[HVT_NR_EV_KINDS];
	hvt_fed_fn guest[HVT_NR_EV_KINDS];
	hvt_fed_fn vmm[HVT_NR_EV_KINDS];	/* QEMU's log (src->vmm_vm: its VM, if known) */
	void (*host_lost)(void *ctx, uint32_t cpu, uint64_t from, uint64_t until);
	/* Optional: whether the current event of @s is of no interest now (not decoded). */
	bool (*skip)(void *ctx, const struct hvt_source *s);
	bool comms;			/* the comm fields are read */
};

struct hvt_event_feed {
	const struct hvt_event_listener *l;
	void *ctx;
	const struct hvt_session *ses;
	struct hvt_event_decoder host, guest, vmm;
	uint64_t *damage;		/* per source: lost events and warnings so far */
	struct hvt_source *prev;	/* fed last, and its time then */
	uint64_t prev_tsc;
};

/*
 * A feed of the time line of @ses, once it is open (its sources at their
 * first events), to @l with @ctx; tells the gaps before the host CPUs'
 * first events. -1 if out of memory.
 */
int hvt_event_feed_init(struct hvt_event_feed *f, const struct hvt_session *ses,
			const struct hvt_event_listener *l, void *ctx);
/* Each event the time line returns, in turn. */
void hvt_event_feed(struct hvt_event_feed *f, struct hvt_source *s);
void hvt_event_feed_free(struct hvt_event_feed *f);

#endif
