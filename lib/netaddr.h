/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * netaddr.h - the addresses a guest link can use, written the way users
 * give them on the command line:
 *
 *   unix:PATH          a unix stream socket (QEMU's virtio-serial chardev,
 *                      libvirt <channel type='unix'>, tests)
 *   tcp:HOST:PORT      TCP; HOST a name, an IPv4 address or [IPv6]; port 0
 *                      when listening picks a free one (tests)
 *   vsock:CID:PORT     AF_VSOCK; listening takes "vsock:PORT" or
 *                      "vsock:any:PORT" (the host side of vhost-vsock),
 *                      the guest connects to CID 2, the host
 *
 * One parser and one listen/connect for the collector and the agent.
 */
#ifndef HVT_LIB_NETADDR_H
#define HVT_LIB_NETADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

enum hvt_netaddr_kind { HVT_ADDR_UNIX, HVT_ADDR_TCP, HVT_ADDR_VSOCK };

struct hvt_netaddr {
	enum hvt_netaddr_kind kind;
	struct sockaddr_storage sa;
	socklen_t len;
	char path[108];			/* unix: the socket's path */
	char text[160];			/* as given, for messages */
};

/*
 * Parses @spec. With @listen, a vsock address may leave out the CID and a
 * TCP port may be 0. -1 with @err naming what is wrong.
 */
int hvt_netaddr_parse(const char *spec, bool listen, struct hvt_netaddr *a, char *err,
		      size_t errlen);
/*
 * A non-blocking listening socket. A unix socket's stale file is replaced,
 * anything else at that path is refused. -1 with @err.
 */
int hvt_netaddr_listen(struct hvt_netaddr *a, int backlog, char *err, size_t errlen);
/*
 * Makes way for a unix socket at @path: a stale socket file (nobody listens
 * on it) is removed; anything else there, or a socket a live process
 * listens on, is left alone: -1 with @err saying what is there.
 */
int hvt_unix_path_clear(const char *path, char *err, size_t errlen);
/* Whether a process listens on the unix socket at @path (/proc/net/unix). */
bool hvt_unix_path_listened(const char *path);
/* Removes what listening created (a unix socket's file). */
void hvt_netaddr_unlisten(const struct hvt_netaddr *a, int fd);
/* A connection from a listener, non-blocking; -1 with errno. */
int hvt_netaddr_accept(int listen_fd);
/* A blocking connected socket, or -1 with errno. */
int hvt_netaddr_connect(const struct hvt_netaddr *a);
/* Where @fd listens ("tcp:127.0.0.1:40123" once port 0 was chosen). */
void hvt_netaddr_bound(int fd, const struct hvt_netaddr *a, char *buf, size_t size);
/* The peer of an accepted connection, for messages: "tcp:10.0.0.5:41234", "vsock:3:1025". */
void hvt_netaddr_peer(int fd, char *buf, size_t size);
/* The peer of an accepted vsock connection: its CID, or -1 if not vsock. */
long long hvt_netaddr_peer_cid(int fd);

#endif
