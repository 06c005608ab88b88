/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * recorder.h - a recording: the host layer and every VM's target, in one
 * event loop.
 *
 *   cmd_record.c  `hvtrace record`: options, then a recorder
 *   recorder.c    the loop, VMs coming and going, the manifest, the summary
 *   target.c      one VM (target.h)
 */
#ifndef HVT_HOST_RECORDER_H
#define HVT_HOST_RECORDER_H

#include <stdbool.h>
#include <time.h>

#include "host/archive_writer.h"
#include "host/ftrace_capture.h"
#include "host/host_apps.h"
#include "host/libvirt.h"
#include "host/qemu_log_copy.h"
#include "host/target.h"
#include "lib/netaddr.h"

#define HVT_REC_MAX_NAMES	64	/* --vm given this many times */
#define HVT_REC_MAX_TARGETS	256	/* VMs in one recording */
#define HVT_REC_MAX_EXTRA_EVENTS (HVT_FTRACE_MAX_EVENTS - 16)	/* room for the defaults (13) */

struct hvt_record_opts {
	bool list;			/* --list: only list the VMs of this host */
	const char *channel;		/* a link we connect to */
	const char *listen;		/* a link we listen on */
	const char *names[HVT_REC_MAX_NAMES];	/* --vm */
	int nr_names;
	unsigned int guests;		/* --guests: links --listen takes; 0: as names */
	bool all;			/* every libvirt domain, also those started later */
	const char *connect;		/* libvirt URI */
	const char *output;
	pid_t qemu_pid;
	const char *qmp;		/* --qmp: that QEMU's monitor */
	const char *qemu_log;		/* --qemu-log: its trace log (-D FILE) */
	char *events[HVT_REC_MAX_EXTRA_EVENTS];
	int nr_events;
	bool host_trace;
	const char *host_apps;		/* --host-apps; NULL: the default, if any */
	unsigned int uid_share;		/* --uid-share for its agent; 0: its default */
	unsigned int duration_s;
	unsigned int guest_timeout_s;
	struct hvt_vm_limits limits;
	const char *live;		/* --live [ADDR:]PORT: served to LTTng live viewers */
	bool live_from_start;		/* ... each from the recording's start */
	int nice;			/* --nice: the collector's (lib/priority.h) */
};

/* --all: a run of a domain that could not be recorded, said once. */
struct hvt_rec_refusal {
	char domain[256];
	unsigned int id;		/* libvirt's id of that run */
	bool final;			/* the VM could not be set up: not tried again */
};

struct hvt_recorder {
	struct hvt_record_opts o;
	struct hvt_archive_writer archive;
	bool archive_made;
	bool ran;			/* prepared and run: the outcome counts */
	struct hvt_capture ftrace;
	bool ftrace_on;
	bool follows_threads;		/* the host layer is filtered to VMs' threads */
	bool apps_follow_failed;	/* said once */
	struct hvt_target *targets[HVT_REC_MAX_TARGETS];
	unsigned int nr_targets;
	struct hvt_host_apps apps;	/* the host's own applications */
	struct hvt_qemu_log qemu_log;	/* --qemu-log: fd -1 if none */
	int64_t qemu_log_kept;		/* ... bytes kept in the archive; -1: could not */
	bool qemu_log_saved;		/* ... kept: the manifest says so */
	bool qemu_events_on;		/* ... its I/O events turned on over --qmp */
	/* --listen: guests connect here and take the next waiting target */
	struct hvt_netaddr listen_addr;
	int listen_fd;
	unsigned int accepted;
	pid_t qmp_vcpu_tids[HVT_QEMU_MAX_VCPUS];	/* --qmp, by cpu-index; 0: unknown */
	/* libvirt: --vm NAME without a link, or --all */
	struct hvt_libvirt *libvirt;
	struct hvt_libvirt_vm named[HVT_REC_MAX_NAMES];	/* --vm, looked up */
	struct hvt_rec_refusal refused[HVT_REC_MAX_TARGETS];	/* --all, oldest dropped */
	unsigned int nr_refused;
	char default_output[64];
	time_t started, stop_deadline;
	bool stop_now;			/* a stop was asked again: no more waiting */
	bool stopping;
	bool failed;			/* a host-side file could not be written */
};

/* The defaults of every option. */
void hvt_record_opts_init(struct hvt_record_opts *o);
/* Finds the VMs, creates the archive and starts the host layer; -1 if it cannot. */
int hvt_recorder_prepare(struct hvt_recorder *r);
/* Until stopped (signal, --duration) or, without --all, every VM ended. */
void hvt_recorder_run(struct hvt_recorder *r);
/* Completes the archive, prints the summary; the exit status. */
int hvt_recorder_finish(struct hvt_recorder *r);

#endif
