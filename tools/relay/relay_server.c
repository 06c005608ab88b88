// SPDX-License-Identifier: GPL-2.0-only
/*
 * relay_server.c - the relay's viewer connections (relay_server.h).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock_now.h"
#include "lib/log.h"
#include "lib/netaddr.h"
#include "tools/relay/relay_server.h"

void hvt_relay_server_init(struct hvt_relay_server *s, int listen_fd, struct hvt_relay_trace *t)
{
	int i;

	memset(s, 0, sizeof(*s));
	s->listen_fd = listen_fd;
	s->t = t;
	s->next_id = 1;
	s->idle_ns = HVT_RELAY_IDLE_S * 1000000000ll;
	for (i = 0; i < HVT_RELAY_MAX_VIEWERS; i++)
		s->conns[i].fd = -1;
}

static void count_attached(struct hvt_relay_server *s)
{
	uint32_t n = 0;
	int i;

	for (i = 0; i < HVT_RELAY_MAX_VIEWERS; i++)
		n += s->conns[i].fd >= 0 && s->conns[i].v.attached;
	s->t->viewers = n;
}

static void close_conn(struct hvt_relay_server *s, struct hvt_relay_conn *c)
{
	close(c->fd);
	hvt_relay_viewer_free(&c->v);
	hvt_relay_out_free(&c->out);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	count_attached(s);
}

/* Closes @c: said with @why (a fault, counted), or as a viewer that left. */
static void drop(struct hvt_relay_server *s, struct hvt_relay_conn *c, const char *why)
{
	if (why) {
		hvt_warn("viewer %s: %s; its connection is closed", c->peer, why);
		s->dropped++;
	} else {
		hvt_detail("viewer %s left (%llu commands, %llu packets sent)", c->peer,
			    (unsigned long long)c->v.commands, (unsigned long long)c->v.packets_sent);
	}
	close_conn(s, c);
}

/*
 * A place for viewer @peer: a free one, else the one of the viewer idle
 * the longest if that is idle_ns or more (closed, said); -1 if none.
 */
static int free_place(struct hvt_relay_server *s, const char *peer, int64_t now)
{
	int i, idlest = 0;

	for (i = 0; i < HVT_RELAY_MAX_VIEWERS; i++) {
		if (s->conns[i].fd < 0)
			return i;
		if (s->conns[i].active_ns < s->conns[idlest].active_ns)
			idlest = i;
	}
	if (now - s->conns[idlest].active_ns < s->idle_ns)
		return -1;
	hvt_warn("viewer %s: idle for %.1f s while all %d places were taken; its connection is "
		 "closed, its place goes to %s", s->conns[idlest].peer,
		 (double)(now - s->conns[idlest].active_ns) / 1e9, HVT_RELAY_MAX_VIEWERS, peer);
	close_conn(s, &s->conns[idlest]);
	s->evicted++;
	return idlest;
}

static void accept_viewers(struct hvt_relay_server *s)
{
	int fd, i;

	while ((fd = hvt_netaddr_accept(s->listen_fd)) >= 0) {
		int64_t now = hvt_monotonic_ns();
		char peer[80];

		hvt_netaddr_peer(fd, peer, sizeof(peer));
		i = free_place(s, peer, now);
		if (i < 0) {
			hvt_warn("viewer %s refused: %d viewers are connected already, none idle "
				 "for %.0f s", peer, HVT_RELAY_MAX_VIEWERS, (double)s->idle_ns / 1e9);
			s->refused++;
			close(fd);
			continue;
		}
		s->conns[i].fd = fd;
		s->conns[i].active_ns = now;
		snprintf(s->conns[i].peer, sizeof(s->conns[i].peer), "%s", peer);
		hvt_relay_viewer_init(&s->conns[i].v, s->next_id++);
		s->conns[i].v.from_start = s->from_start;
		s->accepted++;
		hvt_detail("viewer %s connected", peer);
	}
}

