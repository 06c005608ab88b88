// SPDX-License-Identifier: GPL-2.0-only
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "lib/evloop.h"

int hvt_evloop_timer(unsigned int period_ms)
{
	struct timespec tick = { period_ms / 1000, (long)(period_ms % 1000) * 1000000L };
	struct itimerspec its = { tick, tick };
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);

	if (fd >= 0 && timerfd_settime(fd, 0, &its, NULL)) {
		close(fd);
		return -1;
	}
	return fd;
}

int hvt_evloop_fds(unsigned int tick_ms, int *signal_fd, int *timer_fd)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	*signal_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	*timer_fd = hvt_evloop_timer(tick_ms);
	if (*signal_fd < 0 || *timer_fd < 0) {
		if (*signal_fd >= 0)
			close(*signal_fd);
		if (*timer_fd >= 0)
			close(*timer_fd);
		return -1;
	}
	return 0;
}
