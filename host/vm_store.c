// SPDX-License-Identifier: GPL-2.0-only
/*
 * vm_store.c - a guest's part of the archive (docs/format.md, section 1):
 * one CTF trace directory per guest trace, one file per stream, info.json.
 *
 * Each function checks what the guest claims against what it said before
 * and returns -1 with vm->why set on the first inconsistency. Packets are
 * appended whole or not at all.
 *
 * metadata (appended to) and info.json (rewritten), with an fsync each, are
 * brought up to date by hvt_vm_flush() on the collector's tick, not for
 * every frame that changes them: only before a packet is stored must they describe it, so that the
 * archive on disk stays usable at every moment (docs/format.md, "Crash
 * safety"). The tick's rewrite of info.json (its counts) goes to a thread
 * of its own (replace_async.h), whose fsync cannot stop the link; the
 * rewrites that must be on disk before what follows them (a new stream
 * listed before its first packet, the last one) are made here, after it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/vm.h"
#include "lib/archive_format.h"
#include "lib/fileio.h"
#include "lib/log.h"
#include "lib/packet.h"
#include "lib/tsdl.h"

static int fail(struct hvt_vm *vm, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct hvt_vm *vm, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(vm->why, sizeof(vm->why), fmt, ap);
	va_end(ap);
	return -1;
}

/* fail() for a system call that failed: appends errno's text. */
static int fail_io(struct hvt_vm *vm, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail_io(struct hvt_vm *vm, const char *fmt, ...)
{
	int e = errno;
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(vm->why, sizeof(vm->why), fmt, ap);
	va_end(ap);
	n = strlen(vm->why);
	snprintf(vm->why + n, sizeof(vm->why) - n, ": %s%s", strerror(e),
		 e == EMFILE ? " (the collector's open-file limit, ulimit -n, is too low for "
		 "this guest)" : "");
	return -1;
}

static int write_info(struct hvt_vm *vm);

/*
 * Takes back what a failed hvt_vm_store_init() made: its files, then the
 * directory if that left it empty. Nothing was recorded yet, and a file
 * that was there before (fopen "wx" refused it) is not touched.
 */
static void store_unwind(struct hvt_vm *vm, bool made_sync_tsv)
{
	char path[HVT_PATH_LEN];

	if (vm->sync_tsv) {
		fclose(vm->sync_tsv);
		vm->sync_tsv = NULL;
	}
	if (made_sync_tsv && !hvt_path(path, sizeof(path), "%s/sync.tsv", vm->dir))
		unlink(path);
	rmdir(vm->dir);
}

/* The VM's directory, sync.tsv and a first info.json; on failure, none of them. */
int hvt_vm_store_init(struct hvt_vm *vm, char *err, size_t errlen)
{
	char path[HVT_PATH_LEN];

	if (hvt_path(vm->dir, sizeof(vm->dir), "%s/%s", vm->archive->dir, vm->rel) ||
	    hvt_path(path, sizeof(path), "%s/sync.tsv", vm->dir)) {
		snprintf(err, errlen, "%s/%s: path too long", vm->archive->dir, vm->rel);
		return -1;
	}
	if (hvt_mkdir_p(vm->dir)) {
		snprintf(err, errlen, "cannot create %s: %s", vm->dir, strerror(errno));
		return -1;
	}
	vm->sync_tsv = fopen(path, "wxe");
	if (!vm->sync_tsv) {
		snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
		store_unwind(vm, false);
		return -1;
	}
	if (fputs(HVT_SYNC_TSV_HEADER "\n", vm->sync_tsv) < 0 || fflush(vm->sync_tsv)) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		store_unwind(vm, true);
		return -1;
	}
	if (write_info(vm)) {	/* atomic: no info.json is left half written */
		snprintf(err, errlen, "cannot write %s/info.json: %s", vm->dir, strerror(errno));
		store_unwind(vm, true);
		return -1;
	}
	return 0;
}

