// SPDX-License-Identifier: GPL-2.0-only
/*
 * agent_kernel.c - the guest kernel layer: one module session, one stream
 * per CPU. Each CPU's buffer is mapped read-only; the agent polls the stream
 * fds (the module wakes them once per packet) and forwards each delivered
 * packet from the mapping between HVTRACE_STREAM_GET_SUBBUF and _PUT_SUBBUF.
 * Before packets, a changed registry (an event another module registered)
 * is sent again, so the host can always decode what it receives.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <hvtrace/abi.h>

#include "lib/log.h"
#include "tools/agent/agent_kernel.h"

#define KERNEL_TRACE_ID 0u

static uint8_t kernel_uuid[HVT_UUID_LEN];

static int enable_events(struct agent_kernel *k)
{
	unsigned int i, enabled = 0;

	for (i = 0; i < k->nr_events; i++) {
		struct hvtrace_event_name ev = { { 0 } };

		if (strlen(k->events[i]) >= sizeof(ev.name)) {
			agent_log(k->link, "kernel event name too long: %.40s...", k->events[i]);
			continue;
		}
		strcpy(ev.name, k->events[i]);
		switch (ioctl(k->session, HVTRACE_SESSION_ENABLE_EVENT, &ev)) {
		case 0:
			enabled++;
			break;
		case 1:
			agent_log(k->link, "kernel event %s: none registered yet; recorded once a "
				  "module registers it", ev.name);
			enabled++;
			break;
		default:
			agent_log(k->link, "kernel event %s not enabled: %s", ev.name,
				  strerror(errno));
		}
	}
	return enabled ? 0 : -1;
}

/* Sends every registered event's record; the host keeps the new ones. */
static int send_registry(struct agent_kernel *k)
{
	struct hvtrace_registry_buf rb = { 0 };
	void *buf = NULL, *more;
	int ret;

	/* size 0 asks for the size; the registry may grow between two calls */
	while ((ret = ioctl(k->session, HVTRACE_SESSION_REGISTRY, &rb)) && errno == ENOSPC) {
		more = realloc(buf, rb.size);
		if (!more)
			break;
		buf = more;
		rb.addr = (uintptr_t)buf;
	}
	if (ret || !buf) {
		free(buf);
		return -1;
	}
	ret = agent_send(k->link, HVT_W_REGISTRY, KERNEL_TRACE_ID, buf, rb.size);
	if (!ret)
		k->registry_gen = rb.generation;
	free(buf);
	return ret;
}

/* Resends the registry if an event was registered since the last time. */
static void refresh_registry(struct agent_kernel *k)
{
	uint64_t gen;

	if (ioctl(k->session, HVTRACE_SESSION_REGISTRY_GEN, &gen) || gen == k->registry_gen)
		return;
	hvt_debug("kernel: the registry changed (generation %llu); sending it again",
		  (unsigned long long)gen);
	if (send_registry(k))
		agent_log(k->link, "kernel: the new registry could not be sent: %s",
			  strerror(errno));
}

/* Closes the session and whatever stream fds it has; frees the arrays. */
static void close_session(struct agent_kernel *k)
{
	uint32_t cpu;

	for (cpu = 0; k->streams && cpu < k->nr_cpus; cpu++) {
		if (k->maps[cpu])
			munmap((void *)k->maps[cpu], k->map_sizes[cpu]);
		if (k->streams[cpu] >= 0)
			close(k->streams[cpu]);
	}
	close(k->session);
	k->session = -1;
	free(k->streams);
	free(k->maps);
	free(k->map_sizes);
	free(k->packets);
	k->streams = NULL;
	k->maps = NULL;
	k->map_sizes = NULL;
	k->packets = NULL;
}

static int map_stream(struct agent_kernel *k, uint32_t cpu)
{
	struct hvtrace_stream_stats st = { 0 };
	void *map;

	if (ioctl(k->streams[cpu], HVTRACE_STREAM_STATS, &st)) {
		agent_log(k->link, "kernel: CPU %u: no stream stats: %s", cpu, strerror(errno));
		return -1;
	}
	map = mmap(NULL, st.map_size, PROT_READ, MAP_SHARED, k->streams[cpu], 0);
	if (map == MAP_FAILED) {
		agent_log(k->link, "kernel: CPU %u: cannot map its buffer (%llu bytes): %s", cpu,
			  (unsigned long long)st.map_size, strerror(errno));
		return -1;
	}
	k->maps[cpu] = map;
	k->map_sizes[cpu] = st.map_size;
	return 0;
}

