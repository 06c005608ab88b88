// SPDX-License-Identifier: LGPL-2.1-only OR MIT
/*
 * watch.c - the thread that follows the agent's comings and goings.
 *
 * One thread per process with events, started when the first event
 * registers (and anew in a forked child). It spends its life asleep in the
 * kernel:
 *   - connected: in poll() on the agent's connection, for its end only
 *     (POLLRDHUP: the replies on it belong to the threads that asked);
 *   - not connected: in read() of an inotify watch of the directory of the
 *     agent's socket, or of its nearest existing ancestor while that
 *     directory does not exist (systemd makes /run/hvtrace when it starts
 *     the agent and removes it when the agent stops).
 * The watch is armed before each attempt to connect, so an agent that
 * appears in between is not missed; events about other names in the
 * directory are read and ignored. No timer wakes it, unless the kernel
 * refuses an inotify instance (fs.inotify.max_user_instances): then it
 * tries again every RETRY_S seconds, and HVTRACE_DEBUG=1 says so.
 *
 * All signals are blocked in it, so that the program's go to its own
 * threads. libhvtrace.so is linked -z nodelete: this thread's code is
 * never unloaded under it.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "vdso/internal.h"

#define RETRY_S		10	/* without inotify only */
#define WATCH_MASK	(IN_CREATE | IN_MOVED_TO | IN_ATTRIB | IN_DELETE | \
			 IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

static int started;		/* under hvt_lock */
static int ifd = -1;		/* this thread's inotify instance */
static int wd = -1;		/* its one watch */
static char want[NAME_MAX + 1];	/* the name in the watched directory that matters */

/* The name that matters in the watched directory (a longer one cannot exist). */
static void set_want(const char *name)
{
	size_t n = strnlen(name, NAME_MAX);

	memcpy(want, name, n);
	want[n] = '\0';
}

/*
 * Watches the socket's directory, or its nearest existing ancestor, and
 * remembers which name in it leads to the socket. -1 if nothing can be
 * watched.
 */
static int arm(void)
{
	const char *path = hvt_agent_path();
	char dir[PATH_MAX];
	char *slash;
	int w;

	if (strlen(path) >= sizeof(dir))
		return -1;
	strcpy(dir, path);
	for (;;) {
		slash = strrchr(dir, '/');
		if (!slash) {		/* relative, in the working directory */
			set_want(dir);
			strcpy(dir, ".");
		} else {
			set_want(slash + 1);
			if (slash == dir)
				slash[1] = '\0';	/* the root itself */
			else
				*slash = '\0';
		}
		w = inotify_add_watch(ifd, dir, WATCH_MASK);
		if (w >= 0)
			break;
		if ((errno != ENOENT && errno != ENOTDIR) || !strcmp(dir, "/") ||
		    !strcmp(dir, "."))
			return -1;
	}
	if (wd >= 0 && wd != w)
		inotify_rm_watch(ifd, wd);
	wd = w;
	return 0;
}

/* Sleeps until something happens to the watched name or directory. */
static int wait_change(void)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));

	for (;;) {
		ssize_t n = read(ifd, buf, sizeof(buf)), off = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		while (off < n) {
			const struct inotify_event *ev = (const void *)(buf + off);

			if (ev->mask & (IN_Q_OVERFLOW | IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF))
				return 0;
			if (ev->len && !strcmp(ev->name, want))
				return 0;
			off += (ssize_t)sizeof(*ev) + ev->len;
		}
	}
}

/* Sleeps until the connection on @fd ends, from either side. */
static void wait_hangup(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLRDHUP };

	while (poll(&p, 1, -1) < 0 && errno == EINTR)
		;
}

/* The agent, if one takes this process: it must be connected, or stay waited for. */
static int try_connect(void)
{
	int up;

	pthread_mutex_lock(&hvt_lock);
	up = hvt_agent_try_connect();
	pthread_mutex_unlock(&hvt_lock);
	return up;
}

static void *watch(void *arg)
{
	(void)arg;
	for (;;) {
		int fd;

		pthread_mutex_lock(&hvt_lock);
		fd = hvt_agent_state() == 1 ? hvt_agent_socket() : -1;
		if (fd < 0 && hvt_agent_socket() >= 0)
			hvt_agent_hangup();	/* ended by an error: close it */
		pthread_mutex_unlock(&hvt_lock);
		if (fd >= 0) {
			wait_hangup(fd);
			pthread_mutex_lock(&hvt_lock);
			hvt_agent_hangup();	/* only this thread closes it: still @fd */
			pthread_mutex_unlock(&hvt_lock);
			continue;
		}
		if (ifd < 0 || arm()) {
			if (!try_connect())
				sleep(RETRY_S);
			continue;
		}
		if (!try_connect() && wait_change()) {
			hvt_debug_msg("cannot wait for the agent any more: %s", strerror(errno));
			return NULL;
		}
	}
	return NULL;
}

void hvt_watch_start(void)
{
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t th;
	int err;

	if (started)
		return;
	started = 1;
	ifd = inotify_init1(IN_CLOEXEC);
	if (ifd < 0)
		hvt_debug_msg("no inotify instance (%s): looking for the agent every %d s",
			      strerror(errno), RETRY_S);
	sigfillset(&all);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	pthread_sigmask(SIG_SETMASK, &all, &old);	/* the new thread inherits it */
	err = pthread_create(&th, &attr, watch, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (err) {
		hvt_debug_msg("no watcher thread (%s): an agent that appears later is not seen",
			      strerror(err));
		return;
	}
	pthread_setname_np(th, "hvtrace-watch");
}

/* In a forked child: the parent's watcher did not come along. */
void hvt_watch_forget(void)
{
	if (ifd >= 0)
		close(ifd);
	ifd = -1;
	wd = -1;
	started = 0;
}
