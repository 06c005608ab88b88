// SPDX-License-Identifier: GPL-2.0-only
/*
 * tracedat_input.c - trace-cmd recordings as a session's host layer: a
 * trace.dat on its own (with more on its trace clock, and a KVM guest's
 * beside it), or a trace.dat in place of an archive's host layer
 * (--host-trace). See sources.h.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/log.h"
#include "tools/archive/tracedat_archive.h"
#include "tools/session/sources.h"

bool hvt_session_is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && !S_ISDIR(st.st_mode);
}

/*
 * Makes the trace.dat at @path, open in ses->ftrace, the archive's host layer:
 * a->ftrace_dir and a->cpus then name the file, so that the pre-passes over
 * the host layer read it too. -1 after an error message.
 */
static int adopt_tracedat(struct hvt_session *ses, const char *path)
{
	struct hvt_archive *a = &ses->archive;
	int i, n = hvt_ftrace_nr_cpus(ses->ftrace);

	for (i = 0; (size_t)i < a->nr_cpus; i++)
		free(a->cpus[i].path);
	free(a->cpus);
	free(a->ftrace_dir);
	a->nr_cpus = 0;
	a->ftrace_dir = strdup(path);
	a->cpus = calloc((size_t)n + 1, sizeof(*a->cpus));
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
	ses->host_trace = true;
	return 0;
}

int hvt_session_use_host_trace(struct hvt_session *ses, const char *path)
{
	struct hvt_archive *a = &ses->archive;
	const struct hvt_clock_pair *first = &a->pairs[0], *last = &a->pairs[a->nr_pairs - 1];
	uint64_t hz = a->tsc_freq_hz ? a->tsc_freq_hz : 5000000000ull, ts, margin = 3600 * hz;

	ses->ftrace = hvt_ftrace_open_tracedat(path, NULL, &ses->warnings);
	if (!ses->ftrace)
		return -1;
	ts = hvt_ftrace_first_ts(ses->ftrace);
	if (ts && (ts + margin < first->tsc || ts > last->tsc + margin)) {
		hvt_err("%s: its first timestamp, %" PRIu64 ", is more than an hour away from "
			"%s's host TSC (%" PRIu64 " to %" PRIu64 "): recorded on another host or "
			"boot, or with --tsc2nsec?", path, ts, a->root, first->tsc, last->tsc);
		return -1;
	}
	return adopt_tracedat(ses, path);
}

/*
 * One more trace.dat beside the first, @first on trace clock @clock: each
 * of its CPUs one more host source, "FILE:cpuN". Its clock must be the
 * first's. -1 after an error message.
 */
static int open_more(struct hvt_session *ses, const char *path, const char *first,
		     const char *clock)
{
	const char *base = strrchr(path, '/'), *own;
	struct hvt_ftrace *ft = hvt_ftrace_open_tracedat(path, &own, &ses->warnings);
	int cpu, n;

	if (!ft)
		return -1;
	if (strcmp(own, clock)) {
		hvt_err("%s: recorded with trace clock '%s', %s with '%s': trace.dat files merge "
			"together only on one clock", path, own, first, clock);
		hvt_ftrace_close(ft);
		return -1;
	}
	if (hvt_session_keep_ftrace(ses, ft))
		return -1;
	base = base ? base + 1 : path;
	n = hvt_ftrace_nr_cpus(ft);
	for (cpu = 0; cpu < n; cpu++) {
		char name[256];
		struct hvt_source *s;

		snprintf(name, sizeof(name), "%s:cpu%d", base, cpu);
		s = hvt_session_add_source(ses, HVT_LAYER_HOST, 0, NULL, name);
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

int hvt_session_open_more_tracedat(struct hvt_session *ses, const char *root,
				   const struct hvt_session_opts *o)
{
	size_t i;

	for (i = 0; i < o->nr_more_tracedat; i++)
		if (!ses->tracedat_only ||
		    open_more(ses, o->more_tracedat[i], root, ses->tracedat_clock)) {
			if (!ses->tracedat_only)
				hvt_err("%s is an archive: more trace.dat files merge only with a "
					"trace.dat (--host-trace gives an archive another host layer)",
					root);
			return -1;
		}
	return 0;
}

/*
 * merge HOST.DAT --guest-trace VM=GUEST.DAT: VM is a KVM guest of the host
 * recording, placed by the kvm_write_tsc_offset events in it (unscaled:
 * the tracepoint carries no ratio). That event names no VM, so one VM only.
 * -1 after an error message.
 */
static int tracedat_guest_vm(struct hvt_session *ses, const char *path,
			     const struct hvt_session_opts *o)
{
	const char *eq = strchr(o->guest_traces[0], '=');
	struct hvt_archive *a = &ses->archive;
	size_t i, len = eq ? (size_t)(eq - o->guest_traces[0]) : 0;

	if (strcmp(ses->tracedat_clock, "x86-tsc")) {
		hvt_err("%s: on trace clock '%s'; placing a guest's trace.dat on it needs the host "
			"TSC: trace-cmd record -C x86-tsc -e kvm:kvm_write_tsc_offset", path,
			ses->tracedat_clock);
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

int hvt_session_open_tracedat(struct hvt_session *ses, const char *path,
			      const struct hvt_session_opts *o)
{
	const char *clock;

	if (o->host_trace || o->nr_qemu_traces) {
		hvt_err("%s is a trace.dat, not an archive: --%s-trace adds to an archive", path,
			o->host_trace ? "host" : "qemu");
		return -1;
	}
	ses->ftrace = hvt_ftrace_open_tracedat(path, &clock, &ses->warnings);
	if (!ses->ftrace ||
	    hvt_archive_from_tracedat(&ses->archive, path, clock, hvt_ftrace_first_ts(ses->ftrace)))
		return -1;
	if (hvt_host_clock_init(&ses->clock, ses->archive.pairs, ses->archive.nr_pairs,
				ses->archive.tsc_freq_hz)) {
		hvt_err("%s: its clock cannot be mapped to time", path);
		return -1;
	}
	ses->tracedat_only = true;
	ses->tracedat_clock = clock;
	if (adopt_tracedat(ses, path))
		return -1;
	return o->nr_guest_traces ? tracedat_guest_vm(ses, path, o) : 0;
}
