// SPDX-License-Identifier: GPL-2.0-only
/*
 * agent_kernel.c - the guest kernel layer: one module session, one stream
 * per CPU, read packet by packet and forwarded to the host.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <hvtrace/abi.h>

#include "lib/log.h"
#include "tools/agent.h"

#define KERNEL_TRACE_ID 0u

static uint8_t kernel_uuid[HVT_UUID_LEN];

static int enable_events(struct agent *a, int session)
{
	unsigned int i, enabled = 0;

	for (i = 0; i < a->nr_events; i++) {
		struct hvtrace_event_name ev = { { 0 } };

		if (strlen(a->events[i]) >= sizeof(ev.name)) {
			agent_log(a, "kernel event name too long: %.40s...", a->events[i]);
			continue;
		}
		strcpy(ev.name, a->events[i]);
		if (ioctl(session, HVTRACE_SESSION_ENABLE_EVENT, &ev)) {
			agent_log(a, "kernel event %s not enabled: %s", ev.name, strerror(errno));
			continue;
		}
		enabled++;
	}
	return enabled ? 0 : -1;
}

static int send_registry(struct agent *a, int session)
{
	struct hvtrace_registry_buf rb = { 0 };
	void *buf;
	int ret;

	if (ioctl(session, HVTRACE_SESSION_REGISTRY, &rb) == 0 || errno != ENOSPC)
		return -1;
	buf = malloc(rb.size);
	if (!buf)
		return -1;
	rb.addr = (uintptr_t)buf;
	ret = ioctl(session, HVTRACE_SESSION_REGISTRY, &rb);
	if (!ret)
		ret = agent_send(a, HVT_W_REGISTRY, KERNEL_TRACE_ID, buf, rb.size);
	free(buf);
	return ret;
}

/* Closes the session and whatever stream fds it has; frees the arrays. */
static void close_session(struct agent_kernel *k)
{
	uint32_t cpu;

	for (cpu = 0; k->streams && cpu < k->nr_cpus; cpu++)
		if (k->streams[cpu] >= 0)
			close(k->streams[cpu]);
	close(k->session);
	k->session = -1;
	free(k->streams);
	free(k->packets);
	k->streams = NULL;
	k->packets = NULL;
}

static int open_streams(struct agent *a, struct agent_kernel *k)
{
	uint32_t cpu;

	k->streams = malloc(k->nr_cpus * sizeof(*k->streams));
	k->packets = calloc(k->nr_cpus, sizeof(*k->packets));
	if (!k->streams || !k->packets)
		return -1;
	for (cpu = 0; cpu < k->nr_cpus; cpu++)
		k->streams[cpu] = -1;
	k->first_stream_id = a->next_stream_id;
	for (cpu = 0; cpu < k->nr_cpus; cpu++) {
		struct hvt_w_stream_open so = { KERNEL_TRACE_ID, cpu, 0, 0 };
		uint32_t id;

		/* ids first_stream_id + cpu, one per CPU, possible or not */
		if (agent_new_stream_id(a, &id) ||
		    hvt_wire_stream_open_check(id, &so, a->why, sizeof(a->why))) {
			agent_log(a, "kernel: CPU %u and above not recorded (protocol limits)", cpu);
			k->nr_cpus = cpu;
			break;
		}
		k->streams[cpu] = ioctl(k->session, HVTRACE_SESSION_STREAM, &cpu);
		if (k->streams[cpu] < 0)
			continue;	/* not a possible CPU */
		if (agent_send(a, HVT_W_STREAM_OPEN, id, &so, sizeof(so)))
			return -1;
	}
	return 0;
}

