// SPDX-License-Identifier: GPL-2.0-only
/*
 * ctf_reader.c - one guest CTF stream, packet by packet (ctf_reader.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/fileio.h"
#include "lib/log.h"
#include "lib/packet.h"
#include "tools/read/ctf_reader.h"
#include "tools/util/stream_warn.h"

#define EVENT_CONTEXT	HVT_CTF_EVENT_CONTEXT_SIZE

struct hvt_ctf_stream {
	int fd;
	char *name;			/* for messages */
	__u8 uuid[HVT_UUID_LEN];
	const struct hvt_ctf_types *types;
	uint64_t file_size;		/* at open: a stream is only ever appended */
	uint64_t next_packet;		/* file offset of the packet to read next */
	uint64_t packet_off;		/* file offset of the loaded packet */
	unsigned char *buf;		/* the loaded packet */
	size_t cap;
	size_t pos, end;		/* next event and content end in buf */
	uint64_t prev_ts;		/* base of compact timestamps */
	uint64_t next_seq;
	bool have_seq;
	bool stopped;			/* the rest of the file is unusable */
	bool expect;			/* packets must be of this stream: */
	uint64_t expect_instance;	/* stream_instance_id (CPU or thread) */
	uint32_t expect_cpu;		/* cpu_id */
	bool monotonic;			/* hvt_ctf_time_monotonic(): times never step back */
	bool have_prev_end;
	uint64_t prev_end;		/* timestamp_end of the last packet taken */
	uint64_t limit;			/* no event of this packet after it (out_of_line()) */
	struct hvt_ctf_stats stats;
};

void hvt_ctf_expect_stream(struct hvt_ctf_stream *s, uint32_t cpu, int32_t tid)
{
	s->expect = true;
	s->expect_cpu = cpu;
	s->expect_instance = cpu != HVT_CTF_NO_CPU ? cpu : (uint64_t)tid;
}

void hvt_ctf_time_monotonic(struct hvt_ctf_stream *s)
{
	s->monotonic = true;
}

struct hvt_ctf_stream *hvt_ctf_open(const char *path, const char *name,
				    const __u8 uuid[HVT_UUID_LEN],
				    const struct hvt_ctf_types *types, unsigned long *warnings)
{
	struct hvt_ctf_stream *s = calloc(1, sizeof(*s));

	if (!s || !(s->name = strdup(name))) {
		hvt_err("out of memory opening %s", name);
		free(s);
		(*warnings)++;
		return NULL;
	}
	s->fd = hvt_stream_open(path, name, "the stream", &s->file_size, warnings);
	if (s->fd < 0) {
		hvt_ctf_close(s);
		return NULL;
	}
	memcpy(s->uuid, uuid, HVT_UUID_LEN);
	s->types = types;
	return s;
}

void hvt_ctf_close(struct hvt_ctf_stream *s)
{
	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
	free(s->buf);
	free(s->name);
	free(s);
}

const struct hvt_ctf_stats *hvt_ctf_stats(const struct hvt_ctf_stream *s)
{
	return &s->stats;
}

void hvt_ctf_limit(struct hvt_ctf_stream *s, uint64_t bytes)
{
	s->file_size = bytes;
}

static int reserve(struct hvt_ctf_stream *s, size_t len)
{
	unsigned char *p;

	if (len <= s->cap)
		return 0;
	p = realloc(s->buf, len);
	if (!p)
		return -1;
	s->buf = p;
	s->cap = len;
	return 0;
}

static void stream_warn_stop(struct hvt_ctf_stream *s, uint64_t off, const char *why)
{
	hvt_stream_warn(&s->stats.warnings, s->name,
			"packet at offset %" PRIu64 ": %s; skipping the rest of the stream",
			off, why);
	s->stopped = true;
}

/*
 * How far out of line a time must be to be taken for damage: 2^32 ticks
 * (1.7 s of a 2.5 GHz TSC, 4.3 s of ns). A stream that never steps back
 * still can by a little, a thread moved between CPUs whose TSCs differ by
 * microseconds; a damaged timestamp is off by far more.
 */
#define OUT_OF_LINE	(UINT64_C(1) << 32)

