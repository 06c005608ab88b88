/* SPDX-License-Identifier: LGPL-2.1-only OR MIT */
/*
 * internal.h - libhvtrace's private declarations.
 *
 *   debug.c    hvt_debug_msg(): why tracing is off, with HVTRACE_DEBUG set
 *   clock.c    the clock page, hvt_clock_*() (clock.h)
 *   agent.c    the connection to the guest agent (app_proto.h)
 *   agent_trust.c  what is taken from the agent: its credentials, its descriptors
 *   watch.c    the thread that waits for an agent and notices when it goes
 *   buffer.c   per-thread ring buffers in memfds
 *   event.c    event registration and the write path
 */
#ifndef HVT_VDSO_INTERNAL_H
#define HVT_VDSO_INTERNAL_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <hvtrace/hvtrace.h>
#include <hvtrace/ringbuf.h>

#define HVT_HIDDEN __attribute__((visibility("hidden")))

/*
 * One connection to an agent, kept until its agent is gone and no thread
 * buffer registered through it is left: those may still write to its
 * eventfd, whose number must not be reused under them.
 */
struct hvt_link {
	struct hvt_link *next;
	uint32_t epoch;			/* hvt_epoch while this is the live link */
	int wake_fd;			/* the agent's eventfd, -1 if it sent none */
	unsigned int buffers;		/* live thread buffers registered through it */
	int gone;			/* the connection ended */
};

/*
 * The live link's epoch, 0 before the first. A thread buffer of another
 * epoch is stale: its agent is gone, and the thread's next event replaces
 * it. volatile: read after the event's enabled flag, never before it.
 */
extern HVT_HIDDEN volatile uint32_t hvt_epoch;

struct hvt_thread_buf {
	struct hvt_rb rb;		/* first: packet_closed finds the rest from it */
	void *map;			/* producer page + sub-buffers (memfd) */
	size_t map_size;		/* rb.cons: the agent's consumer page, read-only */
	/*
	 * The write path's one test: equal to hvt_epoch while the buffer is
	 * idle and current. 0 while a write is in progress on this thread (a
	 * signal handler's write is then refused), its link's epoch between
	 * writes (stale once another link is live).
	 */
	uint32_t gate;
	uint32_t epoch;			/* its link's */
	volatile sig_atomic_t nested_lost;	/* writes refused while busy */
	uint32_t stream_id;
	int32_t tid;
	int wake_fd;			/* the link's eventfd, -1 if none */
	struct hvt_link *link;		/* the connection it was registered through */
};

/* debug.c: says @fmt... on stderr, with HVTRACE_DEBUG set (not to 0); else nothing */
HVT_HIDDEN void hvt_debug_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* agent.c: all calls with hvt_lock held */
extern HVT_HIDDEN pthread_mutex_t hvt_lock;
HVT_HIDDEN int hvt_agent_connected(void);	/* connects on first use */
HVT_HIDDEN int hvt_agent_try_connect(void);	/* 1 if an agent took this process */
HVT_HIDDEN int hvt_agent_state(void);		/* 0 untried, 1 up, -1 off */
HVT_HIDDEN void hvt_agent_disconnect(void);	/* after an error: tracing off */
HVT_HIDDEN int hvt_agent_socket(void);		/* the connection's socket, -1 if none */
HVT_HIDDEN void hvt_agent_hangup(void);		/* the watcher saw its end: closes it */
HVT_HIDDEN const char *hvt_agent_path(void);	/* where the agent listens */
HVT_HIDDEN const uint8_t *hvt_agent_uuid(void);
HVT_HIDDEN struct hvt_link *hvt_agent_link(void);	/* the live link */
HVT_HIDDEN void hvt_link_put(struct hvt_link *link);	/* a buffer of it is gone */
HVT_HIDDEN int hvt_agent_send(uint16_t type, uint32_t id, const void *payload,
			      uint32_t len, int fd);
HVT_HIDDEN int hvt_agent_recv(uint16_t type, uint32_t id, void *payload, uint32_t size,
			      int *fd);
HVT_HIDDEN void hvt_agent_forget(void);		/* after fork, in the child */

/* watch.c */
HVT_HIDDEN void hvt_watch_start(void);		/* once per process, with hvt_lock held */
HVT_HIDDEN void hvt_watch_forget(void);		/* after fork, in the child */

/* buffer.c */
HVT_HIDDEN struct hvt_thread_buf *hvt_thread_buf_create(void);
HVT_HIDDEN void hvt_thread_buf_release(struct hvt_thread_buf *tb, int tell_agent);
HVT_HIDDEN void hvt_buffers_forget(void);	/* in a forked child: no buffer is ours */

/* event.c */
HVT_HIDDEN int hvt_events_send_registry(void);
HVT_HIDDEN void hvt_events_set_enabled(int enabled);

/*
 * agent_trust.c: whether the listener on @sock (at @path) may have this
 * process's events (root, this process's user, HVTRACE_AGENT_UID); whether
 * a wakeup descriptor @fd (-1: none) is a non-blocking eventfd; whether a
 * consumer page @fd is a sealed file of at least @size bytes. 1 or 0,
 * after saying why with HVTRACE_DEBUG.
 */
HVT_HIDDEN int hvt_agent_peer_trusted(int sock, const char *path);
HVT_HIDDEN int hvt_agent_wake_fd_ok(int fd);
HVT_HIDDEN int hvt_agent_page_fd_ok(int fd, size_t size);

#endif
