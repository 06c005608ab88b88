// SPDX-License-Identifier: LGPL-2.1-only OR MIT
/*
 * agent.c - the application's connection to the guest agent (app_proto.h).
 *
 * Tried when the first event registers, that is while the program (or the
 * first library with events) loads, from the constructors that
 * HVT_TRACEPOINT_EVENT generates, so that a program started while a
 * recording runs is traced from its first event. Whether that worked or
 * not, the watcher thread (watch.c) then keeps the connection: it connects
 * when an agent appears, and when the agent goes (the recording ended, the
 * agent died) it closes the connection, which disables the events, and
 * waits for the next agent. Each connection is a link (struct hvt_link)
 * with an epoch of its own; thread buffers of an earlier epoch are
 * replaced at their thread's next event (event.c). A forked child is a
 * process of its own: its events are all enabled, so that its first one
 * comes here, connects anew and starts a watcher of its own (not at fork
 * time, where a thread cannot be safely made, and most children exec).
 * The process never sends BYE: closing the socket says the same.
 *
 * The agent's WELCOME carries an eventfd: the writer that closes a full
 * packet adds 1 to it (buffer.c), so the agent drains as packets complete
 * instead of on its timer. It stays open while a buffer of its link lives:
 * a thread may still write to it after the agent was lost, and a closed
 * number could be reused for one of the program's own files.
 */
#include <errno.h>
#include <pthread.h>
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
#include "vdso/clock.h"
#include "vdso/internal.h"

pthread_mutex_t hvt_lock = PTHREAD_MUTEX_INITIALIZER;
volatile uint32_t hvt_epoch;
static int sock = -1;		/* closed by the watcher only, or in a forked child */
static int state;		/* 0: not tried; 1: connected; -1: not connected */
static struct hvt_link *links;	/* the live link first, then gone ones with buffers */
static uint8_t trace_uuid[HVT_UUID_LEN];

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

/* A new live link with the agent's eventfd @fd (-1 if none); NULL if out of memory. */
static struct hvt_link *link_new(int fd)
{
	struct hvt_link *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->wake_fd = fd;
	l->epoch = hvt_epoch + 1;
	if (!l->epoch)		/* 0 is no link's */
		l->epoch = 1;
	l->next = links;
	links = l;
	return l;
}

static void link_free_if_unused(struct hvt_link *l)
{
	struct hvt_link **pp;

	if (!l->gone || l->buffers)
		return;
	for (pp = &links; *pp != l; pp = &(*pp)->next)
		;
	*pp = l->next;
	if (l->wake_fd >= 0)
		close(l->wake_fd);
	free(l);
}

void hvt_link_put(struct hvt_link *l)
{
	l->buffers--;
	link_free_if_unused(l);
}

struct hvt_link *hvt_agent_link(void)
{
	return state == 1 ? links : NULL;
}

static int hello(void)
{
	struct hvt_a_hello h = { .version = HVT_APP_VERSION };
	struct hvt_a_welcome w;
	int fd = -1;

	h.pid = (uint32_t)getpid();
	switch (hvt_clock_source()) {
	case HVT_CLOCK_GUEST_TSC:
		h.domain = HVT_DOMAIN_GUEST_TSC;
		break;
	case HVT_CLOCK_TSC:
		h.domain = HVT_DOMAIN_TSC;
		break;
	default:
		h.domain = HVT_DOMAIN_MONOTONIC_RAW;
	}
	h.freq_hz = hvt_clock_freq();	/* 0 for HVT_CLOCK_TSC: the agent's measure */
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
	if (!hvt_agent_wake_fd_ok(fd))
		goto refused;
	/* Older agents send none: they drain on their timer only. */
	if (!link_new(fd))
		goto refused;
	return 0;
refused:
	if (fd >= 0)
		close(fd);
	return -1;
}

const char *hvt_agent_path(void)
{
	const char *path = secure_getenv(HVT_APP_SOCKET_ENV);	/* not in a setuid program */

	return path && *path ? path : HVT_APP_SOCKET;
}

static int connect_agent(void)
{
	const char *path = hvt_agent_path();
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct timeval tv = { 2, 0 };

	if (strlen(path) >= sizeof(addr.sun_path)) {
		hvt_debug_msg("the agent's socket path is too long: %s", path);
		return -1;
	}
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
	if (!hvt_agent_peer_trusted(sock, path))	/* before anything is sent */
		goto fail;
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

/* The live link ended: its buffers go stale, the events off. */
static void link_end(void)
{
	state = -1;
	hvt_events_set_enabled(0);
	if (links && !links->gone) {
		links->gone = 1;
		link_free_if_unused(links);
	}
}

int hvt_agent_try_connect(void)
{
	if (state == 1 || sock >= 0)	/* connected, or an ended one not closed yet */
		return state == 1;
	if (connect_agent())
		return 0;
	state = 1;
	if (hvt_events_send_registry()) {
		hvt_agent_disconnect();
		return 0;
	}
	/* the epoch before the events: a writer that sees them enabled sees it too */
	hvt_epoch = links->epoch;
	hvt_events_set_enabled(1);
	hvt_debug_msg("tracing to the agent at %s", hvt_agent_path());
	return 1;
}

/*
 * The first use tries to connect, then starts the watcher, which keeps
 * trying whenever the agent's socket changes.
 */
int hvt_agent_connected(void)
{
	if (state == 0) {
		if (!hvt_agent_try_connect()) {
			state = -1;
			hvt_events_set_enabled(0);	/* a forked child's were on */
		}
		hvt_watch_start();
	}
	return state == 1;
}

/*
 * After an error on the connection: tracing stops at once. The socket is
 * shut down, not closed, so that the watcher, which may be polling it,
 * wakes and closes it (hvt_agent_hangup()).
 */
void hvt_agent_disconnect(void)
{
	if (sock >= 0)
		shutdown(sock, SHUT_RDWR);
	link_end();
}

int hvt_agent_socket(void)
{
	return sock;
}

void hvt_agent_hangup(void)
{
	if (state == 1)
		hvt_debug_msg("the agent ended the connection; waiting for the next one");
	if (sock >= 0)
		close(sock);
	sock = -1;
	link_end();
}

const uint8_t *hvt_agent_uuid(void)
{
	return trace_uuid;
}

/* In a forked child, single-threaded: the parent's connection and links are not ours. */
void hvt_agent_forget(void)
{
	struct hvt_link *l, *next;

	if (sock >= 0)
		close(sock);
	for (l = links; l; l = next) {
		next = l->next;
		if (l->wake_fd >= 0)
			close(l->wake_fd);
		free(l);
	}
	links = NULL;
	sock = -1;
	state = 0;
}
