/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * qemu.h - what the collector learns about a QEMU process from /proc.
 */
#ifndef HVT_HOST_QEMU_H
#define HVT_HOST_QEMU_H

#include <stddef.h>
#include <sys/types.h>

#define HVT_QEMU_MAX_THREADS 512
#define HVT_QEMU_MAX_VCPUS 256

struct hvt_qemu {
	pid_t pid;
	int pidfd;			/* readable once the process exits */
	const char *accel;		/* "kvm", "tcg" or "unknown" */
	pid_t tids[HVT_QEMU_MAX_THREADS];
	size_t nr_tids;
	/* vCPU threads by vCPU index (0: unknown), and where they were learnt */
	pid_t vcpu_tids[HVT_QEMU_MAX_VCPUS];
	const char *vcpu_source;	/* "qmp", "proc" or NULL */
};

/* The process's name (/proc/PID/comm), "?" and -1 if it is gone. */
int hvt_qemu_comm(pid_t pid, char *buf, size_t size);
/* Checks that @pid is alive and looks like QEMU; opens a pidfd. */
int hvt_qemu_open(struct hvt_qemu *q, pid_t pid, char *err, size_t errlen);
void hvt_qemu_close(struct hvt_qemu *q);
/*
 * The fds of KVM VMs ("anon_inode:kvm-vm") process @pid holds, at most @max
 * into @fds: how many, or -1 if its fds cannot be read (gone, no access).
 */
int hvt_qemu_kvm_vm_fds(pid_t pid, int *fds, int max);
/*
 * Adds threads not seen before; returns how many were new, -1 if the
 * process is gone. Unless QMP named them, vCPU threads are recognised by
 * the names QEMU gives them ("CPU 3/KVM", "CPU 0/TCG").
 */
int hvt_qemu_scan_threads(struct hvt_qemu *q);

#endif
