/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * json_runs.h - who ran on each CPU, as slices of the Chrome trace-event
 * JSON (`merge --format=json`), and the threads' names.
 *
 * Each sched_switch the output takes, of the host or of a guest, ends the
 * slice of the task that ran on its CPU and starts the next task's: a
 * complete event ("ph":"X", "cat":"sched") named after the task, on the
 * CPU's track of its machine (host "cpu N", a VM's "vcpu N"), so that
 * Perfetto draws each CPU's runs as a scheduling trace does. The idle task
 * gets no slice. A guest's slices are on the host's clock, their ends
 * within the events' bounds (args.bound_ns at each end). The tracks of
 * tasks (user events) are named after the task's last name the switches
 * gave, "comm tid", at the end of the document.
 */
#ifndef HVT_TOOLS_OUT_JSON_RUNS_H
#define HVT_TOOLS_OUT_JSON_RUNS_H

#include <stdint.h>

#include "tools/read/event_decoder.h"
#include "tools/session/session.h"
#include "tools/util/comm_table.h"
#include "tools/util/text_buffer.h"

struct hvt_json_cpu_run;

struct hvt_json_runs {
	struct hvt_text *text;
	struct hvt_session *ses;
	struct hvt_event_decoder dec;
	struct hvt_json_cpu_run **cpus;	/* per machine (host, then each VM), by CPU */
	uint32_t *nr_cpus;
	struct hvt_comm_table comms;	/* (machine, tid) -> the last name */
	uint64_t last;			/* the latest host TSC taken */
	bool failed;			/* out of memory: some slices or names are missing */
};

/* For @ses, writing to @text; -1 if out of memory. */
int hvt_json_runs_init(struct hvt_json_runs *r, struct hvt_session *ses, struct hvt_text *text);
/* An event the output took, of process @pid: its sched_switch, if it is one. */
void hvt_json_runs_event(struct hvt_json_runs *r, uint32_t pid, struct hvt_source *s);
/* After the last event: the runs still open end there (machine m is process @first_pid + m). */
void hvt_json_runs_finish(struct hvt_json_runs *r, uint32_t first_pid);
/* The name of task @tid of machine @machine, or NULL if no switch named it. */
const char *hvt_json_runs_comm(const struct hvt_json_runs *r, uint32_t machine, int32_t tid);
void hvt_json_runs_free(struct hvt_json_runs *r);

#endif
