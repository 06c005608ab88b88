// SPDX-License-Identifier: GPL-2.0-only
/*
 * archive.c - the manifest, hvtrace.json, and the helpers every archive
 * reader shares (archive.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>

#include "lib/fileio.h"
#include "lib/log.h"
#include "tools/archive/archive.h"

const char *hvt_layer_name(enum hvt_layer layer)
{
	switch (layer) {
	case HVT_LAYER_HOST:
		return "host";
	case HVT_LAYER_KERNEL:
		return "kernel";
	case HVT_LAYER_USER:
		return "user";
	case HVT_LAYER_VMM:
		return "vmm";
	default:
		return "?";
	}
}

/*
 * Paths in the archive's JSON files are joined to the archive root: accept
 * only relative paths made of safe components (lib/names.h), so a damaged or
 * hostile file can never point outside the archive.
 */
int hvt_relpath_ok(const char *rel)
{
	const char *comp = rel, *slash;

	if (strlen(rel) > 255)
		return 0;
	while ((slash = strchr(comp, '/'))) {
		if (!hvt_path_component_ok(comp, (size_t)(slash - comp)))
			return 0;
		comp = slash + 1;
	}
	return hvt_path_component_ok(comp, strlen(comp));
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The canonical 8-4-4-4-12 form (hvt_uuid_format) or 32 bare hex digits. */
int hvt_uuid_parse(const char *text, __u8 uuid[HVT_UUID_LEN])
{
	size_t len = strlen(text), i, nibbles = 0;

	if (len != 36 && len != 32)
		return -1;
	for (i = 0; i < len; i++) {
		int v;

		if (len == 36 && (i == 8 || i == 13 || i == 18 || i == 23)) {
			if (text[i] != '-')
				return -1;
			continue;
		}
		v = hex_value(text[i]);
		if (v < 0)
			return -1;
		if (nibbles % 2 == 0)
			uuid[nibbles / 2] = (__u8)(v << 4);
		else
			uuid[nibbles / 2] |= (__u8)v;
		nibbles++;
	}
	return 0;	/* either length leaves exactly 32 digits */
}

/* Host ftrace sub-buffers: what the kernel allows for buffer_subbuf_size_kb. */
static int page_size_ok(json_int_t size)
{
	return size >= 4096 && size <= (1 << 20) && !(size & (size - 1));
}

static int parse_ftrace_cpus(struct hvt_archive *a, json_t *cpus, const char *dir)
{
	size_t i;

	if (!json_is_array(cpus) || json_array_size(cpus) > HVT_MAX_HOST_CPUS) {
		hvt_err("%s/hvtrace.json: host.ftrace.cpus is not an array of at most %d CPUs",
			a->root, HVT_MAX_HOST_CPUS);
		return -1;
	}
	a->cpus = calloc(json_array_size(cpus) + 1, sizeof(*a->cpus));
	if (!a->cpus)
		return -1;
	for (i = 0; i < json_array_size(cpus); i++) {
		struct hvt_ftrace_cpu_info *c = &a->cpus[a->nr_cpus];
		const char *file;
		json_int_t cpu, bytes = -1;
		json_error_t jerr;

		if (json_unpack_ex(json_array_get(cpus, i), &jerr, 0, "{s:I, s:s, s?I}",
				   "cpu", &cpu, "file", &file, "bytes", &bytes) ||
		    cpu < 0 || cpu >= HVT_MAX_HOST_CPUS || !hvt_relpath_ok(file) || bytes < -1) {
			char msg[160];
			const char *why = hvt_json_why(json_array_get(cpus, i), "cpu:I file:s",
						       msg, sizeof(msg));

			hvt_warn("%s/hvtrace.json: host.ftrace.cpus[%zu] is invalid (%s); skipping "
				 "that CPU", a->root, i, why ? why : "a value out of range");
			a->warnings++;
			continue;
		}
		c->cpu = (int)cpu;
		c->bytes = bytes;
		c->path = hvt_join(dir, file);
		if (!c->path)
			return -1;
		a->nr_cpus++;
	}
	return 0;
}

static int parse_ftrace(struct hvt_archive *a, json_t *ftrace)
{
	const char *dir;
	json_int_t page_size;
	json_t *cpus;
	json_error_t jerr;

	if (json_is_null(ftrace))
		return 0;	/* recorded with --no-host-trace */
	if (json_unpack_ex(ftrace, &jerr, 0, "{s:s, s:I, s:o}", "dir", &dir,
			   "page_size", &page_size, "cpus", &cpus)) {
		char msg[160];
		const char *why = hvt_json_why(ftrace, "dir:s page_size:I cpus:o", msg,
					       sizeof(msg));

		hvt_err("%s/hvtrace.json: host.ftrace: %s", a->root, why ? why : jerr.text);
		return -1;
	}
	if (!hvt_relpath_ok(dir) || !page_size_ok(page_size)) {
		hvt_err("%s/hvtrace.json: host.ftrace has an invalid dir or page_size", a->root);
		return -1;
	}
	a->page_size = (uint32_t)page_size;
	a->ftrace_dir = hvt_join(a->root, dir);
	if (!a->ftrace_dir)
		return -1;
	return parse_ftrace_cpus(a, cpus, a->ftrace_dir);
}

/*
 * vms[@i].vcpu_threads, if present: its tids. A malformed one is a warning
 * that leaves the VM without them (only the analysis needs them).
 */
static int parse_vcpu_threads(struct hvt_archive *a, struct hvt_vm_ref *v, size_t i,
			      json_t *vm)
{
	json_t *tids = json_object_get(json_object_get(vm, "vcpu_threads"), "tids");
	size_t n, k;

	if (!json_object_get(vm, "vcpu_threads"))
		return 0;
	n = json_array_size(tids);
	if (!json_is_array(tids) || n > HVT_MAX_VCPU_THREADS)
		goto bad;
	for (k = 0; k < n; k++) {
		json_t *t = json_array_get(tids, k);

		if (!json_is_integer(t) || json_integer_value(t) < 0 ||
		    json_integer_value(t) > INT32_MAX)
			goto bad;
	}
	v->vcpu_tids = calloc(n + 1, sizeof(*v->vcpu_tids));
	if (!v->vcpu_tids)
		return -1;
	for (k = 0; k < n; k++)
		v->vcpu_tids[k] = (int32_t)json_integer_value(json_array_get(tids, k));
	v->nr_vcpu_tids = n;
	return 0;
bad:
	hvt_warn("%s/hvtrace.json: vms[%zu].vcpu_threads.tids is not an array of at most %u "
		 "thread ids; the VM's vCPU threads are unknown", a->root, i, HVT_MAX_VCPU_THREADS);
	a->warnings++;
	return 0;
}

/*
 * vms[@i].qemu_log, if present: {"file": "qemu-trace.log", "bytes": N},
 * QEMU's log that record --qemu-log kept; its length, or -1. A malformed
 * one is a warning.
 */
static int64_t qemu_log_bytes(struct hvt_archive *a, size_t i, json_t *vm)
{
	json_t *log = json_object_get(vm, "qemu_log");
	const char *file;
	json_int_t bytes;

	if (!log)
		return -1;
	if (json_unpack(log, "{s:s, s:I}", "file", &file, "bytes", &bytes) ||
	    strcmp(file, "qemu-trace.log") || bytes < 0) {
		hvt_warn("%s/hvtrace.json: vms[%zu].qemu_log is not {\"file\": "
			 "\"qemu-trace.log\", \"bytes\": N}; ignored", a->root, i);
		a->warnings++;
		return -1;
	}
	return (int64_t)bytes;
}

static int parse_vms(struct hvt_archive *a, json_t *vms)
{
	size_t i, j;

	if (!json_is_array(vms)) {
		hvt_err("%s/hvtrace.json: \"vms\" is not an array", a->root);
		return -1;
	}
	a->vms = calloc(json_array_size(vms) + 1, sizeof(*a->vms));
	if (!a->vms)
		return -1;
	for (i = 0; i < json_array_size(vms); i++) {
		struct hvt_vm_ref *v = &a->vms[a->nr_vms];
		const char *name, *dir;
		json_error_t jerr;
		int dup = 0;

		if (json_unpack_ex(json_array_get(vms, i), &jerr, 0, "{s:s, s:s}",
				   "name", &name, "dir", &dir) ||
		    !hvt_vm_name_ok(name) || !hvt_relpath_ok(dir)) {
			char msg[160];
			const char *why = hvt_json_why(json_array_get(vms, i), "name:s dir:s", msg,
						       sizeof(msg));

			hvt_warn("%s/hvtrace.json: vms[%zu] is invalid (%s); skipping that VM",
				 a->root, i, why ? why : "a name or dir not allowed");
			a->warnings++;
			continue;
		}
		for (j = 0; j < a->nr_vms; j++)
			dup |= !strcmp(a->vms[j].name, name);
		if (dup) {
			hvt_warn("%s/hvtrace.json: VM %s listed twice; using the first", a->root, name);
			a->warnings++;
			continue;
		}
		snprintf(v->name, sizeof(v->name), "%s", name);
		v->dir = hvt_join(a->root, dir);
		if (!v->dir)
			return -1;
		v->qemu_log_bytes = qemu_log_bytes(a, i, json_array_get(vms, i));
		a->nr_vms++;
		if (parse_vcpu_threads(a, v, i, json_array_get(vms, i)))
			return -1;
	}
	return 0;
}

/*
 * host.apps, if present: {"dir": "host/apps", ...}, the host's own
 * applications, read as a VM's part is. A malformed one is a warning.
 */
static int parse_host_apps(struct hvt_archive *a, json_t *json)
{
	json_t *apps = json_object_get(json_object_get(json, "host"), "apps");
	const char *dir;

	if (!apps || json_is_null(apps))
		return 0;
	if (json_unpack(apps, "{s:s}", "dir", &dir) || !hvt_relpath_ok(dir)) {
		hvt_warn("%s/hvtrace.json: host.apps is invalid (no plain relative \"dir\"); "
			 "skipping the host's applications", a->root);
		a->warnings++;
		return 0;
	}
	snprintf(a->host_apps.name, sizeof(a->host_apps.name), "host");
	a->host_apps.host_apps = true;
	a->host_apps.dir = hvt_join(a->root, dir);
	return a->host_apps.dir ? 0 : -1;
}

/* Who writes the recording: the collector's pid and host, where the manifest says. */
static void manifest_collector(struct hvt_archive *a, json_t *json)
{
	json_t *pid = json_object_get(json, "collector_pid");
	const char *host = json_string_value(json_object_get(json, "hostname"));

	a->collector_pid = json_is_integer(pid) && json_integer_value(pid) > 0 ?
			   json_integer_value(pid) : 0;
	snprintf(a->hostname, sizeof(a->hostname), "%s", host ? host : "");
}

/* The manifest's fixed part; the caller owns @json. */
static int parse_manifest(struct hvt_archive *a, json_t *json, char **clock_pairs)
{
	const char *format, *status, *clock, *pairs;
	json_int_t version, freq = 0;
	json_t *ftrace, *vms;
	json_error_t jerr;
	char msg[160];

	if (json_unpack_ex(json, &jerr, 0, "{s:s, s:I, s:s, s:{s:s, s:s, s?I, s:o}, s:o}",
			   "format", &format, "version", &version, "status", &status,
			   "host", "clock", &clock, "clock_pairs", &pairs,
			   "tsc_freq_hz", &freq, "ftrace", &ftrace, "vms", &vms)) {
		const char *why = hvt_json_why(json, "format:s version:I status:s host:o "
					       "host.clock:s host.clock_pairs:s "
					       "?host.tsc_freq_hz:I host.ftrace:o vms:o",
					       msg, sizeof(msg));

		hvt_err("%s/hvtrace.json: %s", a->root, why ? why : jerr.text);
		return -1;
	}
	if (strcmp(format, "hvtrace-archive") || version != 1) {
		hvt_err("%s/hvtrace.json: not a version 1 hvtrace archive", a->root);
		return -1;
	}
	if (strcmp(clock, "x86-tsc")) {
		hvt_err("%s/hvtrace.json: host clock \"%s\" is not supported (only x86-tsc)",
			a->root, clock);
		return -1;
	}
	if (!hvt_relpath_ok(pairs)) {
		hvt_err("%s/hvtrace.json: invalid host.clock_pairs path", a->root);
		return -1;
	}
	a->complete = !strcmp(status, "complete");
	a->starting = !strcmp(status, "starting");
	a->failed = !strcmp(status, "failed");
	manifest_collector(a, json);
	a->tsc_freq_hz = freq > 0 ? (uint64_t)freq : 0;
	*clock_pairs = hvt_join(a->root, pairs);
	if (!*clock_pairs || parse_ftrace(a, ftrace) || parse_vms(a, vms) ||
	    parse_host_apps(a, json))
		return -1;
	return 0;
}

/* Reads and parses a JSON file of the archive; NULL (after an error) if it cannot. */
json_t *hvt_json_load(const char *path, const char *hint)
{
	json_error_t jerr;
	json_t *json = NULL;
	char *text = NULL;
	size_t len;

	if (hvt_read_file(path, HVT_JSON_MAX, &text, &len))
		hvt_err("cannot read %s: %s%s", path, hvt_file_strerror(errno), hint ? hint : "");
	else if (!(json = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr)))
		hvt_err("%s: line %d: %s", path, jerr.line, jerr.text);
	free(text);
	return json;
}

