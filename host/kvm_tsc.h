/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kvm_tsc.h - snapshots of a KVM process's TSC parameters, per vCPU, into
 * vm/NAME/kvm_tsc.tsv (docs/format.md, "vm/NAME/kvm_tsc.tsv").
 *
 * The source is debugfs, each read bracketed by host TSC reads:
 * /sys/kernel/debug/kvm/<pid>-<vm fd>/vcpuN/tsc-offset, and
 * tsc-scaling-ratio(-frac-bits) where the CPU scales. (KVM_VCPU_TSC_OFFSET
 * is not an alternative: KVM answers a vCPU fd's ioctls only in the VMM's
 * own address space, EIO elsewhere, even on a pidfd_getfd duplicate.)
 * Every offset change between snapshots is in the host layer as
 * kvm:kvm_write_tsc_offset; the snapshots give the state before the first
 * change, the scaling ratio, and a check of the tracepoints
 * (tools/kvm_tsc.c joins them).
 */
#ifndef HVT_HOST_KVM_TSC_H
#define HVT_HOST_KVM_TSC_H

#include <stdio.h>
#include <sys/types.h>

struct hvt_kvm_tsc {
	pid_t pid;
	FILE *tsv;
	char debugfs[64];		/* "/sys/kernel/debug/kvm", or "" if unavailable */
	unsigned long snapshots, rows;
};

/*
 * Creates @vm_dir/kvm_tsc.tsv for process @pid and mounts debugfs if it is
 * not. Without debugfs there are no snapshots: a warning, not an error.
 * -1 with @err if the file cannot be created.
 */
int hvt_kvm_tsc_open(struct hvt_kvm_tsc *k, const char *vm_dir, pid_t pid, char *err,
		     size_t errlen);
/* Appends one row per vCPU; -1 if the file cannot be written. */
int hvt_kvm_tsc_snapshot(struct hvt_kvm_tsc *k);
void hvt_kvm_tsc_close(struct hvt_kvm_tsc *k);

#endif