/* The time range of the packet header at @off, if one that could be valid is there. */
static bool peek_times(const struct hvt_ctf_stream *s, uint64_t off, uint64_t *begin,
		       uint64_t *end)
{
	unsigned char h[HVT_CTF_PACKET_HEADER_SIZE];

	if (off >= s->file_size || s->file_size - off < sizeof(h) ||
	    hvt_pread_all(s->fd, h, sizeof(h), (off_t)off) || hvt_get_u32(h) != HVT_CTF_MAGIC ||
	    memcmp(h + offsetof(struct hvt_ctf_packet, uuid), s->uuid, HVT_UUID_LEN))
		return false;
	*begin = hvt_get_u64(h + offsetof(struct hvt_ctf_packet, timestamp_begin));
	*end = hvt_get_u64(h + offsetof(struct hvt_ctf_packet, timestamp_end));
	return *begin <= *end;
}

/*
 * For a stream whose times never step back: whether the valid packet @pkt
 * at @off (@size bytes) is out of line, its times OUT_OF_LINE after the
 * whole next packet's while the packet before it ends before the next one
 * begins (then it is skipped with a warning). Otherwise notes the limit its
 * events must keep: the next packet's beginning, OUT_OF_LINE on.
 */
static bool out_of_line(struct hvt_ctf_stream *s, uint64_t off, uint64_t size,
			const struct hvt_ctf_packet *pkt)
{
	uint64_t next_begin, next_end;

	s->limit = UINT64_MAX;
	if (!peek_times(s, off + size, &next_begin, &next_end))
		return false;
	if (pkt->timestamp_begin > next_end && pkt->timestamp_begin - next_end > OUT_OF_LINE &&
	    (!s->have_prev_end || s->prev_end <= next_begin)) {
		hvt_stream_warn(&s->stats.warnings, s->name, "packet at offset %" PRIu64 ": its "
				"times (%" PRIu64 " to %" PRIu64 ") lie after the whole next packet "
				"(%" PRIu64 " to %" PRIu64 "), which follows the one before: "
				"damaged; skipping the packet", off,
				(uint64_t)pkt->timestamp_begin, (uint64_t)pkt->timestamp_end,
				next_begin, next_end);
		s->next_packet = off + size;
		s->stats.skipped_packets++;
		return true;
	}
	s->limit = next_begin > UINT64_MAX - OUT_OF_LINE ? UINT64_MAX : next_begin + OUT_OF_LINE;
	return false;
}

/*
 * The writer's count of events it discarded, cumulative: a count that goes
 * back, or grows by more than one event per tick of the stream's clock
 * since the packet before (since the clock's start for the first), cannot
 * be a count (no event is written in less than a tick): damage, said, and
 * the count kept as it was.
 */
static void count_discarded(struct hvt_ctf_stream *s, uint64_t off,
			    const struct hvt_ctf_packet *pkt)
{
	uint64_t was = s->stats.lost_events, now = pkt->events_discarded;
	uint64_t ticks = !s->have_prev_end ? pkt->timestamp_end :
			 pkt->timestamp_end >= s->prev_end ? pkt->timestamp_end - s->prev_end : 0;

	if (now < was)
		hvt_stream_warn(&s->stats.warnings, s->name, "packet at offset %" PRIu64 ": its "
				"count of discarded events went back from %" PRIu64 " to %" PRIu64
				": damaged; the count stays %" PRIu64, off, was, now, was);
	else if (now > was && now - was - 1 > ticks)	/* no ticks + 1: it may wrap */
		hvt_stream_warn(&s->stats.warnings, s->name, "packet at offset %" PRIu64 ": %"
				PRIu64 " events discarded, more than the %" PRIu64 " clock ticks "
				"since the packet before allow: damaged; the count stays %" PRIu64,
				off, now, ticks, was);
	else
		s->stats.lost_events = now;
}

/*
 * The file ends inside the packet at @off, @left bytes in (a copy cut
 * short, a disk that filled): a packet that is sound but for that keeps
 * its whole events before the cut; the event cut in two ends it (with the
 * decoder's warning). True if so, with *@pkt the packet as cut.
 */
