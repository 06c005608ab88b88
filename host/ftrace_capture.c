// SPDX-License-Identifier: GPL-2.0-only
/*
 * ftrace_capture.c - see ftrace_capture.h. Pages are spliced, not parsed:
 * the host does no per-event work; the merger decodes them offline.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <tracefs.h>

#include "host/ftrace_capture.h"
#include "lib/clock_now.h"
#include "lib/fileio.h"
#include "lib/log.h"

#define BUFFER_KB_PER_CPU "4096"
#define HVT_CAPTURE_PARTIAL_MS	250	/* a quiet CPU's events are saved this often */

/* The pid of the collector that made instance @name if it is gone, else 0. */
static int stale_owner(const char *name)
{
	int pid;

	if (sscanf(name, "hvtrace-%d", &pid) != 1 || pid <= 0 || kill(pid, 0) == 0 ||
	    errno != ESRCH)
		return 0;
	return pid;
}

static int say_if_stale(const char *name, void *ctx)
{
	int pid = stale_owner(name);

	if (pid) {
		fprintf(ctx, "tracefs instance %s: left by collector pid %d, which is gone; it may "
			"still be tracing; the next hvtrace record removes it\n", name, pid);
		fflush(ctx);
	}
	return 0;
}

void hvt_capture_list_stale(FILE *out)
{
	tracefs_instances_walk(say_if_stale, out);
}

static int remove_if_stale(const char *name, void *ctx)
{
	struct tracefs_instance *inst;

	(void)ctx;
	if (!stale_owner(name))
		return 0;
	inst = tracefs_instance_alloc(NULL, name);
	if (inst) {
		hvt_info("removing tracefs instance %s left by a collector that died", name);
		tracefs_instance_destroy(inst);
		tracefs_instance_free(inst);
	}
	return 0;
}

void hvt_capture_remove_stale(void)
{
	tracefs_instances_walk(remove_if_stale, NULL);
}

static int save_file(const char *dir, const char *rel, const char *content, size_t len)
{
	char path[HVT_PATH_LEN], parent[HVT_PATH_LEN], *slash;

	if (hvt_path(path, sizeof(path), "%s/%s", dir, rel))
		return -1;
	strcpy(parent, path);
	slash = strrchr(parent, '/');
	*slash = '\0';
	if (hvt_mkdir_p(parent))
		return -1;
	return hvt_write_file_atomic(path, content, len);
}

/*
 * Copies file @rel of the top-level tracefs (formats are shared by
 * instances) to @dir/@dst.
 */
static int save_tracefs_file(const char *dir, const char *rel, const char *dst)
{
	int size = 0;
	char *content = tracefs_instance_file_read(NULL, rel, &size);
	int ret;

	if (!content)
		return -1;
	ret = save_file(dir, dst, content, (size_t)size);
	free(content);
	return ret;
}

int hvt_capture_event_ok(const char *spec, char *err, size_t errlen)
{
	const char *colon = strchr(spec, ':');

	if (!colon || colon == spec || !colon[1] || (size_t)(colon - spec) >= HVT_CAPTURE_SYS_MAX ||
	    strchr(colon + 1, '/') || strchr(colon + 1, ':') || strchr(spec, '/')) {
		snprintf(err, errlen, "bad event '%s': expected SYSTEM:EVENT", spec);
		return -1;
	}
	if (strpbrk(spec, "*?[]^$.+(){}|\\")) {	/* tracefs would take them as a regex */
		snprintf(err, errlen, "'%s': name each event, SYSTEM:EVENT; patterns are not "
			 "taken", spec);
		return -1;
	}
	return 0;
}

int hvt_capture_event_exists(const char *spec, char *err, size_t errlen)
{
	char sys[HVT_CAPTURE_SYS_MAX];
	const char *colon = strchr(spec, ':'), *dir;

	memcpy(sys, spec, (size_t)(colon - spec));
	sys[colon - spec] = '\0';
	if (tracefs_tracing_dir_is_mounted(true, &dir) < 0 || !dir)
		return 0;
	if (tracefs_event_file_exists(NULL, sys, colon + 1, "format"))
		return 0;
	snprintf(err, errlen, "the host has no event %s (no %s/events/%s/%s; `ls %s/events` "
		 "lists the systems)", spec, dir, sys, colon + 1, dir);
	return -1;
}

