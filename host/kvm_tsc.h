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

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* Unchanged values are written again on every this many-th snapshot. */
#define HVT_KVM_TSC_KEEPALIVE	60

struct hvt_kvm_tsc_last {
	int vm_fd, vcpu;
	uint64_t offset, ratio, frac;
	uint64_t written;		/* snapshot number; UINT64_MAX: never */
};

struct hvt_kvm_tsc {
	pid_t pid;
	FILE *tsv;
	char debugfs[64];		/* "/sys/kernel/debug/kvm", or "" if unavailable */
	unsigned long snapshots, rows;
	struct hvt_kvm_tsc_last *last;	/* per VM fd and vCPU */
	size_t nr_last, cap_last;
	bool final, warned_dir;
	/* The latest snapshot: one VM, every vCPU unscaled at the same offset? */
	bool uniform;
	int64_t offset;			/* then this: guest TSC - host TSC */
	unsigned int vcpus_read;
};

/*
 * Mounts debugfs on /sys/kernel/debug unless it is there: 0 if it is now,
 * -1 with errno if it cannot be (not root). A freshly booted host may not
 * have it; record and record --list both ask for it the same way.
 */
int hvt_debugfs_mount(void);

/*
 * Creates @vm_dir/kvm_tsc.tsv for process @pid and mounts debugfs if it is
 * not. Without debugfs there are no snapshots: a warning, not an error.
 * -1 with @err if the file cannot be created.
 */
int hvt_kvm_tsc_open(struct hvt_kvm_tsc *k, const char *vm_dir, pid_t pid, char *err,
		     size_t errlen);
/*
 * Reads every vCPU and appends a row for each whose values changed, or
 * whose last row is HVT_KVM_TSC_KEEPALIVE snapshots old, or all with @final.
 * -1 if the file cannot be written.
 */
int hvt_kvm_tsc_snapshot(struct hvt_kvm_tsc *k, bool final);
void hvt_kvm_tsc_close(struct hvt_kvm_tsc *k);

#endif
