// SPDX-License-Identifier: GPL-2.0-only
/*
 * ctf_out.c - merged events as one CTF 1.8 trace (ctf_out.h).
 *
 * An event is a 12-byte header (u32 class id, u64 host TSC), a 19-byte
 * context (u32 CPU, s32 tid, u8 layer, u16 VM, s64 error bound in ns, -1:
 * none guaranteed) and its payload. Packets
 * have the packet header and context of the guest streams (hvtrace/ctf.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/fileio.h"
#include "lib/log.h"
#include "lib/tsdl.h"
#include "tools/out/ctf_out.h"
#include "tools/util/output_path.h"

#define EVENT_HEAD	(4u + 8u + 4u + 4u + 1u + 2u + 8u)
#define HEAD		HVT_CTF_PACKET_HEADER_SIZE
#define NO_CLASS	UINT32_MAX

struct hvt_ctf_out_stream {
	unsigned char *buf;		/* NULL until the source's first event */
	size_t size, used;		/* used includes the packet header */
	uint64_t seq;			/* packet_seq_num of the packet being filled */
	uint64_t first_ts, last_ts;
	uint32_t cpu;			/* packet context cpu_id */
	uint16_t vm;			/* event context vm */
	char *file;			/* in the output directory */
};

struct hvt_ctf_out_class {
	const char *name;
	const struct hvt_reader_ops *ops;	/* of the reader that met it first */
	struct hvt_event_class class;
};

struct hvt_ctf_out_key {
	struct hvt_event_class key;	/* owner NULL: free */
	uint32_t id;
};

static int set_clock(struct hvt_ctf_out *o, const struct hvt_archive *a);

/* The files of the CTF trace in @dir, which --force replaces; -1 after an error message. */
static int remove_trace(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int ret = 0;

	if (!d) {
		hvt_err("cannot read %s: %s", dir, strerror(errno));
		return -1;
	}
	while (!ret && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    unlinkat(dirfd(d), e->d_name, 0)) {
			hvt_err("cannot remove %s/%s, of the trace --force replaces: %s", dir,
				e->d_name, strerror(errno));
			ret = -1;
		}
	closedir(d);
	return ret;
}

