// SPDX-License-Identifier: GPL-2.0-only
/*
 * timeline.c - sources, alignment and the k-way merge (timeline.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fileio.h"
#include "lib/log.h"
#include "tools/util/stream_warn.h"
#include "tools/merge/timeline.h"

/*
 * A source's events must come out in time order for the merge. Its reader
 * hands them out in stream order; a guest stream may legitimately step back
 * in guest time (a backwards TSC jump, which its VM's clock places), so the
 * order is judged here, on the host time alignment gave.
 */
static void warn_backwards(struct hvt_source *s, uint64_t t)
{
	if (s->guest_tl)
		hvt_stream_warn(&s->warnings, s->name, "event at offset %" PRIu64 ": guest "
				"timestamp %" PRIu64 " places it at host TSC %" PRIu64 ", before "
				"the previous event (%" PRIu64 "), and no clock change in sync.tsv "
				"explains the step back; dropping it", s->ev.offset,
				s->ev.ts, t, s->host_tsc);
	else
		hvt_stream_warn(&s->warnings, s->name, "%s at offset %" PRIu64 ": timestamp %"
				PRIu64 " is before the previous one (%" PRIu64 "); dropping it",
				s->layer == HVT_LAYER_HOST ? "record" : "event", s->ev.offset, t,
				s->host_tsc);
}

int hvt_source_next(struct hvt_source *s)
{
	for (;;) {
		uint64_t t;

		if (!hvt_reader_next(&s->rd, &s->ev))
			return 0;
		/* Every event through the cursor, in stream order, dropped ones too. */
		t = s->guest_tl ? hvt_tsc_timeline_to_host(s->guest_tl, &s->cur, s->ev.ts) : s->ev.ts;
		if (s->events && t < s->host_tsc) {
			warn_backwards(s, t);
			continue;
		}
		s->host_tsc = t;
		s->events++;
		return 1;
	}
}

uint32_t hvt_source_cpu(const struct hvt_source *s)
{
	return s->ev.cpu;
}

int32_t hvt_source_tid(const struct hvt_source *s)
{
	return s->ev.tid;
}

const char *hvt_source_event_name(const struct hvt_source *s)
{
	return s->ev.name;
}

void hvt_source_print_name(const struct hvt_source *s, struct hvt_text *t)
{
	hvt_text_mem(t, s->ev.name, s->ev.name_len);
}

size_t hvt_source_vm_number(const struct hvt_timeline *tl, const struct hvt_source *s)
{
	size_t j;

	for (j = 0; s->vm && j < tl->archive.nr_vms; j++)
		if (!strcmp(s->vm, tl->archive.vms[j].name))
			return j + 1;
	return 0;
}

void hvt_source_print_fields(struct hvt_source *s, struct hvt_text *t, bool print_fmt)
{
	s->rd.ops->print_fields(s->rd.r, t, print_fmt);
}

void hvt_source_json_fields(struct hvt_source *s, struct hvt_text *t)
{
	s->rd.ops->json_fields(s->rd.r, t);
}

int hvt_source_field_u64(struct hvt_source *s, const char *name, uint64_t *v)
{
	return s->rd.ops->field_u64(s->rd.r, name, v);
}

bool hvt_source_merged(const struct hvt_source *s)
{
	return s->aligned && !s->unwanted && hvt_reader_opened(&s->rd);
}

uint64_t hvt_source_lost(const struct hvt_source *s)
{
	struct hvt_reader_stats st;

	hvt_reader_stats(&s->rd, &st);
	return st.lost_events;
}

uint64_t hvt_source_missing_packets(const struct hvt_source *s)
{
	struct hvt_reader_stats st;

	hvt_reader_stats(&s->rd, &st);
	return st.lost_packets;
}

unsigned long hvt_source_warnings(const struct hvt_source *s)
{
	struct hvt_reader_stats st;

	hvt_reader_stats(&s->rd, &st);
	return s->warnings + st.warnings;
}

/* Sources are only added while opening, before the heap points into the array. */
static struct hvt_source *add_source(struct hvt_timeline *tl, enum hvt_layer layer,
				     const char *vm, const char *name)
{
	struct hvt_source *s = realloc(tl->sources, (tl->nr_sources + 1) * sizeof(*s));

	if (!s)
		return NULL;
	tl->sources = s;
	s = &tl->sources[tl->nr_sources];
	memset(s, 0, sizeof(*s));
	s->name = strdup(name);
	if (!s->name)
		return NULL;
	s->layer = layer;
	s->vm = vm;
	s->host_cpu = -1;
	s->index = (uint32_t)tl->nr_sources++;
	return s;
}

