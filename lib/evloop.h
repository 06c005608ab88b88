/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * evloop.h - what the collector's and the agent's event loops start from:
 * termination signals as a signalfd (SIGINT, SIGTERM, SIGHUP), a periodic
 * timerfd, and SIGPIPE ignored (a broken link is an error return).
 */
#ifndef HVT_LIB_EVLOOP_H
#define HVT_LIB_EVLOOP_H

/* 0, or -1 with errno; on success both fds are non-blocking and close-on-exec. */
int hvt_evloop_fds(unsigned int tick_ms, int *signal_fd, int *timer_fd);
/* A periodic timerfd alone, non-blocking; -1 with errno. */
int hvt_evloop_timer(unsigned int period_ms);

#endif
