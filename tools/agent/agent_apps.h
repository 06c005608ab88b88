/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * agent_apps.h - the agent's side of traced applications (libhvtrace,
 * app_proto.h): their registrations, memfd ring buffers and packets, sent
 * through the agent's link (agent_link.h).
 */
#ifndef HVT_TOOLS_AGENT_AGENT_APPS_H
#define HVT_TOOLS_AGENT_AGENT_APPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <hvtrace/app_proto.h>

#include "lib/event_registry.h"
#include "tools/agent/agent_link.h"
#include "tools/agent/agent_uids.h"

#define AGENT_MAX_APPS		256	/* connections at once; a user's share of them */
#define AGENT_MAX_APP_STREAMS	256
#define AGENT_UNTRACED_PIDS	4096
/*
 * Event descriptions one process may send, in bytes: a program's few
 * hundred events take tens of KiB; past this it is a flood (a host
 * application's registry fills the archive as a guest's would).
 */
#define AGENT_APP_REGISTRY_MAX	(2u << 20)

struct app_stream {
	uint32_t id;			/* VM-wide stream id */
	uint32_t app_id;		/* the application's own number */
	int32_t tid;
	const unsigned char *map;	/* the app's memfd, read-only */
	size_t map_size;
	struct hvt_rb_cons *cons;	/* our consumer page, shared read-only */
	uint32_t subbuf_size, nr_subbufs;
	uint64_t consumed, packets;
	struct hvt_ctf_packet last;	/* header of the last packet sent, if packets */
};

struct app {
	int fd;
	int wake_fd;			/* eventfd its writers add 1 to per packet; -1 if none */
	uint32_t trace_id;
	uint32_t pid;
	uint32_t uid;			/* the kernel's word (SO_PEERCRED) */
	uint32_t hello_version;		/* the application protocol it speaks */
	uint8_t uuid[HVT_UUID_LEN];
	bool hello;
	struct hvt_registry registry;
	uint64_t registry_bytes;	/* descriptions forwarded to the host */
	struct app_stream *streams[AGENT_MAX_APP_STREAMS];
	unsigned int nr_streams;
	uint64_t threads_untraced;	/* threads refused, here or by the library */
	bool threads_untraced_dirty;	/* the host's count lags */
};

struct agent_apps {
	struct agent_link *link;
	const char *socket_path;	/* where applications register */
	int listen_fd;			/* -1 while none is taken */
	bool host;			/* --host: the host's own applications */
	uint64_t tsc_hz;		/* the rate of an application's TSC without the clock page */
	bool tracing;			/* between the host's START and STOP: traces open */
	struct app *apps[AGENT_MAX_APPS];
	struct agent_uids uids;		/* each user's share (--uid-share) */
	/*
	 * Processes said to be untraced: a refused process tries again (its
	 * library's watcher) and is said once. At most AGENT_UNTRACED_PIDS.
	 */
	uint32_t *untraced_pids;
	unsigned int nr_untraced_pids;
	unsigned char *pkt;		/* scratch: one application packet, HVT_RB_MAX_SUBBUF bytes */
	unsigned char *msg;		/* scratch: one application message */
};

int agent_apps_listen(struct agent_apps *a);
void agent_apps_accept(struct agent_apps *a);
void agent_apps_handle(struct agent_apps *a, unsigned int slot);
void agent_apps_drain(struct agent_apps *a);
/* The application's eventfd said a packet completed: drains its streams. */
void agent_apps_wake(struct agent_apps *a, unsigned int slot);
void agent_apps_close_all(struct agent_apps *a);

#endif