/*
 * The host layer from a trace-cmd trace.dat: it replaces the archive's own
 * (a->ftrace_dir and a->cpus then name the file), so that the pre-passes
 * over the host layer read it too. -1 after an error message.
 */
static int use_host_trace(struct hvt_timeline *tl, const char *path)
{
	struct hvt_archive *a = &tl->archive;
	const struct hvt_clock_pair *first = &a->pairs[0], *last = &a->pairs[a->nr_pairs - 1];
	uint64_t hz = a->tsc_freq_hz ? a->tsc_freq_hz : 5000000000ull, ts, margin = 3600 * hz;
	int i, n;

	tl->ftrace = hvt_ftrace_open_tracedat(path, &tl->warnings);
	if (!tl->ftrace)
		return -1;
	ts = hvt_ftrace_first_ts(tl->ftrace);
	if (ts && (ts + margin < first->tsc || ts > last->tsc + margin)) {
		hvt_err("%s: its first timestamp, %" PRIu64 ", is more than an hour away from "
			"%s's host TSC (%" PRIu64 " to %" PRIu64 "): recorded on another host or "
			"boot, or with --tsc2nsec?", path, ts, a->root, first->tsc, last->tsc);
		return -1;
	}
	n = hvt_ftrace_nr_cpus(tl->ftrace);
	for (i = 0; (size_t)i < a->nr_cpus; i++)
		free(a->cpus[i].path);
	free(a->cpus);
	free(a->ftrace_dir);
	a->nr_cpus = 0;
	a->ftrace_dir = strdup(path);
	a->cpus = calloc((size_t)n, sizeof(*a->cpus));
	if (!a->ftrace_dir || !a->cpus) {
		hvt_err("out of memory");
		return -1;
	}
	for (i = 0; i < n; i++, a->nr_cpus++) {
		a->cpus[i].cpu = i;
		a->cpus[i].path = strdup(path);
		if (!a->cpus[i].path) {
			hvt_err("out of memory");
			return -1;
		}
	}
	tl->host_trace = true;
	return 0;
}

/* A host source's name: its file in the archive, or "trace.dat:cpuN". */
static const char *host_source_name(const struct hvt_timeline *tl, size_t i, char *buf,
				    size_t size)
{
	const struct hvt_archive *a = &tl->archive;
	const char *base = strrchr(a->ftrace_dir, '/');

	if (!tl->host_trace)
		return a->cpus[i].path + strlen(a->root) + 1;
	snprintf(buf, size, "%s:cpu%d", base ? base + 1 : a->ftrace_dir, a->cpus[i].cpu);
	return buf;
}

static int open_host(struct hvt_timeline *tl)
{
	const struct hvt_archive *a = &tl->archive;
	char name[256];
	size_t i;

	if (!a->ftrace_dir)
		return 0;
	if (!tl->ftrace)
		tl->ftrace = hvt_ftrace_open(a->ftrace_dir, a->page_size, &tl->warnings);
	if (!tl->ftrace) {
		hvt_warn("the host layer cannot be decoded; merging the guests only");
		tl->warnings++;
		return 0;
	}
	for (i = 0; i < a->nr_cpus; i++) {
		const char *rel = host_source_name(tl, i, name, sizeof(name));
		struct hvt_source *s = add_source(tl, HVT_LAYER_HOST, NULL, rel);

		if (!s)
			return -1;
		s->aligned = true;
		s->host_cpu = a->cpus[i].cpu;
		hvt_reader_open_ftrace_cpu(&s->rd, tl->ftrace, a->cpus[i].path, rel,
					   a->cpus[i].cpu, &s->warnings);
	}
	return 0;
}

/* The guest side may have stopped early; its events are then incomplete. */
/* info.json's "finished" decides; end_reason is written only when the link ended. */
static void note_end(struct hvt_timeline *tl, const struct hvt_vm_info *vm)
{
	if (vm->finished)
		return;
	if (vm->end_reason)
		hvt_warn("vm %s: the guest's recording ended early (%s); its events may be "
			 "incomplete", vm->name, vm->end_reason);
	else
		hvt_warn("vm %s: the collector did not finish writing this VM (no end_reason); "
			 "its events may be incomplete", vm->name);
	tl->warnings++;
}

