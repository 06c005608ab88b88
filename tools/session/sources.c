// SPDX-License-Identifier: GPL-2.0-only
/*
 * sources.c - every source of an archive, each behind its reader: the host
 * layer's CPUs, and each VM's streams with its alignment (sources.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/fileio.h"
#include "lib/log.h"
#include "lib/wire_io.h"
#include "tools/session/sources.h"
#include "tools/util/stream_warn.h"

static bool name_taken(const struct hvt_session *ses, const char *name)
{
	size_t i;

	for (i = 0; i < ses->nr_sources; i++)
		if (!strcmp(ses->sources[i]->name, name))
			return true;
	return false;
}

/*
 * @name, or "@name#N" with the first N from 2 that no source has: names
 * are unique (files given on the command line may share a base name, and
 * CTF output names its stream files after them).
 */
static char *unique_name(const struct hvt_session *ses, const char *name)
{
	unsigned int n;
	char *u;

	if (!name_taken(ses, name))
		return strdup(name);
	for (n = 2;; n++) {
		if (asprintf(&u, "%s#%u", name, n) < 0)
			return NULL;
		if (!name_taken(ses, u))
			return u;
		free(u);
	}
}

/* Each source has its own allocation: a pointer to it stays valid as more are added. */
struct hvt_source *hvt_session_add_source(struct hvt_session *ses, enum hvt_layer layer,
					  size_t vm_number, const char *vm, const char *name)
{
	struct hvt_source **grown = realloc(ses->sources, (ses->nr_sources + 1) * sizeof(*grown));
	struct hvt_source *s;

	if (!grown)
		return NULL;
	ses->sources = grown;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->name = unique_name(ses, name);
	if (!s->name) {
		free(s);
		return NULL;
	}
	s->layer = layer;
	s->vm = vm;
	s->vm_number = vm_number;
	s->host_cpu = -1;
	s->guest_cpu = -1;
	s->stream_id = UINT32_MAX;
	s->expect_packets = -1;
	s->expect_events = -1;
	s->expect_bytes = -1;
	s->index = (uint32_t)ses->nr_sources;
	ses->sources[ses->nr_sources++] = s;
	return s;
}

int hvt_session_keep_ftrace(struct hvt_session *ses, struct hvt_ftrace *ft)
{
	struct hvt_ftrace **a = realloc(ses->extra_ftrace, (ses->nr_extra_ftrace + 1) * sizeof(*a));

	if (!a) {
		hvt_ftrace_close(ft);
		hvt_err("out of memory");
		return -1;
	}
	ses->extra_ftrace = a;
	a[ses->nr_extra_ftrace++] = ft;
	return 0;
}

/* A host source's name: its file in the archive, or "trace.dat:cpuN". */
static const char *host_source_name(const struct hvt_session *ses, size_t i, char *buf,
				    size_t size)
{
	const struct hvt_archive *a = &ses->archive;
	const char *base = strrchr(a->ftrace_dir, '/');

	if (!ses->host_trace)
		return a->cpus[i].path + strlen(a->root) + 1;
	snprintf(buf, size, "%s:cpu%d", base ? base + 1 : a->ftrace_dir, a->cpus[i].cpu);
	return buf;
}

/* A raw CPU file's pages stamped outside the recording's span are damage. */
static void set_host_span(struct hvt_ftrace *ft, const struct hvt_archive *a)
{
	uint64_t lo, hi;

	if (hvt_archive_host_span(a, &lo, &hi))
		hvt_ftrace_set_span(ft, lo, hi);
}