int agent_kernel_start(struct agent *a)
{
	struct agent_kernel *k = &a->kernel;
	struct hvtrace_session_config cfg = {
		.subbuf_size = a->subbuf_size, .nr_subbufs = a->nr_subbufs,
		.mode = HVTRACE_MODE_DISCARD,
	};
	struct hvt_w_trace_open to = { .layer = HVT_LAYER_KERNEL, .domain = HVT_DOMAIN_GUEST_TSC };
	const char *why;

	if (a->dev < 0)
		return -1;
	k->session = ioctl(a->dev, HVTRACE_IOC_CREATE_SESSION, &cfg);
	if (k->session < 0) {
		agent_log(a, "no kernel session: %s", strerror(errno));
		return -1;
	}
	if (enable_events(a, k->session)) {
		agent_log(a, "no kernel event could be enabled");
		goto fail;
	}
	if (cfg.subbuf_size != a->subbuf_size) {	/* packets are read into a->pkt */
		agent_log(a, "kernel session: sub-buffers of %u bytes, not %u", cfg.subbuf_size,
			  a->subbuf_size);
		goto fail;
	}
	k->nr_cpus = cfg.nr_cpus;
	memcpy(kernel_uuid, cfg.uuid, HVT_UUID_LEN);
	to.freq_hz = cfg.tsc_khz * 1000;
	memcpy(to.uuid, cfg.uuid, HVT_UUID_LEN);
	strcpy(to.comm, "kernel");
	why = hvt_wire_trace_open_check(KERNEL_TRACE_ID, &to, a->why, sizeof(a->why));
	if (why) {
		agent_log(a, "kernel session not recorded: %s (TSC %llu kHz)", why,
			  (unsigned long long)cfg.tsc_khz);
		goto fail;
	}
	if (agent_send(a, HVT_W_TRACE_OPEN, KERNEL_TRACE_ID, &to, sizeof(to)) ||
	    send_registry(a, k->session) || open_streams(a, k) ||
	    ioctl(k->session, HVTRACE_SESSION_START)) {
		agent_log(a, "kernel session setup failed: %s", strerror(errno));
		goto fail;
	}
	hvt_debug("kernel: session started, %u CPUs (streams %u..%u), %u x %u bytes each",
		  k->nr_cpus, k->first_stream_id, k->first_stream_id + k->nr_cpus - 1,
		  cfg.nr_subbufs, cfg.subbuf_size);
	return 0;
fail:
	close_session(k);
	return -1;
}

/* Forwards every closed packet of one CPU. */
static void drain_one(struct agent *a, struct agent_kernel *k, uint32_t cpu)
{
	for (;;) {
		struct hvt_ctf_packet hdr;
		const char *why;
		ssize_t n = read(k->streams[cpu], a->pkt, a->subbuf_size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		/* read() returns a closed packet's content_size / 8 bytes. */
		why = hvt_wire_packet_check(a->pkt, (size_t)n, kernel_uuid, cpu, 0, &hdr, a->why,
					    sizeof(a->why));
		if (why) {
			agent_log(a, "kernel packet of CPU %u dropped: %s", cpu, why);
			continue;
		}
		if (agent_send(a, HVT_W_PACKET, k->first_stream_id + cpu, a->pkt, (uint32_t)n))
			return;
		k->packets[cpu]++;
		a->packets_sent++;
	}
}

void agent_kernel_drain(struct agent *a, bool flush)
{
	struct agent_kernel *k = &a->kernel;
	uint32_t cpu;

	if (k->session < 0)
		return;
	for (cpu = 0; cpu < k->nr_cpus; cpu++) {
		if (k->streams[cpu] < 0)
			continue;
		if (flush)
			ioctl(k->streams[cpu], HVTRACE_STREAM_FLUSH);
		drain_one(a, k, cpu);
	}
}

void agent_kernel_stop(struct agent *a)
{
	struct agent_kernel *k = &a->kernel;
	uint32_t cpu;

	if (k->session < 0)
		return;
	if (ioctl(k->session, HVTRACE_SESSION_STOP))
		agent_log(a, "kernel session did not stop cleanly: %s", strerror(errno));
	agent_kernel_drain(a, false);
	for (cpu = 0; cpu < k->nr_cpus; cpu++) {
		struct hvtrace_stream_stats st = { 0 };
		struct hvt_w_stream_close sc;

		if (k->streams[cpu] < 0)
			continue;
		ioctl(k->streams[cpu], HVTRACE_STREAM_STATS, &st);
		sc.lost = st.lost;
		sc.packets = k->packets[cpu];
		a->lost += st.lost;
		hvt_debug("kernel: CPU %u: %llu packets forwarded, %llu events lost", cpu,
			  (unsigned long long)sc.packets, (unsigned long long)sc.lost);
		agent_send(a, HVT_W_STREAM_CLOSE, k->first_stream_id + cpu, &sc, sizeof(sc));
	}
	close_session(k);
}
