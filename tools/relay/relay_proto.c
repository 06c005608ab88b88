// SPDX-License-Identifier: GPL-2.0-only
/*
 * relay_proto.c - LTTng live viewer commands and their replies (relay_proto.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/big_endian.h"
#include "tools/relay/relay_proto.h"

enum {
	CMD_CONNECT = 1, CMD_LIST_SESSIONS, CMD_ATTACH_SESSION, CMD_GET_NEXT_INDEX,
	CMD_GET_PACKET, CMD_GET_METADATA, CMD_GET_NEW_STREAMS, CMD_CREATE_SESSION,
	CMD_DETACH_SESSION,
};
enum { FLAG_NEW_METADATA = 1, FLAG_NEW_STREAM = 2 };
enum { ATTACH_OK = 1, ATTACH_UNK = 3, ATTACH_SEEK_ERR = 5 };
enum { INDEX_OK = 1, INDEX_RETRY, INDEX_HUP, INDEX_ERR, INDEX_INACTIVE };
enum { PACKET_OK = 1, PACKET_ERR = 3 };
enum { METADATA_OK = 1, METADATA_NO_NEW, METADATA_ERR };
enum { NEW_STREAMS_OK = 1, NEW_STREAMS_NO_NEW, NEW_STREAMS_ERR, NEW_STREAMS_HUP };
enum { DETACH_OK = 1, DETACH_UNK };
enum { SEEK_BEGINNING = 1, SEEK_LAST = 2 };
enum { CONNECTION_COMMAND = 1 };

#define HOST_NAME_MAX_LIVE	64u
#define NAME_MAX_LIVE		255u
#define PATH_MAX_LIVE		4096u
#define STREAM_INFO_SIZE	(8u + 8u + 4u + PATH_MAX_LIVE + NAME_MAX_LIVE)
#define SESSION_INFO_SIZE	(8u + 4u + 4u + 4u + HOST_NAME_MAX_LIVE + NAME_MAX_LIVE)

void hvt_relay_viewer_init(struct hvt_relay_viewer *v, uint64_t id)
{
	memset(v, 0, sizeof(*v));
	v->id = id;
}

void hvt_relay_viewer_free(struct hvt_relay_viewer *v)
{
	free(v->streams);
	memset(v, 0, sizeof(*v));
}

void hvt_relay_out_free(struct hvt_relay_out *o)
{
	free(o->buf);
	memset(o, 0, sizeof(*o));
}

bool hvt_relay_viewer_finished(const struct hvt_relay_viewer *v, const struct hvt_relay_trace *t)
{
	uint32_t i;

	if (!v->attached || !t->done || v->known < t->nr_streams)
		return false;
	for (i = 0; i < v->known; i++)
		if (!v->streams[i].hung_up)
			return false;
	return true;
}

static int protocol_error(struct hvt_relay_viewer *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int protocol_error(struct hvt_relay_viewer *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->why, sizeof(v->why), fmt, ap);
	va_end(ap);
	return -1;
}

/* Room for @n more bytes at the end of @o; NULL if out of memory. */
static unsigned char *room(struct hvt_relay_out *o, size_t n)
{
	unsigned char *p;

	if (o->len + n > o->cap) {
		size_t cap = o->cap ? o->cap : 256;

		while (cap < o->len + n)
			cap *= 2;
		p = realloc(o->buf, cap);
		if (!p)
			return NULL;
		o->buf = p;
		o->cap = cap;
	}
	p = o->buf + o->len;
	memset(p, 0, n);
	o->len += n;
	return p;
}

/* A string in a fixed field of @size bytes, cut to leave its NUL. */
static void put_str(unsigned char *p, const char *s, size_t size)
{
	size_t n = strlen(s);

	memcpy(p, s, n < size ? n : size - 1);
}

/* A reply of @n bytes with a u32 status first; NULL if out of memory. */
static unsigned char *reply(struct hvt_relay_out *o, size_t n, uint32_t status)
{
	unsigned char *p = room(o, n);

	if (p)
		hvt_put_be32(p, status);
	return p;
}

static int put_stream_info(struct hvt_relay_out *o, const struct hvt_relay_trace *t, uint64_t id,
			   const char *channel)
{
	unsigned char *p = room(o, STREAM_INFO_SIZE);
	char path[PATH_MAX_LIVE];

	if (!p)
		return -1;
	snprintf(path, sizeof(path), "%s/%s", t->hostname, t->session);
	hvt_put_be64(p, id);
	hvt_put_be64(p + 8, HVT_LIVE_TRACE_ID);
	hvt_put_be32(p + 16, id == HVT_LIVE_METADATA_STREAM);
	put_str(p + 20, path, PATH_MAX_LIVE);
	put_str(p + 20 + PATH_MAX_LIVE, channel, NAME_MAX_LIVE);
	return 0;
}

