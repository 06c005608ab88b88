/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * select.h - which events a merge keeps: `hvtrace merge`'s --from, --to,
 * --layer, --vm, --cpu and --event.
 *
 * What a whole stream decides (its layer, its VM, a per-CPU stream's CPU) is
 * decided once, before the stream is read (hvt_select_source(), for
 * hvt_timeline_init()); the rest per event. Times are given in the unit
 * the output shows (--time): seconds.nanoseconds since the trace start or
 * since the epoch, or host TSC ticks, so a time copied from one merge's
 * output can be passed to the next. Both ends are included. Since the time
 * line is in host TSC order, the merge stops at --to unless times are
 * CLOCK_REALTIME, which may step back.
 */
#ifndef HVT_TOOLS_MERGE_SELECT_H
#define HVT_TOOLS_MERGE_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/read/event_decoder.h"
#include "tools/session/thread_names.h"
#include "tools/session/thread_pids.h"
#include "tools/util/time_text.h"
#include "tools/session/source.h"

struct hvt_session;

#define HVT_SELECT_CACHE	64	/* event names whose verdict is remembered */
#define HVT_SELECT_CPU_HOST	1u	/* --cpu cpuN, or N: the host's CPU N */
#define HVT_SELECT_CPU_GUEST	2u	/* --cpu vcpuN, or N: each VM's vCPU N */

struct hvt_select {
	const char *cmd;		/* for usage errors: "merge" (NULL), "analyze" */
	unsigned int layers;		/* 1 << enum hvt_layer; 0: every layer */
	char **vms;			/* guest events of these VMs only */
	size_t nr_vms;
	uint32_t *cpus;			/* events on these CPUs only (the CPU column) */
	unsigned char *cpu_kinds;	/* of each: HVT_SELECT_CPU_HOST, _GUEST, or both */
	size_t nr_cpus;
	char **events;			/* names matching one of these fnmatch() patterns only */
	size_t nr_events;
	int32_t *tids;			/* events of these threads only (the tid column) */
	size_t nr_tids;
	int32_t *pids;			/* events of these processes' threads only */
	size_t nr_pids;
	char **comms;			/* events of threads named so (fnmatch() patterns) */
	size_t nr_comms;
	/* --comm: the names of the threads, learnt by whoever reads the time line */
	const struct hvt_thread_names *names;
	/* --pid: the processes of the threads (thread_pids.h) */
	const struct hvt_thread_pids *processes;
	const char *from_text, *to_text;	/* as given; NULL: no such bound */
	enum hvt_time_mode mode;
	int64_t from_ns, to_ns;		/* mode ns or realtime */
	uint64_t from_tsc, to_tsc;	/* mode host-tsc */
	struct {
		const char *name;	/* an event name, compared by address */
		bool match;
	} cache[HVT_SELECT_CACHE];
};

/*
 * Adds the value of option @opt ("layer", "vm", "cpu", "tid", "pid", "comm",
 * "event", "from", "to") to @sel; -1 after an error message naming the option and value.
 */
int hvt_select_add(struct hvt_select *sel, const char *opt, const char *value);
/* Parses the times for time mode @mode; -1 after an error message. */
int hvt_select_finish(struct hvt_select *sel, enum hvt_time_mode mode);
/*
 * --comm reads the threads' names from @names, which the caller makes learn
 * from every event read (hvt_thread_names_learn()) before asking @sel;
 * --pid their processes from @processes.
 */
void hvt_select_bind(struct hvt_select *sel, const struct hvt_thread_names *names,
		     const struct hvt_thread_pids *processes);
/* Whether any event can be left out. */
bool hvt_select_any(const struct hvt_select *sel);
/* Whether stream @s may hold selected events (@sel is a struct hvt_select). */
bool hvt_select_source(const struct hvt_source *s, void *sel);
/*
 * Whether the current event of @s is selected: 1 yes, 0 no, -1 no and no
 * later event of the time line can be (past --to).
 */
int hvt_select_event(struct hvt_select *sel, struct hvt_host_clock *clock,
		     struct hvt_source *s);
void hvt_select_free(struct hvt_select *sel);
/* Every --vm names a VM of archive @a (a typo would select nothing): 0, or -1 after an error. */
int hvt_select_check_vms(const struct hvt_select *sel, const struct hvt_archive *a);

#endif