static bool salvage_cut_packet(struct hvt_ctf_stream *s, uint64_t off, uint64_t left,
			       struct hvt_ctf_packet *pkt)
{
	uint64_t content = hvt_get_u64(s->buf + offsetof(struct hvt_ctf_packet, content_size));
	uint64_t packet = hvt_get_u64(s->buf + offsetof(struct hvt_ctf_packet, packet_size));

	if (left < HVT_CTF_PACKET_HEADER_SIZE || content > packet || packet % 8 ||
	    packet / 8 > HVT_CTF_MAX_PACKET)	/* a size no writer makes: damage, not a cut */
		return false;
	hvt_put_u64(s->buf + offsetof(struct hvt_ctf_packet, packet_size), left * 8);
	hvt_put_u64(s->buf + offsetof(struct hvt_ctf_packet, content_size),
		    content < left * 8 ? content : left * 8);
	if (hvt_packet_check(s->buf, left, s->uuid, pkt)) {
		hvt_put_u64(s->buf + offsetof(struct hvt_ctf_packet, packet_size), packet);
		hvt_put_u64(s->buf + offsetof(struct hvt_ctf_packet, content_size), content);
		return false;
	}
	if (content > left * 8)
		hvt_stream_warn(&s->stats.warnings, s->name, "packet at offset %" PRIu64 ": the "
				"file ends %" PRIu64 " of its %" PRIu64 " bytes in (cut short); its "
				"events before the cut are kept", off, left, packet / 8);
	return true;
}

/* Reads and checks the packet at @off; 1 loaded, 0 skipped, -1 stream stopped. */
static int read_packet(struct hvt_ctf_stream *s, uint64_t off)
{
	uint64_t left = s->file_size - off, size_bits, size;
	struct hvt_ctf_packet pkt;
	const char *why;
	size_t want;

	if (left < HVT_CTF_PACKET_HEADER_SIZE) {
		stream_warn_stop(s, off, "truncated packet header");
		return -1;
	}
	want = HVT_CTF_PACKET_HEADER_SIZE;
	if (reserve(s, want) || hvt_pread_all(s->fd, s->buf, want, (off_t)off)) {
		stream_warn_stop(s, off, "read error");
		return -1;
	}
	size_bits = hvt_get_u64(s->buf + offsetof(struct hvt_ctf_packet, packet_size));
	size = size_bits / 8;
	if (size > want)
		want = size > left ? left : size;
	if (want > HVT_CTF_MAX_PACKET)
		want = HVT_CTF_MAX_PACKET;	/* memory stays bounded; the check refuses it */
	if (reserve(s, want) || hvt_pread_all(s->fd, s->buf, want, (off_t)off)) {
		stream_warn_stop(s, off, "read error");
		return -1;
	}
	why = hvt_packet_check(s->buf, want, s->uuid, &pkt);
	if (why && size > left && want == left && salvage_cut_packet(s, off, left, &pkt))
		why = NULL;
	if (!why && s->expect && (pkt.stream_instance_id != s->expect_instance ||
				  pkt.cpu_id != s->expect_cpu)) {
		hvt_stream_warn(&s->stats.warnings, s->name, "packet at offset %" PRIu64 ": of "
				"another stream (stream_instance_id %" PRIu64 ", cpu_id %u; this "
				"one's are %" PRIu64 " and %u): a copied or swapped file?; skipping "
				"the packet", off, (uint64_t)pkt.stream_instance_id, pkt.cpu_id,
				s->expect_instance, s->expect_cpu);
		s->next_packet = off + size;
		s->stats.skipped_packets++;
		return 0;
	}
	if (!why && s->monotonic && out_of_line(s, off, size, &pkt))
		return 0;
	if (!why) {
		s->packet_off = off;
		s->next_packet = off + size;
		s->pos = HVT_CTF_PACKET_HEADER_SIZE;
		s->end = pkt.content_size / 8;
		s->prev_ts = pkt.timestamp_begin;
		if (s->have_seq && pkt.packet_seq_num > s->next_seq)
			s->stats.lost_packets += pkt.packet_seq_num - s->next_seq;
		s->next_seq = pkt.packet_seq_num + 1;
		s->have_seq = true;
		count_discarded(s, off, &pkt);
		s->stats.packets++;
		s->have_prev_end = true;
		s->prev_end = pkt.timestamp_end;
		return 1;
	}
	/* The size of a packet with the right magic still finds the next one. */
	if (hvt_get_u32(s->buf) == HVT_CTF_MAGIC && size_bits % 8 == 0 &&
	    size >= HVT_CTF_PACKET_HEADER_SIZE && size <= left) {
		hvt_stream_warn(&s->stats.warnings, s->name,
				"packet at offset %" PRIu64 ": %s; skipping the packet", off, why);
		s->next_packet = off + size;
		s->stats.skipped_packets++;
		return 0;
	}
	stream_warn_stop(s, off, why);
	return -1;
}

