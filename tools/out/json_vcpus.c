// SPDX-License-Identifier: GPL-2.0-only
/*
 * json_vcpus.c - vCPU state tracks in the trace-event JSON (json_vcpus.h).
 */
#include <stdlib.h>
#include <string.h>

#include "tools/out/json_out.h"
#include "tools/out/json_vcpus.h"

#define TEXT_LIT(t, s)	hvt_text_mem(t, s, sizeof(s) - 1)

static void track_meta(struct hvt_text *t, uint32_t pid, uint32_t vcpu)
{
	TEXT_LIT(t, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":");
	hvt_text_u64(t, pid);
	TEXT_LIT(t, ",\"tid\":");
	hvt_text_u64(t, HVT_JSON_VCPU_TRACK + vcpu);
	TEXT_LIT(t, ",\"args\":{\"name\":\"vCPU ");
	hvt_text_u64(t, vcpu);
	TEXT_LIT(t, " on the host\"}},\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":");
	hvt_text_u64(t, pid);
	TEXT_LIT(t, ",\"tid\":");
	hvt_text_u64(t, HVT_JSON_VCPU_TRACK + vcpu);
	/* before the vCPUs' own tracks (json_out.c sorts them from -2^20) */
	TEXT_LIT(t, ",\"args\":{\"sort_index\":");
	hvt_text_s64(t, -(int64_t)(2u << 20) + vcpu);
	TEXT_LIT(t, "}}");
}

/* A closed state of a vCPU's thread: one complete event. */
static void on_segment(void *ctx, const struct hvt_run_segment *seg, bool open)
{
	struct hvt_json_vm_runs *vm = ctx;
	struct hvt_text *t = vm->owner->text;
	struct hvt_host_clock *clock = &vm->owner->ses->clock;
	int64_t start;

	if (open || seg->state == HVT_RUN_UNKNOWN)
		return;
	start = hvt_host_clock_since_start(clock, seg->start);
	TEXT_LIT(t, ",\n{\"name\":\"");
	hvt_text_mem(t, hvt_run_state_name(seg->state), strlen(hvt_run_state_name(seg->state)));
	TEXT_LIT(t, "\",\"cat\":\"vcpu\",\"ph\":\"X\",\"ts\":");
	hvt_json_write_us(t, start);
	TEXT_LIT(t, ",\"dur\":");
	hvt_json_write_us(t, hvt_host_clock_since_start(clock, seg->end) - start);
	TEXT_LIT(t, ",\"pid\":");
	hvt_text_u64(t, vm->pid);
	TEXT_LIT(t, ",\"tid\":");
	hvt_text_u64(t, HVT_JSON_VCPU_TRACK + seg->thread);
	TEXT_LIT(t, ",\"args\":{\"host_cpu\":");
	hvt_text_s64(t, seg->cpu);
	if (seg->state != HVT_RUN_RUNNING) {
		TEXT_LIT(t, ",\"then_ran\":");
		hvt_text_json_str(t, seg->by.comm, strnlen(seg->by.comm, sizeof(seg->by.comm)));
		TEXT_LIT(t, ",\"then_ran_tid\":");
		hvt_text_s64(t, seg->by.tid);
	} else if (seg->guessed) {
		TEXT_LIT(t, ",\"start_not_recorded\":true");
	}
	TEXT_LIT(t, "}}");
}

int hvt_json_vcpus_init(struct hvt_json_vcpus *j, struct hvt_session *ses, struct hvt_text *text,
			uint32_t first_pid)
{
	size_t i, v;

	memset(j, 0, sizeof(*j));
	j->text = text;
	j->ses = ses;
	j->nr_vms = ses->archive.nr_vms;
	j->vms = calloc(j->nr_vms + 1, sizeof(*j->vms));
	if (!j->vms || hvt_event_decoder_init(&j->dec, HVT_EV_BIT(HVT_EV_SCHED_SWITCH), true)) {
		hvt_json_vcpus_free(j);
		return -1;
	}
	for (i = 0; i < j->nr_vms; i++) {
		const struct hvt_vm_ref *ref = &ses->archive.vms[i];
		struct hvt_json_vm_runs *vm = &j->vms[i];

		vm->owner = j;
		vm->pid = first_pid + (uint32_t)i;
		if (!ref->nr_vcpu_tids || !ses->ftrace)
			continue;
		if (hvt_host_runs_init(&vm->runs, ref->vcpu_tids, ref->nr_vcpu_tids, 0, on_segment,
				       vm)) {
			hvt_json_vcpus_free(j);
			return -1;
		}
		vm->on = true;
		for (v = 0; v < ref->nr_vcpu_tids; v++)
			if (ref->vcpu_tids[v] > 0)
				track_meta(text, vm->pid, (uint32_t)v);
	}
	return 0;
}

void hvt_json_vcpus_host(struct hvt_json_vcpus *j, struct hvt_source *s)
{
	struct hvt_typed_event e;
	size_t i;

	if (s->host_cpu < 0 || hvt_decode_reader(&j->dec, &s->rd, &s->ev, &e) != HVT_EV_SCHED_SWITCH)
		return;
	j->last = s->host_tsc;
	for (i = 0; i < j->nr_vms; i++)
		if (j->vms[i].on)
			hvt_host_runs_switch(&j->vms[i].runs, (uint32_t)s->host_cpu, s->host_tsc,
					     e.sw.prev, e.sw.runnable, e.sw.next, e.sw.next_comm);
}

void hvt_json_vcpus_finish(struct hvt_json_vcpus *j)
{
	size_t i;

	for (i = 0; i < j->nr_vms; i++)
		if (j->vms[i].on)
			hvt_host_runs_finish(&j->vms[i].runs, j->last);
}

void hvt_json_vcpus_free(struct hvt_json_vcpus *j)
{
	size_t i;

	for (i = 0; j->vms && i < j->nr_vms; i++)
		if (j->vms[i].on)
			hvt_host_runs_free(&j->vms[i].runs);
	free(j->vms);
	hvt_event_decoder_free(&j->dec);
	memset(j, 0, sizeof(*j));
}