/* Sends what is pending; -1 if the viewer is gone. */
static int send_pending(struct hvt_relay_conn *c)
{
	while (c->out_off < c->out.len) {
		ssize_t n = send(c->fd, c->out.buf + c->out_off, c->out.len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
		c->out_off += (size_t)n;
		c->active_ns = hvt_monotonic_ns();
	}
	c->out.len = c->out_off = 0;
	return 0;
}

/* Reads and answers commands while the replies go out at once. */
static void serve_viewer(struct hvt_relay_server *s, struct hvt_relay_conn *c)
{
	for (;;) {
		size_t used;
		ssize_t n;
		int r;

		if (send_pending(c)) {
			drop(s, c, NULL);
			return;
		}
		if (c->out.len)
			return;		/* it reads slowly: its next command waits */
		r = hvt_relay_command(&c->v, s->t, c->in, c->in_len, &used, &c->out);
		if (r < 0) {
			char why[200];

			snprintf(why, sizeof(why), "protocol error: %s", c->v.why);
			drop(s, c, why);
			return;
		}
		if (r > 0) {
			c->active_ns = hvt_monotonic_ns();
			memmove(c->in, c->in + used, c->in_len - used);
			c->in_len -= used;
			count_attached(s);
			continue;
		}
		n = recv(c->fd, c->in + c->in_len, sizeof(c->in) - c->in_len, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
			drop(s, c, NULL);
			return;
		}
		if (n < 0)
			return;
		c->in_len += (size_t)n;
	}
}

void hvt_relay_server_run(struct hvt_relay_server *s, int64_t ns)
{
	int64_t end = hvt_monotonic_ns() + ns;

	for (;;) {
		struct pollfd pfd[HVT_RELAY_MAX_VIEWERS + 1];
		int map[HVT_RELAY_MAX_VIEWERS + 1], n = 0, i, left, r;

		pfd[n] = (struct pollfd){ .fd = s->listen_fd, .events = POLLIN };
		map[n++] = -1;
		for (i = 0; i < HVT_RELAY_MAX_VIEWERS; i++)
			if (s->conns[i].fd >= 0) {
				pfd[n] = (struct pollfd){ .fd = s->conns[i].fd,
					.events = s->conns[i].out.len ? POLLOUT : POLLIN };
				map[n++] = i;
			}
		left = (int)((end - hvt_monotonic_ns()) / 1000000);
		r = poll(pfd, (nfds_t)n, left > 0 ? left : 0);
		if (r < 0)
			return;		/* a signal: the caller looks */
		/*
		 * The viewers first, the newcomers last: a viewer whose command
		 * waited while the relay was busy has made progress by the time
		 * a newcomer looks for an idle one to replace.
		 */
		for (i = 1; r > 0 && i < n; i++)
			if (pfd[i].revents)
				serve_viewer(s, &s->conns[map[i]]);
		if (r > 0 && pfd[0].revents)
			accept_viewers(s);
		if (left <= 0)
			return;
	}
}

bool hvt_relay_server_connected(const struct hvt_relay_server *s)
{
	int i;

	for (i = 0; i < HVT_RELAY_MAX_VIEWERS; i++)
		if (s->conns[i].fd >= 0)
			return true;
	return false;
}

bool hvt_relay_server_reading(const struct hvt_relay_server *s)
{
	int i;

	for (i = 0; i < HVT_RELAY_MAX_VIEWERS; i++)
		if (s->conns[i].fd >= 0 && s->conns[i].v.attached &&
		    !hvt_relay_viewer_finished(&s->conns[i].v, s->t))
			return true;
	return false;
}

void hvt_relay_server_close(struct hvt_relay_server *s)
{
	int i;

	for (i = 0; i < HVT_RELAY_MAX_VIEWERS; i++)
		if (s->conns[i].fd >= 0)
			drop(s, &s->conns[i], NULL);
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	s->listen_fd = -1;
}
