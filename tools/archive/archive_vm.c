// SPDX-License-Identifier: GPL-2.0-only
/*
 * archive_vm.c - a VM's info.json and sync.tsv (docs/format.md,
 * "vm/NAME/info.json").
 *
 * A trace or stream entry that breaks a rule is skipped with a warning (with
 * the streams that belong to it), so one bad entry does not hide the rest.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <hvtrace/wire.h>

#include "lib/fileio.h"
#include "lib/log.h"
#include "tools/archive/archive.h"

/* "vm/NAME/@file" (or "host/apps/@file"), malloc'd: how messages name a file of the VM. */
static char *vm_rel(const struct hvt_vm_info *vm, const char *file)
{
	char *rel;

	if (asprintf(&rel, "%s%s/%s", vm->host_apps ? "host/" : "vm/",
		     vm->host_apps ? "apps" : vm->name, file) < 0)
		return NULL;
	return rel;
}

static void vm_warn_entry(struct hvt_vm_info *vm, const char *what, size_t i, const char *why)
{
	hvt_warn("%s/info.json: %s[%zu]: %s; skipping it", vm->dir, what, i, why);
	vm->warnings++;
}

/* Which member of an entry is missing or mistyped; one entry is judged at a time. */
static const char *member_why(json_t *j, const char *spec)
{
	static char msg[160];
	const char *why = hvt_json_why(j, spec, msg, sizeof(msg));

	return why ? why : "missing or mistyped members";
}

static const char *trace_fields(struct hvt_trace_info *t, json_t *j, const char **dir)
{
	const char *layer, *domain, *uuid, *comm = "";
	json_int_t id, pid = 0, freq = 0, untraced = 0;
	json_error_t jerr;

	/*
	 * freq_hz is informational (alignment works in ticks, from the
	 * exchanges); check compares the metadata with what it renders.
	 */
	if (json_unpack_ex(j, &jerr, 0, "{s:I, s:s, s:s, s:s, s:s, s?I, s?I, s?s, s?I}", "id", &id,
			   "layer", &layer, "dir", dir, "domain", &domain, "uuid", &uuid,
			   "pid", &pid, "freq_hz", &freq, "comm", &comm,
			   "untraced_threads", &untraced))
		return member_why(j, "id:I layer:s dir:s domain:s uuid:s ?pid:I ?freq_hz:I "
				  "?comm:s ?untraced_threads:I");
	if (freq < 0)
		return "freq_hz out of range";
	/* a count no collector writes: the most, so that check fails; the trace is kept */
	t->untraced_threads = untraced < 0 ? UINT64_MAX : (uint64_t)untraced;
	t->freq_hz = (uint64_t)freq;
	if (id < 0 || id >= HVT_MAX_TRACES)
		return "id out of range";
	if (!strcmp(layer, "kernel"))
		t->layer = HVT_LAYER_KERNEL;
	else if (!strcmp(layer, "user"))
		t->layer = HVT_LAYER_USER;
	else
		return "unknown layer";
	if (!strcmp(domain, "guest_tsc"))
		t->domain = HVT_DOMAIN_GUEST_TSC;
	else if (!strcmp(domain, "monotonic_raw"))
		t->domain = HVT_DOMAIN_MONOTONIC_RAW;
	else if (!strcmp(domain, "host_tsc"))
		t->domain = HVT_DOMAIN_TSC;
	else
		return "unknown clock domain";
	if (pid < 0 || pid > INT32_MAX)
		return "pid out of range";
	if (hvt_uuid_parse(uuid, t->uuid))
		return "invalid uuid";
	if (!hvt_relpath_ok(*dir))
		return "invalid dir";
	t->id = (uint32_t)id;
	t->pid = (uint32_t)pid;
	snprintf(t->comm, sizeof(t->comm), "%s", comm);	/* the guest's word: cut to size */
	return NULL;
}

static const struct hvt_trace_info *trace_by_id(const struct hvt_vm_info *vm, uint32_t id)
{
	size_t i;

	for (i = 0; i < vm->nr_traces; i++)
		if (vm->traces[i].id == id)
			return &vm->traces[i];
	return NULL;
}

