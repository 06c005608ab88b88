// SPDX-License-Identifier: GPL-2.0-only
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "lib/evloop.h"

int hvt_evloop_fds(unsigned int tick_ms, int *signal_fd, int *timer_fd)
{
	struct timespec tick = { tick_ms / 1000, (long)(tick_ms % 1000) * 1000000L };
	struct itimerspec its = { tick, tick };
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	*signal_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	*timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (*signal_fd < 0 || *timer_fd < 0 || timerfd_settime(*timer_fd, 0, &its, NULL)) {
		if (*signal_fd >= 0)
			close(*signal_fd);
		if (*timer_fd >= 0)
			close(*timer_fd);
		return -1;
	}
	return 0;
}