void hvt_vm_sanitize(char *dst, const void *src, size_t n)
{
	const unsigned char *s = src;
	size_t i;

	for (i = 0; i < n && s[i]; i++)
		dst[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? (char)s[i] : '?';
	dst[i] = '\0';
}

/* 0, -1 with errno, or -2 if the guest's byte quota has no room for it. */
static int render_metadata(struct hvt_vm *vm, struct hvt_vm_trace *t)
{
	struct hvt_tsdl_trace desc;
	unsigned char declared[HVT_TSDL_DECLARED_BYTES];
	char path[HVT_PATH_LEN], *text;
	size_t len;
	int fd;

	/*
	 * The file only grows: the head and the events of the time, then each
	 * event as it registers. Rewriting it whole made a guest that registers
	 * one event at a time cost the collector quadratic writes.
	 */
	hvt_tsdl_guest_trace(&desc, t->uuid, t->layer, t->domain, t->freq_hz, vm->name, t->pid);
	memcpy(declared, t->declared, sizeof(declared));
	text = hvt_tsdl_render_new(t->metadata_bytes ? NULL : &desc, &t->registry, declared);
	if (!text || hvt_path(path, sizeof(path), "%s/%s/metadata", vm->dir, t->dir)) {
		free(text);
		errno = ENOMEM;
		return -1;
	}
	len = strlen(text);
	if (vm->bytes + vm->pending_bytes + len > vm->limits.byte_quota) {
		free(text);
		return -2;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0 || hvt_write_all(fd, text, len) || fsync(fd)) {
		int err = errno;

		/* Whole declarations or none: back to what readers had. */
		if (fd >= 0 && ftruncate(fd, (off_t)t->metadata_bytes))
			hvt_warn("cannot trim a partial metadata append: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		free(text);
		errno = err;
		return -1;
	}
	close(fd);
	free(text);
	memcpy(t->declared, declared, sizeof(declared));
	t->metadata_bytes += len;
	vm->bytes += len;
	return 0;
}

static int kernel_trace_open(const struct hvt_vm *vm)
{
	unsigned int i;

	for (i = 0; i < HVT_VM_MAX_TRACES; i++)
		if (vm->traces[i].open && vm->traces[i].layer == HVT_LAYER_KERNEL)
			return 1;
	return 0;
}

int hvt_vm_trace_open(struct hvt_vm *vm, uint32_t id, const struct hvt_w_trace_open *to)
{
	char path[HVT_PATH_LEN], why[HVT_WIRE_WHY_MAX];
	struct hvt_vm_trace *t;

	/* the payload's own rules (shared with the agent), then this VM's state */
	if (hvt_wire_trace_open_check(id, to, why, sizeof(why)))
		return fail(vm, "%s", why);
	/* A guest's agent sends its TSC as guest_tsc; only the host's own is on the host's. */
	if (vm->host_apps ? to->domain == HVT_DOMAIN_GUEST_TSC : to->domain == HVT_DOMAIN_TSC)
		return fail(vm, "trace %u: a %s clock on %s", id,
			    vm->host_apps ? "guest TSC" : "host TSC",
			    vm->host_apps ? "the host applications' link" : "a guest's link");
	t = &vm->traces[id];
	if (t->open)
		return fail(vm, "trace %u opened twice", id);
	if (to->layer == HVT_LAYER_KERNEL && kernel_trace_open(vm))
		return fail(vm, "a second kernel trace");
	if (to->layer == HVT_LAYER_KERNEL)
		strcpy(t->dir, "kernel");
	else
		snprintf(t->dir, sizeof(t->dir), "user-%u", id);
	/* The registry sits in a subdirectory, which CTF readers skip. */
	if (hvt_path(path, sizeof(path), "%s/%s/hvtrace", vm->dir, t->dir) || hvt_mkdir_p(path) ||
	    hvt_path(path, sizeof(path), "%s/%s/hvtrace/registry", vm->dir, t->dir) ||
	    (t->registry_fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC,
				   0644)) < 0)
		return fail_io(vm, "cannot create trace directory %s", t->dir);
	t->layer = to->layer;
	t->domain = to->domain;
	t->freq_hz = to->freq_hz;
	t->pid = to->pid;
	memcpy(t->uuid, to->uuid, HVT_UUID_LEN);
	hvt_vm_sanitize(t->comm, to->comm, sizeof(to->comm));
	hvt_registry_init(&t->registry);
	t->open = true;
	t->metadata_dirty = true;
	vm->info_dirty = true;
	return 0;
}

/*
 * Checks @p completely (against itself, in a scratch registry), then collects
 * in @out the records whose id trace @t does not know yet, each once. A guest
 * may resend records it sent before; stored once, the registry file stays
 * bounded by HVT_REG_MAX_EVENTS records whatever the guest sends. Returns the
 * bytes collected, or -1 with vm->why set.
 */
static long registry_new_records(struct hvt_vm *vm, struct hvt_vm_trace *t, const void *p,
				 uint32_t len, unsigned char *out)
{
	unsigned char seen[HVT_REG_MAX_EVENTS / 8] = { 0 };
	const unsigned char *rec = p;
	struct hvt_registry scratch;
	char err[160];
	uint32_t off, size;
	long n = 0;

	hvt_registry_init(&scratch);
	if (hvt_registry_add(&scratch, p, len, err, sizeof(err)) < 0) {
		hvt_registry_free(&scratch);
		return fail(vm, "trace %s: invalid registry: %s", t->dir, err);
	}
	hvt_registry_free(&scratch);
	/* Every record is valid now: its size and id can be used as they are. */
	for (off = 0; off < len; off += size) {
		const struct hvt_event_type *old;
		struct hvt_reg_event h;

		memcpy(&h, rec + off, sizeof(h));
		size = h.size;
		old = hvt_registry_get(&t->registry, h.id);
		if (old) {
			if (old->record_size != size || memcmp(old->record, rec + off, size))
				return fail(vm, "trace %s: invalid registry: event id %u redefined "
					    "differently", t->dir, h.id);
			continue;
		}
		if (seen[h.id / 8] & (1u << (h.id % 8)))
			continue;
		seen[h.id / 8] |= (unsigned char)(1u << (h.id % 8));
		memcpy(out + n, rec + off, size);
		n += size;
	}
	return n;
}

static int release_pending(struct hvt_vm *vm, uint32_t id);

/* Packets of trace @trace's streams that waited for its registry to grow. */
static int release_trace_pending(struct hvt_vm *vm, uint32_t trace)
{
	unsigned int i;

	for (i = 0; i < HVT_VM_MAX_STREAMS; i++)
		if (vm->streams[i] && vm->streams[i]->trace == trace &&
		    vm->streams[i]->pending && release_pending(vm, i))
			return -1;
	return 0;
}

int hvt_vm_registry(struct hvt_vm *vm, uint32_t id, const void *p, uint32_t len)
{
	struct hvt_vm_trace *t = id < HVT_VM_MAX_TRACES ? &vm->traces[id] : NULL;
	unsigned char *fresh;
	char err[160];
	long n;

	if (!t || !t->open)
		return fail(vm, "registry for unknown trace %u", id);
	fresh = malloc(len ? len : 1);
	if (!fresh)
		return fail(vm, "out of memory");
	n = registry_new_records(vm, t, p, len, fresh);
	if (n <= 0) {
		free(fresh);
		return (int)n;
	}
	if (vm->bytes + vm->pending_bytes + (uint64_t)n > vm->limits.byte_quota) {
		free(fresh);
		return fail(vm, "byte quota of %llu exceeded", (unsigned long long)vm->limits.byte_quota);
	}
	/* The file and the registry in memory hold the same records, or the link ends. */
	if (hvt_write_all(t->registry_fd, fresh, (size_t)n)) {
		snprintf(err, sizeof(err), "%s", strerror(errno));
		goto undo;
	}
	if (hvt_registry_add(&t->registry, fresh, (size_t)n, err, sizeof(err)) < 0)
		goto undo;
	free(fresh);
	t->registry_bytes += (uint64_t)n;
	vm->bytes += (uint64_t)n;
	t->metadata_dirty = true;
	return release_trace_pending(vm, id);
undo:
	free(fresh);
	if (ftruncate(t->registry_fd, (off_t)t->registry_bytes))
		hvt_warn("cannot trim a partial registry record: %s", strerror(errno));
	return fail(vm, "cannot store the registry of %s: %s (archive kept up to its last "
		    "whole record)", t->dir, err);
}

int hvt_vm_stream_open(struct hvt_vm *vm, uint32_t id, const struct hvt_w_stream_open *so)
{
	char path[HVT_PATH_LEN], why[HVT_WIRE_WHY_MAX];
	struct hvt_vm_stream *s;
	struct hvt_vm_trace *t;

	if (hvt_wire_stream_open_check(id, so, why, sizeof(why)))
		return fail(vm, "%s", why);
	if (vm->streams[id])
		return fail(vm, "stream %u opened twice", id);
	if (!vm->traces[so->trace_id].open)
		return fail(vm, "stream %u of unknown trace %u", id, so->trace_id);
	if (vm->nr_streams >= vm->limits.max_streams)
		return fail(vm, "stream quota of %u exceeded", vm->limits.max_streams);
	t = &vm->traces[so->trace_id];
	s = calloc(1, sizeof(*s));
	if (!s)
		return fail(vm, "out of memory");
	if (hvt_path(path, sizeof(path), "%s/%s/stream-%u", vm->dir, t->dir, id) ||
	    (s->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644)) < 0) {
		fail_io(vm, "cannot create stream %u", id);
		free(s);
		return -1;
	}
	s->trace = so->trace_id;
	s->cpu = so->cpu;
	s->tid = so->tid;
	vm->streams[id] = s;
	vm->nr_streams++;
	vm->info_dirty = true;
	return 0;
}