/* @dir made, or there: empty, or a CTF trace replaced with @force (output_path.h). */
static int make_dir(const char *dir, bool force)
{
	enum hvt_output_state state;

	if (!mkdir(dir, 0755))
		return 0;
	if (errno != EEXIST) {
		hvt_err("cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	state = hvt_output_path_check(dir, HVT_OUTPUT_DIR, force);
	if (state == HVT_OUTPUT_REFUSED)
		return -1;
	return state == HVT_OUTPUT_EXISTS ? remove_trace(dir) : 0;
}

int hvt_ctf_out_open(struct hvt_ctf_out *o, struct hvt_session *ses, const char *dir,
		     bool force)
{
	memset(o, 0, sizeof(*o));
	o->dirfd = -1;
	if (dir && make_dir(dir, force))
		return -1;
	o->dirfd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	if (dir && o->dirfd < 0) {
		hvt_err("cannot open %s: %s", dir, strerror(errno));
		return -1;
	}
	if (getrandom(o->uuid, sizeof(o->uuid), 0) != (ssize_t)sizeof(o->uuid)) {
		hvt_err("cannot draw a trace UUID: %s", strerror(errno));
		goto fail;
	}
	o->uuid[6] = (__u8)((o->uuid[6] & 0x0f) | 0x40);	/* version 4 */
	o->uuid[8] = (__u8)((o->uuid[8] & 0x3f) | 0x80);
	o->ses = ses;
	if (set_clock(o, &ses->archive))
		goto fail;
	o->dir = strdup(dir ? dir : "the live trace");
	o->cap_streams = ses->nr_sources + 1;
	o->streams = calloc(o->cap_streams, sizeof(*o->streams));
	o->cap_keys = 64;
	o->keys = calloc(o->cap_keys, sizeof(*o->keys));
	if (!o->dir || !o->streams || !o->keys) {
		hvt_err("out of memory");
		goto fail;
	}
	return 0;
fail:
	if (o->dirfd >= 0)
		close(o->dirfd);
	free(o->dir);
	free(o->streams);
	free(o->keys);
	memset(o, 0, sizeof(*o));
	return -1;
}

/* Remembers the first failure; from then on nothing more is written. */
static void failed(struct hvt_ctf_out *o, int err, const char *file)
{
	if (o->error)
		return;
	o->error = err ? err : EIO;
	o->failed = strdup(file ? file : "?");
}

static bool same_class(const struct hvt_event_class *a, const struct hvt_event_class *b)
{
	return a->owner == b->owner && a->id == b->id;
}

/* Class id lookup in the open-addressing table: where @key is or would go. */
static struct hvt_ctf_out_key *key_slot(struct hvt_ctf_out_key *keys, size_t cap,
					const struct hvt_event_class *key)
{
	uint64_t h = ((uint64_t)(uintptr_t)key->owner ^ key->id * 0xff51afd7ed558ccdull) *
		     0x9e3779b97f4a7c15ull;
	size_t mask = cap - 1, i = (size_t)(h >> 32) & mask;

	while (keys[i].key.owner && !same_class(&keys[i].key, key))
		i = (i + 1) & mask;
	return &keys[i];
}

static int grow_keys(struct hvt_ctf_out *o)
{
	size_t cap = 2 * o->cap_keys, i;
	struct hvt_ctf_out_key *keys = calloc(cap, sizeof(*keys));

	if (!keys)
		return -1;
	for (i = 0; i < o->cap_keys; i++)
		if (o->keys[i].key.owner)
			*key_slot(keys, cap, &o->keys[i].key) = o->keys[i];
	free(o->keys);
	o->keys = keys;
	o->cap_keys = cap;
	return 0;
}

static uint32_t add_class(struct hvt_ctf_out *o, const struct hvt_source *s,
			  const struct hvt_event_class *class)
{
	struct hvt_ctf_out_class *c;

	if (o->nr_classes == o->cap_classes) {
		uint32_t cap = o->cap_classes ? 2 * o->cap_classes : 64;
		struct hvt_ctf_out_class *grown = realloc(o->classes, cap * sizeof(*grown));

		if (!grown)
			return NO_CLASS;
		o->classes = grown;
		o->cap_classes = cap;
	}
	c = &o->classes[o->nr_classes];
	c->name = hvt_source_event_name(s);
	c->ops = s->rd.ops;
	c->class = *class;
	return o->nr_classes++;
}

/* The class of @s's current event, added on its first occurrence. */
static uint32_t class_of(struct hvt_ctf_out *o, const struct hvt_source *s)
{
	struct hvt_event_class key = s->rd.ops->event_class(s->rd.r);
	struct hvt_ctf_out_key *k = key_slot(o->keys, o->cap_keys, &key);

	if (k->key.owner)
		return k->id;
	if (2 * (o->nr_classes + 1) > o->cap_keys) {
		if (grow_keys(o))
			return NO_CLASS;
		k = key_slot(o->keys, o->cap_keys, &key);
	}
	k->id = add_class(o, s, &key);
	if (k->id != NO_CLASS)
		k->key = key;
	return k->id;
}

/*
 * The stream's file name: the source's (unique, timeline.h), with '/' as
 * '-' ("vm-demo-kernel-stream-0"); a source named "metadata" or starting
 * with '.' (a file given on the command line) gets "stream-" before it.
 */
static char *stream_file(const struct hvt_source *s)
{
	bool prefix = !strcmp(s->name, "metadata") || s->name[0] == '.';
	char *name, *p;

	if (asprintf(&name, "%s%s", prefix ? "stream-" : "", s->name) < 0)
		return NULL;
	for (p = name; *p; p++)
		if (*p == '/')
			*p = '-';
	return name;
}

/* Writes the packet being filled, if it holds any event, and starts the next. */
static void flush(struct hvt_ctf_out *o, struct hvt_ctf_out_stream *st,
		  const struct hvt_source *s)
{
	struct hvt_ctf_packet pkt;
	int fd;

	if (st->used <= HEAD)
		return;
	memset(&pkt, 0, sizeof(pkt));
	pkt.magic = HVT_CTF_MAGIC;
	memcpy(pkt.uuid, o->uuid, sizeof(pkt.uuid));
	pkt.stream_id = HVT_CTF_STREAM_EVENTS;
	/* babeltrace2 orders events of equal time by this: heap.h's tie-break */
	pkt.stream_instance_id = (uint64_t)s->layer << 32 | s->index;
	pkt.timestamp_begin = st->first_ts;
	pkt.timestamp_end = st->last_ts;
	pkt.content_size = (uint64_t)st->used * 8u;
	pkt.packet_size = pkt.content_size;
	pkt.packet_seq_num = st->seq++;
	pkt.events_discarded = o->discards_unsaid ? 0 : hvt_source_lost(s);
	pkt.cpu_id = st->cpu;
	memcpy(st->buf, &pkt, sizeof(pkt));
	st->used = HEAD;
	if (o->error)
		return;
	if (o->sink.packet) {
		if (o->sink.packet(o->sink.ctx, s, st->file, st->buf,
				   (size_t)(pkt.content_size / 8u), &pkt))
			failed(o, errno, st->file);
		return;
	}
	fd = openat(o->dirfd, st->file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0 || hvt_write_all(fd, st->buf, (size_t)(pkt.content_size / 8u)))
		failed(o, errno, st->file);
	if (fd >= 0 && close(fd))
		failed(o, errno, st->file);
}

/* Room for @need more bytes in @st's packet; NULL if out of memory. */
static unsigned char *reserve(struct hvt_ctf_out *o, struct hvt_ctf_out_stream *st,
			      const struct hvt_source *s, size_t need)
{
	if (!st->buf) {
		size_t vm = s->layer == HVT_LAYER_VMM ? s->vmm_vm : s->vm_number;

		st->file = stream_file(s);
		st->vm = vm < UINT16_MAX ? (uint16_t)vm : 0;	/* as put_trace() lists them */
		st->size = HEAD + need > HVT_CTF_OUT_PACKET ? HEAD + need : HVT_CTF_OUT_PACKET;
		st->buf = malloc(st->size);
		st->used = HEAD;
		if (!st->buf || !st->file)
			return NULL;
	}
	if (st->used + need > st->size)
		flush(o, st, s);
	if (HEAD + need > st->size) {
		unsigned char *grown = realloc(st->buf, HEAD + need);

		if (!grown)
			return NULL;
		st->buf = grown;
		st->size = HEAD + need;
	}
	return st->buf + st->used;
}

/* @s's stream, the table grown to the session's sources; NULL if out of memory. */
static struct hvt_ctf_out_stream *stream_of(struct hvt_ctf_out *o, const struct hvt_source *s)
{
	if (s->index >= o->cap_streams) {
		size_t cap = 2 * (size_t)s->index + 2;
		struct hvt_ctf_out_stream *grown = realloc(o->streams, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		memset(grown + o->cap_streams, 0, (cap - o->cap_streams) * sizeof(*grown));
		o->streams = grown;
		o->cap_streams = cap;
	}
	return &o->streams[s->index];
}

void hvt_ctf_out_flush(struct hvt_ctf_out *o)
{
	size_t i;

	for (i = 0; i < o->ses->nr_sources; i++) {
		struct hvt_source *s = o->ses->sources[i];

		if (s->index < o->cap_streams && o->streams[s->index].buf)
			flush(o, &o->streams[s->index], s);
	}
}

void hvt_ctf_out_event(struct hvt_ctf_out *o, struct hvt_source *s)
{
	hvt_ctf_out_event_at(o, s, s->host_tsc, hvt_session_event_bound_ns(o->ses, s));
}

void hvt_ctf_out_event_at(struct hvt_ctf_out *o, struct hvt_source *s, uint64_t tsc,
			  int64_t bound_ns)
{
	struct hvt_ctf_out_stream *st = stream_of(o, s);
	uint32_t id, cpu = hvt_source_cpu(s);
	size_t len;
	unsigned char *p;

	if (!st) {
		failed(o, ENOMEM, s->name);
		return;
	}
	if (tsc > o->max_tsc) {
		o->beyond++;
		return;
	}
	id = class_of(o, s);
	len = s->rd.ops->payload_size(s->rd.r);
	if (id == NO_CLASS)
		goto oom;
	p = reserve(o, st, s, EVENT_HEAD + len);
	if (!p)
		goto oom;
	s->rd.ops->payload(s->rd.r, p + EVENT_HEAD);
	if (st->used == HEAD) {
		st->first_ts = tsc;
		st->cpu = s->layer == HVT_LAYER_USER ? HVT_CTF_NO_CPU : cpu;
	}
	st->last_ts = tsc;
	hvt_put_u32(p, id);
	hvt_put_u64(p + 4, tsc);
	hvt_put_u32(p + 12, cpu);
	hvt_put_u32(p + 16, (uint32_t)hvt_source_tid(s));
	p[20] = (unsigned char)s->layer;
	hvt_put_u16(p + 21, st->vm);
	hvt_put_u64(p + 23, (uint64_t)bound_ns);	/* -1: none */
	st->used += EVENT_HEAD + len;
	return;
oom:
	failed(o, ENOMEM, st->file ? st->file : s->name);
}

/*
 * The clock: host TSC ticks, at the frequency of the recording's clock
 * pairs, with the offset that puts the first pair at its CLOCK_REALTIME.
 * CTF readers count time as signed 64-bit nanoseconds since 1970 (until
 * the year 2262): a host TSC beyond that (a damaged guest timestamp, a
 * clock extrapolated a century on) would make babeltrace2 refuse the
 * whole trace, so such events are left out (max_tsc). -1 after an error.
 */
static int set_clock(struct hvt_ctf_out *o, const struct hvt_archive *a)
{
	const struct hvt_clock_pair *p0 = &a->pairs[0];
	struct hvt_linear_map m;
	uint64_t hz = a->tsc_freq_hz, k, frac, cycles;
	__int128 limit;
	int64_t s;

	if (a->nr_pairs > 1 && !hvt_linear_map_fit(a->pairs, a->nr_pairs, &m))
		hz = hvt_linear_map_freq_hz(&m);
	if (!hz) {
		hvt_err("%s: cannot tell the host TSC frequency (one clock pair and no "
			"tsc_freq_hz), which a CTF clock needs", a->root);
		return -1;
	}
	/* offset_s + (offset + T0) / hz = R0, with 0 <= offset < hz */
	k = p0->tsc / hz + 1;
	s = p0->real_ns / 1000000000 - (p0->real_ns % 1000000000 < 0) - (int64_t)k;
	frac = (uint64_t)(p0->real_ns - (p0->real_ns / 1000000000 -
					 (p0->real_ns % 1000000000 < 0)) * 1000000000);
	cycles = (uint64_t)((unsigned __int128)frac * hz / 1000000000u) + (k * hz - p0->tsc);
	s += (int64_t)(cycles / hz);
	cycles %= hz;
	o->clock_hz = hz;
	o->clock_offset_s = s;
	o->clock_offset = cycles;
	/* (offset_s + 1) s of margin for rounding, then INT64_MAX ns in ticks, less offset */
	limit = ((__int128)INT64_MAX - ((__int128)s + 1) * 1000000000) * hz / 1000000000 -
		(__int128)cycles;
	o->max_tsc = limit <= 0 ? 0 : limit >= (__int128)UINT64_MAX ? UINT64_MAX :
		     (uint64_t)limit;
	return 0;
}

static void put_clock(FILE *f, const struct hvt_ctf_out *o)
{
	fprintf(f, "clock {\n\tname = \"host_tsc\";\n\tdescription = \"host TSC: the time of "
		"every event, guest ones aligned by hvtrace\";\n\tfreq = %llu;\n"
		"\tprecision = 1;\n\toffset_s = %lld;\n\toffset = %llu;\n\tabsolute = TRUE;\n};\n\n",
		(unsigned long long)o->clock_hz, (long long)o->clock_offset_s,
		(unsigned long long)o->clock_offset);
}

static void put_trace(FILE *f, const struct hvt_ctf_out *o)
{
	const struct hvt_archive *a = &o->ses->archive;
	char uuid[37];
	size_t j;

	hvt_uuid_format(o->uuid, uuid);
	hvt_tsdl_put_int_aliases(f);
	fprintf(f, "\ntrace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"%s\";\n\tbyte_order = le;\n"
		"\tpacket.header := struct {\n\t\tuint32_t magic;\n\t\tuint8_t uuid[%u];\n"
		"\t\tuint32_t stream_id;\n\t\tuint64_t stream_instance_id;\n\t} align(8);\n};\n\n"
		"env {\n\ttracer_name = \"hvtrace\";\n\ttracer_major = 0;\n\ttracer_minor = 1;\n"
		"\tdomain = \"hvtrace-merge\";\n\thvtrace_archive = \"", uuid, HVT_UUID_LEN);
	hvt_tsdl_put_escaped(f, a->root);
	fputs("\";\n};\n\n", f);
	fprintf(f, "typealias enum : uint8_t { \"host\" = %d, \"kernel\" = %d, \"user\" = %d, "
		"\"vmm\" = %d } := hvt_layer_t;\n", HVT_LAYER_HOST, HVT_LAYER_KERNEL,
		HVT_LAYER_USER, HVT_LAYER_VMM);
	fputs("typealias enum : uint16_t { \"-\" = 0", f);
	for (j = 0; j < a->nr_vms && j < UINT16_MAX - 1; j++) {
		fputs(", \"", f);
		hvt_tsdl_put_escaped(f, a->vms[j].name);
		fprintf(f, "\" = %zu", j + 1);
	}
	fputs(" } := hvt_vm_t;\n\n", f);
}

static void put_stream(FILE *f)
{
	fputs("typealias integer { size = 64; align = 8; signed = false; "
	      "map = clock.host_tsc.value; } := uint64_clock_t;\n"
	      "typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n\n", f);
	fprintf(f, "stream {\n\tid = %u;\n\tpacket.context := struct {\n"
		"\t\tuint64_clock_t timestamp_begin;\n\t\tuint64_clock_t timestamp_end;\n"
		"\t\tuint64_t content_size;\n\t\tuint64_t packet_size;\n"
		"\t\tuint64_t packet_seq_num;\n\t\tuint64_t events_discarded;\n"
		"\t\tuint32_t cpu_id;\n\t} align(8);\n"
		"\tevent.header := struct {\n\t\tuint32_t id;\n\t\tuint64_clock_t timestamp;\n"
		"\t} align(8);\n"
		"\tevent.context := struct {\n\t\tuint32_t _cpu_id;\n\t\tint32_t _tid;\n"
		"\t\thvt_layer_t _layer;\n\t\thvt_vm_t _vm;\n\t\tint64_t _bound_ns;\n"
		"\t} align(8);\n};\n\n",
		HVT_CTF_STREAM_EVENTS);
}

void hvt_ctf_out_put_head(FILE *f, const struct hvt_ctf_out *o)
{
	put_trace(f, o);
	put_clock(f, o);
	put_stream(f);
}

static void put_class(FILE *f, const struct hvt_ctf_out *o, uint32_t id)
{
	const struct hvt_ctf_out_class *c = &o->classes[id];

	fputs("event {\n\tname = \"", f);
	hvt_tsdl_put_escaped(f, c->name);
	fprintf(f, "\";\n\tid = %u;\n\tstream_id = %u;\n\tfields := struct {\n", id,
		HVT_CTF_STREAM_EVENTS);
	c->ops->tsdl_fields(&c->class, f);
	fputs("\t} align(8);\n};\n\n", f);
}

void hvt_ctf_out_put_classes(FILE *f, const struct hvt_ctf_out *o, uint32_t from)
{
	uint32_t id;

	for (id = from; id < o->nr_classes; id++)
		put_class(f, o, id);
}

/* The metadata file, listing the classes the streams use; -1 after an error message. */
static int write_metadata(struct hvt_ctf_out *o)
{
	int fd = openat(o->dirfd, "metadata", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	int ret = 0;

	if (!f) {
		failed(o, errno, "metadata");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	hvt_ctf_out_put_head(f, o);
	hvt_ctf_out_put_classes(f, o, 0);
	if (ferror(f))
		failed(o, errno, "metadata");
	if (fclose(f))
		failed(o, errno, "metadata");
	return ret;
}

int hvt_ctf_out_close(struct hvt_ctf_out *o)
{
	struct hvt_session *ses = o->ses;
	int ret = 0;
	size_t i;

	for (i = 0; i < ses->nr_sources; i++) {
		struct hvt_source *s = ses->sources[i];
		struct hvt_ctf_out_stream *st;

		if (s->index >= o->cap_streams)
			continue;
		st = &o->streams[s->index];
		if (st->buf)
			flush(o, st, s);
		free(st->buf);
		free(st->file);
	}
	if (o->beyond) {
		o->ses->warnings++;	/* in the summary's count, as the readers' are */
		hvt_warn("%s: %" PRIu64 " event%s at host times past the year 2262, which CTF "
			 "readers cannot represent (signed 64-bit nanoseconds since 1970), left "
			 "out: damaged timestamps?", o->dir, o->beyond, o->beyond == 1 ? "" : "s");
	}
	if (o->dirfd >= 0 && write_metadata(o))
		ret = -1;
	if (o->error) {
		hvt_err("writing %s/%s failed: %s", o->dir, o->failed ? o->failed : "?",
			strerror(o->error));
		ret = -1;
	}
	if (o->dirfd >= 0)
		close(o->dirfd);
	free(o->dir);
	free(o->failed);
	free(o->streams);
	free(o->classes);
	free(o->keys);
	memset(o, 0, sizeof(*o));
	return ret;
}