/*
 * Loads the registry of every trace that can be aligned (the guest TSC
 * ones), and with @all of the others too.
 */
static int load_registries(struct hvt_timeline_vm *st, bool all)
{
	const struct hvt_vm_info *vm = &st->vm;
	size_t i;

	st->regs = calloc(vm->nr_traces + 1, sizeof(*st->regs));
	st->types = calloc(vm->nr_traces + 1, sizeof(*st->types));
	st->reg_warnings = calloc(vm->nr_traces + 1, sizeof(*st->reg_warnings));
	if (!st->regs || !st->types || !st->reg_warnings)
		return -1;
	for (i = 0; i < vm->nr_traces; i++) {
		const struct hvt_trace_info *t = &vm->traces[i];
		char *path, *name;	/* TRACE/hvtrace/registry (docs/format.md) */

		hvt_registry_init(&st->regs[i]);
		if (t->domain != HVT_DOMAIN_GUEST_TSC && !all)
			continue;
		path = hvt_join(t->dir, "hvtrace/registry");
		name = hvt_join(t->rel, "hvtrace/registry");
		if (path && name)
			st->reg_warnings[i] = hvt_ctf_registry_load(&st->regs[i], path, name);
		free(path);
		free(name);
		if (!path || !name || hvt_ctf_types_init(&st->types[i], &st->regs[i]))
			return -1;
	}
	return 0;
}

static int open_vm_streams(struct hvt_timeline *tl, struct hvt_timeline_vm *st, bool all)
{
	const struct hvt_vm_info *vm = &st->vm;
	bool *aligned = calloc(vm->nr_traces + 1, sizeof(*aligned));
	size_t i;

	if (!aligned)
		return -1;
	for (i = 0; i < vm->nr_traces; i++)
		aligned[i] = hvt_vm_align_trace(&tl->align_host, &st->al, &vm->traces[i]);
	for (i = 0; i < vm->nr_streams; i++) {
		const struct hvt_stream_info *si = &vm->streams[i];
		const struct hvt_trace_info *t = &vm->traces[si->trace];
		struct hvt_source *s;

		if (!aligned[si->trace] && !all)
			continue;
		s = add_source(tl, t->layer, vm->name, si->rel);
		if (!s) {
			free(aligned);
			return -1;
		}
		s->aligned = aligned[si->trace];
		if (s->aligned)
			s->guest_tl = hvt_vm_align_stream(&st->al, si->cpu);
		hvt_reader_open_ctf(&s->rd, si->path, si->rel, t->uuid, &st->types[si->trace],
				    &s->warnings);
	}
	free(aligned);
	return 0;
}

static int open_vms(struct hvt_timeline *tl, bool all)
{
	size_t i;

	tl->align_host.archive = &tl->archive;
	tl->align_host.ftrace = tl->ftrace;
	for (i = 0; i < tl->archive.nr_vms; i++) {
		struct hvt_timeline_vm *st = &tl->vms[i];

		if (hvt_vm_info_load(&st->vm, &tl->archive.vms[i])) {
			hvt_warn("vm %s: skipping it", tl->archive.vms[i].name);
			tl->warnings++;
			continue;
		}
		st->loaded = true;
		note_end(tl, &st->vm);
		if (load_registries(st, all) ||
		    hvt_vm_align(&st->al, &tl->align_host, &st->vm, st->types) ||
		    open_vm_streams(tl, st, all))
			return -1;
	}
	return 0;
}

static struct hvt_merge_key key_of(const struct hvt_source *s)
{
	return (struct hvt_merge_key){ s->host_tsc, s->layer, s->index };
}

int hvt_timeline_open(struct hvt_timeline *tl, const char *root, bool all_streams)
{
	const struct hvt_timeline_opts o = { .all_streams = all_streams };

	return hvt_timeline_open_some(tl, root, &o);
}

