// SPDX-License-Identifier: LGPL-2.1-only OR MIT
/*
 * buffer.c - a thread's ring buffer, in a memfd shared with the agent.
 *
 * Layout of the memfd: struct hvt_rb_prod in the first page, then the
 * sub-buffers. The agent answers with a one-page memfd holding struct
 * hvt_rb_cons, mapped read-only here: each side writes only its own memory.
 * Geometry: HVTRACE_SUBBUF_SIZE and HVTRACE_NR_SUBBUFS (powers of two),
 * 16 x 128 KiB by default: 2 MiB of address space per thread, of which only
 * the pages written become memory. HVTRACE_BUFFER_CAP_MB (default 256)
 * caps the sub-buffers of all of a process's live buffers together: past
 * it a new thread gets fewer sub-buffers, down to two, and past that none:
 * it stays untraced, and the agent is told (THREAD_UNTRACED), so that the
 * archive counts it (HVTRACE_DEBUG=1 says so too). The memfd is sealed
 * against resizing before it is shared.
 *
 * The writer that closes a full packet wakes the agent through the eventfd
 * of its WELCOME (agent.c): one write per packet, never per event.
 *
 * A buffer belongs to the link it was registered through. When that agent
 * is gone the buffer is stale: nobody reads it any more, and the thread's
 * next event releases it and registers a new one with the live agent.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <hvtrace/app_proto.h>

#include "vdso/clock.h"
#include "vdso/internal.h"

#define DEFAULT_SUBBUF_SIZE	(128u * 1024)
#define DEFAULT_NR_SUBBUFS	16u
#define DEFAULT_CAP_MB		256u

static uint64_t buffered;	/* sub-buffer bytes of the live buffers, under hvt_lock */

static uint32_t env_u32(const char *name, uint32_t def)
{
	const char *v = getenv(name);
	char *end;
	unsigned long n;

	if (!v || !*v)
		return def;
	n = strtoul(v, &end, 0);
	if (*end || n > UINT32_MAX) {
		hvt_debug_msg("ignoring %s=%s", name, v);
		return def;
	}
	return (uint32_t)n;
}

static void geometry(uint32_t *size, uint32_t *nr)
{
	*size = env_u32("HVTRACE_SUBBUF_SIZE", DEFAULT_SUBBUF_SIZE);
	*nr = env_u32("HVTRACE_NR_SUBBUFS", DEFAULT_NR_SUBBUFS);
	if (!hvt_rb_geometry_ok(*size, *nr)) {
		hvt_debug_msg("invalid buffer geometry %u x %u, using defaults", *nr, *size);
		*size = DEFAULT_SUBBUF_SIZE;
		*nr = DEFAULT_NR_SUBBUFS;
	}
}

/*
 * Takes this thread's part of the process's cap: @size x *@nr, or fewer
 * sub-buffers (*@nr halved, down to 2) when that does not fit. 0 when not
 * even two fit.
 */
static int budget_take(uint32_t size, uint32_t *nr)
{
	uint64_t cap = (uint64_t)env_u32("HVTRACE_BUFFER_CAP_MB", DEFAULT_CAP_MB) << 20;
	uint32_t asked = *nr;
	int ok;

	pthread_mutex_lock(&hvt_lock);
	while (*nr > 2 && buffered + (uint64_t)size * *nr > cap)
		*nr /= 2;
	ok = buffered + (uint64_t)size * *nr <= cap;
	if (ok)
		buffered += (uint64_t)size * *nr;
	pthread_mutex_unlock(&hvt_lock);
	if (!ok)
		hvt_debug_msg("thread %d untraced: the process's buffers reached "
			      "HVTRACE_BUFFER_CAP_MB=%llu", gettid(), (unsigned long long)(cap >> 20));
	else if (*nr != asked)
		hvt_debug_msg("thread %d gets %u sub-buffers, not %u: the process's buffers near "
			      "HVTRACE_BUFFER_CAP_MB=%llu", gettid(), *nr, asked,
			      (unsigned long long)(cap >> 20));
	return ok;
}

/* Tells the agent this thread stays untraced: the cap left it no buffer. */
static void tell_untraced(void)
{
	struct hvt_a_thread_untraced m = { .tid = gettid(), .reason = HVT_A_UNTRACED_BUFFER_CAP };

	pthread_mutex_lock(&hvt_lock);
	if (hvt_agent_connected() &&
	    hvt_agent_send(HVT_A_THREAD_UNTRACED, 0, &m, sizeof(m), -1))
		hvt_agent_disconnect();
	pthread_mutex_unlock(&hvt_lock);
}

static void budget_give(uint64_t bytes)
{
	pthread_mutex_lock(&hvt_lock);
	buffered -= bytes;
	pthread_mutex_unlock(&hvt_lock);
}

void hvt_buffers_forget(void)
{
	buffered = 0;
}

static uint32_t next_stream_id;

