/* SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR MIT */
/*
 * app_proto.h - messages between a traced application (libhvtrace) and the
 * guest agent (docs/format.md, "Application protocol").
 *
 * A SOCK_SEQPACKET unix socket, one message per packet: struct hvt_app_hdr
 * then the payload. Buffers travel as memfds (SCM_RIGHTS):
 *
 *   app HELLO             -> agent WELCOME (this process traced or not)
 *   app REGISTRY          event descriptions, whenever events are registered
 *   app STREAM + memfd    a thread's ring buffer: struct hvt_rb_prod in the
 *                         first page, then the sub-buffers
 *                         -> agent STREAM_ACK + memfd: the consumer page
 *                         (struct hvt_rb_cons), which only the agent writes;
 *                         without a memfd: refused, the thread stays untraced
 *   app STREAM_END        the thread flushed its buffer and exited
 *   app THREAD_UNTRACED   a thread the library could not trace (its
 *                         buffers' cap, HVTRACE_BUFFER_CAP_MB): counted
 *   app BYE               optional: closing the socket says the same
 *
 * The agent maps an application's buffer read-only and validates everything
 * in it; a corrupt buffer is reported and dropped, the agent keeps running.
 */
#ifndef HVTRACE_APP_PROTO_H
#define HVTRACE_APP_PROTO_H

#include <linux/types.h>
#include <hvtrace/ctf.h>

#define HVT_APP_MAGIC		0x41545648u	/* "HVTA" */
#define HVT_APP_VERSION		2u	/* 2: THREAD_UNTRACED */
#define HVT_APP_SOCKET		"/run/hvtrace/agent.sock"
#define HVT_APP_SOCKET_ENV	"HVTRACE_AGENT_SOCKET"
#define HVT_APP_MAX_MSG		65536u
#define HVT_APP_PROD_PAGE	4096u	/* struct hvt_rb_prod lives in page 0 */

struct hvt_app_hdr {
	__u32 magic;
	__u16 type;
	__u16 flags;
	__u32 len;		/* payload bytes after this header */
	__u32 id;		/* stream id for STREAM, STREAM_ACK, STREAM_END */
};

enum hvt_app_type {
	HVT_A_HELLO = 1,	/* struct hvt_a_hello */
	HVT_A_WELCOME,		/* struct hvt_a_welcome */
	HVT_A_REGISTRY,		/* registry records */
	HVT_A_STREAM,		/* struct hvt_a_stream + memfd */
	HVT_A_STREAM_ACK,	/* empty + memfd */
	HVT_A_STREAM_END,	/* empty */
	HVT_A_BYE,		/* empty */
	HVT_A_THREAD_UNTRACED,	/* struct hvt_a_thread_untraced; version 2 */
	HVT_A_TYPE_MAX
};

struct hvt_a_hello {
	__u32 version;
	__u32 pid;
	__u32 domain;		/* enum hvt_clock_domain */
	__u32 reserved;
	__u64 freq_hz;		/* 0 with HVT_DOMAIN_TSC: the agent knows it */
	__u8  uuid[HVT_UUID_LEN];
	char  comm[16];
};

struct hvt_a_welcome {
	__u32 version;
	__u32 enabled;		/* 1: this process is traced (recording, an id free) */
};

struct hvt_a_stream {
	__s32 tid;
	__u32 subbuf_size;
	__u32 nr_subbufs;
	__u32 reserved;
	__u64 map_size;		/* HVT_APP_PROD_PAGE + nr_subbufs * subbuf_size */
};

/* Why a thread went untraced (struct hvt_a_thread_untraced.reason). */
#define HVT_A_UNTRACED_BUFFER_CAP	1u	/* HVTRACE_BUFFER_CAP_MB reached */

struct hvt_a_thread_untraced {
	__s32 tid;
	__u32 reason;		/* HVT_A_UNTRACED_* */
};

#endif /* HVTRACE_APP_PROTO_H */
