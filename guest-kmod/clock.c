// SPDX-License-Identifier: GPL-2.0-only
/*
 * clock.c - the guest trace clock and the page that shows it to user space.
 *
 * The recorded timestamp is the raw guest TSC (__hvtrace_clock_read() in
 * hvtrace_internal.h). The clock page tells user space everything needed to
 * compute the same value and to turn it into host-referenced nanoseconds
 * without a syscall; the agent publishes the host's transform through
 * HVTRACE_IOC_SET_CLOCK. One writer at a time (clock_lock), seqcount protocol
 * as in the kernel's vDSO data. The writer keeps interrupts off while seq is
 * odd: a reader that interrupted it on the same CPU would otherwise spin
 * forever. Every write changes the generation and is recorded as an
 * hvtrace_clock_change event: a new transform, or a discontinuity (resume
 * from suspend or hibernation, after which no transform is trusted until the
 * agent publishes one again).
 */
#include <linux/capability.h>
#include <linux/cpumask.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/suspend.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <asm/tsc.h>

#include "hvtrace_internal.h"

static struct page *clock_page;
static struct hvt_clock_page *clock;
static DEFINE_RAW_SPINLOCK(clock_lock);

static_assert(sizeof(struct hvt_clock_page) <= HVT_CLOCK_PAGE_SIZE);
static_assert(HVT_CLOCK_PAGE_SIZE == PAGE_SIZE);
/* The layout docs/format.md gives. */
static_assert(sizeof(struct hvt_clock_params) == 64);
static_assert(offsetof(struct hvt_clock_page, global) == HVT_CLOCK_PAGE_HEADER_SIZE);
static_assert(offsetof(struct hvt_clock_page, cpu) == HVT_CLOCK_PAGE_HEADER_SIZE + 64);

/* The trace clock (__hvtrace_clock_read()), for other modules. */
u64 hvtrace_clock_read(void)
{
	return __hvtrace_clock_read();
}
EXPORT_SYMBOL_GPL(hvtrace_clock_read);

/*
 * Host-referenced ns (host CLOCK_MONOTONIC) for @tsc, with the current
 * transform. Any context but NMI: an NMI could interrupt the writer while
 * seq is odd.
 */
s64 hvtrace_clock_host_ns(u64 tsc, u64 *error_ns)
{
	struct hvt_clock_params p;
	u32 flags;

	hvt_clock_page_read_params(clock, raw_smp_processor_id(), &p, &flags);
	if (error_ns)
		*error_ns = hvt_clock_params_error_ns(flags, &p);
	return hvt_clock_params_apply(&p, tsc);
}
EXPORT_SYMBOL_GPL(hvtrace_clock_host_ns);

u64 hvtrace_clock_khz(void)
{
	return tsc_khz;
}

/* HVTRACE_IOC_CLOCK_READ: the reading user space compares its own with. */
long hvtrace_clock_reading(struct hvtrace_clock_reading __user *uarg)
{
	struct hvtrace_clock_reading r = { 0 };
	struct hvt_clock_params p;

	preempt_disable();
	r.cpu = smp_processor_id();
	r.tsc = __hvtrace_clock_read();
	r.generation = hvt_clock_page_read_params(clock, r.cpu, &p, &r.flags);
	preempt_enable();
	r.host_ns = hvt_clock_params_apply(&p, r.tsc);
	r.error_ns = hvt_clock_params_error_ns(r.flags, &p);
	return copy_to_user(uarg, &r, sizeof(r)) ? -EFAULT : 0;
}

/* Page flags the module owns: the guest kernel's verdict on its TSC. */
static u32 module_flags(void)
{
	return boot_cpu_has(X86_FEATURE_TSC_RELIABLE) && !check_tsc_unstable() ? 0 :
	       HVT_CLOCK_F_TSC_UNSTABLE;
}

/*
 * One seqcount write: @p into @dst (if any); as page flags, those of @keep
 * the page had, plus @set, plus the module's own; a new generation. Returns
 * the generation and, in *out_flags, the flags written.
 */