static int flush_metadata(struct hvt_vm *vm, struct hvt_vm_trace *t);
static int list_streams(struct hvt_vm *vm);

/* Appends a checked packet to its stream file, whole or not at all. */
static int store_packet(struct hvt_vm *vm, uint32_t id, const void *p, uint32_t len)
{
	struct hvt_vm_stream *s = vm->streams[id];

	/*
	 * What is stored must be described: its events declared, the stream
	 * listed in the info.json on disk (a rewrite the tick queued may not be
	 * yet). Only that: the rest of info.json waits for the tick, so that
	 * cheap frames between packets cannot make every packet rewrite it.
	 */
	if (flush_metadata(vm, &vm->traces[s->trace]) || (!s->listed && list_streams(vm)))
		return -1;
	if (hvt_write_all(s->fd, p, len)) {
		fail_io(vm, "cannot write stream %u (archive kept up to its last whole packet)", id);
		/* Keep the file a sequence of whole packets. */
		if (ftruncate(s->fd, (off_t)s->bytes))
			hvt_warn("cannot trim a partial packet: %s", strerror(errno));
		return -1;
	}
	s->bytes += len;
	s->packets++;
	s->events += s->walked_events;
	vm->bytes += len;
	vm->info_dirty = true;	/* its counts, at the tick: a follower reads that far */
	return 0;
}