static int open_host(struct hvt_session *ses)
{
	const struct hvt_archive *a = &ses->archive;
	char name[256];
	struct stat st;
	size_t i;

	if (!a->ftrace_dir)
		return 0;
	if (!ses->ftrace)
		ses->ftrace = hvt_ftrace_open(a->ftrace_dir, a->page_size, &ses->warnings);
	if (!ses->ftrace) {
		hvt_warn("the host layer cannot be decoded; merging the guests only");
		ses->warnings++;
		return 0;
	}
	set_host_span(ses->ftrace, a);
	for (i = 0; i < a->nr_cpus; i++) {
		const char *rel = host_source_name(ses, i, name, sizeof(name));
		struct hvt_source *s = hvt_session_add_source(ses, HVT_LAYER_HOST, 0, NULL, rel);

		if (!s)
			return -1;
		s->aligned = true;
		s->host_cpu = a->cpus[i].cpu;
		hvt_reader_open_ftrace_cpu(&s->rd, ses->ftrace, a->cpus[i].path, rel,
					   a->cpus[i].cpu, &s->warnings);
		s->incomplete = !hvt_reader_opened(&s->rd);
		/* a complete recording's manifest says how much the collector wrote */
		if (!ses->host_trace && !ses->follow && a->complete && a->cpus[i].bytes >= 0 &&
		    hvt_reader_opened(&s->rd) && !stat(a->cpus[i].path, &st)) {
			s->expect_bytes = a->cpus[i].bytes;
			s->file_bytes = st.st_size;
			/* past what the collector wrote: not its data (a sparse tail reads slowly) */
			if (s->file_bytes > s->expect_bytes) {
				hvt_stream_warn(&s->warnings, s->name, "%" PRId64 " bytes, where "
						"hvtrace.json of a complete recording records %"
						PRId64 ": the %" PRId64 " bytes the collector did not "
						"write are not read", s->file_bytes, s->expect_bytes,
						s->file_bytes - s->expect_bytes);
				hvt_reader_limit(&s->rd, (uint64_t)s->expect_bytes);
			}
		}
	}
	return 0;
}

/*
 * The guest side (or the host agent) may have stopped early; its events are
 * then incomplete. info.json's "finished" decides; end_reason is written only
 * when the link ended. @what names it: "vm NAME", "host applications".
 */
static void note_end(struct hvt_session *ses, const struct hvt_vm_info *vm, const char *what)
{
	if (vm->finished || hvt_vm_info_host_only(vm))
		return;
	if (ses->follow && !ses->archive.complete)
		return;		/* followed: the collector is still writing it */
	if (vm->end_reason)
		hvt_warn("%s: the recording ended early (%s); its events may be incomplete",
			 what, vm->end_reason);
	else
		hvt_warn("%s: the collector did not finish writing it (no end_reason); its "
			 "events may be incomplete", what);
	ses->warnings++;
}

bool hvt_session_readable(const struct hvt_trace_info *t, bool all)
{
	return t->domain == HVT_DOMAIN_GUEST_TSC || t->domain == HVT_DOMAIN_TSC || all;
}

int hvt_session_read_registry(struct hvt_session_vm *st, size_t i, bool growing)
{
	const struct hvt_trace_info *t = &st->vm.traces[i];
	struct hvt_session_registry *r = &st->regs[i];
	char *path = hvt_join(t->dir, "hvtrace/registry");	/* docs/format.md */
	char *name = hvt_join(t->rel, "hvtrace/registry");
	int ret = -1;

	if (path && name) {
		r->warnings += hvt_ctf_registry_load_more(&r->reg, path, name, &r->at, growing);
		r->read = true;
		ret = hvt_ctf_types_update(&st->types[i], &r->reg);
	}
	free(path);
	free(name);
	return ret;
}

/*
 * Loads the registry of every trace that can be aligned (the guest TSC
 * ones), and with @all of the others too.
 */
static int load_registries(struct hvt_session_vm *st, bool all, bool growing)
{
	size_t i;

	st->regs = calloc(HVT_MAX_TRACES + 1, sizeof(*st->regs));
	st->types = calloc(HVT_MAX_TRACES + 1, sizeof(*st->types));
	if (!st->regs || !st->types)
		return -1;
	for (i = 0; i < st->vm.nr_traces; i++)
		if (hvt_session_readable(&st->vm.traces[i], all) &&
		    hvt_session_read_registry(st, i, growing))
			return -1;
	return 0;
}

/*
 * A stream file against what info.json recorded of it: shorter is data lost
 * (truncated, emptied); longer is normal while recording (info.json lags by
 * up to a tick), not once the archive says it is complete. False after a
 * warning; its packets are then not judged again (hvt_source_next()).
 */
