/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kernel_compat.h - every difference between the kernels hvtrace.ko builds
 * against, in one place (lttng-modules keeps its wrapper/ the same way).
 * Built and tested against Debian's 6.1 and 6.12, generic and PREEMPT_RT
 * (make kmod-all; tests/e2e/run runs the in-guest suites on all four).
 *
 * The rest of the module uses these names and never tests a version.
 */
#ifndef HVTRACE_KERNEL_COMPAT_H
#define HVTRACE_KERNEL_COMPAT_H

#include <linux/mm.h>
#include <linux/version.h>

/* 6.3 made vm_flags read-only behind accessors (commit bc292ab00f6c). */
static inline void hvtrace_vm_flags_clear(struct vm_area_struct *vma, unsigned long flags)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

#endif /* HVTRACE_KERNEL_COMPAT_H */
