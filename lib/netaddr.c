// SPDX-License-Identifier: GPL-2.0-only
/*
 * netaddr.c - guest link addresses: unix, tcp and vsock (netaddr.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <linux/vm_sockets.h>

#include "lib/netaddr.h"

static int parse_u32(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	*out = strtoul(s, &end, 10);
	return *end || errno || *out > max ? -1 : 0;
}

static int parse_unix(const char *path, struct hvt_netaddr *a, char *err, size_t errlen)
{
	struct sockaddr_un *un = (struct sockaddr_un *)&a->sa;

	if (!*path || strlen(path) >= sizeof(un->sun_path)) {
		snprintf(err, errlen, "unix socket path %s (1 to %zu bytes)",
			 *path ? "too long" : "missing", sizeof(un->sun_path) - 1);
		return -1;
	}
	un->sun_family = AF_UNIX;
	strcpy(un->sun_path, path);
	strcpy(a->path, path);
	a->kind = HVT_ADDR_UNIX;
	a->len = sizeof(*un);
	return 0;
}

static int parse_tcp(const char *hostport, bool listen, struct hvt_netaddr *a, char *err,
		     size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV | (listen ? AI_PASSIVE : 0) };
	const char *colon = strrchr(hostport, ':');
	char host[128];
	struct addrinfo *res;
	unsigned long port;
	size_t hlen;
	int rc;

	if (!colon || parse_u32(colon + 1, 65535, &port) || (!port && !listen)) {
		snprintf(err, errlen, "tcp address needs HOST:PORT with a port of 1-65535%s",
			 listen ? " (0: any free port)" : "");
		return -1;
	}
	hlen = (size_t)(colon - hostport);
	if (hlen >= 2 && hostport[0] == '[' && hostport[hlen - 1] == ']') {
		hostport++;
		hlen -= 2;
	}
	if (!hlen || hlen >= sizeof(host)) {
		snprintf(err, errlen, "tcp address needs a host before the port");
		return -1;
	}
	memcpy(host, hostport, hlen);
	host[hlen] = '\0';
	rc = getaddrinfo(host, colon + 1, &hints, &res);
	if (rc) {
		snprintf(err, errlen, "tcp host %s: %s", host, gai_strerror(rc));
		return -1;
	}
	memcpy(&a->sa, res->ai_addr, res->ai_addrlen);
	a->len = res->ai_addrlen;
	a->kind = HVT_ADDR_TCP;
	freeaddrinfo(res);
	return 0;
}

static int parse_vsock(const char *s, bool listen, struct hvt_netaddr *a, char *err,
		       size_t errlen)
{
	struct sockaddr_vm *vm = (struct sockaddr_vm *)&a->sa;
	const char *colon = strchr(s, ':');
	unsigned long cid = VMADDR_CID_ANY, port;
	char cidtext[16];

	if (colon) {
		size_t n = (size_t)(colon - s);

		if (n >= sizeof(cidtext))
			goto bad;
		memcpy(cidtext, s, n);
		cidtext[n] = '\0';
		if (!strcmp(cidtext, "host"))
			cid = VMADDR_CID_HOST;
		else if (strcmp(cidtext, "any") && parse_u32(cidtext, 0xffffffffu, &cid))
			goto bad;
		s = colon + 1;
	}
	if (parse_u32(s, 0xfffffffeu, &port) || (cid == VMADDR_CID_ANY && !listen))
		goto bad;
	memset(vm, 0, sizeof(*vm));
	vm->svm_family = AF_VSOCK;
	vm->svm_cid = (unsigned int)cid;
	vm->svm_port = (unsigned int)port;
	a->len = sizeof(*vm);
	a->kind = HVT_ADDR_VSOCK;
	return 0;
bad:
	snprintf(err, errlen, "vsock address needs %s", listen ? "PORT or any:PORT" :
		 "CID:PORT (the host is CID 2, or 'host')");
	return -1;
}

int hvt_netaddr_parse(const char *spec, bool listen, struct hvt_netaddr *a, char *err,
		      size_t errlen)
{
	int rc;

	memset(a, 0, sizeof(*a));
	snprintf(a->text, sizeof(a->text), "%s", spec);
	if (!strncmp(spec, "unix:", 5))
		rc = parse_unix(spec + 5, a, err, errlen);
	else if (!strncmp(spec, "tcp:", 4))
		rc = parse_tcp(spec + 4, listen, a, err, errlen);
	else if (!strncmp(spec, "vsock:", 6))
		rc = parse_vsock(spec + 6, listen, a, err, errlen);
	else {
		snprintf(err, errlen, "'%s' is not unix:PATH, tcp:HOST:PORT or vsock:CID:PORT",
			 spec);
		return -1;
	}
	if (rc) {
		/* Prefix with the address as given. */
		char why[256];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "'%s': %s", spec, why);
	}
	return rc;
}