static int open_streams(struct agent_kernel *k)
{
	uint32_t cpu;

	k->streams = malloc(k->nr_cpus * sizeof(*k->streams));
	k->maps = calloc(k->nr_cpus, sizeof(*k->maps));
	k->map_sizes = calloc(k->nr_cpus, sizeof(*k->map_sizes));
	k->packets = calloc(k->nr_cpus, sizeof(*k->packets));
	if (!k->streams || !k->maps || !k->map_sizes || !k->packets)
		return -1;
	for (cpu = 0; cpu < k->nr_cpus; cpu++)
		k->streams[cpu] = -1;
	k->first_stream_id = k->link->next_stream_id;
	for (cpu = 0; cpu < k->nr_cpus; cpu++) {
		struct hvt_w_stream_open so = { KERNEL_TRACE_ID, cpu, 0, 0 };
		uint32_t id;

		/* ids first_stream_id + cpu, one per CPU, possible or not */
		if (agent_new_stream_id(k->link, &id) ||
		    hvt_wire_stream_open_check(id, &so, k->link->why, sizeof(k->link->why))) {
			agent_log(k->link, "kernel: CPU %u and above not recorded (protocol limits)",
				  cpu);
			k->nr_cpus = cpu;
			break;
		}
		k->streams[cpu] = ioctl(k->session, HVTRACE_SESSION_STREAM, &cpu);
		if (k->streams[cpu] < 0)
			continue;	/* not a possible CPU */
		if (map_stream(k, cpu) ||
		    agent_send(k->link, HVT_W_STREAM_OPEN, id, &so, sizeof(so)))
			return -1;
	}
	return 0;
}

int agent_kernel_start(struct agent_kernel *k, int dev)
{
	struct hvtrace_session_config cfg = {
		.subbuf_size = k->subbuf_size, .nr_subbufs = k->nr_subbufs,
		.mode = k->overwrite ? HVTRACE_MODE_OVERWRITE : HVTRACE_MODE_DISCARD,
	};
	struct hvt_w_trace_open to = { .layer = HVT_LAYER_KERNEL, .domain = HVT_DOMAIN_GUEST_TSC };
	const char *why;

	if (dev < 0)
		return -1;
	k->session = ioctl(dev, HVTRACE_IOC_CREATE_SESSION, &cfg);
	if (k->session < 0) {
		agent_log(k->link, "no kernel session: %s", strerror(errno));
		return -1;
	}
	if (enable_events(k)) {
		agent_log(k->link, "no kernel event could be enabled");
		goto fail;
	}
	k->nr_cpus = cfg.nr_cpus;
	memcpy(kernel_uuid, cfg.uuid, HVT_UUID_LEN);
	to.freq_hz = cfg.tsc_khz * 1000;
	memcpy(to.uuid, cfg.uuid, HVT_UUID_LEN);
	strcpy(to.comm, "kernel");
	why = hvt_wire_trace_open_check(KERNEL_TRACE_ID, &to, k->link->why, sizeof(k->link->why));
	if (why) {
		agent_log(k->link, "kernel session not recorded: %s (TSC %llu kHz)", why,
			  (unsigned long long)cfg.tsc_khz);
		goto fail;
	}
	if (agent_send(k->link, HVT_W_TRACE_OPEN, KERNEL_TRACE_ID, &to, sizeof(to)) ||
	    send_registry(k) || open_streams(k) ||
	    ioctl(k->session, HVTRACE_SESSION_START)) {
		agent_log(k->link, "kernel session setup failed: %s", strerror(errno));
		goto fail;
	}
	hvt_debug("kernel: session started, %u CPUs (streams %u..%u), %u x %u bytes each, %s mode",
		  k->nr_cpus, k->first_stream_id, k->first_stream_id + k->nr_cpus - 1,
		  cfg.nr_subbufs, cfg.subbuf_size, k->overwrite ? "overwrite" : "discard");
	return 0;
fail:
	close_session(k);
	return -1;
}

