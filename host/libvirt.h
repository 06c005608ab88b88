/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libvirt.h - a running libvirt domain, as the collector needs it: the
 * QEMU process and the unix socket of its hvtrace channel.
 *
 * The channel is the domain's <channel type='unix'> whose virtio target is
 * named org.hvtrace.0 (HVT_WIRE_PORT_NAME). The QEMU process is found
 * through QMP query-cpus-fast (libvirt-qemu): the thread group of a vCPU
 * thread.
 */
#ifndef HVT_HOST_LIBVIRT_H
#define HVT_HOST_LIBVIRT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "host/qemu.h"

#define HVT_LIBVIRT_DEFAULT_URI	"qemu:///system"

struct hvt_libvirt_vm {
	pid_t qemu_pid;
	char channel[108];		/* the socket's path (sun_path's size); "" if none */
	bool qemu_listens;		/* <source mode='bind'>: QEMU is the server */
	unsigned int vcpus;
	pid_t vcpu_tids[HVT_QEMU_MAX_VCPUS];	/* by cpu-index, from QMP; 0: unknown */
	unsigned int vsock_cid;		/* <vsock><cid address=N/>, 0 if none */
	unsigned int id;		/* libvirt's id of this run of the domain */
};

struct hvt_libvirt_domain {
	char *name;
	unsigned int id;		/* new each time the domain starts */
};

struct hvt_libvirt;			/* a connection */

/* Connects to @uri (NULL: the default); NULL with @err if it cannot. */
struct hvt_libvirt *hvt_libvirt_open(const char *uri, char *err, size_t errlen);
void hvt_libvirt_close(struct hvt_libvirt *lv);
/*
 * Looks up the running domain @name. Without an hvtrace channel, that is an
 * error with @need_channel, else vm->channel is "". -1 with @err naming the
 * problem and what to do about it.
 */
int hvt_libvirt_lookup(struct hvt_libvirt *lv, const char *name, bool need_channel,
		       struct hvt_libvirt_vm *vm, char *err, size_t errlen);
/*
 * The running domains into *@doms (free with hvt_libvirt_free_domains());
 * how many, or -1 with @err.
 */
int hvt_libvirt_running(struct hvt_libvirt *lv, struct hvt_libvirt_domain **doms, char *err,
			size_t errlen);
void hvt_libvirt_free_domains(struct hvt_libvirt_domain *doms, int n);

#endif