static int enable_event(struct hvt_capture *ft, const char *spec, char *err, size_t errlen)
{
	char sys[HVT_CAPTURE_SYS_MAX], rel[300];
	const char *colon = strchr(spec, ':');

	if (hvt_capture_event_ok(spec, err, errlen))
		return -1;
	memcpy(sys, spec, (size_t)(colon - spec));
	sys[colon - spec] = '\0';
	if (tracefs_event_enable(ft->instance, sys, colon + 1)) {
		snprintf(err, errlen, "cannot enable host event %s (does %s/events/%s/%s exist?)",
			 spec, tracefs_tracing_dir(), sys, colon + 1);
		return -1;
	}
	snprintf(rel, sizeof(rel), "events/%s/%s/format", sys, colon + 1);
	if (save_tracefs_file(ft->dir, rel, rel)) {
		snprintf(err, errlen, "cannot save the format of %s: %s", spec, strerror(errno));
		return -1;
	}
	ft->events[ft->nr_events++] = strdup(spec);
	return 0;
}

/*
 * As many of @pids as fit in @buf (space separated, NUL terminated); how
 * many. A pid takes at most 11 bytes, so at least one always fits.
 */
static size_t pid_list(const pid_t *pids, size_t n, char *buf, size_t size)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		int w = snprintf(buf + off, size - off, "%s%d", i ? " " : "", (int)pids[i]);

		if (w < 0 || (size_t)w >= size - off) {
			buf[off] = '\0';
			break;
		}
		off += (size_t)w;
	}
	return i;
}

/* Appends @pids to set_event_pid a page at a time: any number of threads. */
int hvt_capture_add_pids(struct hvt_capture *ft, const pid_t *pids, size_t n)
{
	char buf[4096];

	while (n) {
		size_t done = pid_list(pids, n, buf, sizeof(buf));

		if (!done || tracefs_instance_file_append(ft->instance, "set_event_pid", buf) < 0)
			return -1;
		pids += done;
		n -= done;
	}
	return 0;
}