/* Keeps a packet until its trace registers event @ev_id. */
static int hold_packet(struct hvt_vm *vm, uint32_t id, const void *p, uint32_t len,
		       uint32_t ev_id)
{
	struct hvt_vm_stream *s = vm->streams[id];
	struct hvt_vm_pending *w;

	if (vm->pending_bytes + len > HVT_VM_PENDING_MAX)
		return fail(vm, "stream %u: over %u bytes of packets wait for events never "
			    "registered (event id %u)", id, HVT_VM_PENDING_MAX, ev_id);
	w = malloc(sizeof(*w) + len);
	if (!w)
		return fail(vm, "out of memory");
	w->next = NULL;
	w->len = len;
	w->id = ev_id;
	memcpy(w->data, p, len);
	if (!s->pending)
		s->pending_tail = &s->pending;
	*s->pending_tail = w;
	s->pending_tail = &w->next;
	vm->pending_bytes += len;
	return 0;
}

/*
 * Checks a packet's events against its trace's registry: 1 if they all
 * decode, 0 if one's id is not registered yet (@ev_id), -1 if the packet
 * is damaged or hostile, with vm->why set.
 */
static int packet_events(struct hvt_vm *vm, uint32_t id, const void *p, uint32_t *ev_id)
{
	struct hvt_vm_stream *s = vm->streams[id];
	struct hvt_packet_walk w;
	struct hvt_ctf_packet hdr;

	memcpy(&hdr, p, sizeof(hdr));
	switch (hvt_packet_events_check(p, &hdr, &vm->traces[s->trace].registry, &w)) {
	case HVT_PACKET_EVENTS_OK:
		vm->streams[id]->walked_events = w.events;	/* stored next: counted then */
		return 1;
	case HVT_PACKET_EVENTS_UNREGISTERED:
		*ev_id = w.id;
		return 0;
	default:
		return fail(vm, "stream %u: packet %llu: %s", id,
			    (unsigned long long)hdr.packet_seq_num, w.why);
	}
}