static u64 clock_publish(struct hvt_clock_params *dst, const struct hvt_clock_params *p,
			 u32 keep, u32 set, u32 *out_flags)
{
	unsigned long irq_flags;
	u64 gen;

	raw_spin_lock_irqsave(&clock_lock, irq_flags);
	WRITE_ONCE(clock->seq, clock->seq + 1);
	smp_wmb();
	if (dst)
		*dst = *p;
	*out_flags = (clock->flags & keep) | set | module_flags();
	WRITE_ONCE(clock->flags, *out_flags);
	gen = clock->generation + 1;
	WRITE_ONCE(clock->generation, gen);
	smp_wmb();
	WRITE_ONCE(clock->seq, clock->seq + 1);
	raw_spin_unlock_irqrestore(&clock_lock, irq_flags);
	return gen;
}

/* After a resume the guest TSC may have restarted or moved: nothing holds. */
static int clock_pm_notify(struct notifier_block *nb, unsigned long action, void *data)
{
	u64 gen;
	u32 flags;

	switch (action) {
	case PM_POST_SUSPEND:
	case PM_POST_HIBERNATION:
	case PM_POST_RESTORE:
		gen = clock_publish(NULL, NULL, HVT_CLOCK_F_PER_CPU, 0, &flags);
		hvtrace_emit_hvtrace_clock_change(gen, flags, "resume");
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block clock_pm_nb = {
	.notifier_call = clock_pm_notify,
};

int hvtrace_clock_init(void)
{
	unsigned int i;

	clock_page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!clock_page)
		return -ENOMEM;
	clock = page_address(clock_page);
	clock->version = HVT_CLOCK_PAGE_VERSION;
	clock->header_size = HVT_CLOCK_PAGE_HEADER_SIZE;
	clock->tsc_khz = tsc_khz;
	clock->nr_cpus = min_t(u32, nr_cpu_ids, HVT_CLOCK_PAGE_MAX_CPUS);
	clock->flags = module_flags();
	/* No transform yet: every entry unbounded (and mult 0, not synced). */
	clock->global.error_ns = U64_MAX;
	for (i = 0; i < HVT_CLOCK_PAGE_MAX_CPUS; i++)
		clock->cpu[i].error_ns = U64_MAX;
	smp_store_release(&clock->magic, HVT_CLOCK_PAGE_MAGIC);
	if (register_pm_notifier(&clock_pm_nb))
		pr_warn("hvtrace: no PM notifier: a resume will not change the generation\n");
	return 0;
}

/*
 * Mappings keep their own reference to the page (vm_insert_page), so a
 * process that still maps it after the module is gone reads a valid, frozen
 * page; this only drops the module's reference.
 */
void hvtrace_clock_exit(void)
{
	if (clock)
		unregister_pm_notifier(&clock_pm_nb);
	if (clock_page)
		__free_page(clock_page);
	clock_page = NULL;
	clock = NULL;
}

int hvtrace_clock_mmap(struct vm_area_struct *vma)
{
	if (vma->vm_pgoff != 0 || vma->vm_end - vma->vm_start != PAGE_SIZE)
		return -EINVAL;
	if (hvtrace_vma_readonly(vma))
		return -EPERM;
	return vm_insert_page(vma, vma->vm_start, clock_page);
}

/* Reserved words must be 0, so that a later ABI can give them a meaning. */
static int clock_params_valid(const struct hvt_clock_params *p)
{
	const u32 known = HVT_CLOCK_P_EXACT | HVT_CLOCK_P_ESTIMATED;

	return p->shift <= 63 && !(p->flags & ~known) && p->mult != 0 &&
	       !p->reserved[0] && !p->reserved[1];
}

long hvtrace_clock_set(struct hvtrace_set_clock __user *uarg)
{
	const u32 known_flags = HVT_CLOCK_F_SYNCED | HVT_CLOCK_F_PER_CPU;
	struct hvtrace_set_clock arg;
	struct hvt_clock_params *dst;
	u32 flags;
	u64 gen;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	if ((arg.flags & ~known_flags) || arg.reserved ||
	    !clock_params_valid(&arg.params))
		return -EINVAL;
	if (arg.set == HVTRACE_SET_CLOCK_GLOBAL)
		dst = &clock->global;
	else if (arg.set == HVTRACE_SET_CLOCK_ONE_CPU && arg.cpu < clock->nr_cpus)
		dst = &clock->cpu[arg.cpu];
	else
		return -EINVAL;

	gen = clock_publish(dst, &arg.params, 0, arg.flags, &flags);
	hvtrace_emit_hvtrace_clock_change(gen, flags, "set_clock");
	return 0;
}