static int load_manifest(struct hvt_archive *a, char **clock_pairs)
{
	char *path = hvt_join(a->root, "hvtrace.json"), hint[4200];
	json_t *json;
	int ret = -1;

	if (!path)
		return -1;
	snprintf(hint, sizeof(hint), "; is %s an hvtrace archive?", a->root);
	json = hvt_json_load(path, hint);
	if (json)
		ret = parse_manifest(a, json, clock_pairs);
	json_decref(json);
	free(path);
	return ret;
}

/*
 * A recording that crashed within its first second has a single pair: the
 * host clock (clocksync/host_clock.h) is then a line of the manifest's
 * nominal frequency through it, if there is one. Whether the pairs define a
 * clock is hvt_host_clock_init()'s to say.
 */
static void note_pairs(struct hvt_archive *a, const char *path)
{
	if (a->nr_pairs != 1)
		return;
	if (a->tsc_freq_hz)
		hvt_warn("%s: a single clock pair; the host TSC's rate is only the manifest's "
			 "nominal frequency, %llu Hz", path, (unsigned long long)a->tsc_freq_hz);
	else
		hvt_warn("%s: a single clock pair, and the manifest has no tsc_freq_hz", path);
	a->warnings++;
}

/*
 * A folder of vm/ that the manifest does not list is recorded data no
 * reader will see (the manifest was edited, or its list damaged): said.
 */