int hvt_vm_packet(struct hvt_vm *vm, uint32_t id, const void *p, uint32_t len)
{
	struct hvt_vm_stream *s = id < HVT_VM_MAX_STREAMS ? vm->streams[id] : NULL;
	char why[HVT_WIRE_WHY_MAX];
	struct hvt_ctf_packet hdr;
	uint32_t ev_id = 0;
	int ret;

	if (!s || s->fd < 0 || s->closed_by_guest)
		return fail(vm, "packet for stream %u, which is not open", id);
	if (hvt_wire_packet_check(p, len, vm->traces[s->trace].uuid, s->cpu, s->tid, &hdr,
				  why, sizeof(why)))
		return fail(vm, "stream %u: %s", id, why);
	if (vm->bytes + vm->pending_bytes + len > vm->limits.byte_quota)
		return fail(vm, "byte quota of %llu exceeded", (unsigned long long)vm->limits.byte_quota);
	ret = packet_events(vm, id, p, &ev_id);
	if (ret < 0)
		return -1;
	if (!ret || s->pending)
		return hold_packet(vm, id, p, len, ret ? s->pending->id : ev_id);
	return store_packet(vm, id, p, len);
}

/* Takes the first waiting packet of @s off its list. */
static void unhold(struct hvt_vm *vm, struct hvt_vm_stream *s)
{
	struct hvt_vm_pending *w = s->pending;

	s->pending = w->next;
	vm->pending_bytes -= w->len;
	free(w);
}

/*
 * Stores the packets of @s that wait no more, in order, up to one that
 * still does. A packet found damaged once its ids are known is dropped
 * (the link then ends, naming it).
 */
static int release_pending(struct hvt_vm *vm, uint32_t id)
{
	struct hvt_vm_stream *s = vm->streams[id];
	const struct hvt_registry *reg = &vm->traces[s->trace].registry;
	struct hvt_vm_pending *w;
	int ret;

	while ((w = s->pending)) {
		if (!hvt_registry_get(reg, w->id))
			return 0;	/* still waiting: no walk */
		ret = packet_events(vm, id, w->data, &w->id);
		if (!ret)
			return 0;
		ret = ret < 0 ? -1 : store_packet(vm, id, w->data, w->len);
		unhold(vm, s);
		if (ret)
			return -1;
	}
	if (s->closed_by_guest) {	/* the file was kept open for them */
		close(s->fd);
		s->fd = -1;
	}
	return 0;
}

/* Drops what still waits at the end of the recording, saying so. */
static void drop_pending(struct hvt_vm *vm, uint32_t id)
{
	struct hvt_vm_stream *s = vm->streams[id];
	uint64_t n = 0;

	if (!s->pending)
		return;
	hvt_warn("vm %s: stream %u: event id %u was not registered by the end of the link; "
		 "dropping the packets that waited for it, and those after them", vm->name, id,
		 s->pending->id);
	for (; s->pending; n++)
		unhold(vm, s);
	s->dropped += n;
	vm->info_dirty = true;
}

int hvt_vm_stream_close(struct hvt_vm *vm, uint32_t id, const struct hvt_w_stream_close *sc)
{
	struct hvt_vm_stream *s = id < HVT_VM_MAX_STREAMS ? vm->streams[id] : NULL;

	if (!s || s->fd < 0 || s->closed_by_guest)
		return fail(vm, "close of stream %u, which is not open", id);
	s->lost = sc->lost;
	s->closed_by_guest = true;
	if (!s->pending) {	/* else the file stays open for them */
		close(s->fd);
		s->fd = -1;
	}
	vm->info_dirty = true;
	return 0;
}

