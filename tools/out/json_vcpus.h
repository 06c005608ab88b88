/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * json_vcpus.h - each VM's vCPU states as tracks of the Chrome trace-event
 * JSON (`merge --format=json`), next to the events: one track per vCPU
 * ("vCPU N on the host", in the VM's process), a complete event ("ph":"X")
 * per state its host thread was in - running, preempted (with the task
 * that had the CPU), blocked - from the host's sched_switch events the
 * merge writes (align/host_runs.h). Where no state is drawn it is unknown.
 * A VM needs the manifest's vcpu_threads; the states come from the
 * sched_switch events selected for the output (all, without --layer,
 * --cpu, --event or --from/--to narrowing them).
 */
#ifndef HVT_TOOLS_OUT_JSON_VCPUS_H
#define HVT_TOOLS_OUT_JSON_VCPUS_H

#include <stdint.h>

#include "tools/session/session.h"
#include "tools/align/host_runs.h"
#include "tools/read/event_decoder.h"
#include "tools/util/text_buffer.h"

#define HVT_JSON_VCPU_TRACK	((1u << 30) + (1u << 21))	/* tid of vCPU 0's state track */

struct hvt_json_vm_runs {
	struct hvt_json_vcpus *owner;
	uint32_t pid;			/* the VM's process */
	struct hvt_host_runs runs;
	bool on;
};

struct hvt_json_vcpus {
	struct hvt_text *text;
	struct hvt_session *ses;
	struct hvt_json_vm_runs *vms;	/* per VM of the archive */
	size_t nr_vms;
	struct hvt_event_decoder dec;	/* the host's sched_switch */
	uint64_t last;			/* the latest host TSC fed */
};

/* For @ses's VMs (VM i is process @first_pid + i), writing to @text; -1 if out of memory. */
int hvt_json_vcpus_init(struct hvt_json_vcpus *j, struct hvt_session *ses, struct hvt_text *text,
			uint32_t first_pid);
/* A host event the output took: its sched_switch, if it is one. */
void hvt_json_vcpus_host(struct hvt_json_vcpus *j, struct hvt_source *s);
/* After the last event: the states still open end there. */
void hvt_json_vcpus_finish(struct hvt_json_vcpus *j);
void hvt_json_vcpus_free(struct hvt_json_vcpus *j);

#endif