static void note_unlisted_vms(struct hvt_archive *a)
{
	char *vm_dir = hvt_join(a->root, "vm");
	struct dirent *e;
	DIR *d = vm_dir ? opendir(vm_dir) : NULL;
	size_t i;

	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.' || (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN))
			continue;
		for (i = 0; i < a->nr_vms && strcmp(a->vms[i].name, e->d_name); i++)
			;
		if (i < a->nr_vms)
			continue;
		hvt_warn("%s/vm/%s: not in hvtrace.json's list of VMs, so not read (an edited or "
			 "damaged manifest?)", a->root, e->d_name);
		a->warnings++;
	}
	if (d)
		closedir(d);
	free(vm_dir);
}

/* Whether @name is a host CPU file's: cpuN.raw. */
static bool cpu_file_name(const char *name)
{
	size_t digits = strncmp(name, "cpu", 3) ? 0 : strspn(name + 3, "0123456789");

	return digits && !strcmp(name + 3 + digits, ".raw");
}

/* A host CPU file (cpuN.raw) of host/ftrace that hvtrace.json does not list: said. */
static void note_unlisted_cpus(struct hvt_archive *a)
{
	DIR *d = a->ftrace_dir && !a->starting ? opendir(a->ftrace_dir) : NULL;
	struct dirent *e;
	size_t i;

	while (d && (e = readdir(d))) {
		if (!cpu_file_name(e->d_name))
			continue;
		for (i = 0; i < a->nr_cpus && strcmp(strrchr(a->cpus[i].path, '/') + 1, e->d_name);
		     i++)
			;
		if (i < a->nr_cpus)
			continue;
		hvt_warn("%s/%s: not in hvtrace.json's list of host CPUs, so not read (an edited or "
			 "damaged manifest?)", a->ftrace_dir, e->d_name);
		a->warnings++;
		a->unlisted_cpus++;
	}
	if (d)
		closedir(d);
}

