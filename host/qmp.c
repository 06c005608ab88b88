// SPDX-License-Identifier: GPL-2.0-only
/*
 * qmp.c - the one QMP question the collector asks a QEMU it was given
 * without libvirt (--qmp ADDR): query-cpus-fast, which names the host
 * thread of every vCPU. (Through libvirt, libvirt asks it: libvirt.c.)
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "host/qmp.h"
#include "lib/netaddr.h"

#define QMP_TIMEOUT_MS	5000
#define QMP_MAX_REPLY	(1 << 20)

/*
 * The next reply (a line with "return" or "error"); asynchronous events
 * on the way are skipped. NULL with @err.
 */
static json_t *next_reply(int fd, char *buf, size_t *used, char *err, size_t errlen)
{
	for (;;) {
		char *nl = memchr(buf, '\n', *used);
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (nl) {
			size_t line = (size_t)(nl - buf) + 1;
			json_t *msg = json_loadb(buf, line, 0, NULL);

			memmove(buf, buf + line, *used - line);
			*used -= line;
			if (msg && (json_object_get(msg, "return") || json_object_get(msg, "error")))
				return msg;
			json_decref(msg);	/* the greeting, an event, or noise */
			continue;
		}
		if (*used == QMP_MAX_REPLY - 1) {
			snprintf(err, errlen, "QMP reply longer than %d bytes", QMP_MAX_REPLY);
			return NULL;
		}
		if (poll(&p, 1, QMP_TIMEOUT_MS) != 1) {
			snprintf(err, errlen, "QMP did not answer within %d s", QMP_TIMEOUT_MS / 1000);
			return NULL;
		}
		n = read(fd, buf + *used, QMP_MAX_REPLY - 1 - *used);
		if (n <= 0) {
			snprintf(err, errlen, "QMP closed the connection%s%s", n ? ": " : "",
				 n ? strerror(errno) : "");
			return NULL;
		}
		*used += (size_t)n;
	}
}

static json_t *command(int fd, const char *cmd, char *buf, size_t *used, char *err,
		       size_t errlen)
{
	json_t *reply;

	/* send(), not write(): a QEMU gone raises no SIGPIPE */
	if (send(fd, cmd, strlen(cmd), MSG_NOSIGNAL) != (ssize_t)strlen(cmd)) {
		snprintf(err, errlen, "cannot write to QMP: %s", strerror(errno));
		return NULL;
	}
	reply = next_reply(fd, buf, used, err, errlen);
	if (reply && json_object_get(reply, "error")) {
		const char *desc = json_string_value(json_object_get(
			json_object_get(reply, "error"), "desc"));

		snprintf(err, errlen, "QMP: %s", desc ? desc : "error");
		json_decref(reply);
		return NULL;
	}
	return reply;
}

void hvt_qmp_cpus_parse(const json_t *reply, pid_t *tids, unsigned int max, unsigned int *nr)
{
	json_t *cpu;
	size_t i;

	*nr = 0;
	json_array_foreach(json_object_get(reply, "return"), i, cpu) {
		json_int_t index = json_integer_value(json_object_get(cpu, "cpu-index"));
		json_int_t tid = json_integer_value(json_object_get(cpu, "thread-id"));

		if (index >= 0 && index < (json_int_t)max && tid > 0)
			tids[index] = (pid_t)tid;
		(*nr)++;
	}
}

/*
 * A QMP session on @spec, capabilities negotiated: its socket, or -1 with
 * @err. Replies go through @buf (QMP_MAX_REPLY bytes), @used of it taken.
 */
static int qmp_open(const char *spec, char *buf, size_t *used, char *err, size_t errlen)
{
	struct hvt_netaddr addr;
	json_t *reply;
	int fd;

	if (hvt_netaddr_parse(spec, false, &addr, err, errlen))
		return -1;
	fd = hvt_netaddr_connect(&addr);
	if (fd < 0) {
		snprintf(err, errlen, "cannot connect to QMP at %s: %s (is another client, such as "
			 "libvirt, connected?)", spec, strerror(errno));
		return -1;
	}
	reply = command(fd, "{\"execute\":\"qmp_capabilities\"}\n", buf, used, err, errlen);
	if (!reply) {
		close(fd);
		return -1;
	}
	json_decref(reply);
	return fd;
}

int hvt_qmp_vcpu_threads(const char *spec, pid_t *tids, unsigned int max, unsigned int *nr,
			 char *err, size_t errlen)
{
	static char buf[QMP_MAX_REPLY];
	json_t *reply;
	size_t used = 0;
	int fd = qmp_open(spec, buf, &used, err, errlen), ret = -1;

	if (fd < 0)
		return -1;
	reply = command(fd, "{\"execute\":\"query-cpus-fast\"}\n", buf, &used, err, errlen);
	if (reply) {
		unsigned int i;

		hvt_qmp_cpus_parse(reply, tids, max, nr);
		for (i = 0; i < max && ret; i++)
			ret = tids[i] ? 0 : -1;
		if (ret)
			snprintf(err, errlen, "QMP query-cpus-fast named no vCPU thread");
	}
	json_decref(reply);
	close(fd);
	return ret;
}

int hvt_qmp_trace_events(const char *spec, const char *const *patterns, size_t n, bool enable,
			 char *err, size_t errlen)
{
	static char buf[QMP_MAX_REPLY];
	char cmd[256], why[128];
	json_t *reply;
	size_t used = 0, i;
	int fd = qmp_open(spec, buf, &used, err, errlen), set = 0;

	if (fd < 0)
		return -1;
	for (i = 0; i < n; i++) {
		/* the patterns are ours: names of QEMU's trace events, no quotes in them */
		snprintf(cmd, sizeof(cmd), "{\"execute\":\"trace-event-set-state\",\"arguments\":"
			 "{\"name\":\"%s\",\"enable\":%s}}\n", patterns[i],
			 enable ? "true" : "false");
		reply = command(fd, cmd, buf, &used, why, sizeof(why));
		if (reply)	/* a pattern this QEMU has no event for is an error: skipped */
			set++;
		json_decref(reply);
	}
	close(fd);
	return set;
}
