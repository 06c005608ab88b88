/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * live_addr.h - where an LTTng live relay listens, as `hvtrace relay --listen`
 * and `hvtrace record --live` take it: [ADDR:]PORT, ADDR an IPv4 address,
 * a name or [IPv6], 127.0.0.1 when left out (the live protocol has no
 * authentication: only local viewers unless told otherwise); port 0 picks
 * a free one. The default port is lttng-relayd's live port, 5344.
 */
#ifndef HVT_LIB_LIVE_ADDR_H
#define HVT_LIB_LIVE_ADDR_H

#include <stddef.h>

#define HVT_LIVE_DEFAULT_PORT	"5344"

/*
 * A listening, non-blocking socket on @spec; -1 with @err naming the
 * problem. @bound gets where it listens ("127.0.0.1:40123").
 */
int hvt_live_listen(const char *spec, char *bound, size_t bound_size, char *err, size_t errlen);
/* Where the listening socket @fd (one given by hvtrace record --live) listens. */
void hvt_live_bound(int fd, char *bound, size_t bound_size);

#endif