/* hvt_rb.packet_closed: tells the agent a packet is ready, keeping errno as it was. */
static void wake_agent(struct hvt_rb *rb)
{
	const struct hvt_thread_buf *tb = (const struct hvt_thread_buf *)rb;	/* rb is first */
	static const uint64_t one = 1;
	int saved = errno;
	ssize_t n = write(tb->wake_fd, &one, sizeof(one));

	(void)n;	/* EAGAIN: the counter is full, the agent is woken anyway */
	errno = saved;
}

/* Hands the buffer to the agent; returns the consumer page or NULL. */
static void *register_with_agent(struct hvt_thread_buf *tb, int memfd)
{
	struct hvt_a_stream msg = {
		.tid = tb->tid,
		.subbuf_size = tb->rb.subbuf_size,
		.nr_subbufs = tb->rb.nr_subbufs,
		.map_size = tb->map_size,
	};
	struct hvt_link *link;
	void *cons = NULL;
	int cfd = -1;

	pthread_mutex_lock(&hvt_lock);
	if (!hvt_agent_connected())
		goto out;
	link = hvt_agent_link();
	tb->stream_id = next_stream_id++;
	memcpy(tb->rb.uuid, hvt_agent_uuid(), HVT_UUID_LEN);
	if (hvt_agent_send(HVT_A_STREAM, tb->stream_id, &msg, sizeof(msg), memfd) ||
	    hvt_agent_recv(HVT_A_STREAM_ACK, tb->stream_id, NULL, 0, &cfd) < 0) {
		hvt_agent_disconnect();
		goto out;
	}
	if (cfd < 0) {		/* refused (the agent's limits): this thread stays untraced */
		hvt_debug_msg("the agent refused a buffer for thread %d", tb->tid);
		goto out;
	}
	if (!hvt_agent_page_fd_ok(cfd, sizeof(struct hvt_rb_cons))) {
		hvt_agent_disconnect();	/* a broken or false agent: no more of it */
		goto out;
	}
	cons = mmap(NULL, sizeof(struct hvt_rb_cons), PROT_READ, MAP_SHARED, cfd, 0);
	if (cons == MAP_FAILED) {
		cons = NULL;
		goto out;
	}
	tb->link = link;
	tb->epoch = link->epoch;
	tb->gate = link->epoch;
	tb->wake_fd = link->wake_fd;
	link->buffers++;
out:
	pthread_mutex_unlock(&hvt_lock);
	if (cfd >= 0)
		close(cfd);
	return cons;
}

struct hvt_thread_buf *hvt_thread_buf_create(void)
{
	struct hvt_thread_buf *tb;
	uint32_t size, nr;
	int memfd;

	hvt_clock_setup();
	geometry(&size, &nr);
	if (!budget_take(size, &nr)) {
		tell_untraced();
		return NULL;
	}
	tb = calloc(1, sizeof(*tb));
	if (!tb) {
		budget_give((uint64_t)size * nr);
		return NULL;
	}
	tb->tid = gettid();
	tb->wake_fd = -1;
	tb->map_size = HVT_APP_PROD_PAGE + (size_t)size * nr;
	/* Sealed, so that the agent can map it without fearing a shrink (SIGBUS). */
	memfd = memfd_create("hvtrace-ring", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (memfd < 0 || ftruncate(memfd, (off_t)tb->map_size) ||
	    fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL))
		goto fail;
	tb->map = mmap(NULL, tb->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	if (tb->map == MAP_FAILED) {
		tb->map = NULL;
		goto fail;
	}
	tb->rb.cpu_id = HVT_CTF_NO_CPU;
	tb->rb.stream_instance_id = (uint64_t)tb->tid;
	hvt_rb_init(&tb->rb, tb->map, NULL, (unsigned char *)tb->map + HVT_APP_PROD_PAGE,
		    size, nr);
	tb->rb.cons = register_with_agent(tb, memfd);
	if (!tb->rb.cons)
		goto fail;
	if (tb->wake_fd >= 0)
		tb->rb.packet_closed = wake_agent;
	close(memfd);
	return tb;
fail:
	if (memfd >= 0)
		close(memfd);
	if (tb->map)
		munmap(tb->map, tb->map_size);
	budget_give((uint64_t)size * nr);
	free(tb);
	return NULL;
}

/*
 * Gives the buffer up. With @tell_agent, and if its agent is still the live
 * one, the open packet is closed and the agent told the thread is done.
 */
void hvt_thread_buf_release(struct hvt_thread_buf *tb, int tell_agent)
{
	pthread_mutex_lock(&hvt_lock);
	if (tell_agent && tb->link == hvt_agent_link()) {
		/* writes refused to a signal handler since the last commit */
		hvt_write_once(tb->rb.prod->lost, tb->rb.prod->lost + (uint64_t)tb->nested_lost);
		hvt_rb_close_packet(&tb->rb);
		if (hvt_agent_send(HVT_A_STREAM_END, tb->stream_id, NULL, 0, -1))
			hvt_agent_disconnect();
	}
	hvt_link_put(tb->link);
	pthread_mutex_unlock(&hvt_lock);
	munmap((void *)tb->rb.cons, sizeof(struct hvt_rb_cons));
	munmap(tb->map, tb->map_size);
	budget_give((uint64_t)tb->rb.subbuf_size * tb->rb.nr_subbufs);
	free(tb);
}