static int parse_traces(struct hvt_vm_info *vm, json_t *traces)
{
	size_t i;

	if (!json_is_array(traces)) {
		hvt_err("%s/info.json: \"traces\" is not an array", vm->dir);
		return -1;
	}
	vm->traces = calloc(json_array_size(traces) + 1, sizeof(*vm->traces));
	if (!vm->traces)
		return -1;
	for (i = 0; i < json_array_size(traces); i++) {
		struct hvt_trace_info *t = &vm->traces[vm->nr_traces];
		const char *dir = NULL, *why;

		why = trace_fields(t, json_array_get(traces, i), &dir);
		if (!why && trace_by_id(vm, t->id))
			why = "duplicate id";
		if (why) {
			vm_warn_entry(vm, "traces", i, why);
			continue;
		}
		t->dir = hvt_join(vm->dir, dir);
		t->rel = vm_rel(vm, dir);
		if (!t->dir || !t->rel)
			return -1;
		if (t->untraced_threads == UINT64_MAX) {
			hvt_warn("%s/info.json: traces[%zu]: untraced_threads out of range; "
				 "counted as the most there can be", vm->dir, i);
			vm->warnings++;
		}
		vm->untraced_threads = vm->untraced_threads + t->untraced_threads < vm->untraced_threads ?
				       UINT64_MAX : vm->untraced_threads + t->untraced_threads;
		vm->nr_traces++;
	}
	return 0;
}

static const char *stream_fields(const struct hvt_vm_info *vm, struct hvt_stream_info *s,
				 json_t *j, const char **file)
{
	json_int_t id, trace, cpu = -1, tid = 0, packets = -1, bytes = -1, dropped = 0, events = -1;
	const struct hvt_trace_info *t;
	json_error_t jerr;
	size_t i;

	/*
	 * lost is informational: the packets carry what was lost; so is closed,
	 * which tells a follower (merge --follow) that no more will come (true
	 * only if it says so). packets and bytes are checked against the file
	 * (session/sources.c).
	 */
	if (json_unpack_ex(j, &jerr, 0, "{s:I, s:I, s:s, s?I, s?I, s?I, s?I, s?I, s?I}", "id", &id,
			   "trace", &trace, "file", file, "cpu", &cpu, "tid", &tid,
			   "packets", &packets, "bytes", &bytes, "dropped_packets", &dropped,
			   "events", &events))
		return member_why(j, "id:I trace:I file:s ?cpu:I ?tid:I ?packets:I ?bytes:I "
				  "?dropped_packets:I ?events:I");
	if (packets < -1 || bytes < -1 || dropped < 0 || events < -1)
		return "packets, bytes, events or dropped_packets out of range";
	if (id < 0 || id >= HVT_MAX_STREAMS)
		return "id out of range";
	if (cpu < -1 || cpu >= HVT_MAX_HOST_CPUS || tid < INT32_MIN || tid > INT32_MAX)
		return "cpu or tid out of range";
	if (!hvt_relpath_ok(*file))
		return "invalid file";
	if (trace < 0 || trace >= HVT_MAX_TRACES || !(t = trace_by_id(vm, (uint32_t)trace)))
		return "refers to an unknown or skipped trace";
	for (i = 0; i < vm->nr_streams; i++)
		if (vm->streams[i].id == (uint32_t)id)
			return "duplicate id";
	s->id = (uint32_t)id;
	s->trace = (size_t)(t - vm->traces);
	s->cpu = (int32_t)cpu;
	s->tid = (int32_t)tid;
	s->packets = packets;
	s->bytes = bytes;
	s->events = events;
	s->dropped_packets = dropped;
	s->closed = json_is_true(json_object_get(j, "closed"));
	return NULL;
}

static int parse_streams(struct hvt_vm_info *vm, json_t *streams)
{
	size_t i;

	if (!json_is_array(streams) || json_array_size(streams) > HVT_MAX_STREAMS) {
		hvt_err("%s/info.json: \"streams\" is not an array of at most %d streams",
			vm->dir, HVT_MAX_STREAMS);
		return -1;
	}
	vm->streams = calloc(json_array_size(streams) + 1, sizeof(*vm->streams));
	if (!vm->streams)
		return -1;
	for (i = 0; i < json_array_size(streams); i++) {
		struct hvt_stream_info *s = &vm->streams[vm->nr_streams];
		const char *file = NULL, *why;

		why = stream_fields(vm, s, json_array_get(streams, i), &file);
		if (why) {
			vm_warn_entry(vm, "streams", i, why);
			vm->streams_skipped++;
			continue;
		}
		s->path = hvt_join(vm->dir, file);
		s->rel = vm_rel(vm, file);
		if (!s->path || !s->rel)
			return -1;
		vm->nr_streams++;
	}
	return 0;
}

/* guest.nr_cpus, which only informs: 0 when absent or out of range. */
static void guest_cpus(struct hvt_vm_info *vm, json_t *json)
{
	json_t *n = json_object_get(json_object_get(json, "guest"), "nr_cpus");

	if (json_is_integer(n) && json_integer_value(n) > 0 &&
	    json_integer_value(n) <= HVT_W_MAX_CPUS)
		vm->nr_cpus = (size_t)json_integer_value(n);
}

