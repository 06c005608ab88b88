// SPDX-License-Identifier: GPL-2.0-only
/*
 * timeline.c - the k-way merge of every source (timeline.h).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/log.h"
#include "tools/archive/tracedat_archive.h"
#include "tools/merge/sources.h"
#include "tools/merge/timeline.h"

static struct hvt_merge_key key_of(const struct hvt_source *s)
{
	return (struct hvt_merge_key){ s->host_tsc, s->layer, s->index };
}

int hvt_timeline_open(struct hvt_timeline *tl, const char *root, bool all_streams)
{
	const struct hvt_timeline_opts o = { .all_streams = all_streams };

	return hvt_timeline_open_some(tl, root, &o);
}

/* Whether @path is a file, not an archive's directory. */
static bool is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && !S_ISDIR(st.st_mode);
}

/*
 * One more trace.dat beside the first, @first on trace clock @clock: each
 * of its CPUs one more host source, "FILE:cpuN". Its clock must be the
 * first's. -1 after an error message.
 */
static int open_more_tracedat(struct hvt_timeline *tl, const char *path, const char *first,
			      const char *clock)
{
	const char *base = strrchr(path, '/'), *own;
	struct hvt_ftrace *ft = hvt_ftrace_open_tracedat(path, &own, &tl->warnings);
	int cpu, n;

	if (!ft)
		return -1;
	if (strcmp(own, clock)) {
		hvt_err("%s: recorded with trace clock '%s', %s with '%s': trace.dat files merge "
			"together only on one clock", path, own, first, clock);
		hvt_ftrace_close(ft);
		return -1;
	}
	if (hvt_timeline_keep_ftrace(tl, ft))
		return -1;
	base = base ? base + 1 : path;
	n = hvt_ftrace_nr_cpus(ft);
	for (cpu = 0; cpu < n; cpu++) {
		char name[256];
		struct hvt_source *s;

		snprintf(name, sizeof(name), "%s:cpu%d", base, cpu);
		s = hvt_timeline_add_source(tl, HVT_LAYER_HOST, NULL, name);
		if (!s) {
			hvt_err("out of memory");
			return -1;
		}
		s->aligned = true;
		s->host_cpu = cpu;
		hvt_reader_open_ftrace_cpu(&s->rd, ft, path, name, cpu, &s->warnings);
	}
	return 0;
}

/*
 * merge HOST.DAT --guest-trace VM=GUEST.DAT: VM is a KVM guest of the host
 * recording, placed by the kvm_write_tsc_offset events in it (unscaled:
 * the tracepoint carries no ratio). That event names no VM, so one VM only.
 * -1 after an error message.
 */
static int tracedat_guest_vm(struct hvt_timeline *tl, const char *path,
			     const struct hvt_timeline_opts *o)
{
	const char *eq = strchr(o->guest_traces[0], '=');
	struct hvt_archive *a = &tl->archive;
	size_t i, len = eq ? (size_t)(eq - o->guest_traces[0]) : 0;

	if (strcmp(tl->tracedat_clock, "x86-tsc")) {
		hvt_err("%s: on trace clock '%s'; placing a guest's trace.dat on it needs the host "
			"TSC: trace-cmd record -C x86-tsc -e kvm:kvm_write_tsc_offset", path,
			tl->tracedat_clock);
		return -1;
	}
	for (i = 1; i < o->nr_guest_traces; i++)
		if (strncmp(o->guest_traces[i], o->guest_traces[0], len + 1)) {
			hvt_err("%s: kvm_write_tsc_offset names no VM, so the guests of one host "
				"trace.dat are one VM: --guest-trace %s and %s differ", path,
				o->guest_traces[0], o->guest_traces[i]);
			return -1;
		}
	if (!len || len > HVT_VM_NAME_MAX)
		return 0;	/* the spec's error comes with the guest traces */
	a->vms = calloc(1, sizeof(*a->vms));
	if (!a->vms) {
		hvt_err("out of memory");
		return -1;
	}
	memcpy(a->vms[0].name, o->guest_traces[0], len);
	a->nr_vms = 1;
	return 0;
}

