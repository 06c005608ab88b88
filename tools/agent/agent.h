/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * agent.h - `hvtrace agent`, the guest side of a recording.
 *
 *   agent.c         options, the host link (wire.h), the event loop
 *   agent_kernel.c  the guest module's session: per-CPU streams
 *   agent_apps.c    traced applications: their memfd ring buffers
 *   agent_main.c    hvtrace-agent, these alone: the guest's binary (libc only)
 *
 * The agent holds the only connection to the host. It forwards packets as
 * they are, after checking them; it answers clock exchanges at once and
 * publishes the host's transform in the module's clock page.
 */
#ifndef HVT_TOOLS_AGENT_AGENT_H
#define HVT_TOOLS_AGENT_AGENT_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <hvtrace/app_proto.h>
#include <hvtrace/wire.h>

#include "lib/event_registry.h"
#include "lib/wire_io.h"

#define AGENT_MAX_APPS		64
#define AGENT_MAX_APP_STREAMS	256
#define AGENT_MAX_EVENTS	32

struct agent_kernel {
	int session;			/* session fd, -1 without the module */
	unsigned int nr_cpus;
	int *streams;			/* stream fd per CPU */
	const unsigned char **maps;	/* its buffers, mapped read-only */
	size_t *map_sizes;
	uint64_t *packets;
	uint32_t first_stream_id;
	uint64_t registry_gen;		/* of the registry the host has */
};

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
	uint8_t uuid[HVT_UUID_LEN];
	bool hello;
	struct hvt_registry registry;
	struct app_stream *streams[AGENT_MAX_APP_STREAMS];
	unsigned int nr_streams;
};

struct agent {
	int port;			/* link to the host */
	struct hvt_frame_reader reader;
	int dev;			/* /dev/hvtrace, -1 without the module */
	uint64_t tsc_khz;		/* the module's clock page's; 0 without it */
	uint64_t tsc_hz;		/* ... or the TSC's rate measured at start */
	bool host;			/* --host: the host's own applications */
	uint32_t clock_flags;
	bool have_rdtscp;		/* TSC and CPU in one instruction */
	uint32_t subbuf_size, nr_subbufs;
	bool overwrite;			/* kernel buffers in flight-recorder mode */
	const char *events[AGENT_MAX_EVENTS];
	unsigned int nr_events;
	unsigned int drain_ticks;	/* drain every stream this often (ticks of 100 ms) */
	const char *socket_path;
	int listen_fd;
	struct app *apps[AGENT_MAX_APPS];
	struct agent_kernel kernel;
	uint32_t next_trace_id;		/* 0 is the kernel's; ids are never reused */
	uint32_t next_stream_id;
	uint64_t packets_sent, lost;
	uint64_t packets_reported;	/* packets_sent at the last -v report */
	bool started, finishing, done, host_gone;
	time_t finish_deadline;		/* finishing: when to stop waiting for GOODBYE */
	unsigned char *pkt;		/* scratch: one application packet, HVT_RB_MAX_SUBBUF bytes */
	unsigned char *msg;		/* scratch: one application message */
	char why[HVT_WIRE_WHY_MAX];	/* scratch: why a payload is refused */
};

int agent_send(struct agent *a, uint16_t type, uint32_t id, const void *payload, uint32_t len);
/* Frames laid out by the caller (hvt_wire_writev()), in one system call where it can. */
int agent_sendv(struct agent *a, struct iovec *iov, int n_iov);
void agent_log(struct agent *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The next trace or stream id; -1 once the protocol's limit (wire.h) is reached. */
int agent_new_trace_id(struct agent *a, uint32_t *id);
int agent_new_stream_id(struct agent *a, uint32_t *id);

int agent_kernel_start(struct agent *a);
void agent_kernel_drain(struct agent *a, bool flush);
void agent_kernel_on_ready(struct agent *a, unsigned int index);
void agent_kernel_stop(struct agent *a);

int agent_apps_listen(struct agent *a);
void agent_apps_accept(struct agent *a);
void agent_apps_handle(struct agent *a, unsigned int slot);
void agent_apps_drain(struct agent *a);
/* The application's eventfd said a packet completed: drains its streams. */
void agent_apps_wake(struct agent *a, unsigned int slot);
void agent_apps_close_all(struct agent *a);

#endif