/*
 * untraced_processes_total (absent before the collector counted them: 0),
 * at least as many as untraced_processes lists.
 */
static void untraced_processes(struct hvt_vm_info *vm, json_t *json)
{
	json_t *total = json_object_get(json, "untraced_processes_total");
	json_t *listed = json_object_get(json, "untraced_processes");
	size_t n = json_is_array(listed) ? json_array_size(listed) : 0;

	if (total && (!json_is_integer(total) || json_integer_value(total) < 0)) {
		hvt_warn("%s/info.json: untraced_processes_total is not a count; counting the "
			 "%zu listed", vm->dir, n);
		vm->warnings++;
		total = NULL;
	}
	vm->untraced_processes = total ? (uint64_t)json_integer_value(total) : 0;
	if (vm->untraced_processes < n)
		vm->untraced_processes = n;
}

static int parse_info(struct hvt_vm_info *vm, json_t *json, char **sync_path)
{
	const char *name, *sync_file, *end_reason = NULL, *accel = NULL;
	json_t *traces, *streams;
	json_error_t jerr;
	int finished = 0;

	if (json_unpack_ex(json, &jerr, 0, "{s:s, s:{s:s}, s:o, s:o, s?b, s?s, s?s}", "name",
			   &name, "sync", "file", &sync_file, "traces", &traces, "streams",
			   &streams, "finished", &finished, "end_reason", &end_reason, "accel",
			   &accel)) {
		char msg[160];
		const char *why = hvt_json_why(json, "name:s sync:o sync.file:s traces:o streams:o "
					       "?finished:b ?end_reason:s ?accel:s", msg,
					       sizeof(msg));

		hvt_err("%s/info.json: %s", vm->dir, why ? why : jerr.text);
		return -1;
	}
	if (strcmp(name, vm->name)) {
		hvt_warn("%s/info.json: names VM \"%s\", the manifest \"%s\"; using the manifest's",
			 vm->dir, hvt_vm_name_ok(name) ? name : "(invalid)", vm->name);
		vm->warnings++;
	}
	if (!hvt_relpath_ok(sync_file)) {
		hvt_err("%s/info.json: invalid sync.file", vm->dir);
		return -1;
	}
	vm->finished = finished;
	vm->sync_recorded = json_is_integer(json_object_get(json_object_get(json, "sync"),
							   "exchanges")) ?
			    json_integer_value(json_object_get(json_object_get(json, "sync"),
							       "exchanges")) : -1;
	guest_cpus(vm, json);
	untraced_processes(vm, json);
	vm->tcg = accel && !strcmp(accel, "tcg");
	vm->kvm = accel && !strcmp(accel, "kvm");
	if (end_reason && !(vm->end_reason = strdup(end_reason)))
		return -1;
	*sync_path = hvt_join(vm->dir, sync_file);
	if (!*sync_path || parse_traces(vm, traces) || parse_streams(vm, streams))
		return -1;
	return 0;
}

static int load_info(struct hvt_vm_info *vm, char **sync_path)
{
	char *path = hvt_join(vm->dir, "info.json");
	json_t *json;
	int ret = -1;

	if (!path)
		return -1;
	json = hvt_json_load(path, NULL);
	if (json)
		ret = parse_info(vm, json, sync_path);
	json_decref(json);
	free(path);
	return ret;
}

bool hvt_vm_info_host_only(const struct hvt_vm_info *vm)
{
	return !vm->nr_traces && vm->end_reason &&
	       !strncmp(vm->end_reason, "host layer only", strlen("host layer only"));
}

const char *hvt_vm_info_untraced_text(const struct hvt_vm_info *vm, char *buf, size_t len)
{
	uint64_t p = vm->untraced_processes, t = vm->untraced_threads;

	if (!p && !t)
		return NULL;
	snprintf(buf, len, "%" PRIu64 " process%s and %" PRIu64 " thread%s went untraced: their "
		 "events are in no stream (the agent's or the library's limits; info.json's "
		 "untraced_processes and traces' untraced_threads)", p, p == 1 ? "" : "es", t,
		 t == 1 ? "" : "s");
	return buf;
}

/* Whether @path is one of @vm's streams' files. */
static bool stream_listed(const struct hvt_vm_info *vm, const char *path)
{
	size_t i;

	for (i = 0; i < vm->nr_streams; i++)
		if (!strcmp(vm->streams[i].path, path))
			return true;
	return false;
}

