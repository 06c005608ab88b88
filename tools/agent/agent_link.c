// SPDX-License-Identifier: GPL-2.0-only
/*
 * agent_link.c - the agent's one link to the host: opening it (a
 * virtio-serial port, a collector's socket, or a descriptor given), and
 * what the agent's parts send through it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/fileio.h"
#include "lib/log.h"
#include "lib/netaddr.h"
#include "tools/agent/agent_link.h"

void agent_log(struct agent_link *l, const char *fmt, ...)
{
	char text[HVT_W_LOG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	hvt_warn("%s", text);
	if (l->port >= 0 && !l->host_gone && text[0])	/* LOG carries 1..512 bytes */
		agent_send(l, HVT_W_LOG, 0, text, (uint32_t)strlen(text));
}

/* A send failed: the link is lost, and with it the recording. */
static int link_lost(struct agent_link *l)
{
	if (errno == ETIMEDOUT)
		hvt_err("lost the host link: the host read nothing for %d s",
			HVT_WIRE_SEND_TIMEOUT_MS / 1000);
	else if (errno == ECONNRESET || errno == EPIPE)	/* it closed with our data unread */
		hvt_err("the host closed the link (%s)", strerror(errno));
	else
		hvt_err("lost the host link: %s", strerror(errno));
	l->host_gone = true;
	return -1;
}

/* Packets went out: what waits for the link between them (agent_link.h). */
static void packets_sent(struct agent_link *l)
{
	if (!l->between_packets || l->in_between || l->host_gone)
		return;
	l->in_between = true;
	l->between_packets(l->between_ctx);
	l->in_between = false;
}

int agent_send(struct agent_link *l, uint16_t type, uint32_t id, const void *payload,
	       uint32_t len)
{
	if (l->host_gone)
		return -1;
	if (hvt_wire_send(l->port, type, id, payload, len))
		return link_lost(l);
	if (type == HVT_W_PACKET)
		packets_sent(l);
	return 0;
}

int agent_sendv(struct agent_link *l, struct iovec *iov, int n_iov)
{
	if (l->host_gone)
		return -1;
	if (hvt_wire_writev(l->port, iov, n_iov, HVT_WIRE_SEND_TIMEOUT_MS))
		return link_lost(l);
	packets_sent(l);
	return 0;
}

/*
 * The host keeps every id it was given for the whole recording (a stream
 * file is named by its id), so ids are not reused: past the limits of
 * wire.h the agent refuses new traces and streams rather than end the link.
 */
int agent_new_trace_id(struct agent_link *l, uint32_t *id)
{
	if (l->next_trace_id >= HVT_W_MAX_TRACES)
		return -1;
	*id = l->next_trace_id++;
	return 0;
}

int agent_new_stream_id(struct agent_link *l, uint32_t *id)
{
	if (l->next_stream_id >= HVT_W_MAX_STREAMS)
		return -1;
	*id = l->next_stream_id++;
	return 0;
}

/* The port named HVT_WIRE_PORT_NAME, as /dev/vportNpM. */
static int find_virtio_port(char *path, size_t size)
{
	DIR *d = opendir("/sys/class/virtio-ports");
	struct dirent *e;
	int found = -1;

	if (!d)
		return -1;
	while (found && (e = readdir(d))) {
		char file[512], *name = NULL;
		size_t len;

		if (e->d_name[0] == '.' ||
		    hvt_path(file, sizeof(file), "/sys/class/virtio-ports/%s/name", e->d_name) ||
		    hvt_read_file(file, 256, &name, &len))
			continue;
		if (len && name[len - 1] == '\n')
			name[len - 1] = '\0';
		if (!strcmp(name, HVT_WIRE_PORT_NAME) &&
		    !hvt_path(path, size, "/dev/%s", e->d_name))
			found = 0;
		free(name);
	}
	closedir(d);
	return found;
}

/*
 * --connect: a collector's socket (unix, tcp, vsock), tried every 100 ms
 * until it listens or @wait_s passed.
 */
static int connect_link(const char *spec, int wait_s)
{
	struct hvt_netaddr addr;
	char err[300];
	int waited_ms, fd;

	if (hvt_netaddr_parse(spec, false, &addr, err, sizeof(err))) {
		hvt_err("--connect %s", err);
		return -1;
	}
	for (waited_ms = 0;; waited_ms += 100) {
		fd = hvt_netaddr_connect(&addr);
		if (fd >= 0) {
			fcntl(fd, F_SETFL, O_NONBLOCK);
			return fd;
		}
		if (errno != ENOENT && errno != ECONNREFUSED && errno != ETIMEDOUT &&
		    errno != ECONNRESET && errno != EAGAIN && errno != EHOSTUNREACH &&
		    errno != ENETUNREACH) {
			hvt_err("cannot connect to %s: %s", spec, strerror(errno));
			return -1;
		}
		if (waited_ms == 2000)
			hvt_info("waiting for the host collector on %s", spec);
		if (wait_s && waited_ms >= wait_s * 1000) {
			hvt_err("no host collector on %s after %d s (%s); start 'hvtrace record "
				"--listen %s' on the host", spec, wait_s, strerror(errno), spec);
			return -1;
		}
		usleep(100000);
	}
}

/* A virtio port reports POLLHUP until the host side is connected. */
static int wait_for_host(int fd, const char *path, int seconds)
{
	int waited_ms = 0;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLOUT };

		if (poll(&p, 1, 100) == 1 && !(p.revents & (POLLHUP | POLLERR)))
			return 0;
		if (waited_ms == 2000)
			hvt_info("waiting for the host collector on %s", path);
		if (p.revents)	/* no collector yet: poll returned at once */
			usleep(100000);
		waited_ms += 100;
		if (seconds && waited_ms >= seconds * 1000) {
			hvt_err("no host collector on %s after %d s; start 'hvtrace record' on the host",
				path, seconds);
			return -1;
		}
	}
}

static int open_port(const char *spec, int wait_s)
{
	char path[300];
	int fd;

	if (spec)
		snprintf(path, sizeof(path), "%s", spec);
	else if (find_virtio_port(path, sizeof(path))) {
		hvt_err("no virtio-serial port named %s; give the VM one "
			"(-device virtserialport,name=%s) or pass --port", HVT_WIRE_PORT_NAME,
			HVT_WIRE_PORT_NAME);
		return -1;
	}
	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		hvt_err("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (wait_for_host(fd, path, wait_s)) {
		close(fd);
		return -1;
	}
	return fd;
}

int agent_link_open(struct agent_link *l, int link_fd, const char *connect_to,
		    const char *port_path, int wait_s)
{
	if (link_fd >= 0) {
		l->port = link_fd;
		fcntl(l->port, F_SETFL, O_NONBLOCK);
		fcntl(l->port, F_SETFD, FD_CLOEXEC);
	} else {
		l->port = connect_to ? connect_link(connect_to, wait_s) :
				     open_port(port_path, wait_s);
	}
	return l->port < 0 ? -1 : 0;
}
