/* SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR MIT */
/*
 * abi.h - the guest module's user-space interface (docs/format.md,
 * "/dev/hvtrace").
 *
 * /dev/hvtrace
 *   mmap(offset 0, one page, PROT_READ)   the clock page (clock_page.h)
 *   HVTRACE_IOC_VERSION                    ABI version (any user)
 *   HVTRACE_IOC_CLOCK_READ                 the kernel's own clock reading (any user)
 *   HVTRACE_IOC_SET_CLOCK                  publish a host transform (CAP_SYS_ADMIN)
 *   HVTRACE_IOC_CREATE_SESSION             new session fd (CAP_SYS_ADMIN)
 *
 * session fd (no further capability check: holding one is the capability)
 *   HVTRACE_SESSION_ENABLE_EVENT           enable an event by name (1: none of
 *                                          that name yet; enabled when one registers)
 *   HVTRACE_SESSION_START / _STOP          start or stop all its events at once;
 *                                          STOP closes every CPU's open packet
 *   HVTRACE_SESSION_REGISTRY               registry records of every registered
 *                                          event, and the registry generation
 *   HVTRACE_SESSION_REGISTRY_GEN           the generation alone: changes when an
 *                                          event (un)registers; fetch again then
 *   HVTRACE_SESSION_ENABLED                bitmap of the ids enabled here
 *   HVTRACE_SESSION_STREAM                 a read-only fd for one CPU's buffer
 *
 * stream fd
 *   mmap(offset 0, map_size, PROT_READ)    nr_subbufs sub-buffers + a reader slot
 *   HVTRACE_STREAM_GET_SUBBUF              next delivered packet: offset, length
 *   HVTRACE_STREAM_PUT_SUBBUF              release it (its seq)
 *   poll()                                 POLLIN once a packet is delivered
 *   read()                                 whole closed packets, one per call
 *   HVTRACE_STREAM_FLUSH                   close the CPU's partial packet
 *   HVTRACE_STREAM_STATS                   produced / consumed / lost counters
 *
 * Text listings: /sys/class/misc/hvtrace/available_events, enabled_events.
 */
#ifndef HVTRACE_ABI_H
#define HVTRACE_ABI_H

#include <linux/ioctl.h>
#include <linux/types.h>
#include <hvtrace/clock_page.h>
#include <hvtrace/ctf.h>
#include <hvtrace/registry.h>

#define HVTRACE_ABI_VERSION		2
#define HVTRACE_DEVICE			"/dev/hvtrace"
#define HVTRACE_IOC_MAGIC		0xF7

struct hvtrace_set_clock {
	__u32 flags;			/* HVT_CLOCK_F_SYNCED | HVT_CLOCK_F_PER_CPU */
	__u32 cpu;			/* with HVTRACE_SET_CLOCK_ONE_CPU */
	__u32 set;			/* HVTRACE_SET_CLOCK_* */
	__u32 reserved;
	struct hvt_clock_params params;
};
#define HVTRACE_SET_CLOCK_GLOBAL	1u
#define HVTRACE_SET_CLOCK_ONE_CPU	2u

#define HVTRACE_MODE_DISCARD		0u	/* a full buffer drops new events */
#define HVTRACE_MODE_OVERWRITE		1u	/* flight recorder: drops the oldest */

struct hvtrace_session_config {
	__u32 subbuf_size;		/* in: bytes, power of two, 4 KiB..1 MiB */
	__u32 nr_subbufs;		/* in: power of two, 2..1024 */
	__u32 mode;			/* in: HVTRACE_MODE_* */
	__u32 nr_cpus;			/* out: stream count (possible CPUs) */
	__u8  uuid[HVT_UUID_LEN];	/* out: trace UUID in every packet header */
	__u64 tsc_khz;			/* out: guest TSC frequency */
};

struct hvtrace_event_name {
	char name[HVT_NAME_MAX];
};

struct hvtrace_registry_buf {
	__u64 addr;			/* in: user buffer */
	__u32 size;			/* in: its size; out: bytes needed */
	__u32 nr_events;		/* out */
	__u64 generation;		/* out: of the records returned */
};

