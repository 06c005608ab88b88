// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "lib/packet.h"
#include "lib/wire_io.h"

#define READER_CAP	(2 * (HVT_WIRE_MAX_PAYLOAD + sizeof(struct hvt_wire_hdr)))

struct type_rule {
	const char *name;
	unsigned char from_guest;
	unsigned int min_len;
	unsigned int max_len;
};

#define FIXED(n, g, type)	{ n, g, sizeof(type), sizeof(type) }
static const struct type_rule rules[HVT_W_TYPE_MAX] = {
	[HVT_W_HELLO] = FIXED("HELLO", 1, struct hvt_w_hello),
	[HVT_W_WELCOME] = FIXED("WELCOME", 0, struct hvt_w_welcome),
	[HVT_W_SYNC_REQ] = FIXED("SYNC_REQ", 0, struct hvt_w_sync_req),
	[HVT_W_SYNC_REPLY] = FIXED("SYNC_REPLY", 1, struct hvt_w_sync_reply),
	[HVT_W_PARAMS] = FIXED("PARAMS", 0, struct hvt_w_params),
	[HVT_W_START] = { "START", 0, 0, 0 },
	[HVT_W_TRACE_OPEN] = FIXED("TRACE_OPEN", 1, struct hvt_w_trace_open),
	[HVT_W_REGISTRY] = { "REGISTRY", 1, 1, HVT_WIRE_MAX_PAYLOAD },
	[HVT_W_STREAM_OPEN] = FIXED("STREAM_OPEN", 1, struct hvt_w_stream_open),
	[HVT_W_PACKET] = { "PACKET", 1, sizeof(struct hvt_ctf_packet), HVT_WIRE_MAX_PAYLOAD },
	[HVT_W_STREAM_CLOSE] = FIXED("STREAM_CLOSE", 1, struct hvt_w_stream_close),
	[HVT_W_FINISH] = FIXED("FINISH", 1, struct hvt_w_finish),
	[HVT_W_GOODBYE] = { "GOODBYE", 0, 0, 0 },
	[HVT_W_STOP] = { "STOP", 0, 0, 0 },
	[HVT_W_LOG] = { "LOG", 1, 1, HVT_W_LOG_MAX },
	[HVT_W_UNTRACED] = FIXED("UNTRACED", 1, struct hvt_w_untraced),
	[HVT_W_THREADS_UNTRACED] = FIXED("THREADS_UNTRACED", 1, struct hvt_w_threads_untraced),
};

const char *hvt_wire_type_name(unsigned int type)
{
	if (type >= HVT_W_TYPE_MAX || !rules[type].name)
		return "UNKNOWN";
	return rules[type].name;
}

const char *hvt_wire_check(const struct hvt_wire_hdr *h, int from_guest)
{
	const struct type_rule *rule;

	if (h->magic != HVT_WIRE_MAGIC)
		return "bad frame magic";
	if (h->type == 0 || h->type >= HVT_W_TYPE_MAX || !rules[h->type].name)
		return "unknown frame type";
	rule = &rules[h->type];
	if (rule->from_guest != (from_guest != 0))
		return "frame type not allowed in this direction";
	if (h->flags)
		return "unknown frame flags";
	if (h->len < rule->min_len || h->len > rule->max_len)
		return "frame length out of range for its type";
	return NULL;
}

