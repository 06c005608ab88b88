/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vm_list.h - `hvtrace record --list`: the VMs of this host, each with the
 * command that records it.
 */
#ifndef HVT_HOST_VM_LIST_H
#define HVT_HOST_VM_LIST_H

#include <stdio.h>

/*
 * Lists KVM VMs (debugfs), QEMU processes without KVM and, if libvirtd
 * answers at @uri (NULL: the default, then silently skipped if it does
 * not), its running domains. Returns the exit status: 1 if the libvirt
 * named by @uri cannot be listed.
 */
int hvt_vm_list(FILE *out, const char *uri);

#endif