/* Tells @v of the streams from v->known on, each read from its first packet. */
static int announce(struct hvt_relay_viewer *v, const struct hvt_relay_trace *t,
		    struct hvt_relay_out *o, uint32_t *count)
{
	uint32_t i;

	if (t->nr_streams > v->cap_streams) {
		struct hvt_relay_view_stream *grown =
			realloc(v->streams, t->nr_streams * sizeof(*grown));

		if (!grown)
			return -1;
		v->streams = grown;
		v->cap_streams = t->nr_streams;
	}
	for (i = v->known; i < t->nr_streams; i++) {
		memset(&v->streams[i], 0, sizeof(v->streams[i]));
		if (put_stream_info(o, t, HVT_LIVE_FIRST_DATA_STREAM + i, t->streams[i].name))
			return -1;
		(*count)++;
	}
	v->known = t->nr_streams;
	return 0;
}

static int cmd_connect(struct hvt_relay_viewer *v, const unsigned char *in,
		       struct hvt_relay_out *o)
{
	uint32_t major = hvt_get_be32(in + 8), minor = hvt_get_be32(in + 12), type = hvt_get_be32(in + 16);
	unsigned char *p;

	if (v->connected)
		return protocol_error(v, "CONNECT sent twice");
	if (major != HVT_LIVE_MAJOR)
		return protocol_error(v, "protocol version %u.%u, this relay speaks %u.%u", major,
				      minor, HVT_LIVE_MAJOR, HVT_LIVE_MINOR);
	if (type != CONNECTION_COMMAND)
		return protocol_error(v, "connection type %u: only command connections (1) "
				      "are served", type);
	v->connected = true;
	v->minor = minor < HVT_LIVE_MINOR ? minor : HVT_LIVE_MINOR;
	p = room(o, 20);
	if (!p)
		return -1;
	hvt_put_be64(p, v->id);
	hvt_put_be32(p + 8, HVT_LIVE_MAJOR);
	hvt_put_be32(p + 12, v->minor);
	hvt_put_be32(p + 16, CONNECTION_COMMAND);
	return 1;
}

static int cmd_list(const struct hvt_relay_trace *t, struct hvt_relay_out *o)
{
	unsigned char *p = room(o, 4 + (t->listed ? SESSION_INFO_SIZE : 0));

	if (!p)
		return -1;
	hvt_put_be32(p, t->listed);
	if (!t->listed)
		return 1;
	p += 4;
	hvt_put_be64(p, HVT_LIVE_SESSION_ID);
	hvt_put_be32(p + 8, HVT_LIVE_TIMER_US);
	hvt_put_be32(p + 12, t->viewers);
	hvt_put_be32(p + 16, t->nr_streams + 1);
	put_str(p + 20, t->hostname, HOST_NAME_MAX_LIVE);
	put_str(p + 20 + HOST_NAME_MAX_LIVE, t->session, NAME_MAX_LIVE);
	return 1;
}

static int cmd_attach(struct hvt_relay_viewer *v, const struct hvt_relay_trace *t,
		      const unsigned char *in, struct hvt_relay_out *o)
{
	uint64_t id = hvt_get_be64(in);
	uint32_t seek = hvt_get_be32(in + 16), count = 1, i;
	size_t at = o->len;

	if (id != HVT_LIVE_SESSION_ID || !t->listed)
		return reply(o, 8, ATTACH_UNK) ? 1 : -1;
	if (seek != SEEK_BEGINNING && seek != SEEK_LAST)
		return reply(o, 8, ATTACH_SEEK_ERR) ? 1 : -1;
	if (!reply(o, 8, ATTACH_OK) || put_stream_info(o, t, HVT_LIVE_METADATA_STREAM, "metadata"))
		return -1;
	v->known = 0;
	v->metadata_sent = 0;
	if (announce(v, t, o, &count))
		return -1;
	if (seek == SEEK_LAST && !v->from_start)
		for (i = 0; i < v->known; i++)
			v->streams[i].next = t->streams[i].packets;
	hvt_put_be32(o->buf + at + 4, count);
	v->attached = true;
	return 1;
}

/* The data stream of viewer stream id @id that @v knows, or -1. */
static int64_t data_stream(const struct hvt_relay_viewer *v, uint64_t id)
{
	if (!v->attached || id < HVT_LIVE_FIRST_DATA_STREAM ||
	    id - HVT_LIVE_FIRST_DATA_STREAM >= v->known)
		return -1;
	return (int64_t)(id - HVT_LIVE_FIRST_DATA_STREAM);
}

static uint32_t news(const struct hvt_relay_viewer *v, const struct hvt_relay_trace *t)
{
	return (v->metadata_sent < t->metadata_len ? FLAG_NEW_METADATA : 0) |
	       (v->known < t->nr_streams ? FLAG_NEW_STREAM : 0);
}