static int open_cpus(struct hvt_capture *ft, char *err, size_t errlen)
{
	int cpu;

	ft->nr_cpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	ft->cpu = calloc((size_t)ft->nr_cpus, sizeof(*ft->cpu));
	if (!ft->cpu) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (cpu = 0; cpu < ft->nr_cpus; cpu++)
		ft->cpu[cpu].fd = -1;
	for (cpu = 0; cpu < ft->nr_cpus; cpu++) {
		struct hvt_capture_cpu *c = &ft->cpu[cpu];
		char path[HVT_PATH_LEN];

		c->tcpu = tracefs_cpu_open(ft->instance, cpu, true);
		if (!c->tcpu)
			continue;	/* offline CPU */
		if (!ft->page_size)
			ft->page_size = tracefs_cpu_read_size(c->tcpu);
		if (hvt_path(path, sizeof(path), "%s/cpu%d.raw", ft->dir, cpu) ||
		    (c->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0) {
			snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
			return -1;
		}
		c->present = true;
	}
	return 0;
}

static int setup_instance(struct hvt_capture *ft, char *err, size_t errlen)
{
	char *clocks;

	/* Mounts it if need be; tracefs_tracing_dir_is_mounted() leaks its path. */
	if (!tracefs_tracing_dir()) {
		snprintf(err, errlen, "tracefs is not mounted and could not be mounted "
			 "(mount -t tracefs nodev /sys/kernel/tracing)");
		return -1;
	}
	snprintf(ft->name, sizeof(ft->name), "hvtrace-%d", (int)getpid());
	ft->instance = tracefs_instance_create(ft->name);
	if (!ft->instance) {
		snprintf(err, errlen, "cannot create tracefs instance %s: %s", ft->name,
			 strerror(errno));
		return -1;
	}
	clocks = tracefs_instance_file_read(ft->instance, "trace_clock", NULL);
	if (!clocks || !strstr(clocks, "x86-tsc")) {
		free(clocks);
		snprintf(err, errlen, "this kernel has no x86-tsc trace clock");
		return -1;
	}
	free(clocks);
	if (tracefs_instance_file_write(ft->instance, "trace_clock", "x86-tsc") < 0 ||
	    tracefs_instance_file_write(ft->instance, "buffer_size_kb", BUFFER_KB_PER_CPU) < 0 ||
	    tracefs_trace_off(ft->instance)) {
		snprintf(err, errlen, "cannot configure tracefs instance %s: %s", ft->name,
			 strerror(errno));
		return -1;
	}
	return 0;
}

int hvt_capture_start(struct hvt_capture *ft, const char *dir, char *const *events,
		     int nr_events, const pid_t *pids, size_t nr_pids, char *err, size_t errlen)
{
	int i;

	memset(ft, 0, sizeof(*ft));
	if (hvt_path(ft->dir, sizeof(ft->dir), "%s", dir) || hvt_mkdir_p(ft->dir)) {
		snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	if (nr_events > HVT_FTRACE_MAX_EVENTS) {
		snprintf(err, errlen, "at most %d host events", HVT_FTRACE_MAX_EVENTS);
		return -1;
	}
	if (setup_instance(ft, err, errlen))
		goto fail;
	if (save_tracefs_file(ft->dir, "events/header_page", "header_page") ||
	    save_tracefs_file(ft->dir, "events/header_event", "header_event")) {
		snprintf(err, errlen, "cannot save the ring buffer headers: %s", strerror(errno));
		goto fail;
	}
	if (nr_pids && hvt_capture_add_pids(ft, pids, nr_pids)) {
		snprintf(err, errlen, "cannot filter host events to the VM's threads");
		goto fail;
	}
	for (i = 0; i < nr_events; i++)
		if (enable_event(ft, events[i], err, errlen))
			goto fail;
	if (open_cpus(ft, err, errlen))
		goto fail;
	if (tracefs_trace_on(ft->instance)) {
		snprintf(err, errlen, "cannot start tracing in %s", ft->name);
		goto fail;
	}
	if (hvt_task_list_scan(&ft->tasks, "/proc"))
		hvt_warn("cannot list the host's threads in /proc: %s; merge --pid will not know "
			 "their processes", strerror(errno));
	return 0;
fail:
	hvt_capture_stop(ft);
	return -1;
}

/*
 * The first failure to save a CPU's pages: the file is cut back to the pages
 * saved whole (a short write before the error included), and that CPU is
 * saved no more.
 */
static void save_failed(const struct hvt_capture *ft, struct hvt_capture_cpu *c, int cpu)
{
	c->error = errno;
	if (ft->page_size > 0)
		c->bytes -= c->bytes % (uint64_t)ft->page_size;
	hvt_warn("host CPU %d: cannot save ftrace pages: %s; its host events after %llu "
		 "bytes are lost", cpu, strerror(c->error), (unsigned long long)c->bytes);
	if (ftruncate(c->fd, (off_t)c->bytes))
		hvt_warn("host CPU %d: cannot trim a partial page: %s", cpu, strerror(errno));
}

/*
 * A CPU that filled no page for HVT_CAPTURE_PARTIAL_MS: its events so far
 * as a partial page (a read of trace_pipe_raw, which takes the events of
 * the page being written), so that a follower of the recording (merge
 * --follow) sees a quiet CPU's events within that time, not when its page
 * fills. At most one page per CPU per period.
 */
static void save_partial(struct hvt_capture *ft, struct hvt_capture_cpu *c, int cpu,
			 int64_t now)
{
	int n;

	if (now - c->saved_ns < (int64_t)HVT_CAPTURE_PARTIAL_MS * 1000000)
		return;
	c->saved_ns = now;
	n = tracefs_cpu_flush_write(c->tcpu, c->fd);
	if (n > 0)
		c->bytes += (uint64_t)n;
	else if (n < 0 && errno != EAGAIN && errno != EINTR)
		save_failed(ft, c, cpu);
}

void hvt_capture_pump(struct hvt_capture *ft)
{
	int64_t now = hvt_monotonic_ns();
	int cpu;

	for (cpu = 0; ft->cpu && cpu < ft->nr_cpus; cpu++) {
		struct hvt_capture_cpu *c = &ft->cpu[cpu];
		uint64_t before = c->bytes;
		int n;

		if (!c->tcpu || c->error)
			continue;
		while ((n = tracefs_cpu_write(c->tcpu, c->fd, true)) > 0)
			c->bytes += (uint64_t)n;
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			save_failed(ft, c, cpu);
		else if (c->bytes != before)
			c->saved_ns = now;
		else
			save_partial(ft, c, cpu, now);
	}
}

/*
 * The threads listed at the start and those started since that are still
 * there, in tasks.tsv; once, and only for a capture that started.
 */
static void save_tasks(struct hvt_capture *ft)
{
	char path[HVT_PATH_LEN];

	if (!ft->tasks.n)
		return;
	if (hvt_task_list_scan(&ft->tasks, "/proc"))
		hvt_warn("cannot list the host's threads in /proc at the end: %s; merge --pid "
			 "knows those of the start only", strerror(errno));
	if (hvt_path(path, sizeof(path), "%s/tasks.tsv", ft->dir) ||
	    hvt_task_list_write(&ft->tasks, path))
		hvt_warn("cannot write %s/tasks.tsv: %s; merge --pid will not know the host "
			 "threads' processes", ft->dir, strerror(errno));
	hvt_task_list_free(&ft->tasks);
}

void hvt_capture_stop(struct hvt_capture *ft)
{
	int cpu;

	if (ft->instance)
		tracefs_trace_off(ft->instance);
	hvt_capture_pump(ft);
	for (cpu = 0; ft->cpu && cpu < ft->nr_cpus; cpu++) {
		struct hvt_capture_cpu *c = &ft->cpu[cpu];
		int n = 0;

		if (c->tcpu && !c->error) {
			while ((n = tracefs_cpu_flush_write(c->tcpu, c->fd)) > 0)
				c->bytes += (uint64_t)n;
			if (n < 0)
				save_failed(ft, c, cpu);
		}
		if (c->tcpu)
			tracefs_cpu_close(c->tcpu);
		c->tcpu = NULL;
		if (c->fd >= 0 && (fsync(c->fd) || close(c->fd)))
			hvt_warn("cannot save host CPU %d data: %s", cpu, strerror(errno));
		c->fd = -1;
	}
	if (ft->instance) {
		tracefs_instance_destroy(ft->instance);
		tracefs_instance_free(ft->instance);
		ft->instance = NULL;
	}
	save_tasks(ft);
}

void hvt_capture_free(struct hvt_capture *ft)
{
	int i;

	for (i = 0; i < ft->nr_events; i++)
		free(ft->events[i]);
	ft->nr_events = 0;
	free(ft->cpu);
	ft->cpu = NULL;
	hvt_task_list_free(&ft->tasks);
}

json_t *hvt_capture_manifest(const struct hvt_capture *ft, const pid_t *pids, size_t nr_pids)
{
	json_t *o = json_object(), *events = json_array(), *jpids = json_array();
	json_t *cpus = json_array();
	size_t i;
	int cpu;

	for (i = 0; i < (size_t)ft->nr_events; i++)
		json_array_append_new(events, json_string(ft->events[i]));
	for (i = 0; i < nr_pids; i++)
		json_array_append_new(jpids, json_integer(pids[i]));
	for (cpu = 0; ft->cpu && cpu < ft->nr_cpus; cpu++) {
		const struct hvt_capture_cpu *c = &ft->cpu[cpu];
		json_t *entry;
		char file[32];

		if (!c->present)
			continue;
		snprintf(file, sizeof(file), "cpu%d.raw", cpu);
		entry = json_pack("{s:i, s:s, s:I}", "cpu", cpu, "file", file,
				  "bytes", (json_int_t)c->bytes);
		if (c->error)
			json_object_set_new(entry, "error", json_string(strerror(c->error)));
		json_array_append_new(cpus, entry);
	}
	json_object_set_new(o, "dir", json_string("host/ftrace"));
	json_object_set_new(o, "instance", json_string(ft->name));
	json_object_set_new(o, "page_size", json_integer(ft->page_size));
	json_object_set_new(o, "events", events);
	json_object_set_new(o, "pids", jpids);
	json_object_set_new(o, "cpus", cpus);
	return o;
}
