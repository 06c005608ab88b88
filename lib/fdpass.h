/* SPDX-License-Identifier: LGPL-2.1-only OR MIT */
/*
 * fdpass.h - one message with at most one file descriptor (SCM_RIGHTS), as
 * libhvtrace and the agent exchange them (docs/format.md, section 6).
 */
#ifndef HVT_LIB_FDPASS_H
#define HVT_LIB_FDPASS_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <hvtrace/app_proto.h>

/* sendmsg() of @iov, passing @fd along unless it is negative. */
ssize_t hvt_send_fd(int sock, struct iovec *iov, int iovcnt, int fd, int flags);
/*
 * recvmsg() into @buf. The first descriptor received goes to *fd (-1 if
 * none; any others are closed); *truncated says whether the message or its
 * control data did not fit. Returns what recvmsg() returned.
 */
ssize_t hvt_recv_fd(int sock, void *buf, size_t size, int flags, int *fd, int *truncated);

/*
 * The application protocol's framing, for libhvtrace and the agent alike.
 *
 * hvt_app_send() sends struct hvt_app_hdr, then @len bytes of @payload, with
 * @fd unless it is negative: 0 if the whole message went, else -1 (errno).
 */
int hvt_app_send(int sock, uint16_t type, uint32_t id, const void *payload, uint32_t len,
		 int fd, int flags);
/*
 * hvt_app_recv() receives one message into @buf (@size bytes, header
 * included) and checks its framing before anything looks inside: a whole
 * message, magic, flags 0, len = the bytes after the header. Then *@h is
 * the header, the payload starts at @buf + sizeof(*@h) and *@fd holds the
 * descriptor sent along, or -1. Returns 1 for a message, 0 at the end of
 * the stream, -1 if recvmsg() failed (errno; EAGAIN), -2 if the message was
 * malformed (its descriptor already closed).
 */
int hvt_app_recv(int sock, void *buf, size_t size, int flags, struct hvt_app_hdr *h, int *fd);

#endif
