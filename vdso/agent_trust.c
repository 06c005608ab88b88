// SPDX-License-Identifier: LGPL-2.1-only OR MIT
/*
 * agent_trust.c - what the library takes from whoever listens at the
 * agent's socket: the listener's credentials before anything is sent, and
 * every descriptor it sends before it is used. A listener that is not the
 * agent (another user's process at the path, a broken agent) must never
 * harm or expose the program: it gets nothing, or its connection ends.
 *
 *   - the listener must run as root, as this process's effective user, or
 *     as the user HVTRACE_AGENT_UID names (a host agent run by a service
 *     user); anyone else is refused before the first byte is sent, since
 *     the registry and every thread's buffer would go to it;
 *   - the wakeup descriptor must be a non-blocking eventfd: a pipe could
 *     raise SIGPIPE in the program, a blocking one stall its writers;
 *   - a consumer page must be a sealed memfd (F_SEAL_SHRINK) at least as
 *     large as the page read from it: a shorter file, or one that can
 *     shrink later, would end the program with SIGBUS on a read.
 *
 * Each refusal is said once per connection with HVTRACE_DEBUG (debug.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <hvtrace/app_proto.h>

#include "vdso/internal.h"

/* The uid HVTRACE_AGENT_UID names, or -1 (unset or not a uid). */
static long configured_uid(void)
{
	const char *v = secure_getenv("HVTRACE_AGENT_UID");	/* not in a setuid program */
	char *end;
	long uid;

	if (!v || !*v)
		return -1;
	errno = 0;
	uid = strtol(v, &end, 10);
	if (errno || *end || uid < 0 || uid > 0x7fffffffL) {
		hvt_debug_msg("HVTRACE_AGENT_UID=%s is not a user id; ignored", v);
		return -1;
	}
	return uid;
}

int hvt_agent_peer_trusted(int sock, const char *path)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &len) || len != sizeof(cred)) {
		hvt_debug_msg("refusing the agent at %s: its credentials cannot be read (%s)", path,
			      strerror(errno));
		return 0;
	}
	if (cred.uid == 0 || cred.uid == geteuid() || (long)cred.uid == configured_uid())
		return 1;
	hvt_debug_msg("refusing the agent at %s: it runs as uid %u, not root, this process's "
		      "uid %u or HVTRACE_AGENT_UID; nothing was sent to it", path,
		      (unsigned int)cred.uid, (unsigned int)geteuid());
	return 0;
}

int hvt_agent_wake_fd_ok(int fd)
{
	char proc[64], target[64];
	ssize_t n;
	int flags;

	if (fd < 0)
		return 1;	/* none: the agent drains on its timer */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, target, sizeof(target) - 1);
	if (n < 0) {
		hvt_debug_msg("refusing the agent's wakeup descriptor: %s cannot be read (%s)",
			      proc, strerror(errno));
		return 0;
	}
	target[n] = '\0';
	flags = fcntl(fd, F_GETFL);
	if (strcmp(target, "anon_inode:[eventfd]") || flags < 0 || !(flags & O_NONBLOCK)) {
		hvt_debug_msg("refusing the agent's wakeup descriptor: %s, %s; it must be a "
			      "non-blocking eventfd", target,
			      flags >= 0 && (flags & O_NONBLOCK) ? "non-blocking" : "blocking");
		return 0;
	}
	return 1;
}

int hvt_agent_page_fd_ok(int fd, size_t size)
{
	struct stat st;
	int seals = fcntl(fd, F_GET_SEALS);

	/* the seal first: once sealed it cannot shrink after the size is read */
	if (seals < 0 || !(seals & F_SEAL_SHRINK)) {
		hvt_debug_msg("refusing the agent's consumer page: not a memfd sealed against "
			      "shrinking");
		return 0;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size < size) {
		hvt_debug_msg("refusing the agent's consumer page: not a file of at least %zu "
			      "bytes", size);
		return 0;
	}
	return 1;
}