int hvt_timeline_open_some(struct hvt_timeline *tl, const char *root,
			   const struct hvt_timeline_opts *o)
{
	static const struct hvt_timeline_opts defaults;
	size_t i;

	if (!o)
		o = &defaults;
	memset(tl, 0, sizeof(*tl));
	if (hvt_archive_open(&tl->archive, root))
		return -1;
	if (!tl->archive.complete) {
		hvt_warn("%s: the recording did not finish (status is not \"complete\"); "
			 "merging what was written", root);
		tl->warnings++;
	}
	if (hvt_host_clock_init(&tl->clock, tl->archive.pairs, tl->archive.nr_pairs,
				tl->archive.tsc_freq_hz)) {
		hvt_err("%s: the host clock pairs do not map the host TSC to time: that needs two "
			"valid pairs, or one and the manifest's tsc_freq_hz", root);
		goto fail;
	}
	if (o->host_trace && use_host_trace(tl, o->host_trace))
		goto fail;
	tl->vms = calloc(tl->archive.nr_vms + 1, sizeof(*tl->vms));
	if (!tl->vms || open_host(tl) || open_vms(tl, o->all_streams) ||
	    hvt_heap_init(&tl->heap, tl->nr_sources)) {
		hvt_err("out of memory opening %s", root);
		goto fail;
	}
	for (i = 0; i < tl->nr_sources; i++) {
		struct hvt_source *s = &tl->sources[i];
		struct hvt_merge_key key;

		if (!s->aligned)
			continue;
		s->unwanted = o->want && !o->want(s, o->ctx);
		if (s->unwanted || !hvt_source_next(s))
			continue;
		key = key_of(s);
		hvt_heap_push(&tl->heap, &key, s);	/* cannot fail: one entry per source */
	}
	return 0;
fail:
	hvt_timeline_close(tl);
	return -1;
}

struct hvt_source *hvt_timeline_next(struct hvt_timeline *tl)
{
	struct hvt_source *s = tl->current;

	/*
	 * The previous event has been used: its source, still the heap's top,
	 * moves on and is re-keyed in place, or leaves at its end.
	 */
	if (s) {
		if (hvt_source_next(s)) {
			struct hvt_merge_key key = key_of(s);

			hvt_heap_replace_top(&tl->heap, &key);
		} else {
			hvt_heap_pop(&tl->heap, NULL);
		}
	}
	s = hvt_heap_top(&tl->heap);
	tl->current = s;
	if (s)
		tl->events[s->layer]++;
	return s;
}

unsigned long hvt_timeline_warnings(const struct hvt_timeline *tl)
{
	unsigned long n = tl->warnings + tl->archive.warnings + tl->align_host.warnings;
	size_t i, j;

	for (i = 0; i < tl->nr_sources; i++)
		n += hvt_source_warnings(&tl->sources[i]);
	for (i = 0; tl->vms && i < tl->archive.nr_vms; i++) {
		n += tl->vms[i].vm.warnings + tl->vms[i].vm.sync_warnings;
		for (j = 0; tl->vms[i].reg_warnings && j < tl->vms[i].vm.nr_traces; j++)
			n += tl->vms[i].reg_warnings[j];
	}
	return n;
}

uint64_t hvt_timeline_lost(const struct hvt_timeline *tl)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < tl->nr_sources; i++)
		n += hvt_source_lost(&tl->sources[i]);
	return n;
}

static void free_vm_state(struct hvt_timeline_vm *st)
{
	size_t i;

	for (i = 0; st->types && i < st->vm.nr_traces; i++)
		hvt_ctf_types_free(&st->types[i]);
	for (i = 0; st->regs && i < st->vm.nr_traces; i++)
		hvt_registry_free(&st->regs[i]);
	free(st->types);
	free(st->regs);
	free(st->reg_warnings);
	hvt_vm_align_free(&st->al);
	hvt_vm_info_free(&st->vm);
}

void hvt_timeline_close(struct hvt_timeline *tl)
{
	size_t i;

	for (i = 0; i < tl->nr_sources; i++) {
		hvt_reader_close(&tl->sources[i].rd);
		free(tl->sources[i].name);
	}
	for (i = 0; tl->vms && i < tl->archive.nr_vms; i++)
		if (tl->vms[i].loaded)
			free_vm_state(&tl->vms[i]);
	free(tl->vms);
	free(tl->sources);
	hvt_heap_free(&tl->heap);
	hvt_host_clock_free(&tl->clock);
	hvt_ftrace_close(tl->ftrace);
	hvt_host_layer_free(&tl->align_host);
	hvt_archive_close(&tl->archive);
	memset(tl, 0, sizeof(*tl));
}
