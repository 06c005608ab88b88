/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * agent_kernel.h - the guest kernel layer: one session of the hvtrace
 * module, its per-CPU streams sent through the agent's link (agent_link.h).
 */
#ifndef HVT_TOOLS_AGENT_AGENT_KERNEL_H
#define HVT_TOOLS_AGENT_AGENT_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/agent/agent_link.h"

struct agent_kernel {
	struct agent_link *link;
	const char *const *events;	/* the events to enable, by name */
	unsigned int nr_events;
	uint32_t subbuf_size, nr_subbufs;
	bool overwrite;			/* buffers in flight-recorder mode */
	int session;			/* session fd, -1 without the module */
	unsigned int nr_cpus;
	int *streams;			/* stream fd per CPU */
	const unsigned char **maps;	/* its buffers, mapped read-only */
	size_t *map_sizes;
	uint64_t *packets;
	uint32_t first_stream_id;
	uint64_t registry_gen;		/* of the registry the host has */
};

/* A session on the module's device @dev, its streams open and started; -1 if not. */
int agent_kernel_start(struct agent_kernel *k, int dev);
void agent_kernel_drain(struct agent_kernel *k, bool flush);
/* The stream fd of CPU @index is readable: a packet was delivered. */
void agent_kernel_on_ready(struct agent_kernel *k, unsigned int index);
void agent_kernel_stop(struct agent_kernel *k);

#endif
