// SPDX-License-Identifier: GPL-2.0-only
/*
 * main.c - module entry points and /dev/hvtrace.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "hvtrace_internal.h"

static int clock_gid = -1;
module_param(clock_gid, int, 0644);
MODULE_PARM_DESC(clock_gid, "only this group (and CAP_SYS_ADMIN) may open /dev/hvtrace; -1: everyone");

/* The device is mode 0444; clock_gid narrows who may read the clock page. */
static int hvtrace_dev_open(struct inode *inode, struct file *file)
{
	int gid = READ_ONCE(clock_gid);

	if (gid >= 0 && !in_group_p(make_kgid(&init_user_ns, gid)) && !capable(CAP_SYS_ADMIN))
		return -EACCES;
	return 0;
}

static int hvtrace_dev_mmap(struct file *file, struct vm_area_struct *vma)
{
	return hvtrace_clock_mmap(vma);
}

static long hvtrace_dev_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	switch (cmd) {
	case HVTRACE_IOC_VERSION:
		return HVTRACE_ABI_VERSION;
	case HVTRACE_IOC_CLOCK_READ:
		return hvtrace_clock_reading((struct hvtrace_clock_reading __user *)arg);
	case HVTRACE_IOC_SET_CLOCK:
		return hvtrace_clock_set((struct hvtrace_set_clock __user *)arg);
	case HVTRACE_IOC_CREATE_SESSION:
		return hvtrace_session_create((struct hvtrace_session_config __user *)arg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations hvtrace_dev_fops = {
	.owner = THIS_MODULE,
	.open = hvtrace_dev_open,
	.mmap = hvtrace_dev_mmap,
	.unlocked_ioctl = hvtrace_dev_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice hvtrace_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "hvtrace",
	.fops = &hvtrace_dev_fops,
	.groups = hvtrace_attr_groups,	/* available_events, enabled_events */
	.mode = 0444,	/* the clock page is for everyone; writes need CAP_SYS_ADMIN */
};

static int __init hvtrace_init(void)
{
	int ret;

	ret = hvtrace_clock_init();
	if (ret)
		return ret;
	ret = hvtrace_builtin_events_register();
	if (ret) {
		hvtrace_clock_exit();
		return ret;
	}
	hvtrace_sync_detect();
	ret = misc_register(&hvtrace_dev);
	if (ret) {
		hvtrace_sync_exit();
		hvtrace_builtin_events_unregister();
		hvtrace_clock_exit();
		return ret;
	}
	pr_info("hvtrace: loaded, ABI %d, TSC %llu kHz, %u events; sync points %s\n",
		HVTRACE_ABI_VERSION, hvtrace_clock_khz(), hvtrace_nr_ids, hvtrace_sync_status());
	return 0;
}

static void __exit hvtrace_exit(void)
{
	misc_deregister(&hvtrace_dev);
	hvtrace_sync_exit();
	hvtrace_builtin_events_unregister();
	hvtrace_clock_exit();
}

module_init(hvtrace_init);
module_exit(hvtrace_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("hvtrace guest tracer: TSC trace clock, clock page, typed events, lock-free per-CPU CTF buffers");