/*
 * The time @v may take every stream to have reached: the trace's beacon,
 * not a stream's last event (a viewer takes a beacon as a time it has
 * reached, and a stream it learns of later must not bring anything before
 * it), and no later than the start of a stream it has not been told of
 * yet (babeltrace2 2.0 hears of new streams only with a packet's index).
 */
static uint64_t viewer_beacon(const struct hvt_relay_viewer *v, const struct hvt_relay_trace *t)
{
	uint64_t beacon = t->beacon;
	uint32_t i;

	for (i = v->known; i < t->nr_streams; i++)
		if (t->streams[i].first_ts < beacon)
			beacon = t->streams[i].first_ts;
	return beacon;
}

static int cmd_next_index(struct hvt_relay_viewer *v, const struct hvt_relay_trace *t,
			  const unsigned char *in, struct hvt_relay_out *o)
{
	int64_t j = data_stream(v, hvt_get_be64(in));
	unsigned char *p = room(o, 64);
	struct hvt_relay_view_stream *vs;
	const struct hvt_relay_stream *st;
	struct hvt_relay_index ix;
	uint32_t status;
	uint64_t beacon;

	if (!p)
		return -1;
	if (j < 0) {
		hvt_put_be32(p + 56, INDEX_ERR);
		return 1;
	}
	vs = &v->streams[j];
	st = &t->streams[j];
	hvt_put_be64(p + 48, 0);	/* the CTF stream class: one (HVT_CTF_STREAM_EVENTS) */
	hvt_put_be32(p + 60, news(v, t));
	if (vs->next < st->packets) {
		if (hvt_relay_trace_read_index(t, (uint32_t)j, vs->next, &ix)) {
			hvt_put_be32(p + 56, INDEX_ERR);
			return 1;
		}
		hvt_put_be64(p, ix.offset);
		hvt_put_be64(p + 8, ix.packet_size);
		hvt_put_be64(p + 16, ix.content_size);
		hvt_put_be64(p + 24, ix.timestamp_begin);
		hvt_put_be64(p + 32, ix.timestamp_end);
		hvt_put_be64(p + 40, ix.events_discarded);
		vs->next++;
		vs->beacon = ix.timestamp_end;
		vs->metadata_needed = ix.metadata_len;
		status = INDEX_OK;
	} else if (t->done) {
		vs->hung_up = true;
		status = INDEX_HUP;
	} else {
		beacon = viewer_beacon(v, t);
		status = INDEX_RETRY;
		if (beacon > vs->beacon) {
			hvt_put_be64(p + 32, beacon);
			vs->beacon = beacon;
			status = INDEX_INACTIVE;
		}
	}
	hvt_put_be32(p + 56, status);
	return 1;
}

static int cmd_get_packet(struct hvt_relay_viewer *v, const struct hvt_relay_trace *t,
			  const unsigned char *in, struct hvt_relay_out *o)
{
	int64_t j = data_stream(v, hvt_get_be64(in));
	uint64_t off = hvt_get_be64(in + 8);
	uint32_t len = hvt_get_be32(in + 16);
	unsigned char *p;

	/*
	 * Only when the packet needs it (babeltrace2 2.0 has to stop a packet
	 * half read for this): metadata added since is not the packet's.
	 */
	if (j >= 0 && v->metadata_sent < v->streams[j].metadata_needed) {
		p = reply(o, 12, PACKET_ERR);
		if (p)
			hvt_put_be32(p + 8, news(v, t));
		return p ? 1 : -1;
	}
	if (j < 0 || len > HVT_LIVE_MAX_PACKET_READ)
		return reply(o, 12, PACKET_ERR) ? 1 : -1;
	p = reply(o, 12 + (size_t)len, PACKET_OK);
	if (!p)
		return -1;
	if (hvt_relay_trace_read(t, (uint32_t)j, off, p + 12, len)) {
		o->len -= len;	/* the error reply alone */
		hvt_put_be32(p, PACKET_ERR);
		return 1;
	}
	hvt_put_be32(p + 4, len);
	hvt_put_be32(p + 8, news(v, t));
	v->packets_sent++;
	return 1;
}

static int cmd_get_metadata(struct hvt_relay_viewer *v, const struct hvt_relay_trace *t,
			    const unsigned char *in, struct hvt_relay_out *o)
{
	uint64_t n = t->metadata_len - v->metadata_sent;
	unsigned char *p;

	if (!v->attached || hvt_get_be64(in) != HVT_LIVE_METADATA_STREAM) {
		p = room(o, 12);
		if (p)
			hvt_put_be32(p + 8, METADATA_ERR);
		return p ? 1 : -1;
	}
	if (n > HVT_LIVE_MAX_METADATA_READ)
		n = HVT_LIVE_MAX_METADATA_READ;
	p = room(o, 12 + (size_t)n);
	if (!p)
		return -1;
	if (!n || hvt_relay_trace_read_metadata(t, v->metadata_sent, p + 12, (size_t)n)) {
		o->len -= (size_t)n;
		hvt_put_be32(p + 8, n ? METADATA_ERR : METADATA_NO_NEW);
		return 1;
	}
	hvt_put_be64(p, n);
	hvt_put_be32(p + 8, METADATA_OK);
	v->metadata_sent += n;
	return 1;
}

