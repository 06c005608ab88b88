// SPDX-License-Identifier: GPL-2.0-only
/*
 * live_addr.c - an LTTng live relay's listening socket (live_addr.h).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/netaddr.h"
#include "lib/live_addr.h"

int hvt_live_listen(const char *spec, char *bound, size_t bound_size, char *err, size_t errlen)
{
	struct hvt_netaddr a;
	char tcp[300], where[200];
	const char *colon = strrchr(spec, ':');
	int fd;

	if (strlen(spec) > 250 || !spec[0]) {
		snprintf(err, errlen, "'%s' is no [ADDR:]PORT", spec);
		return -1;
	}
	/* a bare port, or ADDR:PORT (an IPv6 ADDR in brackets) */
	if (!colon || (spec[0] == '[' && colon < strchr(spec, ']')))
		snprintf(tcp, sizeof(tcp), "tcp:127.0.0.1:%s", spec);
	else
		snprintf(tcp, sizeof(tcp), "tcp:%s", spec);
	if (hvt_netaddr_parse(tcp, true, &a, err, errlen))
		return -1;
	fd = hvt_netaddr_listen(&a, 16, err, errlen);
	if (fd < 0)
		return -1;
	hvt_netaddr_bound(fd, &a, where, sizeof(where));
	snprintf(bound, bound_size, "%s", strncmp(where, "tcp:", 4) ? where : where + 4);
	return fd;
}

void hvt_live_bound(int fd, char *bound, size_t bound_size)
{
	struct hvt_netaddr a = { .text = "the socket given" };
	char where[200];

	hvt_netaddr_bound(fd, &a, where, sizeof(where));
	snprintf(bound, bound_size, "%s", strncmp(where, "tcp:", 4) ? where : where + 4);
}