static const char *reason(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static const char *reason(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return why;
}

const char *hvt_domain_name(uint32_t domain)
{
	switch (domain) {
	case HVT_DOMAIN_GUEST_TSC: return "guest_tsc";
	case HVT_DOMAIN_MONOTONIC_RAW: return "monotonic_raw";
	case HVT_DOMAIN_TSC: return "host_tsc";
	default: return NULL;
	}
}

const char *hvt_wire_trace_open_check(uint32_t id, const struct hvt_w_trace_open *to,
				      char *why, size_t len)
{
	if (id >= HVT_W_MAX_TRACES)
		return reason(why, len, "trace id %u out of range", id);
	if (to->layer != HVT_LAYER_KERNEL && to->layer != HVT_LAYER_USER)
		return reason(why, len, "trace %u: unknown layer %u", id, to->layer);
	if (to->domain != HVT_DOMAIN_GUEST_TSC && to->domain != HVT_DOMAIN_MONOTONIC_RAW &&
	    to->domain != HVT_DOMAIN_TSC)
		return reason(why, len, "trace %u: unknown clock domain %u", id, to->domain);
	if (to->freq_hz < HVT_WIRE_MIN_FREQ_HZ || to->freq_hz > HVT_WIRE_MAX_FREQ_HZ)
		return reason(why, len, "trace %u: implausible clock frequency %llu Hz", id,
			      (unsigned long long)to->freq_hz);
	/* Readers take pids as signed 32-bit numbers; the kernel trace has none. */
	if (to->pid > INT32_MAX || (to->layer == HVT_LAYER_KERNEL && to->pid != 0))
		return reason(why, len, "trace %u: invalid pid %u for a %s trace", id, to->pid,
			      to->layer == HVT_LAYER_KERNEL ? "kernel" : "user");
	return NULL;
}

const char *hvt_untraced_reason_name(uint32_t reason)
{
	switch (reason) {
	case HVT_UNTRACED_IDS: return "trace ids used";
	case HVT_UNTRACED_UID_SHARE: return "uid share of trace ids";
	case HVT_UNTRACED_CONNECTIONS: return "connections full";
	case HVT_UNTRACED_UID_CONNECTIONS: return "uid share of connections";
	default: return NULL;
	}
}

const char *hvt_wire_untraced_check(const struct hvt_w_untraced *u, char *why, size_t len)
{
	if (!hvt_untraced_reason_name(u->reason))
		return reason(why, len, "untraced process %u: unknown reason %u", u->pid, u->reason);
	if (u->pid > INT32_MAX)
		return reason(why, len, "untraced process: invalid pid %u", u->pid);
	return NULL;
}

const char *hvt_wire_stream_open_check(uint32_t id, const struct hvt_w_stream_open *so,
				       char *why, size_t len)
{
	if (id >= HVT_W_MAX_STREAMS)
		return reason(why, len, "stream id %u out of range", id);
	if (so->trace_id >= HVT_W_MAX_TRACES)
		return reason(why, len, "stream %u of unknown trace %u", id, so->trace_id);
	if ((so->cpu == HVT_CTF_NO_CPU) == (so->tid == 0) || so->tid < 0 ||
	    (so->cpu != HVT_CTF_NO_CPU && so->cpu >= HVT_W_MAX_CPUS))
		return reason(why, len, "stream %u: needs either a CPU or a thread", id);
	return NULL;
}

const char *hvt_wire_packet_check(const void *p, size_t len, const __u8 *uuid, uint32_t cpu,
				  int32_t tid, struct hvt_ctf_packet *out,
				  char *why, size_t why_len)
{
	const char *bad = hvt_packet_check(p, len, uuid, out);
	uint64_t instance = cpu != HVT_CTF_NO_CPU ? cpu : (uint64_t)tid;

	if (bad)
		return reason(why, why_len, "%s", bad);
	/* In the archive a packet ends where its content ends (docs/format.md). */
	if (out->packet_size != (uint64_t)len * 8 || out->content_size != out->packet_size)
		return reason(why, why_len, "packet sizes differ from the frame: %zu bytes, but "
			      "content_size %llu and packet_size %llu bits; both must be %llu",
			      len, (unsigned long long)out->content_size,
			      (unsigned long long)out->packet_size, (unsigned long long)len * 8);
	if (out->stream_instance_id != instance)
		return reason(why, why_len, "packet of another stream instance: %llu, not %llu",
			      (unsigned long long)out->stream_instance_id,
			      (unsigned long long)instance);
	if (out->cpu_id != cpu)
		return reason(why, why_len, "packet of cpu_id %u, not %u", out->cpu_id, cpu);
	return NULL;
}

int hvt_frame_reader_init(struct hvt_frame_reader *r)
{
	memset(r, 0, sizeof(*r));
	r->buf = malloc(READER_CAP);
	if (!r->buf)
		return -1;
	r->cap = READER_CAP;
	return 0;
}

void hvt_frame_reader_free(struct hvt_frame_reader *r)
{
	free(r->buf);
	memset(r, 0, sizeof(*r));
}

/*
 * Moves unparsed bytes to the front so that a whole frame always fits after
 * them: only when the room after them is less than a largest frame (half
 * the buffer), or when @need more bytes must fit. At full speed most reads
 * end on a frame boundary or leave a part frame early in the buffer, so
 * bytes move about once per half buffer consumed, not once per read.
 */
static void compact(struct hvt_frame_reader *r, size_t need)
{
	if (r->start == r->end) {
		r->start = r->end = 0;
		return;
	}
	if (r->start == 0 || (r->cap - r->end >= r->cap / 2 && r->cap - r->end >= need))
		return;
	memmove(r->buf, r->buf + r->start, r->end - r->start);
	r->end -= r->start;
	r->start = 0;
}

ssize_t hvt_frame_reader_fill(struct hvt_frame_reader *r, int fd)
{
	ssize_t n;

	compact(r, 0);
	if (r->end == r->cap) {
		errno = ENOBUFS;
		return -1;
	}
	do
		n = read(fd, r->buf + r->end, r->cap - r->end);
	while (n < 0 && errno == EINTR);
	if (n > 0)
		r->end += (size_t)n;
	return n;
}

int hvt_frame_reader_feed(struct hvt_frame_reader *r, const void *data, size_t len)
{
	compact(r, len);
	if (len > r->cap - r->end)
		return -1;
	memcpy(r->buf + r->end, data, len);
	r->end += len;
	return 0;
}

int hvt_frame_reader_next(struct hvt_frame_reader *r, int from_guest,
			  struct hvt_frame *f, const char **err)
{
	size_t avail = r->end - r->start;
	const char *why;

	if (avail < sizeof(f->hdr))
		return 0;
	memcpy(&f->hdr, r->buf + r->start, sizeof(f->hdr));
	why = hvt_wire_check(&f->hdr, from_guest);
	if (why) {
		*err = why;
		return -1;
	}
	if (avail - sizeof(f->hdr) < f->hdr.len)
		return 0;
	f->payload = r->buf + r->start + sizeof(f->hdr);
	r->start += sizeof(f->hdr) + f->hdr.len;
	return 1;
}

/*
 * Waits until @fd takes more bytes, at most @timeout_ms: a peer that stops
 * reading must not freeze the sender, which then could not even notice a
 * signal. ETIMEDOUT when it does not.
 */
static int wait_writable(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	int n;

	while ((n = poll(&p, 1, timeout_ms)) < 0)
		if (errno != EINTR)
			return -1;
	if (n == 0) {
		errno = ETIMEDOUT;
		return -1;
	}
	if (p.revents & (POLLERR | POLLHUP | POLLNVAL)) {
		errno = EPIPE;
		return -1;
	}
	return 0;
}

int hvt_wire_send(int fd, uint16_t type, uint32_t id, const void *payload, uint32_t len)
{
	return hvt_wire_send_within(fd, HVT_WIRE_SEND_TIMEOUT_MS, type, id, payload, len);
}

int hvt_wire_send_within(int fd, int timeout_ms, uint16_t type, uint32_t id,
			 const void *payload, uint32_t len)
{
	struct hvt_wire_hdr h;
	struct iovec iov[2] = {
		{ &h, sizeof(h) },
		{ (void *)payload, len },
	};

	hvt_wire_hdr_init(&h, type, id, len);
	return hvt_wire_writev(fd, iov, 2, timeout_ms);
}

void hvt_wire_hdr_init(struct hvt_wire_hdr *h, uint16_t type, uint32_t id, uint32_t len)
{
	*h = (struct hvt_wire_hdr){ .magic = HVT_WIRE_MAGIC, .type = type, .len = len, .id = id };
}

int hvt_wire_writev(int fd, struct iovec *iov, int n_iov, int timeout_ms)
{
	int i = 0;

	while (i < n_iov) {
		ssize_t n = writev(fd, iov + i, n_iov - i > IOV_MAX ? IOV_MAX : n_iov - i);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN && !wait_writable(fd, timeout_ms))
				continue;
			return -1;
		}
		while (i < n_iov && (size_t)n >= iov[i].iov_len) {
			n -= (ssize_t)iov[i].iov_len;
			i++;
		}
		if (i < n_iov) {
			iov[i].iov_base = (char *)iov[i].iov_base + n;
			iov[i].iov_len -= (size_t)n;
		}
	}
	return 0;
}