static json_t *traces_json(const struct hvt_vm *vm)
{
	json_t *a = json_array();
	unsigned int i;

	for (i = 0; i < HVT_VM_MAX_TRACES; i++) {
		const struct hvt_vm_trace *t = &vm->traces[i];
		char uuid[37];

		if (!t->open)
			continue;
		hvt_uuid_format(t->uuid, uuid);
		json_array_append_new(a, json_pack(
			"{s:i, s:s, s:s, s:s, s:I, s:s, s:I, s:s, s:I}", "id", (int)i,
			"layer", t->layer == HVT_LAYER_KERNEL ? "kernel" : "user", "dir", t->dir,
			"domain", hvt_domain_name(t->domain),
			"freq_hz", (json_int_t)t->freq_hz, "uuid", uuid, "pid", (json_int_t)t->pid,
			"comm", t->comm, "untraced_threads", (json_int_t)t->threads_untraced));
	}
	return a;
}

static json_t *streams_json(const struct hvt_vm *vm)
{
	json_t *a = json_array();
	unsigned int i;

	for (i = 0; i < HVT_VM_MAX_STREAMS; i++) {
		const struct hvt_vm_stream *s = vm->streams[i];
		char file[128];

		if (!s)
			continue;
		snprintf(file, sizeof(file), "%s/stream-%u", vm->traces[s->trace].dir, i);
		json_array_append_new(a, json_pack(
			"{s:i, s:i, s:s, s:i, s:i, s:I, s:I, s:I, s:I, s:b, s:I}", "id", (int)i,
			"trace", (int)s->trace, "file", file,
			"cpu", s->cpu == HVT_CTF_NO_CPU ? -1 : (int)s->cpu, "tid", (int)s->tid,
			"packets", (json_int_t)s->packets, "bytes", (json_int_t)s->bytes,
			"events", (json_int_t)s->events,
			"lost", (json_int_t)s->lost, "closed", s->closed_by_guest,
			"dropped_packets", (json_int_t)s->dropped));
	}
	return a;
}

static json_t *sync_json(const struct hvt_vm *vm)
{
	struct hvt_offset_estimate est;
	json_t *o = json_pack("{s:s, s:I, s:i, s:i, s:i, s:b}", "file", "sync.tsv",
			      "exchanges", (json_int_t)vm->sync_seq, "clock_changes",
			      (int)vm->resyncs, "clock_unsettled", (int)vm->resyncs_abandoned,
			      "params_sent", (int)vm->params_sent,
			      "params_exact", vm->params_exact);

	if (!hvt_offset_fit_result(&vm->fit, &est)) {
		json_object_set_new(o, "offset", json_integer(est.offset));
		json_object_set_new(o, "bound", est.bound == UINT64_MAX ? json_null() :
				    json_integer((json_int_t)est.bound));
		json_object_set_new(o, "consistent", json_boolean(est.consistent));
	}
	return o;
}

/* info.json's text as it stands (free it); NULL if out of memory. */
static char *info_text(struct hvt_vm *vm)
{
	char release[HVT_W_RELEASE_MAX + 1], *text;
	json_t *info;

	hvt_vm_sanitize(release, vm->hello.kernel_release, sizeof(vm->hello.kernel_release));
	info = json_pack("{s:s, s:i, s:s, s:{s:i, s:I, s:i, s:s}, s:o, s:o, s:o, s:I, s:b, s:s*}",
			 "name", vm->name, "qemu_pid", vm->qemu_pid, "accel", vm->accel,
			 "guest", "nr_cpus", (int)vm->hello.nr_cpus,
			 "tsc_khz", (json_int_t)vm->hello.tsc_khz,
			 "clock_flags", (int)vm->hello.clock_flags, "kernel_release", release,
			 "sync", sync_json(vm), "traces", traces_json(vm),
			 "streams", streams_json(vm),
			 "logs_dropped", (json_int_t)vm->logs_dropped,
			 "finished", vm->finished,
			 /* absent while the link lasts: nothing has ended yet */
			 "end_reason", vm->end_reason[0] ? vm->end_reason : NULL);
	if (!info)
		return NULL;
	text = hvt_vm_untraced_json(vm, info) ? NULL : json_dumps(info, JSON_INDENT(2));
	json_decref(info);
	return text;
}

/*
 * info.json rewritten here and on disk when this returns 0: every stream
 * it lists is then listed for good. A rewrite the thread had queued is
 * dropped (this one is newer); one it failed is said, and superseded by
 * this one if this one is written.
 */