/* Whether @v hung up every stream it knows. */
static bool all_hung_up(const struct hvt_relay_viewer *v)
{
	uint32_t i;

	for (i = 0; i < v->known; i++)
		if (!v->streams[i].hung_up)
			return false;
	return true;
}

static int cmd_new_streams(struct hvt_relay_viewer *v, const struct hvt_relay_trace *t,
			   const unsigned char *in, struct hvt_relay_out *o)
{
	size_t at = o->len;
	uint32_t count = 0, status;

	if (!v->attached || hvt_get_be64(in) != HVT_LIVE_SESSION_ID)
		return reply(o, 8, NEW_STREAMS_ERR) ? 1 : -1;
	if (!reply(o, 8, NEW_STREAMS_OK) || announce(v, t, o, &count))
		return -1;
	status = count ? NEW_STREAMS_OK :
		 t->done && all_hung_up(v) ? NEW_STREAMS_HUP : NEW_STREAMS_NO_NEW;
	hvt_put_be32(o->buf + at, status);
	hvt_put_be32(o->buf + at + 4, count);
	return 1;
}

static int cmd_detach(struct hvt_relay_viewer *v, const unsigned char *in,
		      struct hvt_relay_out *o)
{
	if (!v->attached || hvt_get_be64(in) != HVT_LIVE_SESSION_ID)
		return reply(o, 4, DETACH_UNK) ? 1 : -1;
	v->attached = false;
	v->known = 0;
	return reply(o, 4, DETACH_OK) ? 1 : -1;
}

/* The payload size of command @cmd, or -1 for no command of the protocol. */
static int payload_size(uint32_t cmd)
{
	static const int size[] = {
		[CMD_CONNECT] = 20, [CMD_LIST_SESSIONS] = 0, [CMD_ATTACH_SESSION] = 20,
		[CMD_GET_NEXT_INDEX] = 8, [CMD_GET_PACKET] = 20, [CMD_GET_METADATA] = 8,
		[CMD_GET_NEW_STREAMS] = 8, [CMD_CREATE_SESSION] = 0, [CMD_DETACH_SESSION] = 8,
	};

	return cmd >= CMD_CONNECT && cmd <= CMD_DETACH_SESSION ? size[cmd] : -1;
}

int hvt_relay_command(struct hvt_relay_viewer *v, const struct hvt_relay_trace *t,
		      const unsigned char *in, size_t avail, size_t *used,
		      struct hvt_relay_out *o)
{
	uint64_t size;
	uint32_t cmd;
	int want, ret;

	*used = 0;
	if (avail < HVT_LIVE_HEADER_SIZE)
		return 0;
	size = hvt_get_be64(in);
	cmd = hvt_get_be32(in + 8);
	want = payload_size(cmd);
	if (want < 0)
		return protocol_error(v, "unknown command %u", cmd);
	if (size != (uint64_t)want)
		return protocol_error(v, "command %u with a %llu-byte payload, not %d", cmd,
				      (unsigned long long)size, want);
	if (avail < HVT_LIVE_HEADER_SIZE + size)
		return 0;
	if (!v->connected && cmd != CMD_CONNECT)
		return protocol_error(v, "command %u before CONNECT", cmd);
	in += HVT_LIVE_HEADER_SIZE;
	switch (cmd) {
	case CMD_CONNECT: ret = cmd_connect(v, in, o); break;
	case CMD_LIST_SESSIONS: ret = cmd_list(t, o); break;
	case CMD_ATTACH_SESSION: ret = cmd_attach(v, t, in, o); break;
	case CMD_GET_NEXT_INDEX: ret = cmd_next_index(v, t, in, o); break;
	case CMD_GET_PACKET: ret = cmd_get_packet(v, t, in, o); break;
	case CMD_GET_METADATA: ret = cmd_get_metadata(v, t, in, o); break;
	case CMD_GET_NEW_STREAMS: ret = cmd_new_streams(v, t, in, o); break;
	case CMD_CREATE_SESSION: ret = reply(o, 4, 1) ? 1 : -1; break;
	default: ret = cmd_detach(v, in, o); break;
	}
	if (ret < 0 && !v->why[0])
		snprintf(v->why, sizeof(v->why), "out of memory");
	if (ret > 0) {
		*used = HVT_LIVE_HEADER_SIZE + (size_t)size;
		v->commands++;
	}
	return ret;
}
