/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * target.h - one VM that `hvtrace record` records: its guest link and
 * archive part (struct hvt_vm), its QEMU process, its KVM TSC snapshots.
 *
 * A recording holds any number of targets in one event loop (recorder.c).
 * Each ends on its own: its guest finished, its link broke or misbehaved,
 * its QEMU exited; the others go on. What a target stored stays stored.
 */
#ifndef HVT_HOST_TARGET_H
#define HVT_HOST_TARGET_H

#include <poll.h>
#include <stdbool.h>
#include <time.h>

#include "host/ftrace_capture.h"
#include "host/kvm_tsc.h"
#include "host/qemu.h"
#include "host/vm.h"
#include "lib/netaddr.h"

struct hvt_target_config {
	const char *name;		/* the VM's name in the archive */
	const char *domain;		/* its libvirt domain, or NULL */
	pid_t qemu_pid;			/* 0: not known */
	const char *channel;		/* connect to this link (QEMU listens), or NULL */
	const char *listen;		/* listen on this, for this VM only, or NULL */
	unsigned int vsock_cid;		/* the guest's, 0 if none */
	const pid_t *vcpu_tids;		/* HVT_QEMU_MAX_VCPUS from QMP, or NULL */
	bool no_link;			/* host layer only */
	struct hvt_vm_limits limits;
};

/* When targets give up waiting; the same for every target of a recording. */
struct hvt_target_clock {
	time_t now;
	unsigned int guest_timeout_s;	/* for the guest agent to say hello */
	time_t stop_deadline;		/* 0 until a stop was requested */
	unsigned int stop_grace_s;	/* how long before the deadline it was asked */
	bool stop_now;			/* asked twice: no more waiting for a stalled guest */
};

struct hvt_target {
	struct hvt_vm vm;
	char domain[256];		/* "" if not from libvirt */
	unsigned int libvirt_id;	/* the domain's run it is */
	unsigned int vsock_cid;
	struct hvt_qemu qemu;
	bool have_qemu;			/* its process is known and alive */
	struct hvt_kvm_tsc kvm_tsc;	/* tsv NULL unless it runs under KVM */
	struct hvt_netaddr channel;	/* connected to, when 'connects' */
	bool connects;
	struct hvt_netaddr listen_addr;	/* its own listener, when listen_fd >= 0 */
	int listen_fd;
	time_t started;
	time_t stalled_at;		/* last tick its guest was stalled, 0 if never */
	bool stop_wait_said;		/* the stop was said to wait for the stalled guest */
	bool failed;			/* one of its host-side files could not be written */
	bool gone;			/* its QEMU exited while recording */
	bool wrapped_up;		/* hvt_target_finish() ran */
};

int hvt_target_open(struct hvt_target *t, struct hvt_archive_writer *ar,
		    const struct hvt_target_config *c, char *err, size_t errlen);
bool hvt_target_kvm(const struct hvt_target *t);
/* Under KVM: the first TSC snapshot; after the host layer started. */
int hvt_target_start_kvm(struct hvt_target *t, char *err, size_t errlen);
/* Gives a link accepted by a shared listener to a target still waiting. */
void hvt_target_attach(struct hvt_target *t, int fd);
bool hvt_target_ended(const struct hvt_target *t);

/*
 * The two descriptors it waits on, in @p[0] and @p[1]: QEMU's exit and the
 * link (or its own listener). hvt_target_polled() handles what poll() said.
 */
void hvt_target_pollfds(const struct hvt_target *t, struct pollfd p[2]);
void hvt_target_polled(struct hvt_target *t, const struct pollfd p[2]);
/*
 * Every 100 ms (@tick counts them): clock exchanges, connection attempts,
 * time-outs; every second KVM snapshots and new QEMU threads, which join the
 * host layer's filter in @ft (NULL if none).
 */
void hvt_target_tick(struct hvt_target *t, unsigned long tick, const struct hvt_target_clock *c,
		     struct hvt_capture *ft);
void hvt_target_request_stop(struct hvt_target *t, const char *why);
/* Ends it if it has not ended: the last snapshot, the link closed, files completed. */
void hvt_target_finish(struct hvt_target *t);
void hvt_target_summary(const struct hvt_target *t, FILE *out);
json_t *hvt_target_manifest_entry(const struct hvt_target *t);
void hvt_target_free(struct hvt_target *t);

#endif
