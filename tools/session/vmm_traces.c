// SPDX-License-Identifier: GPL-2.0-only
/*
 * vmm_traces.c - the hypervisor's own trace events (merge --qemu-trace
 * FILE): QEMU's log trace backend stamps each event with CLOCK_REALTIME to
 * the microsecond (read/qemu_log.c), which the archive's host clock pairs
 * put on the host TSC (clocksync/realtime_tsc.h). Each file is one source
 * of the vmm layer, on the host: those given, and each VM's
 * vm/NAME/qemu-trace.log that the recording kept (record --qemu-log).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/fileio.h"
#include "lib/log.h"
#include "tools/session/sources.h"
#include "tools/util/stream_warn.h"

/* The host clock pairs placing CLOCK_REALTIME on the host TSC, made once: 0, or -1. */
static int realtime_ready(struct hvt_session *ses)
{
	const struct hvt_archive *a = &ses->archive;

	if (ses->realtime_ready)
		return 0;
	if (hvt_realtime_tsc_init(&ses->realtime, a->pairs, a->nr_pairs, a->tsc_freq_hz)) {
		hvt_err("%s: its host clock pairs cannot place CLOCK_REALTIME on the host TSC",
			a->root);
		return -1;
	}
	ses->realtime_ready = true;
	return 0;
}

/*
 * QEMU's log @path as a source named @name, of VM number @vm (0: not
 * known): 0, or -1 after an error message. One the archive kept (@kept)
 * that cannot be read is a warning: its events are missing, the rest is
 * there; one given is the user's ask.
 */
static int open_log(struct hvt_session *ses, const char *path, const char *name, size_t vm,
		    bool kept)
{
	struct hvt_source *s;

	if (kept && !ses->realtime_ready &&
	    hvt_realtime_tsc_init(&ses->realtime, ses->archive.pairs, ses->archive.nr_pairs,
				  ses->archive.tsc_freq_hz)) {
		hvt_warn("%s: its host clock pairs cannot place QEMU's events on the host TSC: "
			 "%s is not read", ses->archive.root, name);
		ses->warnings++;
		return 0;
	}
	if (realtime_ready(ses))
		return -1;
	s = hvt_session_add_source(ses, HVT_LAYER_VMM, 0, NULL, name);
	if (!s) {
		hvt_err("out of memory");
		return -1;
	}
	s->vmm_vm = vm;
	if (vm)		/* its QEMU's: shown and selected (--vm) with that VM */
		s->vm = ses->archive.vms[vm - 1].name;
	if (hvt_reader_open_qemu_log(&s->rd, path, s->name, &s->warnings)) {
		if (kept) {	/* the source stays, unopened, as a stream that could not be */
			s->incomplete = true;
			return 0;
		}
		hvt_err("%s: not read (the warning above says why)", path);
		return -1;
	}
	s->aligned = true;
	s->realtime = &ses->realtime;
	hvt_info("%s: QEMU's events, stamped by CLOCK_REALTIME to the microsecond, are "
		 "placed through the host clock pairs within +/-%" PRIu64 ".%03" PRIu64
		 " us", name, (500 + ses->realtime.bound_ns) / 1000,
		 (500 + ses->realtime.bound_ns) % 1000);
	return 0;
}

/* Whether @path is the same file as one of @paths. */
static bool given(const char *path, const char *const *paths, size_t n)
{
	struct stat a, b;
	size_t i;

	if (stat(path, &a))
		return false;
	for (i = 0; i < n; i++)
		if (!stat(paths[i], &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			return true;
	return false;
}

/*
 * The log the recording kept, against the length the manifest records for
 * it: shorter, its last lines are missing (cut or emptied since).
 */
static void kept_size_check(struct hvt_session *ses, const char *path, int64_t bytes)
{
	struct hvt_source *s = ses->sources[ses->nr_sources - 1];
	struct stat st;

	if (bytes < 0 || !hvt_reader_opened(&s->rd) || stat(path, &st) || st.st_size >= bytes)
		return;
	hvt_stream_warn(&s->warnings, s->name, "%lld bytes, where hvtrace.json records %lld: "
			"QEMU's last events are missing (truncated or emptied)",
			(long long)st.st_size, (long long)bytes);
	s->incomplete = true;
}

int hvt_session_open_qemu_traces(struct hvt_session *ses, const char *const *paths, size_t n)
{
	char path[HVT_PATH_LEN], name[HVT_VM_NAME_MAX + 32];
	size_t i;

	for (i = 0; i < n; i++) {
		const char *base = strrchr(paths[i], '/');

		/* a log given beside an archive of one VM is that VM's QEMU's */
		if (open_log(ses, paths[i], base ? base + 1 : paths[i],
			     ses->archive.nr_vms == 1 && !ses->tracedat_only, false))
			return -1;
	}
	/* the logs the recording kept (record --qemu-log), unless given too */
	for (i = 0; !ses->tracedat_only && i < ses->archive.nr_vms; i++) {
		const struct hvt_vm_ref *vm = &ses->archive.vms[i];

		/* one the manifest records is read, or said missing: never left out silently */
		if (!vm->dir || hvt_path(path, sizeof(path), "%s/qemu-trace.log", vm->dir) ||
		    (vm->qemu_log_bytes < 0 && access(path, F_OK)) || given(path, paths, n))
			continue;
		snprintf(name, sizeof(name), "vm/%s/qemu-trace.log", vm->name);
		if (open_log(ses, path, name, i + 1, true))
			return -1;
		kept_size_check(ses, path, vm->qemu_log_bytes);
	}
	return 0;
}
