// SPDX-License-Identifier: LGPL-2.1-only OR MIT
/*
 * agent.c - the application's connection to the guest agent (app_proto.h).
 *
 * Connected when the first event registers, that is while the program (or
 * the first library with events) loads, from the constructors that
 * HVT_TRACEPOINT_EVENT generates; otherwise at a thread's first buffer. If
 * no agent answers, tracing stays off for the process (HVTRACE_DEBUG=1 says
 * why); a forked child connects anew as a process of its own, at its first
 * event. The process never sends BYE: closing the socket (at exit, or when
 * the agent is lost) says the same.
 *
 * The agent's WELCOME carries an eventfd: the writer that closes a full
 * packet adds 1 to it (buffer.c), so the agent drains as packets complete
 * instead of on its timer. It stays open for the life of the connection's
 * buffers: a thread may still write to it after the agent was lost, and a
 * closed number could be reused for one of the program's own files. Only a
 * forked child, single-threaded, closes its parent's.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <hvtrace/app_proto.h>
#include <hvtrace/wire.h>

#include "lib/fdpass.h"
#include "vdso/internal.h"

pthread_mutex_t hvt_lock = PTHREAD_MUTEX_INITIALIZER;
static int sock = -1;
static int state;		/* 0: not tried; 1: connected; -1: unavailable */
static int wake_fd = -1;	/* the agent's eventfd, -1 if it sent none */
static uint8_t trace_uuid[HVT_UUID_LEN];

void hvt_debug_msg(const char *fmt, ...)
{
	static int debug = -1;
	va_list ap;

	if (debug < 0) {
		const char *v = getenv("HVTRACE_DEBUG");

		debug = v && *v && strcmp(v, "0");	/* unset, empty and 0 are off */
	}
	if (!debug)
		return;
	fputs("libhvtrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int hvt_agent_send(uint16_t type, uint32_t id, const void *payload, uint32_t len, int fd)
{
	if (hvt_app_send(sock, type, id, payload, len, fd, 0)) {
		hvt_debug_msg("lost the agent: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Receives one message that must be @type for @id; copies at most @size
 * payload bytes to @payload and returns the payload length; its fd, if any,
 * goes to *fd (closed if the caller passes NULL).
 */
int hvt_agent_recv(uint16_t type, uint32_t id, void *payload, uint32_t size, int *fd)
{
	union { struct hvt_app_hdr h; unsigned char b[sizeof(struct hvt_app_hdr) + 256]; } m;
	struct hvt_app_hdr h;
	int got, r = hvt_app_recv(sock, &m, sizeof(m), 0, &h, &got);

	if (r != 1 || h.type != type || h.id != id || h.len > size) {
		hvt_debug_msg("unexpected reply from the agent");
		if (r == 1 && got >= 0)
			close(got);
		return -1;
	}
	if (fd)
		*fd = got;
	else if (got >= 0)
		close(got);
	if (h.len)		/* payload may be NULL when none is expected */
		memcpy(payload, m.b + sizeof(h), h.len);
	return (int)h.len;
}

static int hello(void)
{
	struct hvt_a_hello h = { .version = HVT_APP_VERSION };
	struct hvt_a_welcome w;
	int fd = -1;

	h.pid = (uint32_t)getpid();
	h.domain = hvt_clock_source() == HVT_CLOCK_GUEST_TSC ? HVT_DOMAIN_GUEST_TSC :
							       HVT_DOMAIN_MONOTONIC_RAW;
	h.freq_hz = hvt_clock_freq();
	memcpy(h.uuid, trace_uuid, HVT_UUID_LEN);
	prctl(PR_GET_NAME, h.comm);
	if (hvt_agent_send(HVT_A_HELLO, 0, &h, sizeof(h), -1) ||
	    hvt_agent_recv(HVT_A_WELCOME, 0, &w, sizeof(w), &fd) != (int)sizeof(w) ||
	    w.version != HVT_APP_VERSION)
		goto refused;
	if (!w.enabled) {
		hvt_debug_msg("the agent is not recording user events");
		goto refused;
	}
	/* Older agents send none: they drain on their timer only. */
	wake_fd = fd;
	return 0;
refused:
	if (fd >= 0)
		close(fd);
	return -1;
}

static int connect_agent(void)
{
	const char *path = getenv(HVT_APP_SOCKET_ENV);
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct timeval tv = { 2, 0 };

	if (!path || !*path)
		path = HVT_APP_SOCKET;
	if (strlen(path) >= sizeof(addr.sun_path))
		return -1;
	strcpy(addr.sun_path, path);
	sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (sock < 0)
		return -1;
	setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(sock, (struct sockaddr *)&addr, sizeof(addr))) {
		hvt_debug_msg("no agent at %s: %s", path, strerror(errno));
		goto fail;
	}
	if (getrandom(trace_uuid, sizeof(trace_uuid), 0) != sizeof(trace_uuid))
		goto fail;
	trace_uuid[6] = (trace_uuid[6] & 0x0f) | 0x40;
	trace_uuid[8] = (trace_uuid[8] & 0x3f) | 0x80;
	if (hello())
		goto fail;
	return 0;
fail:
	close(sock);
	sock = -1;
	return -1;
}

int hvt_agent_state(void)
{
	return state;
}

int hvt_agent_connected(void)
{
	if (state == 0) {
		state = connect_agent() ? -1 : 1;
		if (state == 1 && hvt_events_send_registry())
			state = -1;
		hvt_events_set_enabled(state == 1);
	}
	return state == 1;
}

void hvt_agent_disconnect(void)
{
	if (sock >= 0)
		close(sock);
	sock = -1;
	state = -1;
	hvt_events_set_enabled(0);
}

const uint8_t *hvt_agent_uuid(void)
{
	return trace_uuid;
}

int hvt_agent_wake_fd(void)
{
	return wake_fd;
}

void hvt_agent_forget(void)
{
	if (sock >= 0)
		close(sock);
	if (wake_fd >= 0)
		close(wake_fd);		/* the parent's; this child is single-threaded */
	sock = -1;
	wake_fd = -1;
	state = 0;
}