static int family(const struct hvt_netaddr *a)
{
	return ((const struct sockaddr *)&a->sa)->sa_family;
}

/*
 * Whether some process listens on the unix socket @path: /proc/net/unix
 * lists it with __SO_ACCEPTCON (0x10000) in its flags. Looked up rather
 * than connected to, which the listener would take for a client.
 */
bool hvt_unix_path_listened(const char *path)
{
	FILE *f = fopen("/proc/net/unix", "re");
	char line[4352];
	size_t n = strlen(path);
	bool live = false;

	if (!f)
		return false;
	while (!live && fgets(line, sizeof(line), f)) {
		size_t len = strcspn(line, "\n");
		unsigned long flags;

		if (len > n && line[len - n - 1] == ' ' && !memcmp(line + len - n, path, n) &&
		    sscanf(line, "%*s %*s %*s %lx", &flags) == 1)
			live = flags & 0x10000;
	}
	fclose(f);
	return live;
}

/*
 * A stale socket file of a collector that died is replaced; nothing else is,
 * and not a socket some process still listens on.
 */
int hvt_unix_path_clear(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(path, &st))
		return 0;
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen, "%s exists and is not a socket", path);
		return -1;
	}
	if (hvt_unix_path_listened(path)) {
		snprintf(err, errlen, "cannot listen on %s: another process listens there", path);
		return -1;
	}
	unlink(path);
	return 0;
}

int hvt_netaddr_listen(struct hvt_netaddr *a, int backlog, char *err, size_t errlen)
{
	int one = 1, fd;

	if (a->kind == HVT_ADDR_UNIX && hvt_unix_path_clear(a->path, err, errlen))
		return -1;
	fd = socket(family(a), SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		snprintf(err, errlen, "cannot listen on %s: %s%s", a->text, strerror(errno),
			 a->kind == HVT_ADDR_VSOCK && errno == EAFNOSUPPORT ?
			 " (load vhost_vsock on the host)" : "");
		return -1;
	}
	if (a->kind == HVT_ADDR_TCP)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a->sa, a->len) || listen(fd, backlog)) {
		snprintf(err, errlen, "cannot listen on %s: %s", a->text, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

void hvt_netaddr_unlisten(const struct hvt_netaddr *a, int fd)
{
	if (fd < 0)
		return;
	close(fd);
	if (a->kind == HVT_ADDR_UNIX)
		unlink(a->path);
}

/* Clock exchanges are small frames that must not wait for more. */
static void no_delay(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int one = 1;

	if (!getsockname(fd, (struct sockaddr *)&ss, &len) &&
	    (ss.ss_family == AF_INET || ss.ss_family == AF_INET6))
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int hvt_netaddr_accept(int listen_fd)
{
	int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd >= 0)
		no_delay(fd);
	return fd;
}

int hvt_netaddr_connect(const struct hvt_netaddr *a)
{
	int fd = socket(family(a), SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	if (connect(fd, (const struct sockaddr *)&a->sa, a->len)) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	no_delay(fd);
	return fd;
}

/* @ss as an address string; false if it is none of ours. */
static bool describe(const struct sockaddr_storage *ss, socklen_t len, bool any_cid, char *buf,
		     size_t size)
{
	const struct sockaddr_vm *vm = (const struct sockaddr_vm *)ss;
	char host[64], port[16];

	if ((ss->ss_family == AF_INET || ss->ss_family == AF_INET6) &&
	    !getnameinfo((const struct sockaddr *)ss, len, host, sizeof(host), port, sizeof(port),
			 NI_NUMERICHOST | NI_NUMERICSERV)) {
		snprintf(buf, size, ss->ss_family == AF_INET6 ? "tcp:[%s]:%s" : "tcp:%s:%s", host,
			 port);
		return true;
	}
	if (ss->ss_family == AF_VSOCK) {
		if (any_cid)
			snprintf(buf, size, "vsock:any:%u", vm->svm_port);
		else
			snprintf(buf, size, "vsock:%u:%u", vm->svm_cid, vm->svm_port);
		return true;
	}
	return false;
}

void hvt_netaddr_bound(int fd, const struct hvt_netaddr *a, char *buf, size_t size)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) || !describe(&ss, len, true, buf, size))
		snprintf(buf, size, "%s", a->text);
}

void hvt_netaddr_peer(int fd, char *buf, size_t size)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getpeername(fd, (struct sockaddr *)&ss, &len) || !describe(&ss, len, false, buf, size))
		snprintf(buf, size, "a unix socket");
}

long long hvt_netaddr_peer_cid(int fd)
{
	struct sockaddr_vm vm;
	socklen_t len = sizeof(vm);

	if (getpeername(fd, (struct sockaddr *)&vm, &len) || vm.svm_family != AF_VSOCK)
		return -1;
	return vm.svm_cid;
}
