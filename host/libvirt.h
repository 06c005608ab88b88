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

#define HVT_LIBVIRT_DEFAULT_URI	"qemu:///system"

struct hvt_libvirt_vm {
	pid_t qemu_pid;
	char channel[108];		/* the socket's path (sun_path's size) */
	bool qemu_listens;		/* <source mode='bind'>: QEMU is the server */
	unsigned int vcpus;
};

/*
 * Looks up the running domain @name through @uri (NULL: the default).
 * -1 with @err naming the problem and what to do about it.
 */
int hvt_libvirt_lookup(const char *uri, const char *name, struct hvt_libvirt_vm *vm,
		       char *err, size_t errlen);

#endif
