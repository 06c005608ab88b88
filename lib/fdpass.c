// SPDX-License-Identifier: LGPL-2.1-only OR MIT
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/fdpass.h"

ssize_t hvt_send_fd(int sock, struct iovec *iov, int iovcnt, int fd, int flags)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = (size_t)iovcnt };
	ssize_t n;

	if (fd >= 0) {
		struct cmsghdr *c;

		memset(cbuf, 0, sizeof(cbuf));
		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	do
		n = sendmsg(sock, &msg, flags | MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n;
}

ssize_t hvt_recv_fd(int sock, void *buf, size_t size, int flags, int *fd, int *truncated)
{
	/* room for a few descriptors, so that extra ones are seen and closed */
	char cbuf[CMSG_SPACE(4 * sizeof(int))];
	struct iovec iov = { buf, size };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	ssize_t n;

	*fd = -1;
	do
		n = recvmsg(sock, &msg, flags | MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return n;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		size_t i, count;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < count; i++) {
			int got;

			memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (*fd < 0)
				*fd = got;
			else
				close(got);
		}
	}
	*truncated = !!(msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC));
	return n;
}

int hvt_app_send(int sock, uint16_t type, uint32_t id, const void *payload, uint32_t len,
		 int fd, int flags)
{
	struct hvt_app_hdr h = { HVT_APP_MAGIC, type, 0, len, id };
	struct iovec iov[2] = { { &h, sizeof(h) }, { (void *)payload, len } };
	ssize_t n = hvt_send_fd(sock, iov, len ? 2 : 1, fd, flags);

	if (n == (ssize_t)(sizeof(h) + len))
		return 0;
	if (n >= 0)
		errno = EMSGSIZE;	/* a SOCK_SEQPACKET message goes whole or not */
	return -1;
}

int hvt_app_recv(int sock, void *buf, size_t size, int flags, struct hvt_app_hdr *h, int *fd)
{
	int truncated;
	ssize_t n = hvt_recv_fd(sock, buf, size, flags, fd, &truncated);

	if (n < 0)
		return -1;
	if (n == 0 || (size_t)n < sizeof(*h) || truncated)
		goto malformed;
	memcpy(h, buf, sizeof(*h));
	if (h->magic != HVT_APP_MAGIC || h->flags || h->len != (size_t)n - sizeof(*h))
		goto malformed;
	return 1;
malformed:
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
	return n == 0 ? 0 : -2;
}