/* Each VM's exchanges are judged against the recording's host span (archive_vm.c). */
static void give_vms_span(struct hvt_archive *a)
{
	uint64_t lo, hi;
	size_t i;

	if (!hvt_archive_host_span(a, &lo, &hi))
		return;
	for (i = 0; i < a->nr_vms; i++) {
		a->vms[i].host_span = true;
		a->vms[i].host_lo = lo;
		a->vms[i].host_hi = hi;
	}
}

int hvt_archive_open(struct hvt_archive *a, const char *root)
{
	char *clock_pairs = NULL;

	memset(a, 0, sizeof(*a));
	a->root = strdup(root);
	if (!a->root)
		goto fail;
	if (load_manifest(a, &clock_pairs))
		goto fail;
	if (hvt_tsv_read_clock(clock_pairs, &a->pairs, &a->nr_pairs, &a->warnings))
		goto fail;
	note_pairs(a, clock_pairs);
	free(clock_pairs);
	give_vms_span(a);
	note_unlisted_vms(a);
	note_unlisted_cpus(a);
	if (hvt_archive_load_tasks(a)) {
		hvt_err("out of memory");
		hvt_archive_close(a);
		return -1;
	}
	return 0;
fail:
	free(clock_pairs);
	hvt_archive_close(a);
	return -1;
}