/*
 * A trace-cmd trace.dat on its own (tracedat_archive.h): the host layer
 * alone, on the file's own trace clock. -1 after an error message.
 */
static int open_tracedat(struct hvt_timeline *tl, const char *path,
			 const struct hvt_timeline_opts *o)
{
	const char *clock;

	if (o->host_trace || o->nr_qemu_traces) {
		hvt_err("%s is a trace.dat, not an archive: --%s-trace adds to an archive", path,
			o->host_trace ? "host" : "qemu");
		return -1;
	}
	tl->ftrace = hvt_ftrace_open_tracedat(path, &clock, &tl->warnings);
	if (!tl->ftrace ||
	    hvt_archive_from_tracedat(&tl->archive, path, clock, hvt_ftrace_first_ts(tl->ftrace)))
		return -1;
	if (hvt_host_clock_init(&tl->clock, tl->archive.pairs, tl->archive.nr_pairs,
				tl->archive.tsc_freq_hz)) {
		hvt_err("%s: its clock cannot be mapped to time", path);
		return -1;
	}
	tl->tracedat_only = true;
	tl->tracedat_clock = clock;
	if (hvt_timeline_adopt_tracedat(tl, path))
		return -1;
	return o->nr_guest_traces ? tracedat_guest_vm(tl, path, o) : 0;
}

int hvt_timeline_open_some(struct hvt_timeline *tl, const char *root,
			   const struct hvt_timeline_opts *o)
{
	static const struct hvt_timeline_opts defaults;
	size_t i;

	if (!o)
		o = &defaults;
	memset(tl, 0, sizeof(*tl));
	if (is_file(root)) {
		if (open_tracedat(tl, root, o))
			goto fail;
		goto sources;
	}
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
	if (o->host_trace && hvt_timeline_use_host_trace(tl, o->host_trace))
		goto fail;
sources:
	if (hvt_timeline_open_sources(tl, o->all_streams)) {
		hvt_err("out of memory opening %s", root);
		goto fail;
	}
	for (i = 0; i < o->nr_more_tracedat; i++)
		if (!tl->tracedat_only ||
		    open_more_tracedat(tl, o->more_tracedat[i], root, tl->tracedat_clock)) {
			if (!tl->tracedat_only)
				hvt_err("%s is an archive: more trace.dat files merge only with a "
					"trace.dat (--host-trace gives an archive another host layer)",
					root);
			goto fail;
		}
	if (hvt_timeline_open_guest_traces(tl, o->guest_traces, o->nr_guest_traces) ||
	    hvt_timeline_open_qemu_traces(tl, o->qemu_traces, o->nr_qemu_traces))
		goto fail;
	if (hvt_heap_init(&tl->heap, tl->nr_sources)) {
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

void hvt_timeline_close(struct hvt_timeline *tl)
{
	size_t i;

	for (i = 0; i < tl->nr_sources; i++) {
		hvt_reader_close(&tl->sources[i].rd);
		free(tl->sources[i].name);
	}
	for (i = 0; tl->vms && i < tl->archive.nr_vms; i++)
		if (tl->vms[i].loaded)
			hvt_timeline_vm_free(&tl->vms[i]);
	free(tl->vms);
	if (tl->host_apps.loaded)
		hvt_timeline_vm_free(&tl->host_apps);
	free(tl->sources);
	hvt_heap_free(&tl->heap);
	hvt_host_clock_free(&tl->clock);
	hvt_ftrace_close(tl->ftrace);
	for (i = 0; i < tl->nr_extra_ftrace; i++)
		hvt_ftrace_close(tl->extra_ftrace[i]);
	free(tl->extra_ftrace);
	hvt_host_layer_free(&tl->align_host);
	hvt_archive_close(&tl->archive);
	memset(tl, 0, sizeof(*tl));
}
