/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * event_decoder.h - the scheduling and KVM events that the analyses read,
 * as typed records, from any reader: the one place that knows their
 * formats.
 *
 * The same facts are spelled differently by each producer: ftrace's
 * sched_switch (the host's raw pages, a trace.dat) names prev_pid and
 * next_pid, hvtrace.ko's (a guest's CTF) prev_tid and next_tid; a task
 * switched out runnable is prev_state 0 in hvtrace.ko, and in ftrace a
 * prev_state with none of the kernel's state bits set, bits that differ
 * between kernel versions (ftrace_reader.h, hvt_ftrace_task_states()). The
 * decoder resolves each event format once - per ftrace event id, per CTF
 * event class - into its kind, where each field is and how "runnable" is
 * told; every event of that format is then read with what was found, and
 * an event that lacks a field its kind needs is HVT_EV_OTHER.
 *
 * Fields, by kind (ftrace's name where hvtrace.ko's differs in brackets):
 *   sched_switch   prev_pid [prev_tid], next_pid [next_tid], prev_state;
 *                  prev_comm, next_comm (with @comms, else empty)
 *   sched_wakeup   pid [tid]; comm (with @comms), target_cpu (-1: none).
 *                  The waker is the event's current task, not a field.
 *   kvm_entry      vcpu_id
 *   kvm_exit       vcpu_id; exit_reason (0: none)
 *   kvm_write_tsc_offset   vcpu_id, previous_tsc_offset, next_tsc_offset
 *   kvm_hypercall  nr, a0, a1; a2, a3 (0: none)
 * I/O, a guest's (hvtrace.ko) and QEMU's (its log: "NAME VALUE" arguments):
 *   block_rq_issue, block_rq_complete   dev, sector, nr_sector; error
 *                  (complete; 0: none), rwbs (text, read always)
 *   virtio_blk_handle_read, _write      vdev, req, sector, nsectors
 *   virtio_blk_req_complete             vdev, req, status (as ret)
 *   virtio_notify, virtio_notify_irqfd  vdev, vq (as req)
 *   thread_pool_submit, _complete       pool (as vdev), req; ret (complete)
 * KVM's interrupts (the host's):
 *   kvm_msi_set_irq      address, data     (an MSI raised, e.g. by an irqfd)
 *   kvm_set_irq          gsi, level        (a GSI raised)
 *   kvm_apic_accept_irq  apicid, vec       (taken by a vCPU's local APIC)
 *   kvm_inj_virq         vector [irq]      (injected at the vCPU's entry)
 * A vcpu_id above UINT32_MAX makes the event HVT_EV_OTHER.
 */
#ifndef HVT_TOOLS_READ_EVENT_DECODER_H
#define HVT_TOOLS_READ_EVENT_DECODER_H

#include <stdbool.h>
#include <stdint.h>

#include "tools/read/ftrace_reader.h"
#include "tools/read/reader.h"

#define HVT_COMM_LEN	16		/* a task's comm, as the kernel keeps it */

enum hvt_ev_kind {
	HVT_EV_OTHER,			/* not decoded: another event, or a field missing */
	HVT_EV_SCHED_SWITCH,
	HVT_EV_SCHED_WAKEUP,
	HVT_EV_KVM_ENTRY,
	HVT_EV_KVM_EXIT,
	HVT_EV_KVM_TSC_OFFSET,		/* kvm_write_tsc_offset */
	HVT_EV_KVM_HYPERCALL,
	HVT_EV_BLOCK_RQ_ISSUE,		/* a guest's block layer */
	HVT_EV_BLOCK_RQ_COMPLETE,
	HVT_EV_VIRTIO_BLK_HANDLE,	/* QEMU's virtio-blk: a request taken up */
	HVT_EV_VIRTIO_BLK_REQ_COMPLETE,	/* ... handed back to the guest */
	HVT_EV_VIRTIO_NOTIFY,		/* QEMU interrupts the guest for a queue */
	HVT_EV_POOL_SUBMIT,		/* QEMU's thread pool: the backend's I/O */
	HVT_EV_POOL_COMPLETE,
	HVT_EV_KVM_MSI,			/* kvm_msi_set_irq */
	HVT_EV_KVM_SET_IRQ,		/* kvm_set_irq */
	HVT_EV_KVM_APIC_ACCEPT,		/* kvm_apic_accept_irq */
	HVT_EV_KVM_INJ_VIRQ,		/* kvm_inj_virq */
	HVT_NR_EV_KINDS
};

#define HVT_EV_BIT(kind)	(1u << (kind))

struct hvt_sched_switch {
	int32_t prev, next;		/* thread ids; 0: the idle task */
	uint64_t prev_state;		/* as recorded */
	bool runnable;			/* prev left runnable (preempted), in this format's terms */
	char end_state[8];		/* ... as the kernel prints it: "R", "R+", "S", "D", "I",
					 * the letters of each state bit set joined by '|' ("D|W") */
	char prev_comm[HVT_COMM_LEN], next_comm[HVT_COMM_LEN];
};

struct hvt_sched_wakeup {
	int32_t tid;			/* the task woken */
	int32_t target_cpu;		/* where it will run; -1: not recorded */
	char comm[HVT_COMM_LEN];
};

struct hvt_kvm_vcpu_event {		/* kvm_entry, kvm_exit */
	uint32_t vcpu;
	uint32_t exit_reason;		/* kvm_exit */
};

struct hvt_kvm_tsc_offset {
	uint32_t vcpu;
	uint64_t previous, next;	/* two's complement */
};

struct hvt_kvm_hypercall {
	uint64_t nr, a[4];
};

struct hvt_block_rq {			/* block_rq_issue, block_rq_complete */
	uint32_t dev;			/* the disk's dev_t, as the guest kernel keeps it */
	uint32_t nr_sector;
	uint64_t sector;		/* 512-byte sectors */
	int32_t error;			/* complete: an errno, 0 on success */
	char rwbs[HVT_COMM_LEN];	/* blktrace's R, W, D, F, ... with flags */
};

struct hvt_qemu_io {			/* QEMU's virtio-blk, notify and thread-pool events */
	uint64_t dev;			/* the virtio device; the pool */
	uint64_t req;			/* its request; the queue (notify) */
	uint64_t sector;		/* handle */
	uint32_t nr_sector;		/* handle */
	bool write;			/* handle: virtio_blk_handle_write */
	int64_t ret;			/* req_complete's status, the pool's ret */
};

struct hvt_kvm_irq {			/* kvm_msi_set_irq, _set_irq, _apic_accept_irq, _inj_virq */
	uint64_t a;			/* address; gsi; apicid; vector */
	uint64_t b;			/* data; level; vector; 0 */
};

struct hvt_typed_event {
	enum hvt_ev_kind kind;
	union {
		struct hvt_sched_switch sw;
		struct hvt_sched_wakeup wakeup;
		struct hvt_kvm_vcpu_event kvm;
		struct hvt_kvm_tsc_offset tsc_offset;
		struct hvt_kvm_hypercall hypercall;
		struct hvt_block_rq block;
		struct hvt_qemu_io qio;
		struct hvt_kvm_irq irq;
	};
};

#define HVT_DECODER_CACHE	64	/* formats remembered, direct mapped */

struct hvt_event_format;

struct hvt_event_decoder {
	unsigned int kinds;		/* HVT_EV_BIT()s of the kinds decoded */
	bool comms;			/* the comm fields too */
	struct hvt_event_format *cache;	/* HVT_DECODER_CACHE formats */
};

/*
 * A decoder of the kinds @kinds (HVT_EV_BIT()s; others come out as
 * HVT_EV_OTHER), with the comm fields if @comms. -1 if out of memory.
 */
int hvt_event_decoder_init(struct hvt_event_decoder *d, unsigned int kinds, bool comms);
void hvt_event_decoder_free(struct hvt_event_decoder *d);
/*
 * The event @ev last returned by ftrace CPU reader @c, in @out; returns its
 * kind (out->kind).
 */
enum hvt_ev_kind hvt_decode_ftrace(struct hvt_event_decoder *d, struct hvt_ftrace_cpu *c,
				   const struct hvt_ftrace_event *ev, struct hvt_typed_event *out);
/* The same for the event @ev last returned by reader @rd, of any format. */
enum hvt_ev_kind hvt_decode_reader(struct hvt_event_decoder *d, struct hvt_reader *rd,
				   const struct hvt_reader_event *ev, struct hvt_typed_event *out);

#endif