static int write_info(struct hvt_vm *vm)
{
	char path[HVT_PATH_LEN], *text;
	int ret, err;

	hvt_replace_cancel(&vm->info_slot);
	err = hvt_replace_error(&vm->info_slot);
	if (err)
		hvt_warn("vm %s: a rewrite of info.json failed: %s; writing it again", vm->name,
			 strerror(err));
	text = info_text(vm);
	if (!text) {
		errno = ENOMEM;
		return -1;
	}
	ret = hvt_path(path, sizeof(path), "%s/info.json", vm->dir) ? -1 :
	      hvt_write_file_atomic(path, text, strlen(text));
	free(text);
	if (!ret) {
		unsigned int i;

		for (i = 0; i < HVT_VM_MAX_STREAMS; i++)
			if (vm->streams[i])
				vm->streams[i]->listed = true;
		vm->info_dirty = false;
	}
	return ret;
}

/* Trace @t's metadata brought up to date, if it lags. */
static int flush_metadata(struct hvt_vm *vm, struct hvt_vm_trace *t)
{
	int ret;

	if (!t->open || !t->metadata_dirty)
		return 0;
	ret = render_metadata(vm, t);
	if (ret == -2)
		return fail(vm, "byte quota of %llu exceeded (metadata of %s)",
			    (unsigned long long)vm->limits.byte_quota, t->dir);
	if (ret)
		return fail_io(vm, "cannot write the metadata of %s", t->dir);
	hvt_debug("vm %s: %s/metadata brought up to date (%u events, %llu bytes)",
		  vm->name, t->dir, t->registry.nr_events, (unsigned long long)t->metadata_bytes);
	t->metadata_dirty = false;
	return 0;
}

/* info.json rewritten now, whatever the tick queued: a new stream is listed on disk. */
static int list_streams(struct hvt_vm *vm)
{
	if (write_info(vm))
		return fail_io(vm, "cannot write info.json");
	hvt_debug("vm %s: info.json rewritten", vm->name);
	return 0;
}

/*
 * The tick's rewrite: queued for the thread, which supersedes one it has
 * not written yet. Its streams are not taken as listed (it is not on disk
 * yet): a new stream's first packet still waits for write_info(). A
 * failed rewrite is said at the next tick, as one of ours would be.
 */
static int queue_info(struct hvt_vm *vm)
{
	char path[HVT_PATH_LEN], *text;
	int err = hvt_replace_error(&vm->info_slot);

	if (err) {
		errno = err;
		return fail_io(vm, "cannot write info.json");
	}
	if (!vm->info_dirty)
		return 0;
	text = info_text(vm);
	if (text && !hvt_path(path, sizeof(path), "%s/info.json", vm->dir) &&
	    !hvt_replace_async(&vm->info_slot, path, text, strlen(text))) {
		vm->info_dirty = false;
		return 0;
	}
	free(text);
	return list_streams(vm);	/* cannot queue it: written here */
}

int hvt_vm_flush(struct hvt_vm *vm)
{
	unsigned int i;

	for (i = 0; i < HVT_VM_MAX_TRACES; i++)
		if (flush_metadata(vm, &vm->traces[i]))
			return -1;
	return queue_info(vm);
}

int hvt_vm_settle(struct hvt_vm *vm)
{
	return hvt_replace_wait(&vm->info_slot);
}

void hvt_vm_store_close(struct hvt_vm *vm)
{
	unsigned int i;

	for (i = 0; i < HVT_VM_MAX_STREAMS; i++)
		if (vm->streams[i] && vm->streams[i]->fd >= 0) {
			drop_pending(vm, i);
			fsync(vm->streams[i]->fd);
			close(vm->streams[i]->fd);
			vm->streams[i]->fd = -1;
		}
	/* Over the quota, events no stored packet uses stay undeclared. */
	for (i = 0; i < HVT_VM_MAX_TRACES; i++)
		if (vm->traces[i].open && vm->traces[i].metadata_dirty &&
		    render_metadata(vm, &vm->traces[i]) == -1)
			hvt_err("cannot write %s/%s/metadata: %s", vm->dir, vm->traces[i].dir,
				strerror(errno));
	for (i = 0; i < HVT_VM_MAX_TRACES; i++)
		if (vm->traces[i].open && vm->traces[i].registry_fd >= 0) {
			close(vm->traces[i].registry_fd);
			vm->traces[i].registry_fd = -1;
			hvt_registry_free(&vm->traces[i].registry);
		}
	if (vm->sync_tsv) {
		fclose(vm->sync_tsv);
		vm->sync_tsv = NULL;
	}
	if (write_info(vm))
		hvt_err("cannot write %s/info.json: %s", vm->dir, strerror(errno));
}