#define HVTRACE_MAX_EVENT_IDS		256
struct hvtrace_enabled_events {
	__u64 ids[HVTRACE_MAX_EVENT_IDS / 64];	/* out: bit N = id N enabled */
};

/* HVTRACE_STREAM_GET_SUBBUF: a packet readable in the stream's mapping. */
struct hvtrace_subbuf {
	__u64 offset;			/* in the mapping */
	__u64 len;			/* bytes: the packet's content_size / 8 */
	__u64 seq;			/* its packet_seq_num; give it to PUT_SUBBUF */
};

/* HVTRACE_IOC_CLOCK_READ: what the kernel reads, on one CPU, in one go. */
struct hvtrace_clock_reading {
	__u64 tsc;			/* the trace clock (raw guest TSC) */
	__s64 host_ns;			/* tsc through the CPU's transform */
	__u64 error_ns;			/* its bound; ~0 when not synced */
	__u64 generation;		/* of the transform used */
	__u32 cpu;
	__u32 flags;			/* the page flags when read */
};

/*
 * Sync points (KVM only): each CPU of the guest periodically issues
 * hypercall HVTRACE_SYNC_HYPERCALL with a0 = seq, a1 = guest TSC read just
 * before, a2 = CPU, between its hvtrace_sync_begin and hvtrace_sync_end
 * events. KVM answers -KVM_ENOSYS and the host traces kvm_hypercall.
 */
#define HVTRACE_SYNC_HYPERCALL		0x68767472u	/* "hvtr" */
#define HVTRACE_SYNC_REASON_LEN		96	/* hvtrace_sync_unavailable.reason */
#define HVTRACE_CLOCK_CAUSE_LEN		16	/* hvtrace_clock_change.cause */

struct hvtrace_stream_stats {
	__u64 produced;			/* packets closed */
	__u64 consumed;			/* packets read */
	__u64 lost;			/* events discarded or overwritten */
	__u32 subbuf_size;
	__u32 cpu;
	__u32 nr_subbufs;
	__u32 reserved;
	__u64 map_size;			/* bytes to mmap */
};

#define HVTRACE_IOC_VERSION		_IO(HVTRACE_IOC_MAGIC, 0x00)
#define HVTRACE_IOC_SET_CLOCK		_IOW(HVTRACE_IOC_MAGIC, 0x01, struct hvtrace_set_clock)
#define HVTRACE_IOC_CREATE_SESSION	_IOWR(HVTRACE_IOC_MAGIC, 0x02, struct hvtrace_session_config)
#define HVTRACE_IOC_CLOCK_READ		_IOR(HVTRACE_IOC_MAGIC, 0x03, struct hvtrace_clock_reading)

#define HVTRACE_SESSION_ENABLE_EVENT	_IOW(HVTRACE_IOC_MAGIC, 0x10, struct hvtrace_event_name)
#define HVTRACE_SESSION_START		_IO(HVTRACE_IOC_MAGIC, 0x11)
#define HVTRACE_SESSION_STOP		_IO(HVTRACE_IOC_MAGIC, 0x12)
#define HVTRACE_SESSION_REGISTRY	_IOWR(HVTRACE_IOC_MAGIC, 0x13, struct hvtrace_registry_buf)
#define HVTRACE_SESSION_STREAM		_IOW(HVTRACE_IOC_MAGIC, 0x14, __u32)
#define HVTRACE_SESSION_REGISTRY_GEN	_IOR(HVTRACE_IOC_MAGIC, 0x15, __u64)
#define HVTRACE_SESSION_ENABLED		_IOR(HVTRACE_IOC_MAGIC, 0x16, struct hvtrace_enabled_events)

#define HVTRACE_STREAM_FLUSH		_IO(HVTRACE_IOC_MAGIC, 0x20)
#define HVTRACE_STREAM_STATS		_IOR(HVTRACE_IOC_MAGIC, 0x21, struct hvtrace_stream_stats)
#define HVTRACE_STREAM_GET_SUBBUF	_IOR(HVTRACE_IOC_MAGIC, 0x22, struct hvtrace_subbuf)
#define HVTRACE_STREAM_PUT_SUBBUF	_IOW(HVTRACE_IOC_MAGIC, 0x23, __u64)

#endif /* HVTRACE_ABI_H */