/* Stream files in @dir (a trace's directory) that info.json does not list: said. */
static void note_unlisted_in(struct hvt_vm_info *vm, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char *path;

		if (strncmp(e->d_name, "stream-", 7))
			continue;
		path = hvt_join(dir, e->d_name);
		if (path && !stream_listed(vm, path) && vm->streams_skipped) {
			/* likely the file of a skipped entry: the same problem, counted once */
			hvt_warn("%s: not read either: no stream entry of info.json that could be "
				 "read names it (%zu skipped above)", path, vm->streams_skipped);
			vm->unlisted_files++;
		} else if (path && !stream_listed(vm, path)) {
			hvt_warn("%s: not in info.json's list of streams, so not read (an edited or "
				 "damaged info.json?)", path);
			vm->warnings++;
			vm->unlisted_files++;
		}
		free(path);
	}
	if (d)
		closedir(d);
}

/*
 * Recorded data no reader will see, in a finished VM's directory: stream
 * files info.json does not list, and trace directories (kernel, user-N) of
 * no trace it lists. While the guest traces, a stream's file comes before
 * its entry: not judged then.
 */
static void note_unlisted(struct hvt_vm_info *vm)
{
	DIR *d = vm->finished ? opendir(vm->dir) : NULL;
	struct dirent *e;
	size_t i;

	while (d && (e = readdir(d))) {
		char *dir;

		if (strcmp(e->d_name, "kernel") && strncmp(e->d_name, "user-", 5))
			continue;
		dir = hvt_join(vm->dir, e->d_name);
		for (i = 0; dir && i < vm->nr_traces && strcmp(vm->traces[i].dir, dir); i++)
			;
		if (dir && i == vm->nr_traces) {
			hvt_warn("%s: not in info.json's list of traces, so not read (an edited or "
				 "damaged info.json?)", dir);
			vm->warnings++;
			vm->unlisted_files++;
		} else if (dir) {
			note_unlisted_in(vm, dir);
		}
		free(dir);
	}
	if (d)
		closedir(d);
}

static const char *const impossible_sync_why[] = {
	"outside the recording's host time",
	"on a guest CPU the guest does not have",
};

/*
 * Whether exchange @r could have been made in this recording (@ref's span,
 * the guest's CPUs): -1 if so, else the index of the reason it could not.
 */
static int impossible_sync(const struct hvt_vm_info *vm, const struct hvt_vm_ref *ref,
			   const struct hvt_sync_rec *r)
{
	if (ref->host_span && (r->ex.host_send < ref->host_lo || r->ex.host_recv > ref->host_hi))
		return 0;
	if (vm->nr_cpus && (r->cpu_recv >= vm->nr_cpus || r->cpu_send >= vm->nr_cpus))
		return 1;
	return -1;
}

/*
 * Exchanges no clock of this recording could have made are damage: kept,
 * they would pull the fit anywhere (every guest event placed at one
 * instant, a clock change that never was). Skipped, with a warning per kind.
 */
static size_t drop_impossible_sync(struct hvt_vm_info *vm, const struct hvt_vm_ref *ref)
{
	size_t i, kept = 0, dropped[2] = { 0, 0 };
	uint64_t first_seq[2] = { 0, 0 };
	int k;

	for (i = 0; i < vm->nr_sync; i++) {
		k = impossible_sync(vm, ref, &vm->sync[i]);
		if (k < 0)
			vm->sync[kept++] = vm->sync[i];
		else if (!dropped[k]++)
			first_seq[k] = vm->sync[i].seq;
	}
	for (k = 0; k < 2; k++)
		if (dropped[k]) {
			hvt_warn("%s/sync.tsv: %zu exchange%s %s (the first: exchange %" PRIu64
				 "); skipped as damage", vm->dir, dropped[k],
				 dropped[k] == 1 ? "" : "s", impossible_sync_why[k], first_seq[k]);
			vm->sync_warnings++;
		}
	vm->nr_sync = kept;
	return dropped[0] + dropped[1];
}