static bool check_stream_size(const struct hvt_session *ses, struct hvt_source *s,
			      const struct hvt_stream_info *si)
{
	struct stat st;

	if (si->bytes < 0 || stat(si->path, &st))
		return true;
	if ((uint64_t)st.st_size == (uint64_t)si->bytes)
		return true;
	s->incomplete |= (uint64_t)st.st_size < (uint64_t)si->bytes;
	if ((uint64_t)st.st_size < (uint64_t)si->bytes)
		hvt_stream_warn(&s->warnings, s->name, "%" PRIu64 " bytes, where info.json "
				"records %" PRId64 " (%" PRId64 " packets): %" PRIu64 " bytes of "
				"events are missing (truncated or emptied)", (uint64_t)st.st_size,
				si->bytes, si->packets, (uint64_t)si->bytes - (uint64_t)st.st_size);
	else if ((uint64_t)st.st_size > (uint64_t)si->bytes && ses->archive.complete)
		hvt_stream_warn(&s->warnings, s->name, "%" PRIu64 " bytes, where info.json of "
				"a complete recording records %" PRId64 ": %" PRIu64 " bytes the "
				"collector did not write", (uint64_t)st.st_size, si->bytes,
				(uint64_t)st.st_size - (uint64_t)si->bytes);
	else
		return true;	/* longer while recording: counters lag */
	return false;
}

/* Whether guest time on @tl never steps back: each segment after the last one's end. */
static bool never_steps_back(const struct hvt_tsc_timeline *tl)
{
	size_t i;

	for (i = 1; tl && i < tl->n; i++)
		if (tl->first[i] <= tl->last[i - 1])
			return false;
	return tl != NULL;
}

/* The bytes of a stream to read: all, or, following, what info.json counts. */
static void follow_limit(const struct hvt_session *ses, struct hvt_source *s,
			 const struct hvt_stream_info *si, bool finished)
{
	if (ses->follow)
		hvt_reader_limit(&s->rd, si->bytes > 0 ? (uint64_t)si->bytes : 0);
	s->closed = si->closed || finished;
}

int hvt_session_open_stream(struct hvt_session *ses, struct hvt_session_vm *st, size_t i,
			    bool aligned, bool host)
{
	const struct hvt_vm_info *vm = &st->vm;
	const struct hvt_stream_info *si = &vm->streams[i];
	const struct hvt_trace_info *t = &vm->traces[si->trace];
	struct hvt_source *s;

	s = hvt_session_add_source(ses, t->layer, host ? 0 : (size_t)(st - ses->vms) + 1,
				   host ? NULL : vm->name, si->rel);
	if (!s)
		return -1;
	s->stream_id = si->id;
	s->guest_cpu = si->cpu;
	s->aligned = aligned;
	if (s->aligned && !host)
		s->guest_tl = hvt_vm_align_stream(&st->al, si->cpu);
	if (hvt_reader_open_ctf(&s->rd, si->path, si->rel, t->uuid, &st->types[si->trace],
				si->cpu < 0 ? HVT_NO_CPU : (uint32_t)si->cpu, si->tid, &s->warnings)) {
		s->incomplete = true;	/* listed, so recorded: said by the reader */
		return 0;
	}
	if (si->dropped_packets)
		hvt_stream_warn(&s->warnings, s->name, "%" PRId64 " packet%s the collector could "
				"not store: the guest never registered an event in them",
				si->dropped_packets, si->dropped_packets == 1 ? "" : "s");
	if (check_stream_size(ses, s, si)) {
		s->expect_packets = si->packets;
		s->expect_no_more = ses->archive.complete;
		/* what the collector counted in them: judged once nothing more comes */
		s->expect_events = ses->archive.complete && !ses->follow ? si->events : -1;
	}
	follow_limit(ses, s, si, st->vm.finished);
	/* then damage to one packet's times stays in that packet */
	if (s->aligned && (host || never_steps_back(s->guest_tl)))
		hvt_reader_ctf_time_monotonic(&s->rd);
	return 0;
}

/*
 * The streams of @st, a VM or the host's applications (@host: on the host
 * TSC as they are, no VM), those of traces @aligned says can be placed, and
 * with @all the others too.
 */
static int open_streams(struct hvt_session *ses, struct hvt_session_vm *st, const bool *aligned,
			bool host, bool all)
{
	size_t i;

	for (i = 0; i < st->vm.nr_streams; i++) {
		size_t trace = st->vm.streams[i].trace;

		if ((aligned[trace] || all) &&
		    hvt_session_open_stream(ses, st, i, aligned[trace], host))
			return -1;
	}
	return 0;
}