void hvt_archive_close(struct hvt_archive *a)
{
	size_t i;

	for (i = 0; i < a->nr_cpus; i++)
		free(a->cpus[i].path);
	for (i = 0; i < a->nr_vms; i++) {
		free(a->vms[i].dir);
		free(a->vms[i].vcpu_tids);
	}
	free(a->cpus);
	free(a->vms);
	free(a->host_apps.dir);
	free(a->pairs);
	free(a->ftrace_dir);
	free(a->host_tasks);
	free(a->root);
	memset(a, 0, sizeof(*a));
}

const char *hvt_archive_vm_list(const struct hvt_archive *a, char *buf, size_t len)
{
	size_t i, used;

	used = (size_t)snprintf(buf, len, "%s", a->nr_vms ? "its VMs: " : "it has no VM");
	for (i = 0; i < a->nr_vms && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
					 a->vms[i].name);
	return buf;
}

bool hvt_archive_touched_by(const char *root, const char *path)
{
	static const char *const parts[] = { "hvtrace.json", "host", "vm" };
	struct stat p, r;
	bool touched = !stat(path, &p) && !stat(root, &r) && p.st_dev == r.st_dev &&
		       p.st_ino == r.st_ino;
	size_t i;

	for (i = 0; !touched && i < sizeof(parts) / sizeof(parts[0]); i++) {
		char *part = hvt_join(root, parts[i]);

		touched = part && hvt_path_touches(path, part);
		free(part);
	}
	return touched;
}

