/* SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR MIT */
/*
 * wire.h - frames between the guest agent and the host collector
 * (docs/format.md, "Wire protocol").
 *
 * A byte stream (the virtio-serial port; a unix socket in tests) carries
 * frames: a 16-byte header and a payload. The host treats every byte from
 * the guest as untrusted: it checks magic, type, length and the payload size
 * each type requires before it looks inside (lib/wire_io.c).
 *
 * Conversation:
 *   guest HELLO        -> host WELCOME
 *   host SYNC_REQ      -> guest SYNC_REPLY      (a burst at start, periodic, at end)
 *   host PARAMS        -> guest publishes them in its clock page
 *   host START         -> guest starts tracing; then TRACE_OPEN, REGISTRY,
 *                         STREAM_OPEN, PACKET, STREAM_CLOSE as data comes
 *   guest UNTRACED, THREADS_UNTRACED   what went untraced, as it happens
 *   guest FINISH       (its tracing is over, every packet sent)
 *   host GOODBYE       (after the final sync burst)
 *   host STOP          asks the guest to finish early (Ctrl-C on the host)
 */
#ifndef HVTRACE_WIRE_H
#define HVTRACE_WIRE_H

#include <linux/types.h>
#include <hvtrace/clock_page.h>
#include <hvtrace/ctf.h>

#define HVT_WIRE_MAGIC		0x57545648u	/* "HVTW" */
#define HVT_WIRE_VERSION	2u	/* 2: UNTRACED, THREADS_UNTRACED; 1024 traces */
#define HVT_WIRE_MAX_PAYLOAD	(1u << 20)	/* a whole packet fits */
#define HVT_WIRE_PORT_NAME	"org.hvtrace.0"	/* virtio-serial port name */

struct hvt_wire_hdr {
	__u32 magic;
	__u16 type;
	__u16 flags;		/* 0 */
	__u32 len;		/* payload bytes */
	__u32 id;		/* trace or stream id where the type says so */
};

enum hvt_wire_type {
	HVT_W_HELLO = 1,	/* g->h struct hvt_w_hello */
	HVT_W_WELCOME,		/* h->g struct hvt_w_welcome */
	HVT_W_SYNC_REQ,		/* h->g struct hvt_w_sync_req */
	HVT_W_SYNC_REPLY,	/* g->h struct hvt_w_sync_reply */
	HVT_W_PARAMS,		/* h->g struct hvt_w_params */
	HVT_W_START,		/* h->g empty */
	HVT_W_TRACE_OPEN,	/* g->h id = trace, struct hvt_w_trace_open */
	HVT_W_REGISTRY,		/* g->h id = trace, registry records */
	HVT_W_STREAM_OPEN,	/* g->h id = stream, struct hvt_w_stream_open */
	HVT_W_PACKET,		/* g->h id = stream, one CTF packet */
	HVT_W_STREAM_CLOSE,	/* g->h id = stream, struct hvt_w_stream_close */
	HVT_W_FINISH,		/* g->h struct hvt_w_finish */
	HVT_W_GOODBYE,		/* h->g empty */
	HVT_W_STOP,		/* h->g empty */
	HVT_W_LOG,		/* g->h text, at most HVT_W_LOG_MAX bytes */
	HVT_W_UNTRACED,		/* g->h struct hvt_w_untraced: a process refused */
	HVT_W_THREADS_UNTRACED,	/* g->h id = trace, struct hvt_w_threads_untraced */
	HVT_W_TYPE_MAX
};

#define HVT_W_LOG_MAX		512
#define HVT_W_RELEASE_MAX	64

/*
 * Per-VM limits of the protocol: trace ids below HVT_W_MAX_TRACES, stream ids
 * below HVT_W_MAX_STREAMS, CPU numbers (guest vCPUs, host CPUs in the
 * archive) below HVT_W_MAX_CPUS. A guest must not send an id past them.
 * Ids are never reused in a recording (a trace's directory, metadata and
 * registry are one process's), so there are as many trace ids as stream
 * ids: every traced process that writes an event takes at least one of each.
 */
#define HVT_W_MAX_TRACES	1024
#define HVT_W_MAX_STREAMS	1024
#define HVT_W_MAX_CPUS		4096