static int open_vm_streams(struct hvt_session *ses, struct hvt_session_vm *st, bool all)
{
	const struct hvt_vm_info *vm = &st->vm;
	bool *aligned = calloc(vm->nr_traces + 1, sizeof(*aligned));
	size_t i;
	int ret;

	if (!aligned)
		return -1;
	for (i = 0; i < vm->nr_traces; i++)
		aligned[i] = hvt_vm_align_trace(&ses->align_host, &st->al, &vm->traces[i]);
	ret = open_streams(ses, st, aligned, false, all);
	free(aligned);
	return ret;
}

/*
 * The host's own applications (host/apps): their traces on the host TSC
 * are on the time line as they are; one on CLOCK_MONOTONIC_RAW (libhvtrace
 * where the kernel does not trust the TSC) cannot be placed.
 */
static int open_host_apps(struct hvt_session *ses, bool all)
{
	struct hvt_session_vm *st = &ses->host_apps;
	bool *aligned;
	size_t i;
	int ret;

	if (!ses->archive.host_apps.dir)
		return 0;
	if (hvt_vm_info_load(&st->vm, &ses->archive.host_apps)) {
		hvt_warn("host applications: skipping them");
		ses->warnings++;
		return 0;
	}
	st->loaded = true;
	note_end(ses, &st->vm, "host applications");
	if (load_registries(st, all, ses->follow))
		return -1;
	aligned = calloc(st->vm.nr_traces + 1, sizeof(*aligned));
	if (!aligned)
		return -1;
	for (i = 0; i < st->vm.nr_traces; i++) {
		const struct hvt_trace_info *t = &st->vm.traces[i];

		aligned[i] = t->domain == HVT_DOMAIN_TSC;
		if (!aligned[i]) {
			hvt_warn("%s (pid %u): a host application's trace not on the host TSC "
				 "(%s); skipping it", t->rel, t->pid, hvt_domain_name(t->domain));
			ses->warnings++;
		}
	}
	ret = open_streams(ses, st, aligned, true, all);
	free(aligned);
	return ret;
}

static int open_vms(struct hvt_session *ses, bool all)
{
	char what[HVT_VM_NAME_MAX + 8];
	size_t i;

	ses->align_host.archive = &ses->archive;
	ses->align_host.ftrace = ses->ftrace;
	for (i = 0; i < ses->archive.nr_vms; i++) {
		struct hvt_session_vm *st = &ses->vms[i];

		if (hvt_vm_info_load(&st->vm, &ses->archive.vms[i])) {
			hvt_warn("vm %s: skipping it", ses->archive.vms[i].name);
			ses->warnings++;
			continue;
		}
		st->loaded = true;
		ses->align_host.kvm_vms += st->vm.kvm;
		snprintf(what, sizeof(what), "vm %s", st->vm.name);
		note_end(ses, &st->vm, what);
		if (load_registries(st, all, ses->follow))
			return -1;
	}
	/* aligned once every VM is known: the host's KVM events name none */
	for (i = 0; i < ses->archive.nr_vms; i++) {
		struct hvt_session_vm *st = &ses->vms[i];

		bool early = ses->follow && !ses->archive.complete && !st->vm.nr_sync;
		int failed;

		if (!st->loaded)
			continue;
		unsigned long warned = ses->align_host.warnings;

		if (early)	/* followed: its exchanges are still to come, not missing */
			hvt_log_mute();
		failed = hvt_vm_align(&st->al, &ses->align_host, &st->vm, st->types);
		hvt_session_vm_placed(ses, st);
		if (early) {
			hvt_log_unmute();
			ses->align_host.warnings = warned;
		}
		if (failed || open_vm_streams(ses, st, all))
			return -1;
	}
	return 0;
}

int hvt_session_open_sources(struct hvt_session *ses, bool all)
{
	ses->vms = calloc(ses->archive.nr_vms + 1, sizeof(*ses->vms));
	if (!ses->vms)
		return -1;
	return open_host(ses) || open_vms(ses, all) || open_host_apps(ses, all) ? -1 : 0;
}

void hvt_session_vm_free(struct hvt_session_vm *st)
{
	size_t i;

	for (i = 0; st->types && i < st->vm.nr_traces; i++)
		hvt_ctf_types_free(&st->types[i]);
	for (i = 0; st->regs && i < st->vm.nr_traces; i++)
		hvt_registry_free(&st->regs[i].reg);
	free(st->types);
	free(st->regs);
	hvt_vm_align_free(&st->al);
	hvt_vm_info_free(&st->vm);
}