int hvt_vm_info_load(struct hvt_vm_info *vm, const struct hvt_vm_ref *ref)
{
	char *sync_path = NULL;

	memset(vm, 0, sizeof(*vm));
	snprintf(vm->name, sizeof(vm->name), "%s", ref->name);
	vm->host_apps = ref->host_apps;
	if (!ref->dir) {
		/* a KVM guest beside a host trace.dat (merge --guest-trace): a name only */
		vm->kvm = true;
		vm->finished = true;
		return 0;
	}
	vm->dir = strdup(ref->dir);
	if (!vm->dir || load_info(vm, &sync_path))
		goto fail;
	note_unlisted(vm);
	/* Without exchanges the VM cannot be aligned, but it is still described. */
	if (hvt_tsv_read_sync(sync_path, &vm->sync, &vm->nr_sync, &vm->sync_warnings))
		vm->sync_warnings++;
	/* rows dropped as damage were said: not said missing too */
	else if (!drop_impossible_sync(vm, ref) &&
		 vm->sync_recorded > (int64_t)vm->nr_sync + (int64_t)vm->sync_warnings) {
		/* lines gone, not damaged (those were said): cut short or trimmed since */
		hvt_warn("%s/sync.tsv: %zu exchanges, where info.json records %" PRId64 ": %" PRId64
			 " are missing (cut short or trimmed); the clock is aligned with fewer",
			 vm->dir, vm->nr_sync, vm->sync_recorded,
			 vm->sync_recorded - (int64_t)vm->nr_sync);
		vm->sync_warnings++;
	}
	free(sync_path);
	return 0;
fail:
	free(sync_path);
	hvt_vm_info_free(vm);
	return -1;
}

void hvt_vm_info_free(struct hvt_vm_info *vm)
{
	size_t i;

	for (i = 0; i < vm->nr_traces; i++) {
		free(vm->traces[i].dir);
		free(vm->traces[i].rel);
	}
	for (i = 0; i < vm->nr_streams; i++) {
		free(vm->streams[i].path);
		free(vm->streams[i].rel);
	}
	free(vm->traces);
	free(vm->streams);
	free(vm->sync);
	free(vm->end_reason);
	free(vm->dir);
	memset(vm, 0, sizeof(*vm));
}

static ssize_t stream_by_id(const struct hvt_vm_info *vm, uint32_t id)
{
	size_t i;

	for (i = 0; i < vm->nr_streams; i++)
		if (vm->streams[i].id == id)
			return (ssize_t)i;
	return -1;
}

/* Appends @fresh's traces that @vm does not have, taking their strings. */
static int add_traces(struct hvt_vm_info *vm, struct hvt_vm_info *fresh)
{
	size_t i;

	for (i = 0; i < fresh->nr_traces; i++) {
		struct hvt_trace_info *grown;

		if (trace_by_id(vm, fresh->traces[i].id))
			continue;
		grown = realloc(vm->traces, (vm->nr_traces + 1) * sizeof(*grown));
		if (!grown)
			return -1;
		vm->traces = grown;
		vm->traces[vm->nr_traces++] = fresh->traces[i];
		fresh->traces[i].dir = fresh->traces[i].rel = NULL;
	}
	return 0;
}

/* Appends @fresh's new streams (their trace index @vm's), updates the others' counts. */
static int add_streams(struct hvt_vm_info *vm, struct hvt_vm_info *fresh)
{
	size_t i;

	for (i = 0; i < fresh->nr_streams; i++) {
		struct hvt_stream_info *si = &fresh->streams[i], *grown;
		ssize_t have = stream_by_id(vm, si->id);
		const struct hvt_trace_info *t = trace_by_id(vm, fresh->traces[si->trace].id);

		if (have >= 0) {
			vm->streams[have].packets = si->packets;
			vm->streams[have].bytes = si->bytes;
			vm->streams[have].events = si->events;
			vm->streams[have].dropped_packets = si->dropped_packets;
			vm->streams[have].closed = si->closed;
			continue;
		}
		grown = realloc(vm->streams, (vm->nr_streams + 1) * sizeof(*grown));
		if (!grown)
			return -1;
		vm->streams = grown;
		vm->streams[vm->nr_streams] = *si;
		vm->streams[vm->nr_streams++].trace = (size_t)(t - vm->traces);
		si->path = si->rel = NULL;
	}
	return 0;
}

int hvt_vm_info_update(struct hvt_vm_info *vm, struct hvt_vm_info *fresh)
{
	struct hvt_sync_rec *sync = fresh->sync;
	char *end_reason = fresh->end_reason;

	if (add_traces(vm, fresh) || add_streams(vm, fresh)) {
		hvt_vm_info_free(fresh);
		return -1;
	}
	fresh->sync = vm->sync;
	vm->sync = sync;
	vm->nr_sync = fresh->nr_sync;
	vm->sync_warnings = fresh->sync_warnings;
	fresh->end_reason = vm->end_reason;
	vm->end_reason = end_reason;
	vm->finished = fresh->finished;
	vm->nr_cpus = fresh->nr_cpus;
	vm->warnings = fresh->warnings;
	hvt_vm_info_free(fresh);
	return 0;
}