struct hvt_w_hello {
	__u32 version;		/* HVT_WIRE_VERSION */
	__u32 nr_cpus;
	__u64 tsc_khz;		/* guest TSC frequency */
	__u32 clock_flags;	/* clock page flags at hello time */
	__u32 reserved;
	char kernel_release[HVT_W_RELEASE_MAX];	/* informational only */
};

struct hvt_w_welcome {
	__u32 version;
	__u32 sync_interval_ms;
};

struct hvt_w_sync_req {
	__u64 seq;
	__u64 host_send;	/* host TSC just before the write */
};

struct hvt_w_sync_reply {
	__u64 seq;
	__u64 host_send;	/* echoed */
	__u64 guest_recv;	/* guest TSC just after the read */
	__u64 guest_send;	/* guest TSC just before the write */
	__u32 cpu_recv;
	__u32 cpu_send;
};

struct hvt_w_params {
	__u32 set;		/* as struct hvtrace_set_clock */
	__u32 cpu;
	__u32 page_flags;
	__u32 reserved;
	struct hvt_clock_params params;
};

/* Layers, in the merge's tie-break order: host, guest kernel, user space. */
enum hvt_layer {
	HVT_LAYER_HOST = 0,
	HVT_LAYER_KERNEL = 1,
	HVT_LAYER_USER = 2,
	HVT_LAYER_VMM = 3,	/* the hypervisor's user space (QEMU's own events):
				 * host-side tools only, never on the wire */
	HVT_NR_LAYERS
};

enum hvt_clock_domain {
	HVT_DOMAIN_GUEST_TSC = 1,	/* raw guest TSC: the synchronised domain */
	HVT_DOMAIN_MONOTONIC_RAW = 2,	/* fallback without the module (not aligned) */
	/*
	 * Raw TSC read without the module's clock page, where the kernel keeps
	 * the TSC as its clocksource. Application protocol: the machine the
	 * application runs on. Wire: only from the host's own agent (hvtrace
	 * record --host-apps), the host TSC itself; a guest's agent sends such
	 * an application's trace as GUEST_TSC, the counter its kernel stamps.
	 */
	HVT_DOMAIN_TSC = 3,
};

struct hvt_w_trace_open {
	__u32 layer;		/* enum hvt_layer: KERNEL or USER */
	__u32 domain;		/* enum hvt_clock_domain */
	__u64 freq_hz;		/* clock frequency */
	__u32 pid;		/* USER: process id; KERNEL: 0 */
	__u32 reserved;
	__u8  uuid[HVT_UUID_LEN];
	char  comm[16];		/* informational only */
};

struct hvt_w_stream_open {
	__u32 trace_id;
	__u32 cpu;		/* HVT_CTF_NO_CPU for a per-thread stream */
	__s32 tid;		/* 0 for a per-CPU stream */
	__u32 reserved;
};

struct hvt_w_stream_close {
	__u64 lost;		/* events the producer discarded, total */
	__u64 packets;		/* packets sent */
};

/* Why a process went untraced (struct hvt_w_untraced.reason). */
enum hvt_untraced_reason {
	HVT_UNTRACED_IDS = 1,		/* every trace id of the recording taken */
	HVT_UNTRACED_UID_SHARE,		/* its user took its share of the trace ids */
	HVT_UNTRACED_CONNECTIONS,	/* the agent's connections all taken */
	HVT_UNTRACED_UID_CONNECTIONS,	/* its user holds its share of the connections */
	HVT_UNTRACED_REASON_MAX
};

struct hvt_w_untraced {
	__u32 pid;		/* in the agent's pid namespace; 0 if unknown */
	__u32 uid;		/* its user, as the kernel says (SO_PEERCRED) */
	__u32 reason;		/* enum hvt_untraced_reason */
	__u32 reserved;
	char  comm[16];		/* informational, "" if unknown */
};

struct hvt_w_threads_untraced {
	__u64 threads;		/* the trace's threads that went untraced so far, in all */
};

struct hvt_w_finish {
	__u64 packets;
	__u64 lost;
	__u32 traces;
	__u32 streams;
};

#endif /* HVTRACE_WIRE_H */
