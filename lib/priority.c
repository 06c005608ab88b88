// SPDX-License-Identifier: GPL-2.0-only
/*
 * priority.c - the consumer side's nice value (priority.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "lib/log.h"
#include "lib/priority.h"

void hvt_consumer_priority(int nice, const char *who)
{
	int now;

	errno = 0;
	now = getpriority(PRIO_PROCESS, 0);	/* Linux: this thread's */
	if (now == -1 && errno)
		now = 0;
	if (nice >= now) {
		hvt_detail("%s: at nice %d (--nice %d would not raise it)", who, now, nice);
		return;
	}
	if (setpriority(PRIO_PROCESS, 0, nice)) {
		hvt_detail("%s: stays at nice %d: cannot take nice %d (%s; root or CAP_SYS_NICE "
			 "may); it drains at the writers' priority", who, now, nice, strerror(errno));
		return;
	}
	hvt_detail("%s: at nice %d, ahead of the writers it drains", who, nice);
}

int hvt_nice_parse(const char *arg, int *nice)
{
	char *end;
	long v;

	if (*arg != '-' && (*arg < '0' || *arg > '9'))
		return -1;	/* strtol() would skip spaces and take a '+' */
	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < -20 || v > 19)
		return -1;
	*nice = (int)v;
	return 0;
}