static const char *json_kind(const json_t *j)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number with a fraction";
	case JSON_TRUE: case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

/* Whether @j is of @type (s, I, b, o); its name in *@want. */
static bool json_is_kind(const json_t *j, char type, const char **want)
{
	switch (type) {
	case 's': *want = "a string"; return json_is_string(j);
	case 'I': *want = "an integer"; return json_is_integer(j);
	case 'b': *want = "a boolean"; return json_is_boolean(j);
	default: *want = "anything"; return true;
	}
}

const char *hvt_json_why(json_t *obj, const char *spec, char *buf, size_t len)
{
	char key[64];
	const char *p = spec;

	while (*p) {
		size_t n = strcspn(p, " ");
		const char *colon = memchr(p, ':', n), *want, *k = key;
		bool optional = *p == '?';
		json_t *j = obj;
		char *dot;

		if (!colon || (size_t)(colon - p) >= sizeof(key))
			return NULL;	/* a bad spec: say nothing rather than wrong */
		memcpy(key, p + optional, (size_t)(colon - p) - optional);
		key[colon - p - optional] = '\0';
		for (dot = key; j && (dot = strchr(k, '.')); k = dot + 1) {
			*dot = '\0';
			j = json_object_get(j, k);
			*dot = '.';
		}
		j = j ? json_object_get(j, k) : NULL;
		if (!j && !optional) {
			snprintf(buf, len, "no \"%s\"", key);
			return buf;
		}
		if (j && !json_is_kind(j, colon[1], &want)) {
			snprintf(buf, len, "\"%s\" is %s, not %s", key, json_kind(j), want);
			return buf;
		}
		p += n;
		p += *p == ' ';
	}
	return NULL;
}

/* Whether @root's manifest is there and past "starting"; muted. */
static bool set_up(const char *root)
{
	char path[HVT_PATH_LEN];
	struct hvt_archive a;
	bool up;

	if (hvt_path(path, sizeof(path), "%s/hvtrace.json", root) || access(path, F_OK))
		return false;
	hvt_log_mute();
	up = !hvt_archive_open(&a, root);
	if (up) {
		up = !a.starting;
		hvt_archive_close(&a);
	}
	hvt_log_unmute();
	return up;
}

bool hvt_archive_wait_set_up(const char *root, int seconds, bool (*give_up)(void *ctx),
			     void *ctx)
{
	int i;

	for (i = 0; i < seconds * 10; i++) {
		if (set_up(root))
			return true;
		if (give_up && give_up(ctx))
			return false;
		if (!i)
			hvt_info("waiting for %s to be recorded", root);
		usleep(100000);
	}
	return set_up(root);
}

bool hvt_archive_host_span(const struct hvt_archive *a, uint64_t *lo, uint64_t *hi)
{
	const struct hvt_clock_pair *first, *last;
	double hz, margin;

	if (a->nr_pairs < 2)	/* before the pointers: pairs may be NULL */
		return false;
	first = a->pairs;
	last = a->pairs + a->nr_pairs - 1;
	if (last->mono_ns <= first->mono_ns || last->tsc <= first->tsc)
		return false;
	hz = (double)(last->tsc - first->tsc) * 1e9 / (double)(last->mono_ns - first->mono_ns);
	if (hz < 1e7 || hz > 1e11)
		return false;
	margin = hz * HVT_HOST_SPAN_MARGIN_S;
	*lo = (double)first->tsc > margin ? first->tsc - (uint64_t)margin : 0;
	*hi = a->complete && (double)(UINT64_MAX - last->tsc) > margin ?
	      last->tsc + (uint64_t)margin : UINT64_MAX;
	return true;
}
