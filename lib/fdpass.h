/* SPDX-License-Identifier: LGPL-2.1-only OR MIT */
/*
 * fdpass.h - one message with at most one file descriptor (SCM_RIGHTS), as
 * libhvtrace and the agent exchange them (docs/format.md, section 6).
 */
#ifndef HVT_FDPASS_H
#define HVT_FDPASS_H

#include <sys/types.h>
#include <sys/uio.h>

/* sendmsg() of @iov, passing @fd along unless it is negative. */
ssize_t hvt_send_fd(int sock, struct iovec *iov, int iovcnt, int fd, int flags);
/*
 * recvmsg() into @buf. The first descriptor received goes to *fd (-1 if
 * none; any others are closed); *truncated says whether the message or its
 * control data did not fit. Returns what recvmsg() returned.
 */
ssize_t hvt_recv_fd(int sock, void *buf, size_t size, int flags, int *fd, int *truncated);

#endif