/* Forwards every delivered packet of one CPU, from its mapping. */
static void drain_one(struct agent_kernel *k, uint32_t cpu)
{
	for (;;) {
		struct hvtrace_subbuf sb;
		struct hvt_ctf_packet hdr;
		const char *why;
		int sent = 0;

		if (ioctl(k->streams[cpu], HVTRACE_STREAM_GET_SUBBUF, &sb)) {
			if (errno == EIO)
				agent_log(k->link, "kernel: CPU %u: a packet was corrupt; skipped",
					  cpu);
			if (errno == EINTR || errno == EIO)
				continue;
			if (errno != EAGAIN)	/* EAGAIN: none delivered */
				agent_log(k->link, "kernel: CPU %u: GET_SUBBUF: %s", cpu,
					  strerror(errno));
			return;
		}
		if (sb.offset > k->map_sizes[cpu] || sb.len > k->map_sizes[cpu] - sb.offset)
			why = "outside the mapping";
		else
			why = hvt_wire_packet_check(k->maps[cpu] + sb.offset, (size_t)sb.len,
						    kernel_uuid, cpu, 0, &hdr, k->link->why,
						    sizeof(k->link->why));
		if (why)
			agent_log(k->link, "kernel packet of CPU %u dropped: %s", cpu, why);
		else if (!agent_send(k->link, HVT_W_PACKET, k->first_stream_id + cpu,
				     k->maps[cpu] + sb.offset, (uint32_t)sb.len))
			sent = 1;
		if (ioctl(k->streams[cpu], HVTRACE_STREAM_PUT_SUBBUF, &sb.seq))
			agent_log(k->link, "kernel: CPU %u: PUT_SUBBUF: %s", cpu, strerror(errno));
		if (why)
			continue;
		if (!sent)
			return;
		k->packets[cpu]++;
		k->link->packets_sent++;
	}
}

void agent_kernel_drain(struct agent_kernel *k, bool flush)
{
	uint32_t cpu;

	if (k->session < 0)
		return;
	refresh_registry(k);
	for (cpu = 0; cpu < k->nr_cpus; cpu++) {
		if (k->streams[cpu] < 0)
			continue;
		if (flush)
			ioctl(k->streams[cpu], HVTRACE_STREAM_FLUSH);
		drain_one(k, cpu);
	}
}

/* The stream fd of CPU @index is readable: a packet was delivered. */
void agent_kernel_on_ready(struct agent_kernel *k, unsigned int index)
{
	if (k->session < 0 || index >= k->nr_cpus || k->streams[index] < 0)
		return;
	refresh_registry(k);
	drain_one(k, index);
}

void agent_kernel_stop(struct agent_kernel *k)
{
	uint32_t cpu;

	if (k->session < 0)
		return;
	if (ioctl(k->session, HVTRACE_SESSION_STOP))
		agent_log(k->link, "kernel session did not stop cleanly: %s", strerror(errno));
	agent_kernel_drain(k, false);
	/*
	 * An event registered after the drain's registry check may be in a
	 * packet it just sent; a later drain would send the registry, the last
	 * has none after it. The host takes registry and packets in any order.
	 */
	refresh_registry(k);
	for (cpu = 0; cpu < k->nr_cpus; cpu++) {
		struct hvtrace_stream_stats st = { 0 };
		struct hvt_w_stream_close sc;

		if (k->streams[cpu] < 0)
			continue;
		ioctl(k->streams[cpu], HVTRACE_STREAM_STATS, &st);
		sc.lost = st.lost;
		sc.packets = k->packets[cpu];
		k->link->lost += st.lost;
		hvt_debug("kernel: CPU %u: %llu packets forwarded, %llu events lost", cpu,
			  (unsigned long long)sc.packets, (unsigned long long)sc.lost);
		agent_send(k->link, HVT_W_STREAM_CLOSE, k->first_stream_id + cpu, &sc, sizeof(sc));
	}
	close_session(k);
}
