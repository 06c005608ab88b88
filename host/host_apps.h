/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * host_apps.h - the host's own applications in a recording (hvtrace record
 * --host-apps): QEMU, vhost-user back ends, daemons linked with libhvtrace.
 *
 * On the host, libhvtrace reads the TSC itself, the host layer's clock
 * (HVT_CLOCK_TSC). The recorder starts a host agent for them, `hvtrace agent
 * --host` on one end of a socketpair, which serves the applications' socket
 * exactly as a guest's agent does; the other end is a link like a VM's,
 * stored in ARCHIVE/host/apps (docs/format.md). The agent is this
 * recorder's child, in a process group of its own (Ctrl-C reaches the
 * recorder only); it is stopped through its link, and by its pid if it
 * does not go.
 */
#ifndef HVT_HOST_HOST_APPS_H
#define HVT_HOST_HOST_APPS_H

#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>
#include <jansson.h>

#include "host/ftrace_capture.h"
#include "host/vm.h"

#define HVT_HOST_APPS_STOP_S	15	/* to send what it has once asked to stop */

#define HVT_HOST_APP_MAX_THREADS	4096	/* followed per application */

/* A traced application whose threads the host layer follows. */
struct hvt_host_app_threads {
	pid_t pid;
	bool gone;			/* exited once: its pid may be another's now */
	pid_t *tids;
	size_t nr, cap;
};

struct hvt_host_apps {
	struct hvt_vm vm;
	bool on;			/* started: vm is set up */
	char socket_path[108];		/* where the applications connect */
	unsigned int uid_share;		/* its agent's --uid-share; 0: the default */
	pid_t pid;			/* the agent, 0 once reaped */
	int pidfd;
	time_t stop_deadline;		/* 0 until asked to stop */
	struct hvt_host_app_threads *procs;	/* one per traced process, by its trace */
	size_t nr_procs;
};

/*
 * Starts the host agent on @socket_path, with --uid-share @uid_share (0:
 * its default). 1 if it runs; 0 if host
 * applications cannot be served (said as a warning: another process listens
 * there, its directory cannot be made), the recording goes on without them;
 * -1 after an error message if the archive part cannot be made.
 */
int hvt_host_apps_start(struct hvt_host_apps *h, struct hvt_archive_writer *ar,
			const char *socket_path, unsigned int uid_share,
			const struct hvt_vm_limits *limits);
/* The agent's exit and the link, as hvt_target_pollfds(). */
void hvt_host_apps_pollfds(const struct hvt_host_apps *h, struct pollfd p[2]);
void hvt_host_apps_polled(struct hvt_host_apps *h, const struct pollfd p[2]);
void hvt_host_apps_tick(struct hvt_host_apps *h, time_t now);
/*
 * Every second, when the host layer follows threads: the threads of each
 * traced application (the pid the host agent got from the kernel) join its
 * pid filter @ft, so that their own scheduling is recorded beside their
 * events. How many threads were added; -1 if @ft refused them.
 */
int hvt_host_apps_follow(struct hvt_host_apps *h, struct hvt_capture *ft);
/* The threads followed so far, appended at @tids (NULL: only counted); how many. */
size_t hvt_host_apps_threads(const struct hvt_host_apps *h, pid_t *tids);
void hvt_host_apps_request_stop(struct hvt_host_apps *h);
bool hvt_host_apps_ended(const struct hvt_host_apps *h);
/* Ends the link if it has not ended, then reaps the agent (by its pid if it lingers). */
void hvt_host_apps_finish(struct hvt_host_apps *h);
/* hvtrace.json's host.apps, or NULL when not on. */
json_t *hvt_host_apps_manifest(const struct hvt_host_apps *h);
void hvt_host_apps_summary(const struct hvt_host_apps *h, FILE *out);
void hvt_host_apps_free(struct hvt_host_apps *h);

#endif
