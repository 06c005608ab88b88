// SPDX-License-Identifier: GPL-2.0-only
/*
 * json_out.c - Chrome trace-event JSON (json_out.h).
 */
#include <stdlib.h>
#include <string.h>

#include "tools/out/json_out.h"

#define OUTPUT_BUFFER	(1u << 20)
#define HOST_PID	1u
#define NO_CPU_TRACK	(HVT_JSON_CPU_TRACK - 1u)
#define TEXT_LIT(t, s)	hvt_text_mem(t, s, sizeof(s) - 1)

static void process_meta(struct hvt_text *t, uint32_t pid, const char *what, const char *vm)
{
	/* the host's comes first: every later entry starts with the comma */
	if (pid != HOST_PID)
		TEXT_LIT(t, ",\n");
	TEXT_LIT(t, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":");
	hvt_text_u64(t, pid);
	TEXT_LIT(t, ",\"args\":{\"name\":");
	if (vm) {
		TEXT_LIT(t, "\"vm ");
		hvt_text_mem(t, vm, strlen(vm));	/* a checked VM name (lib/names.h) */
		hvt_text_char(t, '"');
	} else {
		hvt_text_json_str(t, what, strlen(what));
	}
	TEXT_LIT(t, "}},\n{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":");
	hvt_text_u64(t, pid);
	TEXT_LIT(t, ",\"args\":{\"sort_index\":");
	hvt_text_u64(t, pid);
	TEXT_LIT(t, "}}");
}

/* The track of point @m: as hvt_json_event() placed its event (the host's: its CPU's). */
static void point_track(const struct hvt_io_mark *m, size_t vm, uint32_t *pid, uint32_t *tid)
{
	*pid = m->qemu || m->host ? HOST_PID : HOST_PID + 1 + (uint32_t)vm;
	if (m->qemu && m->tid > 0)
		*tid = (uint32_t)m->tid;
	else
		*tid = m->cpu < HVT_JSON_MAX_CPU ? HVT_JSON_CPU_TRACK + m->cpu : NO_CPU_TRACK;
}

/* A request linked end to end: its points, in time order, as one chain of flows. */
static void io_flow(void *ctx, const struct hvt_io_flows *f, size_t vm,
		    const struct hvt_io_disk *d, const struct hvt_io_request *r)
{
	struct hvt_json_printer *p = ctx;
	struct hvt_text *t = &p->text;
	unsigned int order[HVT_IO_NR_POINTS], n = 0, i, j;
	char name[64];
	int len;

	(void)f, (void)d;
	if (!r->at[HVT_IO_ISSUE].set || !r->at[HVT_IO_PICKUP].set ||
	    !r->at[HVT_IO_REQ_DONE].set || !r->at[HVT_IO_COMPLETE].set)
		return;		/* not linked end to end */
	for (i = 0; i < HVT_IO_NR_POINTS; i++) {
		if (!r->at[i].set)
			continue;
		for (j = n++; j > 0 && r->at[order[j - 1]].ts > r->at[i].ts; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	len = snprintf(name, sizeof(name), "io %c %llu+%u", r->kind,
		       (unsigned long long)r->sector, r->nr_sector);
	p->flows++;
	for (i = 0; i < n; i++) {
		const struct hvt_io_mark *m = &r->at[order[i]];
		uint32_t pid, tid;

		point_track(m, vm, &pid, &tid);
		TEXT_LIT(t, ",\n{\"name\":");
		hvt_text_json_str(t, name, len > 0 ? (size_t)len : 0);
		TEXT_LIT(t, ",\"cat\":\"io\",\"ph\":\"X\",\"ts\":");
		hvt_json_write_us(t, hvt_host_clock_since_start(&p->ses->clock, m->ts));
		TEXT_LIT(t, ",\"dur\":0.001,\"pid\":");
		hvt_text_u64(t, pid);
		TEXT_LIT(t, ",\"tid\":");
		hvt_text_u64(t, tid);
		TEXT_LIT(t, ",\"bind_id\":");
		hvt_text_u64(t, p->flows);
		if (i > 0)
			TEXT_LIT(t, ",\"flow_in\":true");
		if (i + 1 < n)
			TEXT_LIT(t, ",\"flow_out\":true");
		TEXT_LIT(t, ",\"args\":{\"step\":\"");
		hvt_text_mem(t, hvt_io_point_name(order[i]), strlen(hvt_io_point_name(order[i])));
		TEXT_LIT(t, "\",\"bound_ns\":");
		if (m->bound_ns < INT64_MAX / 4)
			hvt_text_s64(t, m->bound_ns);
		else
			TEXT_LIT(t, "null");
		TEXT_LIT(t, "}}");
	}
}

/* The requests to draw: fed every event printed. */
static int io_init(struct hvt_json_printer *p, struct hvt_session *ses)
{
	if (hvt_io_flows_init(&p->io, ses))
		return -1;
	p->io.done = io_flow;
	p->io.done_ctx = p;
	if (hvt_event_feed_init(&p->io_feed, ses, &hvt_io_flows_listener, &p->io)) {
		hvt_io_flows_free(&p->io);
		return -1;
	}
	p->io_ready = true;
	return 0;
}

int hvt_json_init(struct hvt_json_printer *p, struct hvt_session *ses, FILE *out)
{
	char *buf = malloc(OUTPUT_BUFFER);
	size_t i, j;

	memset(p, 0, sizeof(*p));
	p->pid = calloc(ses->nr_sources + 1, sizeof(*p->pid));
	p->cap_tracks = 256;
	p->tracks = calloc(p->cap_tracks, sizeof(*p->tracks));
	if (!buf || !p->pid || !p->tracks || hvt_sched_state_init(&p->states)) {
		free(buf);
		hvt_json_free(p);
		return -1;
	}
	hvt_text_init(&p->text, out, buf, OUTPUT_BUFFER);
	p->ses = ses;
	for (i = 0; i < ses->nr_sources; i++) {
		const struct hvt_source *s = ses->sources[i];

		p->pid[s->index] = HOST_PID + (uint32_t)s->vm_number;
	}
	TEXT_LIT(&p->text, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":"
		     "\"hvtrace merge\",\"ts\":\"microseconds since the trace start, host "
		     "CLOCK_MONOTONIC\"},\n\"traceEvents\":[\n");
	process_meta(&p->text, HOST_PID, "host", NULL);
	for (j = 0; j < ses->archive.nr_vms; j++)
		process_meta(&p->text, HOST_PID + 1 + (uint32_t)j, NULL, ses->archive.vms[j].name);
	if (hvt_json_vcpus_init(&p->vcpus, ses, &p->text, HOST_PID + 1) ||
	    hvt_json_runs_init(&p->runs, ses, &p->text) || io_init(p, ses)) {
		hvt_json_free(p);
		return -1;
	}
	return 0;
}

/* Adds @key to the set of named threads: true if it was not there yet. */
static bool track_is_new(struct hvt_json_printer *p, uint64_t key)
{
	size_t mask = p->cap_tracks - 1, i = (size_t)(key * 0x9e3779b97f4a7c15ull >> 40) & mask;

	while (p->tracks[i]) {
		if (p->tracks[i] == key)
			return false;
		i = (i + 1) & mask;
	}
	if (2 * (p->nr_tracks + 1) > p->cap_tracks) {
		uint64_t *old = p->tracks, *grown = calloc(2 * p->cap_tracks, sizeof(*grown));
		size_t n = p->cap_tracks;

		if (!grown)
			return true;	/* named again later: harmless */
		p->tracks = grown;
		p->cap_tracks *= 2;
		p->nr_tracks = 0;
		for (i = 0; i < n; i++)
			if (old[i])
				track_is_new(p, old[i]);
		free(old);
		return track_is_new(p, key);
	}
	p->tracks[i] = key;
	p->nr_tracks++;
	return true;
}

/* Names track @tid of process @pid: a CPU's, or a task's (@comm: its name, or NULL). */
static void thread_meta(struct hvt_text *t, uint32_t pid, uint32_t tid, bool vm, const char *comm)
{
	bool cpu = tid >= NO_CPU_TRACK;
	char name[HVT_COMM_LEN + 32];
	int n;

	if (tid == NO_CPU_TRACK)
		n = snprintf(name, sizeof(name), "no cpu");
	else if (cpu)
		n = snprintf(name, sizeof(name), "%scpu %u", vm ? "v" : "", tid - HVT_JSON_CPU_TRACK);
	else if (comm)
		n = snprintf(name, sizeof(name), "%s %u", comm, tid);
	else
		n = snprintf(name, sizeof(name), "tid %u", tid);
	TEXT_LIT(t, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":");
	hvt_text_u64(t, pid);
	TEXT_LIT(t, ",\"tid\":");
	hvt_text_u64(t, tid);
	TEXT_LIT(t, ",\"args\":{\"name\":");
	hvt_text_json_str(t, name, n > 0 ? (size_t)n : 0);
	/* CPUs first, in order; tasks after them */
	TEXT_LIT(t, "}},\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":");
	hvt_text_u64(t, pid);
	TEXT_LIT(t, ",\"tid\":");
	hvt_text_u64(t, tid);
	TEXT_LIT(t, ",\"args\":{\"sort_index\":");
	hvt_text_s64(t, cpu ? (int64_t)tid - HVT_JSON_CPU_TRACK - HVT_JSON_MAX_CPU : (int64_t)tid);
	TEXT_LIT(t, "}}");
}

void hvt_json_write_us(struct hvt_text *t, int64_t ns)
{
	uint64_t mag = ns < 0 ? -(uint64_t)ns : (uint64_t)ns, frac = mag % 1000u;
	char *p;

	if (ns < 0)
		hvt_text_char(t, '-');
	hvt_text_u64(t, mag / 1000u);
	p = hvt_text_room(t, 4);
	p[0] = '.';
	p[1] = (char)('0' + frac / 100u);
	p[2] = (char)('0' + frac / 10u % 10u);
	p[3] = (char)('0' + frac % 10u);
	t->p += 4;
}

void hvt_json_event(struct hvt_json_printer *p, struct hvt_source *s)
{
	struct hvt_text *t = &p->text;
	uint32_t pid = p->pid[s->index], cpu = hvt_source_cpu(s), tid;
	int32_t task = hvt_source_tid(s);
	const char *name = hvt_source_event_name(s);

	if ((s->layer == HVT_LAYER_USER || s->layer == HVT_LAYER_VMM) && task > 0)
		tid = (uint32_t)task;
	else
		tid = cpu < HVT_JSON_MAX_CPU ? HVT_JSON_CPU_TRACK + cpu : NO_CPU_TRACK;
	/* a task's track is named at the end, by the name the switches gave it */
	if (track_is_new(p, (uint64_t)pid << 32 | tid) && tid >= NO_CPU_TRACK)
		thread_meta(t, pid, tid, s->vm_number != 0, NULL);	/* vCPU tracks */
	TEXT_LIT(t, ",\n{\"name\":");
	hvt_text_json_str(t, name, strlen(name));
	TEXT_LIT(t, ",\"cat\":\"");
	hvt_text_mem(t, hvt_layer_name(s->layer), strlen(hvt_layer_name(s->layer)));
	TEXT_LIT(t, "\",\"ph\":\"i\",\"s\":\"t\",\"ts\":");
	hvt_json_write_us(t, hvt_host_clock_since_start(&p->ses->clock, s->host_tsc));
	TEXT_LIT(t, ",\"pid\":");
	hvt_text_u64(t, pid);
	TEXT_LIT(t, ",\"tid\":");
	hvt_text_u64(t, tid);
	TEXT_LIT(t, ",\"args\":{\"cpu\":");
	if (cpu == HVT_CTF_NO_CPU)
		TEXT_LIT(t, "null");
	else
		hvt_text_u64(t, cpu);
	TEXT_LIT(t, ",\"tid\":");
	hvt_text_s64(t, task);
	if (s->vm_number || s->layer == HVT_LAYER_VMM) {	/* the host's are exact */
		int64_t bound = hvt_session_event_bound_ns(p->ses, s);

		TEXT_LIT(t, ",\"bound_ns\":");
		if (bound < 0)
			TEXT_LIT(t, "null");
		else
			hvt_text_s64(t, bound);
	}
	hvt_source_json_fields(s, t, hvt_sched_state_of(&p->states, s));
	TEXT_LIT(t, "}}");
	if (s->layer == HVT_LAYER_HOST)
		hvt_json_vcpus_host(&p->vcpus, s);
	hvt_json_runs_event(&p->runs, pid, s);
	hvt_event_feed(&p->io_feed, s);
}

/* The tracks of tasks, named "comm tid" where a switch named the task, else "tid N". */
static void name_task_tracks(struct hvt_json_printer *p)
{
	size_t i;

	for (i = 0; i < p->cap_tracks; i++) {
		uint32_t pid = (uint32_t)(p->tracks[i] >> 32), tid = (uint32_t)p->tracks[i];

		if (p->tracks[i] && tid < NO_CPU_TRACK)
			thread_meta(&p->text, pid, tid, pid != HOST_PID,
				    hvt_json_runs_comm(&p->runs, pid - HOST_PID, (int32_t)tid));
	}
}

void hvt_json_finish(struct hvt_json_printer *p)
{
	hvt_json_vcpus_finish(&p->vcpus);
	hvt_json_runs_finish(&p->runs, HOST_PID);
	hvt_io_flows_finish(&p->io);
	name_task_tracks(p);
	TEXT_LIT(&p->text, "\n]}\n");
	hvt_text_flush(&p->text);
}

void hvt_json_free(struct hvt_json_printer *p)
{
	free(p->text.buf);
	free(p->pid);
	free(p->tracks);
	hvt_json_vcpus_free(&p->vcpus);
	hvt_json_runs_free(&p->runs);
	hvt_sched_state_free(&p->states);
	if (p->io_ready) {
		hvt_event_feed_free(&p->io_feed);
		hvt_io_flows_free(&p->io);
	}
	memset(p, 0, sizeof(*p));
}