/* Loads the next usable packet; false at the end of the stream. */
static bool load_packet(struct hvt_ctf_stream *s)
{
	while (!s->stopped && s->next_packet < s->file_size) {
		int ret = read_packet(s, s->next_packet);

		if (ret > 0)
			return true;
		if (ret < 0)
			break;
	}
	s->pos = s->end = 0;
	return false;
}

static int event_bad(struct hvt_ctf_stream *s, const char *why, uint32_t id)
{
	hvt_stream_warn(&s->stats.warnings, s->name,
			"event at offset %" PRIu64 " (id %u): %s; skipping the rest of the packet",
			s->packet_off + s->pos, id, why);
	s->stats.skipped_tails++;
	s->pos = s->end;
	return 0;
}

/* Decodes the event at pos: 1 returned in @ev, 0 dropped or packet abandoned. */
static int decode_event(struct hvt_ctf_stream *s, struct hvt_ctf_event *ev)
{
	const unsigned char *p = s->buf + s->pos;
	size_t avail = s->end - s->pos, hdr;
	uint32_t id;
	uint64_t ts;
	long len;

	if ((p[0] & 31) == HVT_CTF_EXTENDED_ID) {
		if (avail < HVT_CTF_EXTENDED_HEADER_SIZE)
			return event_bad(s, "truncated event header", HVT_CTF_EXTENDED_ID);
		id = hvt_get_u32(p + 1);
		ts = hvt_get_u64(p + 5);
		hdr = HVT_CTF_EXTENDED_HEADER_SIZE;
	} else {
		if (avail < HVT_CTF_COMPACT_HEADER_SIZE)
			return event_bad(s, "truncated event header", p[0] & 31);
		id = hvt_get_u32(p) & 31;
		ts = hvt_ctf_expand_ts(s->prev_ts, hvt_get_u32(p) >> HVT_CTF_COMPACT_ID_BITS);
		hdr = HVT_CTF_COMPACT_HEADER_SIZE;
	}
	if (avail < hdr + EVENT_CONTEXT)
		return event_bad(s, "event context runs past content_size", id);
	if (s->monotonic && ts > s->limit)
		return event_bad(s, "timestamp far after the next packet's beginning (damaged)", id);
	ev->type = hvt_ctf_type_get(s->types, id);
	if (!ev->type)
		return event_bad(s, "unknown event id", id);
	len = hvt_event_payload_size(ev->type->reg, p + hdr + EVENT_CONTEXT,
				   avail - hdr - EVENT_CONTEXT);
	if (len < 0)
		return event_bad(s, "payload runs past content_size", id);
	ev->offset = s->packet_off + s->pos;
	ev->ts = ts;
	ev->cpu = hvt_get_u32(p + hdr);
	ev->tid = (int32_t)hvt_get_u32(p + hdr + 4);
	ev->payload = p + hdr + EVENT_CONTEXT;
	ev->payload_len = (uint32_t)len;
	s->prev_ts = ts;	/* the writer compacts against every event it wrote */
	s->pos += hdr + EVENT_CONTEXT + (size_t)len;
	return 1;
}

int hvt_ctf_next(struct hvt_ctf_stream *s, struct hvt_ctf_event *ev)
{
	for (;;) {
		if (s->pos >= s->end && !load_packet(s))
			return 0;
		if (s->pos < s->end && decode_event(s, ev))
			return 1;
	}
}

static struct hvt_ctf_type *type_new(const struct hvt_event_type *reg)
{
	struct hvt_ctf_type *t = calloc(1, sizeof(*t));
	size_t len = 0;
	unsigned int i;

