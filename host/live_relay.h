/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * live_relay.h - `hvtrace record --live [ADDR:]PORT`: an `hvtrace relay`
 * (tools/relay/) beside the recording, serving it to LTTng live viewers
 * while it is written.
 *
 * The collector binds the port itself before it records anything, so that
 * a port in use is said at once, and hands the socket to the relay, a
 * process of its own (its own process group: Ctrl-C stops the recording,
 * whose end the relay then serves): a viewer can slow, block or break
 * nothing of the recording. The collector waits for the relay at its end,
 * while the viewers still connected read the rest (the relay's --linger).
 */
#ifndef HVT_HOST_LIVE_RELAY_H
#define HVT_HOST_LIVE_RELAY_H

#include <stdbool.h>
#include <sys/types.h>

struct hvt_live_relay {
	int fd;				/* the listening socket, -1 */
	pid_t pid;			/* the relay, 0 */
	char bound[200];		/* where it listens */
};

/* Binds @spec ([ADDR:]PORT); -1 after an error message. */
int hvt_live_relay_listen(struct hvt_live_relay *l, const char *spec);
/*
 * Starts the relay on @archive (set up now), giving every viewer the whole
 * recording if @from_start; said if it cannot start.
 */
void hvt_live_relay_start(struct hvt_live_relay *l, const char *archive, bool from_start);
/* Waits for the relay to serve the end and exit; closes the socket. */
void hvt_live_relay_finish(struct hvt_live_relay *l);

#endif