void hvt_vm_free(struct hvt_vm *vm)
{
	unsigned int i;

	hvt_replace_cancel(&vm->info_slot);	/* the thread is done with it */
	for (i = 0; i < HVT_VM_MAX_STREAMS; i++) {
		while (vm->streams[i] && vm->streams[i]->pending) {
			struct hvt_vm_pending *w = vm->streams[i]->pending;

			vm->streams[i]->pending = w->next;
			free(w);
		}
		free(vm->streams[i]);
		vm->streams[i] = NULL;
	}
	hvt_vm_untraced_free(vm);
}

json_t *hvt_vm_manifest_entry(const struct hvt_vm *vm)
{
	return json_pack("{s:s, s:s}", "name", vm->name, "dir", vm->rel);
}

void hvt_vm_summary(const struct hvt_vm *vm, FILE *out)
{
	uint64_t packets[3] = { 0 }, bytes[3] = { 0 }, lost[3] = { 0 };
	unsigned int i, streams[3] = { 0 };
	struct hvt_offset_estimate est;

	for (i = 0; i < HVT_VM_MAX_STREAMS; i++) {
		const struct hvt_vm_stream *s = vm->streams[i];
		uint32_t layer;

		if (!s)
			continue;
		layer = vm->traces[s->trace].layer;
		streams[layer]++;
		packets[layer] += s->packets;
		bytes[layer] += s->bytes;
		lost[layer] += s->lost;
	}
	if (vm->host_apps && !vm->finished && !vm->frames[HVT_W_HELLO])
		fprintf(out, "  host applications: NOT traced: %s\n", vm->end_reason);
	else if (vm->host_apps && !vm->finished)
		fprintf(out, "  host applications: traced until %s; those started after NOT "
			"traced\n", vm->end_reason);
	else if (vm->host_apps)
		fprintf(out, "  host applications: %s\n", vm->end_reason);
	else
		fprintf(out, "  vm %s (%s): %s\n", vm->name, vm->accel, vm->end_reason);
	for (i = vm->host_apps ? HVT_LAYER_USER : HVT_LAYER_KERNEL; i <= HVT_LAYER_USER; i++)
		fprintf(out, "    %-6s %u streams, %llu packets, %llu KiB, %llu events lost\n",
			i == HVT_LAYER_KERNEL ? "kernel" : "user", streams[i],
			(unsigned long long)packets[i], (unsigned long long)bytes[i] / 1024,
			(unsigned long long)lost[i]);
	if (vm->nr_untraced || hvt_vm_threads_untraced_total(vm))
		fprintf(out, "    untraced %llu processes, %llu threads (info.json)\n",
			(unsigned long long)vm->nr_untraced,
			(unsigned long long)hvt_vm_threads_untraced_total(vm));
	if (!hvt_offset_fit_result(&vm->fit, &est) && est.consistent && est.bounded)
		fprintf(out, "    sync   %llu exchanges, %s TSC - host TSC = %lld +/- %llu ticks%s\n",
			(unsigned long long)vm->sync_seq, vm->host_apps ? "agent" : "guest",
			(long long)est.offset,
			(unsigned long long)est.bound,
			vm->resyncs ? " (since the last clock change)" : "");
	else
		fprintf(out, "    sync   %llu exchanges, no consistent offset\n",
			(unsigned long long)vm->sync_seq);
	if (vm->resyncs || vm->params_sent)
		fprintf(out, "    clock  %u change%s seen, %u transform%s sent to the guest%s\n",
			vm->resyncs, vm->resyncs == 1 ? "" : "s", vm->params_sent,
			vm->params_sent == 1 ? "" : "s",
			vm->params_exact ? ", the last with KVM's own offset" : "");
}