	if (!t)
		return NULL;
	for (i = 0; i < reg->nr_fields; i++)
		len += strlen(reg->fields[i].name) + 2;
	t->prefixes = malloc(len + 1);
	if (!t->prefixes) {
		free(t);
		return NULL;
	}
	t->reg = reg;
	t->name_len = (unsigned int)strlen(reg->name);
	for (len = 0, i = 0; i < reg->nr_fields; i++) {
		/* names are at most 31 characters: 64 prefixes fit in 16 bits */
		len += (size_t)sprintf(t->prefixes + len, " %s=", reg->fields[i].name);
		t->prefix_end[i] = (uint16_t)len;
	}
	return t;
}

int hvt_ctf_types_init(struct hvt_ctf_types *types, const struct hvt_registry *reg)
{
	unsigned int id;

	types->nr = 0;
	types->by_id = NULL;
	for (id = 0; reg->by_id && id < HVT_REG_MAX_EVENTS; id++)
		if (reg->by_id[id])
			types->nr = id + 1;
	if (!types->nr)
		return 0;
	types->by_id = calloc(types->nr, sizeof(*types->by_id));
	if (!types->by_id)
		return -1;
	for (id = 0; id < types->nr; id++)
		if (reg->by_id[id] && !(types->by_id[id] = type_new(reg->by_id[id]))) {
			hvt_ctf_types_free(types);
			return -1;
		}
	return 0;
}

int hvt_ctf_types_update(struct hvt_ctf_types *types, const struct hvt_registry *reg)
{
	struct hvt_ctf_type **grown;
	unsigned int id, nr = types->nr;

	for (id = nr; reg->by_id && id < HVT_REG_MAX_EVENTS; id++)
		if (reg->by_id[id])
			nr = id + 1;
	if (nr > types->nr) {
		grown = realloc(types->by_id, nr * sizeof(*grown));
		if (!grown)
			return -1;
		memset(grown + types->nr, 0, (nr - types->nr) * sizeof(*grown));
		types->by_id = grown;
		types->nr = nr;
	}
	for (id = 0; id < types->nr; id++) {
		if (!reg->by_id[id] || types->by_id[id])
			continue;
		types->by_id[id] = type_new(reg->by_id[id]);
		if (!types->by_id[id])
			return -1;
	}
	return 0;
}

void hvt_ctf_types_free(struct hvt_ctf_types *types)
{
	unsigned int id;

	for (id = 0; id < types->nr; id++) {
		if (types->by_id[id])
			free(types->by_id[id]->prefixes);
		free(types->by_id[id]);
	}
	free(types->by_id);
	types->by_id = NULL;
	types->nr = 0;
}

unsigned long hvt_ctf_registry_load(struct hvt_registry *reg, const char *path,
				    const char *name)
{
	size_t off = 0;

	return hvt_ctf_registry_load_more(reg, path, name, &off, false);
}

unsigned long hvt_ctf_registry_load_more(struct hvt_registry *reg, const char *path,
					 const char *name, size_t *at, bool growing)
{
	char *data = NULL, err[256];
	size_t len, off = *at;

	if (off == SIZE_MAX)
		return 0;	/* stopped at a bad record, said then */
	if (hvt_read_file(path, HVT_REGISTRY_FILE_MAX, &data, &len)) {
		hvt_warn("%s: cannot read: %s; the trace's events cannot be decoded", name,
			 hvt_file_strerror(errno));
		return 1;
	}
	/* One record at a time, so that a bad one can be located and the good kept. */
	while (off < len) {
		uint64_t left = len - off;
		uint32_t size = left >= 8 ? hvt_get_u32(data + off + 4) : 0;
		size_t chunk = size >= sizeof(struct hvt_reg_event) && size <= left ? size : left;

		if (growing && (left < 8 || size > left))
			break;		/* a record still being appended */
		if (hvt_registry_add(reg, data + off, chunk, err, sizeof(err)) < 0) {
			hvt_warn("%s: record at offset %zu: %s; ignoring the rest of the registry",
				 name, off, err);
			free(data);
			*at = SIZE_MAX;
			return 1;
		}
		off += chunk;
	}
	free(data);
	*at = off;
	return 0;
}
