// SPDX-License-Identifier: GPL-2.0-only
/*
 * json_runs.c - each CPU's runs as slices in the trace-event JSON
 * (json_runs.h).
 */
#include <stdlib.h>
#include <string.h>

#include "tools/out/json_out.h"
#include "tools/out/json_runs.h"

#define TEXT_LIT(t, s)	hvt_text_mem(t, s, sizeof(s) - 1)
#define MAX_CPUS	4096	/* per machine; a CPU past it gets no slices */

/* The task running on a CPU since @start (host TSC). */
struct hvt_json_cpu_run {
	uint64_t start;
	int64_t start_bound;		/* ns, -1: none */
	int32_t tid;			/* 0: idle, no slice */
	char comm[HVT_COMM_LEN];
};

int hvt_json_runs_init(struct hvt_json_runs *r, struct hvt_session *ses, struct hvt_text *text)
{
	size_t machines = ses->archive.nr_vms + 1;

	memset(r, 0, sizeof(*r));
	r->text = text;
	r->ses = ses;
	r->cpus = calloc(machines, sizeof(*r->cpus));
	r->nr_cpus = calloc(machines, sizeof(*r->nr_cpus));
	if (!r->cpus || !r->nr_cpus || hvt_comm_table_init(&r->comms) ||
	    hvt_event_decoder_init(&r->dec, HVT_EV_BIT(HVT_EV_SCHED_SWITCH), true)) {
		hvt_json_runs_free(r);
		return -1;
	}
	return 0;
}

/* Task @tid of @machine is named @comm from now on. */
static void name_task(struct hvt_json_runs *r, uint32_t machine, int32_t tid, const char *comm)
{
	if (hvt_comm_table_set(&r->comms, machine, tid, comm))
		r->failed = true;
}

const char *hvt_json_runs_comm(const struct hvt_json_runs *r, uint32_t machine, int32_t tid)
{
	return hvt_comm_table_get(&r->comms, machine, tid);
}

/* The run of CPU @cpu of @machine, grown to hold it; NULL past MAX_CPUS or out of memory. */
static struct hvt_json_cpu_run *cpu_run(struct hvt_json_runs *r, uint32_t machine, uint32_t cpu)
{
	struct hvt_json_cpu_run *v;
	uint32_t n;

	if (cpu < r->nr_cpus[machine])
		return &r->cpus[machine][cpu];
	if (cpu >= MAX_CPUS)
		return NULL;
	n = cpu + 1;
	v = realloc(r->cpus[machine], n * sizeof(*v));
	if (!v) {
		r->failed = true;
		return NULL;
	}
	memset(v + r->nr_cpus[machine], 0, (n - r->nr_cpus[machine]) * sizeof(*v));
	r->cpus[machine] = v;
	r->nr_cpus[machine] = n;
	return &v[cpu];
}

static void write_bound(struct hvt_text *t, const char *key, size_t len, int64_t bound)
{
	hvt_text_mem(t, key, len);
	if (bound < 0)
		TEXT_LIT(t, "null");
	else
		hvt_text_s64(t, bound);
}

/* The slice of @run on CPU @cpu of process @pid, ending at @end (within @end_bound ns). */
static void close_run(struct hvt_json_runs *r, uint32_t pid, bool vm, uint32_t cpu,
		      const struct hvt_json_cpu_run *run, uint64_t end, int64_t end_bound,
		      const char *end_state)
{
	struct hvt_text *t = r->text;
	int64_t start = hvt_host_clock_since_start(&r->ses->clock, run->start);

	if (!run->tid || end <= run->start)
		return;
	TEXT_LIT(t, ",\n{\"name\":");
	hvt_text_json_str(t, run->comm, strnlen(run->comm, sizeof(run->comm)));
	TEXT_LIT(t, ",\"cat\":\"sched\",\"ph\":\"X\",\"ts\":");
	hvt_json_write_us(t, start);
	TEXT_LIT(t, ",\"dur\":");
	hvt_json_write_us(t, hvt_host_clock_since_start(&r->ses->clock, end) - start);
	TEXT_LIT(t, ",\"pid\":");
	hvt_text_u64(t, pid);
	TEXT_LIT(t, ",\"tid\":");
	hvt_text_u64(t, HVT_JSON_CPU_TRACK + cpu);
	TEXT_LIT(t, ",\"args\":{\"tid\":");
	hvt_text_s64(t, run->tid);
	if (end_state) {
		TEXT_LIT(t, ",\"end_state\":");
		hvt_text_json_str(t, end_state, strnlen(end_state, 8));
	}
	if (vm) {
		write_bound(t, ",\"start_bound_ns\":", 18, run->start_bound);
		write_bound(t, ",\"end_bound_ns\":", 16, end_bound);
	}
	TEXT_LIT(t, "}}");
}

void hvt_json_runs_event(struct hvt_json_runs *r, uint32_t pid, struct hvt_source *s)
{
	uint32_t machine = (uint32_t)s->vm_number, cpu = hvt_source_cpu(s);
	struct hvt_json_cpu_run *run;
	struct hvt_typed_event e;
	int64_t bound;

	if ((s->layer != HVT_LAYER_HOST && s->layer != HVT_LAYER_KERNEL) || cpu == HVT_NO_CPU ||
	    hvt_decode_reader(&r->dec, &s->rd, &s->ev, &e) != HVT_EV_SCHED_SWITCH)
		return;
	r->last = s->host_tsc;
	name_task(r, machine, e.sw.prev, e.sw.prev_comm);
	name_task(r, machine, e.sw.next, e.sw.next_comm);
	if (!(run = cpu_run(r, machine, cpu)))
		return;
	bound = machine ? hvt_session_event_bound_ns(r->ses, s) : 0;
	if (run->tid == e.sw.prev)	/* a run seen from its start */
		close_run(r, pid, machine != 0, cpu, run, s->host_tsc, bound, e.sw.end_state);
	*run = (struct hvt_json_cpu_run){ .start = s->host_tsc, .start_bound = bound,
					  .tid = e.sw.next };
	snprintf(run->comm, sizeof(run->comm), "%s", e.sw.next_comm);
}

void hvt_json_runs_finish(struct hvt_json_runs *r, uint32_t first_pid)
{
	uint32_t m, c;

	for (m = 0; m <= r->ses->archive.nr_vms; m++)
		for (c = 0; c < r->nr_cpus[m]; c++)
			close_run(r, first_pid + m, m != 0, c, &r->cpus[m][c], r->last, -1, NULL);
}

void hvt_json_runs_free(struct hvt_json_runs *r)
{
	size_t m;

	for (m = 0; r->cpus && m <= r->ses->archive.nr_vms; m++)
		free(r->cpus[m]);
	free(r->cpus);
	free(r->nr_cpus);
	hvt_comm_table_free(&r->comms);
	hvt_event_decoder_free(&r->dec);
	memset(r, 0, sizeof(*r));
}
