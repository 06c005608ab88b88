/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * session.h - what is in a recording: the archive (or trace.dat files),
 * the host's clock, the host layer, each VM with its alignment, the host's
 * applications, and every stream as a source (source.h) on the host's time
 * line. The offline commands open one session; a time line
 * (merge/timeline.h) then pulls its events in time order, and the checks,
 * the analysis and the outputs read what they need to know of the
 * recording from the session alone.
 *
 * Opening reads the descriptions (archive/), places each VM's clock
 * (align/vm_align.h: exactly by KVM's TSC parameters, or by the estimate)
 * and opens every stream behind its reader (read/reader.h); it reads no
 * event. Traces on CLOCK_MONOTONIC_RAW, and VMs without any clock
 * exchange, cannot be aligned: they are skipped with one warning each, or,
 * with all_streams, opened too (aligned = false) for hvt_source_next()
 * but never put on a time line (check decodes them).
 *
 * Inputs beside the archive: a trace-cmd trace.dat as the host layer
 * (--host-trace), trace.dat files recorded in a VM (--guest-trace), files
 * of QEMU's log trace backend (--qemu-trace); or a trace.dat on its own,
 * with more on the same trace clock, as an archive with a host layer only.
 *
 * A recording still being written can be opened (its status is not
 * "complete": a warning), and followed with hvt_session_refresh().
 */
#ifndef HVT_TOOLS_SESSION_SESSION_H
#define HVT_TOOLS_SESSION_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clocksync/realtime_tsc.h"
#include "lib/event_registry.h"
#include "tools/align/align.h"
#include "tools/align/vm_align.h"
#include "tools/archive/archive.h"
#include "tools/read/ctf_reader.h"
#include "tools/read/ftrace_reader.h"
#include "tools/session/source.h"

/* A trace's registry, as far as it was read. */
struct hvt_session_registry {
	struct hvt_registry reg;
	unsigned long warnings;		/* its problems */
	size_t at;			/* the bytes read; SIZE_MAX: stopped at a bad record */
	bool read;			/* read at all (traces that cannot be placed are not) */
};

/*
 * A VM of the recording (or the host's applications, which are placed as
 * they are). The per-trace arrays have room for every trace a VM may have
 * (HVT_MAX_TRACES), so that a reader's pointer into them stays valid while
 * a refresh adds traces.
 */
struct hvt_session_vm {
	struct hvt_vm_info vm;		/* traces and streams are only ever appended */
	bool loaded;			/* info.json was usable */
	struct hvt_vm_align al;		/* how its guest clock is placed (vm_align.h) */
	struct hvt_session_registry *regs;	/* by trace index of vm */
	struct hvt_ctf_types *types;	/* by trace index, from its registry */
	uint64_t placed_until;		/* host TSC of the last exchange its alignment
					 * used (UINT64_MAX: exact; 0: none): a
					 * follower's guest events after it wait */
};

struct hvt_session;
/*
 * @st of @ses was aligned now: up to where its guest events have a bound -
 * its last exchange, and, for a clock the vCPU runs refitted while the
 * recording goes on, the least of the host CPUs' last scheduling or KVM
 * event read (past it a run may be under way that the fit did not see).
 */
void hvt_session_vm_placed(const struct hvt_session *ses, struct hvt_session_vm *st);

struct hvt_session {
	struct hvt_archive archive;
	struct hvt_host_clock clock;
	struct hvt_ftrace *ftrace;	/* NULL: no host layer */
	bool host_trace;		/* ... read from a trace.dat (merge --host-trace) */
	bool tracedat_only;		/* a trace.dat on its own: no archive around it */
	const char *tracedat_clock;	/* ... its trace clock */
	struct hvt_ftrace **extra_ftrace;	/* --guest-trace, more trace.dat: each file's */
	size_t nr_extra_ftrace;
	struct hvt_realtime_tsc realtime;	/* QEMU's logs: CLOCK_REALTIME -> TSC */
	bool realtime_ready;		/* ... made */
	struct hvt_host_layer align_host;	/* what alignment read of it */
	struct hvt_session_vm *vms;	/* archive.nr_vms */
	struct hvt_session_vm host_apps;	/* archive.host_apps: loaded, or not */
	struct hvt_source **sources;	/* in the order opened: sources[i]->index == i */
	size_t nr_sources;
	unsigned long warnings;		/* about no stream in particular */
	bool all_streams;		/* as opened (hvt_session_opts) */
	bool follow;			/* ... */
	size_t vms_unfollowed;		/* VMs that appeared after the open, said */
	int64_t realign_due_ns;		/* followed: CLOCK_MONOTONIC of the next refit */
	int64_t realign_cost_ns;	/* ... what the last one took */
};

struct hvt_session_opts {
	bool all_streams;		/* open the streams that cannot be aligned too */
	/*
	 * A recording still being written, to be followed with
	 * hvt_session_refresh(): each stream is read only as far as the
	 * collector has recorded it whole (info.json's bytes; whole pages of a
	 * host CPU file), never into a packet being written.
	 */
	bool follow;
	/* The host layer from this trace-cmd trace.dat instead of host/ftrace. */
	const char *host_trace;
	/* VM=TRACE.DAT: trace-cmd recordings made in VMs of the archive (-C x86-tsc). */
	const char *const *guest_traces;
	size_t nr_guest_traces;
	/* More trace.dat files beside a trace.dat given alone, on the same clock. */
	const char *const *more_tracedat;
	size_t nr_more_tracedat;
	/* QEMU's own trace events, files of its log trace backend. */
	const char *const *qemu_traces;
	size_t nr_qemu_traces;
};

/*
 * Opens the archive (or trace.dat) at @root with the inputs @o adds (NULL:
 * the archive alone, aligned streams only). Returns -1 (after an error
 * message) only if it cannot be read at all, or an input of @o cannot.
 */
int hvt_session_open(struct hvt_session *ses, const char *root,
		     const struct hvt_session_opts *o);
void hvt_session_close(struct hvt_session *ses);
/*
 * Follows a recording still being written (opened with follow): reads again
 * what the collector wrote since the open or the last refresh. Guarantees:
 *   - no event a source returned is returned again, and each source's
 *     events stay in its order: a stream is read on from where it stopped,
 *     and only as far as the collector recorded it whole;
 *   - sources are only added, at the end of the list: those before keep
 *     their index and address. New streams of the VMs and the host
 *     applications known at the open (a process or thread traced since),
 *     and the streams of traces that could not be placed before and can
 *     now (a VM's first clock exchanges arrived), become sources; the
 *     registries of known traces are read on, so that events registered
 *     since decode (an event decoded before stays valid);
 *   - each VM is aligned again with the exchanges (and host events) so
 *     far: the events its sources return from now on are placed by that
 *     alignment, with its bound; an event it would place before its
 *     source's previous one is placed at the previous one's time, and its
 *     bound widened to cover where the new alignment put it (held, not
 *     dropped; hvt_source_error_bound()); events returned before keep
 *     their placement;
 *   - archive.complete turns true once the recording has finished: what
 *     is read after that refresh is all there will be.
 * The VMs are aligned again at most once a second, or less often where a
 * refit takes more than 1/20 of the time since the last (it reads the host
 * layer from the start): a follower spends at most 5% of its time on it;
 * at once where a VM has no alignment yet, and when the recording ends.
 * Each VM's placed_until says up to where its alignment reaches.
 * Not followed: a VM that appears after the open (a libvirt domain started
 * later: said once, open the recording again), and clock pairs the host
 * clock gains (the open's map stays: it places the trace's whole span).
 * The alignment is made anew from the start of the recording at each
 * refresh, so a refresh costs what opening does. Alignment says nothing
 * here: its messages and warnings were the open's. A time line of the
 * session takes the new events with hvt_timeline_refresh(). 0, or -1 if
 * out of memory (the session is then as consistent as before, with less).
 */
int hvt_session_refresh(struct hvt_session *ses);
/* Every warning issued so far, from any reader. */
unsigned long hvt_session_warnings(const struct hvt_session *ses);
/*
 * The host CPUs whose file could not be read at all, as "0, 3" in @buf
 * ("" if none; cut to @len); how many.
 */
size_t hvt_session_unread_host_cpus(const struct hvt_session *ses, char *buf, size_t len);

/*
 * What of the recording the output lacks (completeness.c), each said as it
 * was found; asked once every event was read.
 *
 * The VMs lost to damage: a description that could not be read, or clock
 * exchanges gone from sync.tsv (fewer than info.json records) so that the
 * VM cannot be aligned. A VM that never had exchanges (a guest without the
 * module) is not damage.
 */
size_t hvt_session_unread_vms(const struct hvt_session *ses);
/*
 * Whether the host layer was read and not one of its records decoded,
 * though it had some (warnings): its format files lost, say.
 */
bool hvt_session_host_undecoded(const struct hvt_session *ses);
/*
 * Streams and host CPU files with recorded data that could not be read:
 * missing, unreadable, shorter than recorded. Of those @wanted takes (the
 * selection, as hvt_timeline_init() takes it; NULL: all).
 */
size_t hvt_session_incomplete_sources(const struct hvt_session *ses,
				      bool (*wanted)(const struct hvt_source *s, void *ctx),
				      void *ctx);
/*
 * Files in the archive its lists do not name, so not read (said when
 * opened): host CPU files (with @host) and a finished VM's stream files and
 * trace directories.
 */
size_t hvt_session_unlisted_files(const struct hvt_session *ses, bool host);
/* The same, said as an error if any: their events are not in @output. */
size_t hvt_session_unlisted_said(const struct hvt_session *ses, bool host, const char *output);
/* The same, said as an error if any: their events are not all in @output ("the output"). */
size_t hvt_session_incomplete_said(const struct hvt_session *ses,
				   bool (*wanted)(const struct hvt_source *s, void *ctx), void *ctx,
				   const char *output);
/*
 * All of the above in one line in @buf ("1 VM could not be read; 2 streams
 * are missing, cut short or damaged"), or NULL if the output lacks nothing.
 */
const char *hvt_session_lacks(const struct hvt_session *ses, char *buf, size_t len);
/*
 * How far the current event of @s may be from its true host time, in ns
 * rounded up: 0 on the host TSC, a guest event's error bound
 * (hvt_source_error_bound()), a vmm event's; -1 where none is guaranteed.
 */
int64_t hvt_session_event_bound_ns(struct hvt_session *ses, const struct hvt_source *s);
/* Events the producers reported lost (discarded, missed, lost packets). */
uint64_t hvt_session_lost(const struct hvt_session *ses);
/* The VM of source @s, or NULL for a source of the host. */
static inline struct hvt_session_vm *hvt_session_vm_of(const struct hvt_session *ses,
						       const struct hvt_source *s)
{
	return s->vm_number ? &ses->vms[s->vm_number - 1] : NULL;
}
/*
 * Whether the manifest names a host layer (host/ftrace) that could not be
 * decoded at all: recorded, and lost to this session (not "not recorded").
 */
static inline bool hvt_session_host_unreadable(const struct hvt_session *ses)
{
	return ses->archive.ftrace_dir && !ses->ftrace && !ses->host_trace;
}
/* "the host layer was not recorded", or "... cannot be decoded". */
static inline const char *hvt_session_host_missing(const struct hvt_session *ses)
{
	return hvt_session_host_unreadable(ses) ?
	       "the host layer was recorded but cannot be decoded (see the errors)" :
	       "the host layer was not recorded";
}
/*
 * Whether the host layer is the recording's own, with the scheduling of
 * the VMs' vCPU threads: not missing, not from a trace.dat (--host-trace).
 */
static inline bool hvt_session_host_recorded(const struct hvt_session *ses)
{
	return ses->ftrace && !ses->host_trace;
}
#endif
