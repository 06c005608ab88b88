// SPDX-License-Identifier: GPL-2.0-only
/*
 * sync.c - sync points: hypercalls the host records on its own TSC.
 *
 * Under KVM, while some started session has hvtrace_sync_end enabled, every
 * online CPU issues hypercall HVTRACE_SYNC_HYPERCALL every sync_ms milliseconds:
 *
 *	hvtrace_sync_begin(seq)
 *	before = TSC; vmcall/vmmcall(nr, seq, before, cpu); after = TSC
 *	hvtrace_sync_end(seq, before, after, ret)
 *
 * The host sees the call as kvm_exit + kvm_hypercall on its TSC, between the
 * guest's before and after: a bound on the guest-host relation from each
 * side, per vCPU. KVM answers an unknown hypercall with -KVM_ENOSYS and
 * nothing else. Any other hypervisor (TCG, Hyper-V, ...) or bare metal would
 * raise #UD, so the call is only made when CPUID shows KVM's signature;
 * otherwise sync_status says why, and a session that enabled
 * hvtrace_sync_unavailable records the reason when it starts.
 */
#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/smp.h>
#include <linux/workqueue.h>
#include <asm/kvm_para.h>
#include <asm/processor.h>

#include "hvtrace_internal.h"

static unsigned int sync_ms = 100;

/* A new period takes effect at once: sync points start again after 0. */
static int sync_ms_set(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_uint(val, kp);

	if (!ret)
		hvtrace_sync_update();
	return ret;
}

static const struct kernel_param_ops sync_ms_ops = {
	.set = sync_ms_set,
	.get = param_get_uint,
};
module_param_cb(sync_ms, &sync_ms_ops, &sync_ms, 0644);
MODULE_PARM_DESC(sync_ms, "period of the KVM sync hypercalls of each vCPU, in ms (0: none)");

static char sync_status[HVTRACE_SYNC_REASON_LEN];
module_param_string(sync_status, sync_status, sizeof(sync_status), 0444);
MODULE_PARM_DESC(sync_status, "whether sync points can be issued here, and why not (read-only)");

static bool sync_available;
static atomic64_t sync_seq;
static void sync_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(sync_work, sync_work_fn);

/* CPUID 0x40000000's vendor signature, printable, for the reason. */
static void hypervisor_signature(char sig[13])
{
	u32 eax, regs[3];
	unsigned int i;

	cpuid(0x40000000, &eax, &regs[0], &regs[1], &regs[2]);
	memcpy(sig, regs, 12);
	sig[12] = '\0';
	for (i = 0; i < 12; i++)
		if (sig[i] < 0x20 || sig[i] > 0x7e)
			sig[i] = sig[i] ? '?' : '.';
}

void hvtrace_sync_detect(void)
{
	char sig[13];

	if (kvm_para_available()) {
		sync_available = true;
		snprintf(sync_status, sizeof(sync_status),
			 "available: KVM hypercall %#x", HVTRACE_SYNC_HYPERCALL);
		return;
	}
	if (!boot_cpu_has(X86_FEATURE_HYPERVISOR)) {
		snprintf(sync_status, sizeof(sync_status),
			 "unavailable: no hypervisor (CPUID hypervisor bit clear)");
		return;
	}
	hypervisor_signature(sig);
	snprintf(sync_status, sizeof(sync_status),
		 "unavailable: hypervisor signature \"%s\" is not KVM's", sig);
}

/* On each CPU, interrupts off (on_each_cpu), so nothing comes in between. */
static void sync_on_cpu(void *unused)
{
	u64 seq = atomic64_inc_return(&sync_seq);
	u64 before, after;
	long ret;

	hvtrace_emit_hvtrace_sync_begin(seq);
	before = __hvtrace_clock_read();
	ret = kvm_hypercall3(HVTRACE_SYNC_HYPERCALL, seq, before, smp_processor_id());
	after = __hvtrace_clock_read();
	hvtrace_emit_hvtrace_sync_end(seq, before, after, ret);
}

static bool sync_wanted(void)
{
	return sync_available && READ_ONCE(sync_ms) &&
	       hvtrace_session_records(hvtrace_sync_end_event);
}

static void sync_work_fn(struct work_struct *work)
{
	if (!sync_wanted())
		return;
	on_each_cpu(sync_on_cpu, NULL, 1);
	schedule_delayed_work(&sync_work, msecs_to_jiffies(max(READ_ONCE(sync_ms), 1u)));
}

/*
 * A session enabled one of the module's own events (session.c), or
 * started, or sync_ms changed: sync points start if now wanted. They stop
 * by themselves at the next period once nothing records them.
 */
void hvtrace_sync_update(void)
{
	if (sync_wanted())
		schedule_delayed_work(&sync_work, 0);	/* nothing if already pending */
}

/*
 * A session started. Without sync points it learns why: every started
 * session that enabled hvtrace_sync_unavailable gets the reason again.
 */
void hvtrace_sync_session_started(void)
{
	if (!sync_available)
		hvtrace_emit_hvtrace_sync_unavailable(sync_status);
	else
		hvtrace_sync_update();
}

const char *hvtrace_sync_status(void)
{
	return sync_status;
}

void hvtrace_sync_exit(void)
{
	cancel_delayed_work_sync(&sync_work);
}
