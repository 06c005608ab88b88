// SPDX-License-Identifier: GPL-2.0-only
/*
 * recorder.c - one recording: the host layer, every VM's target, a listener
 * for guests that connect, libvirt domains that start later (--all), in one
 * event loop with a 100 ms tick. The archive is consistent at every moment
 * (docs/format.md, "Crash safety"); stopping only completes it.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <tracefs.h>
#include <hvtrace/app_proto.h>

#include "host/qmp.h"
#include "host/recorder.h"
#include "lib/evloop.h"
#include "lib/fileio.h"
#include "lib/log.h"
#include "lib/priority.h"
#include "lib/names.h"

#define TICK_MS			100
/*
 * The host layer is drained more often than the rest: at 1 M events/s on
 * one CPU (about 58 MB/s) its buffer fills in under 100 ms.
 */
#define PUMP_MS			20
#define STOP_GRACE_S		15
#define LIBVIRT_POLL_TICKS	20	/* --all looks for new domains every 2 s */

void hvt_record_opts_init(struct hvt_record_opts *o)
{
	*o = (struct hvt_record_opts){
		.host_trace = true,
		.guest_timeout_s = 120,
		.nice = HVT_CONSUMER_NICE,
		.limits = { .sync_interval_ms = 100, .byte_quota = 16ull << 30,
			    .max_streams = HVT_VM_MAX_STREAMS, .rate = 0,
			    .stall_timeout_s = 120 },
	};
}

static bool libvirt_mode(const struct hvt_record_opts *o)
{
	return !o->channel && !o->listen && !o->qemu_pid;
}

/* A name no target has yet: @base, else @base-2, -3, ... */
static void unique_name(const struct hvt_recorder *r, const char *base, char *out, size_t size)
{
	unsigned int n, i;

	for (n = 1;; n++) {
		bool taken = false;

		if (n == 1)
			snprintf(out, size, "%s", base);
		else
			snprintf(out, size, "%.*s-%u", HVT_VM_NAME_MAX - 11, base, n);
		for (i = 0; i < r->nr_targets && !taken; i++)
			taken = !strcmp(r->targets[i]->vm.name, out);
		if (!taken)
			return;
	}
}

static struct hvt_target *add_target(struct hvt_recorder *r, const struct hvt_target_config *c)
{
	struct hvt_target *t;
	char err[512];

	if (r->nr_targets == HVT_REC_MAX_TARGETS) {
		hvt_err("VM %s: a recording holds at most %d VMs", c->name, HVT_REC_MAX_TARGETS);
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		hvt_err("VM %s: out of memory", c->name);
		return NULL;
	}
	if (hvt_target_open(t, &r->archive, c, err, sizeof(err))) {
		hvt_err("%s", err);
		hvt_target_free(t);
		free(t);
		return NULL;
	}
	r->targets[r->nr_targets++] = t;
	return t;
}

/*
 * Every thread the host layer follows, the QEMU threads of every VM and the
 * host applications' threads, into
 * *@tids (malloc'd, with room for one more); how many, or -1 if out of memory.
 */
static ssize_t all_tids(const struct hvt_recorder *r, pid_t **tids)
{
	size_t n = 0, j;
	unsigned int i;

	for (i = 0; i < r->nr_targets; i++)
		n += r->targets[i]->qemu.nr_tids;
	n += hvt_host_apps_threads(&r->apps, NULL);
	*tids = malloc((n + 1) * sizeof(pid_t));
	if (!*tids)
		return -1;
	n = 0;
	for (i = 0; i < r->nr_targets; i++)
		for (j = 0; j < r->targets[i]->qemu.nr_tids; j++)
			(*tids)[n++] = r->targets[i]->qemu.tids[j];
	n += hvt_host_apps_threads(&r->apps, *tids + n);
	return (ssize_t)n;
}

static void write_manifest(struct hvt_recorder *r, const char *status)
{
	json_t *vms = json_array(), *ft = NULL, *apps = hvt_host_apps_manifest(&r->apps);
	pid_t *tids = NULL;
	ssize_t n = all_tids(r, &tids);
	unsigned int i;

	if (r->ftrace_on)
		ft = hvt_capture_manifest(&r->ftrace, tids, n > 0 ? (size_t)n : 0);
	free(tids);
	for (i = 0; i < r->nr_targets; i++)
		json_array_append_new(vms, hvt_target_manifest_entry(r->targets[i]));
	/* a kept QEMU log is part of the recording: a reader misses it if it is gone */
	if (r->qemu_log_saved && json_array_size(vms))
		json_object_set_new(json_array_get(vms, 0), "qemu_log",
				    json_pack("{s:s, s:I}", "file", "qemu-trace.log", "bytes",
					      (json_int_t)r->qemu_log_kept));
	if (hvt_archive_writer_manifest(&r->archive, status, ft, apps, vms))
		hvt_err("cannot write %s/hvtrace.json: %s", r->archive.dir, strerror(errno));
	json_decref(apps);
	json_decref(ft);
	json_decref(vms);
}

/* A domain's VM name: its name where that is a valid path component. */
static void domain_vm_name(const struct hvt_recorder *r, const char *domain, char *out,
			   size_t size)
{
	char base[HVT_VM_NAME_MAX + 1];
	size_t i;

	snprintf(base, sizeof(base), "%s", domain);
	for (i = 0; base[i]; i++)
		if (!hvt_name_char_ok(base[i]))
			base[i] = '_';
	if (!hvt_vm_name_ok(base))
		snprintf(base, sizeof(base), "domain");
	unique_name(r, base, out, size);
}

/*
 * A running libvirt domain, looked up in @vm, becomes a target. Named with
 * --vm it has an hvtrace channel; found by --all, one without is recorded on
 * the host side only.
 */
static struct hvt_target *add_domain(struct hvt_recorder *r, const char *domain,
				     const struct hvt_libvirt_vm *vm)
{
	struct hvt_target_config c = { .domain = domain, .limits = r->o.limits };
	char name[HVT_VM_NAME_MAX + 1], link[128];
	struct hvt_target *t;

	domain_vm_name(r, domain, name, sizeof(name));
	c.name = name;
	c.qemu_pid = vm->qemu_pid;
	c.vsock_cid = vm->vsock_cid;
	c.vcpu_tids = vm->vcpu_tids;
	snprintf(link, sizeof(link), "unix:%s", vm->channel);
	if (!vm->channel[0])
		c.no_link = true;
	else if (vm->qemu_listens)	/* <source mode='bind'>: QEMU is the server */
		c.channel = link;
	else
		c.listen = link;
	t = add_target(r, &c);
	if (!t)
		return NULL;
	t->libvirt_id = vm->id;
	if (c.no_link)
		hvt_info("domain %s: QEMU pid %d, %u vCPUs, no %s channel: host layer only",
			 domain, (int)vm->qemu_pid, vm->vcpus, HVT_WIRE_PORT_NAME);
	else
		hvt_info("domain %s: QEMU pid %d, %u vCPUs, channel %s (%s)", domain,
			 (int)vm->qemu_pid, vm->vcpus, vm->channel,
			 vm->qemu_listens ? "QEMU listens" : "QEMU connects");
	return t;
}

/* --all: the refusal of this run of @domain, or NULL. */
static struct hvt_rec_refusal *refusal(struct hvt_recorder *r, const char *domain,
				       unsigned int id)
{
	unsigned int i;

	for (i = 0; i < r->nr_refused; i++)
		if (r->refused[i].id == id && !strcmp(r->refused[i].domain, domain))
			return &r->refused[i];
	return NULL;
}

/*
 * Remembers that this run of @dom was not recorded: in @f, its refusal so
 * far, or (NULL) in a new one; with all in use, the oldest goes.
 */
static void refuse(struct hvt_recorder *r, struct hvt_rec_refusal *f,
		   const struct hvt_libvirt_domain *dom, bool final)
{
	if (!f) {
		if (r->nr_refused == HVT_REC_MAX_TARGETS)
			memmove(r->refused, r->refused + 1, sizeof(r->refused) - sizeof(*f));
		else
			r->nr_refused++;
		f = &r->refused[r->nr_refused - 1];
		snprintf(f->domain, sizeof(f->domain), "%s", dom->name);
		f->id = dom->id;
	}
	f->final = final;
}

/*
 * A domain --all found. One that cannot be looked up (it may be starting or
 * stopping) is tried again on the next look, said once; one whose VM cannot
 * be set up (its error said by add_target) is not tried again in this run.
 */
static struct hvt_target *add_found_domain(struct hvt_recorder *r,
					   const struct hvt_libvirt_domain *dom)
{
	struct hvt_rec_refusal *f = refusal(r, dom->name, dom->id);
	struct hvt_libvirt_vm vm;
	struct hvt_target *t;
	char err[512];

	if (f && f->final)
		return NULL;
	if (hvt_libvirt_lookup(r->libvirt, dom->name, false, &vm, err, sizeof(err))) {
		if (!f)
			hvt_warn("%s; not recorded until it can be looked up", err);
		refuse(r, f, dom, false);
		return NULL;
	}
	t = add_domain(r, dom->name, &vm);
	if (!t) {
		hvt_warn("domain %s (id %u) is not recorded", dom->name, dom->id);
		refuse(r, f, dom, true);
	}
	return t;
}

/*
 * Before the archive exists: the domains named with --vm, each running
 * with an hvtrace channel, so that a wrong name leaves nothing behind.
 */
static int lookup_named_domains(struct hvt_recorder *r)
{
	char err[512];
	int i;

	r->libvirt = hvt_libvirt_open(r->o.connect, err, sizeof(err));
	if (!r->libvirt) {
		hvt_err("%s", err);
		return -1;
	}
	for (i = 0; i < r->o.nr_names; i++)
		if (hvt_libvirt_lookup(r->libvirt, r->o.names[i], true, &r->named[i], err,
				       sizeof(err))) {
			hvt_err("%s", err);
			return -1;
		}
	return 0;
}

/*
 * --all: running domains not recorded yet (a new run of a domain has a new
 * id) become targets. -1 if libvirt cannot list them.
 */
static int add_new_domains(struct hvt_recorder *r)
{
	struct hvt_libvirt_domain *doms;
	char err[512];
	int i, n = hvt_libvirt_running(r->libvirt, &doms, err, sizeof(err));

	if (n < 0) {
		hvt_err("%s", err);
		return -1;
	}
	for (i = 0; i < n; i++) {
		unsigned int j;
		bool have = false;

		for (j = 0; j < r->nr_targets && !have; j++)
			have = !strcmp(r->targets[j]->domain, doms[i].name) &&
			       r->targets[j]->libvirt_id == doms[i].id;
		if (!have)
			add_found_domain(r, &doms[i]);
	}
	hvt_libvirt_free_domains(doms, n);
	return 0;
}

static int targets_from_libvirt(struct hvt_recorder *r)
{
	int i;

	for (i = 0; i < r->o.nr_names; i++)
		if (!add_domain(r, r->o.names[i], &r->named[i]))
			return -1;
	if (!r->o.all)
		return 0;
	if (add_new_domains(r))
		return -1;
	if (!r->nr_targets)
		hvt_info("no libvirt domain runs yet; waiting for domains to start (--all)");
	return 0;
}

/* --qmp: the vCPU threads of the QEMU of --qemu-pid, which they must belong to. */
static int vcpus_from_qmp(struct hvt_recorder *r)
{
	pid_t *tids = r->qmp_vcpu_tids;
	unsigned int i, n;
	char err[512];

	if (hvt_qmp_vcpu_threads(r->o.qmp, tids, HVT_QEMU_MAX_VCPUS, &n, err, sizeof(err))) {
		hvt_err("--qmp %s: %s", r->o.qmp, err);
		return -1;
	}
	for (i = 0; i < HVT_QEMU_MAX_VCPUS; i++) {
		char task[64];

		snprintf(task, sizeof(task), "/proc/%d/task/%d", (int)r->o.qemu_pid, (int)tids[i]);
		if (tids[i] && access(task, F_OK)) {
			hvt_err("--qmp %s: vCPU %u runs in thread %d, not a thread of --qemu-pid %d",
				r->o.qmp, i, (int)tids[i], (int)r->o.qemu_pid);
			return -1;
		}
	}
	hvt_info("QMP: %u vCPU threads", n);
	return 0;
}

static int start_listener(struct hvt_recorder *r)
{
	char err[512], where[sizeof(r->listen_addr.text)];

	if (hvt_netaddr_parse(r->o.listen, true, &r->listen_addr, err, sizeof(err))) {
		hvt_err("--listen %s", err);
		return -1;
	}
	r->listen_fd = hvt_netaddr_listen(&r->listen_addr, 16, err, sizeof(err));
	if (r->listen_fd < 0) {
		hvt_err("%s", err);
		return -1;
	}
	hvt_netaddr_bound(r->listen_fd, &r->listen_addr, where, sizeof(where));
	snprintf(r->listen_addr.text, sizeof(r->listen_addr.text), "%s", where);
	hvt_info("listening on %s for %u guest%s", where, r->o.guests, r->o.guests == 1 ? "" : "s");
	return 0;
}

static void stop_listener(struct hvt_recorder *r)
{
	hvt_netaddr_unlisten(&r->listen_addr, r->listen_fd);
	r->listen_fd = -1;
}

/*
 * Before the archive exists: what --channel, --listen, --qemu-pid and --qmp
 * name is checked, and --listen listens, so that a wrong one leaves nothing
 * behind.
 */
static int check_option_targets(struct hvt_recorder *r)
{
	struct hvt_netaddr addr;
	char err[512], comm[32];

	if (r->o.channel && hvt_netaddr_parse(r->o.channel, false, &addr, err, sizeof(err))) {
		hvt_err("--channel %s", err);
		return -1;
	}
	if (r->o.qemu_pid && hvt_qemu_comm(r->o.qemu_pid, comm, sizeof(comm))) {
		hvt_err("--qemu-pid %d: no such process", (int)r->o.qemu_pid);
		return -1;
	}
	if (r->o.qmp && vcpus_from_qmp(r))
		return -1;
	return r->o.listen ? start_listener(r) : 0;
}

/* --channel, --listen, --qemu-pid: the VMs the options describe. */
static int targets_from_options(struct hvt_recorder *r)
{
	struct hvt_target_config c = { .qemu_pid = r->o.qemu_pid, .channel = r->o.channel,
				       .no_link = !r->o.channel && !r->o.listen,
				       .limits = r->o.limits,
				       .vcpu_tids = r->o.qmp ? r->qmp_vcpu_tids : NULL };
	unsigned int i, n = r->o.listen ? r->o.guests : 1;
	char name[HVT_VM_NAME_MAX + 1];

	for (i = 0; i < n; i++) {
		if ((int)i < r->o.nr_names)
			snprintf(name, sizeof(name), "%s", r->o.names[i]);
		else if (n == 1)
			snprintf(name, sizeof(name), "vm");
		else
			snprintf(name, sizeof(name), "vm-%u", i + 1);
		c.name = name;
		if (!add_target(r, &c))
			return -1;
		c.qemu_pid = 0;	/* --qemu-pid is one VM's: check_opts() allows one then */
		c.vcpu_tids = NULL;
	}
	return 0;
}

static bool any_target(const struct hvt_recorder *r, bool (*what)(const struct hvt_target *))
{
	unsigned int i;

	for (i = 0; i < r->nr_targets; i++)
		if (what(r->targets[i]))
			return true;
	return false;
}

static bool has_qemu(const struct hvt_target *t)
{
	return t->have_qemu;
}

static bool kvm_events_available(void)
{
	const char *tracing = tracefs_tracing_dir();
	char path[HVT_PATH_LEN];
	struct stat st;

	return tracing && !hvt_path(path, sizeof(path), "%s/events/kvm", tracing) &&
	       !stat(path, &st);
}

/* Whether this kernel has host event @spec ("kvm:kvm_pio"). */
static bool host_event_exists(const char *spec)
{
	const char *tracing = tracefs_tracing_dir(), *colon = strchr(spec, ':');
	char path[HVT_PATH_LEN];
	struct stat st;

	return tracing && colon &&
	       !hvt_path(path, sizeof(path), "%s/events/%.*s/%s", tracing, (int)(colon - spec), spec,
			 colon + 1) && !stat(path, &st);
}

static bool listed(const char *const *v, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i], name))
			return true;
	return false;
}

/* The defaults (2 sched, 5 kvm, 6 kvm_io) and -e's fit the capture's table. */
_Static_assert(2 + 5 + 6 + HVT_REC_MAX_EXTRA_EVENTS <= HVT_FTRACE_MAX_EVENTS,
	       "the host events do not fit the capture's table");

static int start_host_layer(struct hvt_recorder *r)
{
	static const char *sched[] = { "sched:sched_switch", "sched:sched_wakeup" };
	static const char *kvm[] = { "kvm:kvm_entry", "kvm:kvm_exit", "kvm:kvm_hypercall",
				     "kvm:kvm_write_tsc_offset", "kvm:kvm_pvclock_update" };
	/*
	 * The I/O path through KVM, where this kernel has them: a guest's port
	 * and MMIO accesses, the interrupts raised for it (irqfd, MSI) and
	 * injected into a vCPU. One event per exit or interrupt, as cheap as
	 * kvm_exit.
	 */
	static const char *kvm_io[] = { "kvm:kvm_pio", "kvm:kvm_mmio", "kvm:kvm_set_irq",
					"kvm:kvm_msi_set_irq", "kvm:kvm_apic_accept_irq",
					"kvm:kvm_inj_virq" };
	char *events[HVT_FTRACE_MAX_EVENTS], dir[HVT_PATH_LEN], err[512];
	bool follow = any_target(r, has_qemu) || r->o.all;
	pid_t *tids = NULL;
	ssize_t nr_tids = all_tids(r, &tids);
	int n = 0, i, ret;

	if (nr_tids < 0) {
		hvt_err("host layer: out of memory");
		return -1;
	}

	if (follow)
		for (i = 0; i < 2; i++)
			events[n++] = (char *)sched[i];
	if (any_target(r, hvt_target_kvm) || (r->o.all && kvm_events_available())) {
		for (i = 0; i < 5; i++)
			events[n++] = (char *)kvm[i];
		for (i = 0; i < 6; i++)
			if (host_event_exists(kvm_io[i]))
				events[n++] = (char *)kvm_io[i];
	}
	for (i = 0; i < r->o.nr_events; i++)	/* each once: -e of a default is no second */
		if (!listed((const char *const *)events, n, r->o.events[i]))
			events[n++] = r->o.events[i];
	if (!n) {
		hvt_warn("no host events to record: give --qemu-pid or -e SYSTEM:EVENT");
		free(tids);
		return 0;
	}
	/* Filtered from the start; before any VM runs, to the collector alone. */
	if (follow && !nr_tids)
		tids[nr_tids++] = getpid();
	hvt_capture_remove_stale();	/* again: tracefs may have been mounted since */
	snprintf(dir, sizeof(dir), "%s/host/ftrace", r->archive.dir);
	ret = hvt_capture_start(&r->ftrace, dir, events, n, follow ? tids : NULL,
			       follow ? (size_t)nr_tids : 0, err, sizeof(err));
	free(tids);
	if (ret) {
		hvt_err("host layer: %s", err);
		return -1;
	}
	r->ftrace_on = true;
	r->follows_threads = follow;
	return 0;
}

/*
 * The host's own applications, with --host-apps only: the host agent runs
 * as the collector's child, and its socket takes any local process; a
 * socket taken by another process is a warning, not a failure.
 */
static int start_host_apps(struct hvt_recorder *r)
{
	if (!r->o.host_apps)
		return 0;
	return hvt_host_apps_start(&r->apps, &r->archive, r->o.host_apps, r->o.uid_share,
				   &r->o.limits) < 0 ?
	       -1 : 0;
}

/*
 * Each stream a guest keeps open holds a file, each trace its registry,
 * each host CPU a file and libtracefs's descriptors (at most five). The
 * usual soft limit of 1024 would cut off a guest within the protocol's
 * limits, so the soft limit goes up to the hard one.
 */
static void raise_fd_limit(const struct hvt_recorder *r)
{
	long cpus = r->o.host_trace ? sysconf(_SC_NPROCESSORS_CONF) : 0;
	rlim_t need = HVT_VM_MAX_STREAMS + HVT_VM_MAX_TRACES + 6 * (rlim_t)(cpus > 0 ? cpus : 0) +
		      32;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	if (rl.rlim_cur < need && rl.rlim_cur < rl.rlim_max) {
		rlim_t old = rl.rlim_cur;

		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			rl.rlim_cur = old;
		else
			hvt_debug("open-file limit raised from %llu to %llu", (unsigned long long)old,
				  (unsigned long long)rl.rlim_cur);
	}
	if (rl.rlim_cur < need)
		hvt_warn("the open-file limit is %llu, below the %llu a guest with %d streams "
			 "may need: a guest opening that many is cut off (raise the hard limit, "
			 "ulimit -Hn)", (unsigned long long)rl.rlim_cur, (unsigned long long)need,
			 HVT_VM_MAX_STREAMS);
}

/* --qemu-log with --qmp: QEMU's I/O events on at the start, off at the end. */
static void qemu_io_events(struct hvt_recorder *r, bool on)
{
	static const char *const events[] = HVT_QEMU_IO_EVENTS;
	const size_t n = sizeof(events) / sizeof(events[0]);
	char err[256];
	int set;

	if (!r->o.qemu_log || !r->o.qmp || (!on && !r->qemu_events_on))
		return;
	set = hvt_qmp_trace_events(r->o.qmp, events, n, on, err, sizeof(err));
	if (set < 0)
		hvt_warn("--qmp %s: cannot turn QEMU's I/O events %s: %s%s", r->o.qmp,
			 on ? "on" : "off", err, on ? "; its log has those -trace turned on" : "");
	else if (on)
		hvt_info("QEMU's I/O events turned on over QMP (%d of %zu kinds this QEMU has); "
			 "its log %s is kept in the archive", set, n, r->o.qemu_log);
	r->qemu_events_on = on && set > 0;
}

int hvt_recorder_prepare(struct hvt_recorder *r)
{
	char err[512];
	unsigned int i;

	r->listen_fd = -1;
	r->apps.pidfd = -1;
	r->qemu_log.fd = -1;
	r->started = time(NULL);
	raise_fd_limit(r);
	if (r->o.host_trace && geteuid() != 0) {
		hvt_err("recording the host layer needs root (tracefs); run as root, "
			"or pass --no-host-trace");
		return -1;
	}
	/* A collector killed with -9 left its instance tracing: gone now, host layer or not. */
	if (r->o.host_trace)
		hvt_capture_remove_stale();
	/* Before listening: a socket there may be another collector's, in use. */
	if (hvt_archive_writer_check(r->o.output, err, sizeof(err))) {
		hvt_err("%s", err);
		return -1;
	}
	if (libvirt_mode(&r->o) ? lookup_named_domains(r) : check_option_targets(r))
		return -1;
	if (hvt_archive_writer_create(&r->archive, r->o.output, err, sizeof(err))) {
		hvt_err("%s", err);
		return -1;
	}
	r->archive_made = true;
	if (libvirt_mode(&r->o) ? targets_from_libvirt(r) : targets_from_options(r))
		return -1;
	if (r->o.qemu_log && hvt_qemu_log_open(&r->qemu_log, r->o.qemu_log, err, sizeof(err))) {
		hvt_err("%s", err);
		return -1;
	}
	qemu_io_events(r, true);
	if (r->o.host_trace && start_host_layer(r))
		return -1;
	if (start_host_apps(r))
		return -1;
	/* After the host layer: every change from the first snapshot on is traced. */
	for (i = 0; i < r->nr_targets; i++)
		if (hvt_target_start_kvm(r->targets[i], err, sizeof(err))) {
			hvt_err("%s", err);
			return -1;
		}
	write_manifest(r, "recording");
	hvt_info("recording into %s", r->archive.dir);
	return 0;
}

static void begin_stop(struct hvt_recorder *r, const char *why)
{
	unsigned int i;

	if (r->stopping)
		return;
	hvt_info("stopping: %s", why);
	r->stopping = true;
	r->stop_deadline = time(NULL) + STOP_GRACE_S;
	stop_listener(r);
	for (i = 0; i < r->nr_targets; i++)
		hvt_target_request_stop(r->targets[i], why);
	hvt_host_apps_request_stop(&r->apps);
}

/* A second signal ends a stop that waits for a stalled guest. */
static void on_signal(struct hvt_recorder *r, const char *name)
{
	if (!r->stopping) {
		begin_stop(r, name);
	} else if (!r->stop_now) {
		hvt_info("stopping now: %s again", name);
		r->stop_now = true;
	}
}

/*
 * --all: domains started since the last look become targets, and join the
 * host layer (their threads in its filter) and the KVM snapshots.
 */
static void watch_libvirt(struct hvt_recorder *r)
{
	unsigned int i, first = r->nr_targets;
	char err[512];

	add_new_domains(r);	/* a failure is said, and tried again next time */
	for (i = first; i < r->nr_targets; i++) {
		struct hvt_target *t = r->targets[i];

		hvt_info("VM %s joins the recording", t->vm.name);
		if (r->ftrace_on && t->qemu.nr_tids &&
		    hvt_capture_add_pids(&r->ftrace, t->qemu.tids, t->qemu.nr_tids)) {
			/* the manifest lists only threads the filter has */
			hvt_warn("VM %s: cannot add its QEMU threads to the host filter", t->vm.name);
			t->qemu.nr_tids = 0;
		}
		if (hvt_target_start_kvm(t, err, sizeof(err))) {
			hvt_warn("%s", err);
			t->failed = true;
		}
	}
	if (r->nr_targets > first)
		write_manifest(r, "recording");
}

/* A guest on the shared listener takes the next target still waiting for one. */
static void accept_guest(struct hvt_recorder *r)
{
	int fd = hvt_netaddr_accept(r->listen_fd);
	long long cid = fd >= 0 ? hvt_netaddr_peer_cid(fd) : -1;
	char peer[160];
	unsigned int i;

	if (fd < 0)
		return;
	hvt_netaddr_peer(fd, peer, sizeof(peer));
	for (i = 0; i < r->nr_targets; i++) {
		struct hvt_target *t = r->targets[i];

		if (t->vm.state != HVT_VM_WAITING || t->vm.no_link || t->connects ||
		    t->listen_fd >= 0)
			continue;
		if (cid >= 0)
			t->vsock_cid = (unsigned int)cid;
		hvt_info("VM %s: a guest connected from %s", t->vm.name, peer);
		hvt_target_attach(t, fd);
		if (++r->accepted == r->o.guests)
			stop_listener(r);	/* every guest came: the socket goes */
		write_manifest(r, "recording");
		return;
	}
	hvt_warn("a guest connected from %s, but no VM waits for one; closed", peer);
	close(fd);
}

/* The host applications' threads join the host layer's filter, and the manifest. */
static void follow_host_apps(struct hvt_recorder *r)
{
	int added = hvt_host_apps_follow(&r->apps, &r->ftrace);

	if (added < 0 && !r->apps_follow_failed) {
		hvt_warn("host applications: cannot add their threads to the host filter; "
			 "their scheduling is not recorded");
		r->apps_follow_failed = true;
	}
	if (added > 0) {
		hvt_debug("host applications: %d threads join the host filter", added);
		write_manifest(r, "recording");
	}
}

static void on_tick(struct hvt_recorder *r, unsigned long tick)
{
	struct hvt_target_clock c = { time(NULL), r->o.guest_timeout_s,
				      r->stopping ? r->stop_deadline : 0, STOP_GRACE_S,
				      r->stop_now };
	unsigned int i;

	if (tick % 10 == 0)
		hvt_archive_writer_clock_pair(&r->archive);
	if (r->o.all && !r->stopping && tick % LIBVIRT_POLL_TICKS == 0)
		watch_libvirt(r);
	for (i = 0; i < r->nr_targets; i++) {
		hvt_target_tick(r->targets[i], tick, &c, r->ftrace_on ? &r->ftrace : NULL);
		r->failed |= r->targets[i]->failed;
	}
	hvt_host_apps_tick(&r->apps, c.now);
	if (r->follows_threads && tick % 10 == 0)
		follow_host_apps(r);
	if (r->o.duration_s && c.now - r->started >= (time_t)r->o.duration_s)
		begin_stop(r, "duration reached");
}

/*
 * Without --all, the recording is over once every VM ended; then the host
 * applications are asked to send what they have, and it is over when they did.
 */
static bool over(struct hvt_recorder *r)
{
	unsigned int i;

	if (r->o.all && !r->stopping)
		return false;
	for (i = 0; i < r->nr_targets; i++)
		if (!hvt_target_ended(r->targets[i]))
			return false;
	hvt_host_apps_request_stop(&r->apps);
	return hvt_host_apps_ended(&r->apps);
}

void hvt_recorder_run(struct hvt_recorder *r)
{
	enum { SIG, TICK, PUMP, LISTEN, FIXED };
	static struct pollfd fds[FIXED + 2 + 2 * HVT_REC_MAX_TARGETS];
	unsigned long tick = 0;
	int sfd, tfd, pfd = -1;

	if (hvt_evloop_fds(TICK_MS, &sfd, &tfd) ||
	    (r->ftrace_on && (pfd = hvt_evloop_timer(PUMP_MS)) < 0)) {
		hvt_err("cannot set up signals and timers: %s", strerror(errno));
		return;
	}
	r->ran = true;
	while (!over(r)) {
		unsigned int i, n = r->nr_targets;

		fds[SIG] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		fds[TICK] = (struct pollfd){ .fd = tfd, .events = POLLIN };
		fds[PUMP] = (struct pollfd){ .fd = pfd, .events = POLLIN };
		fds[LISTEN] = (struct pollfd){ .fd = r->listen_fd, .events = POLLIN };
		for (i = 0; i < n; i++)
			hvt_target_pollfds(r->targets[i], &fds[FIXED + 2 * i]);
		hvt_host_apps_pollfds(&r->apps, &fds[FIXED + 2 * n]);
		if (poll(fds, FIXED + 2 * n + 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			hvt_err("poll: %s", strerror(errno));
			break;
		}
		if (fds[SIG].revents) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == sizeof(si))
				on_signal(r, strsignal((int)si.ssi_signo));
		}
		for (i = 0; i < n; i++)
			hvt_target_polled(r->targets[i], &fds[FIXED + 2 * i]);
		hvt_host_apps_polled(&r->apps, &fds[FIXED + 2 * n]);
		if (fds[LISTEN].revents && r->listen_fd >= 0)
			accept_guest(r);
		if (fds[PUMP].revents) {
			uint64_t ticks;

			if (read(pfd, &ticks, sizeof(ticks)) > 0)
				hvt_capture_pump(&r->ftrace);
		}
		if (fds[TICK].revents) {
			uint64_t ticks;

			if (read(tfd, &ticks, sizeof(ticks)) > 0)
				on_tick(r, ++tick);
		}
	}
	close(sfd);
	close(tfd);
	if (pfd >= 0)
		close(pfd);
}

/* --qemu-log: what QEMU logged while recording, into the VM's folder. */
static void keep_qemu_log(struct hvt_recorder *r)
{
	char dst[HVT_PATH_LEN];

	if (r->qemu_log.fd < 0 || !r->nr_targets)
		return;
	if (hvt_path(dst, sizeof(dst), "%s/qemu-trace.log", r->targets[0]->vm.dir) ||
	    (r->qemu_log_kept = hvt_qemu_log_save(&r->qemu_log, dst)) < 0) {
		hvt_warn("--qemu-log %s: cannot keep it in %s: %s", r->o.qemu_log,
			 r->targets[0]->vm.dir, strerror(errno));
		r->qemu_log_kept = -1;
	}
	r->qemu_log_saved = r->qemu_log_kept >= 0;
	hvt_qemu_log_close(&r->qemu_log);
}

static void summary(const struct hvt_recorder *r)
{
	unsigned int i;
	int cpu;

	printf("hvtrace record: archive %s\n", r->archive.dir);
	if (r->ftrace_on) {
		unsigned long long total = 0;
		size_t threads = 0;

		for (cpu = 0; cpu < r->ftrace.nr_cpus; cpu++)
			total += r->ftrace.cpu[cpu].bytes;
		for (i = 0; i < r->nr_targets; i++)
			threads += r->targets[i]->qemu.nr_tids;
		printf("  host   %d CPUs, %llu KiB of ftrace pages, %d event types, %zu threads\n",
		       r->ftrace.nr_cpus, total / 1024, r->ftrace.nr_events, threads);
	} else {
		printf("  host   not recorded\n");
	}
	for (i = 0; i < r->nr_targets; i++)
		hvt_target_summary(r->targets[i], stdout);
	if (r->o.qemu_log && r->qemu_log_kept >= 0)
		printf("  qemu   %lld KiB of QEMU's trace log, in vm/%s/qemu-trace.log\n",
		       (long long)r->qemu_log_kept / 1024, r->targets[0]->vm.name);
	else if (r->o.qemu_log)
		printf("  qemu   its trace log NOT kept (see the warning)\n");
	hvt_host_apps_summary(&r->apps, stdout);
	printf("merge it with: hvtrace merge %s\n", r->archive.dir);
	fflush(stdout);
}

/*
 * Success: nothing failed on the host side and every VM with a guest link
 * finished (its guest sent everything it had); a host-only VM needs no
 * guest. With --all, VMs come and go: one shut down or destroyed while
 * recording ended as it should.
 */
static bool succeeded(const struct hvt_recorder *r)
{
	unsigned int i;

	if (r->failed)
		return false;
	for (i = 0; i < r->nr_targets; i++) {
		const struct hvt_target *t = r->targets[i];

		if (t->failed || (!t->vm.no_link && !t->vm.finished && !(r->o.all && t->gone)))
			return false;
	}
	return true;
}

int hvt_recorder_finish(struct hvt_recorder *r)
{
	int ret = 1;
	unsigned int i;

	for (i = 0; i < r->nr_targets; i++)
		hvt_target_finish(r->targets[i]);
	hvt_host_apps_finish(&r->apps);
	if (r->ftrace_on)
		hvt_capture_stop(&r->ftrace);
	if (r->archive_made && !r->ran) {
		/* Setting up failed, already said why: nothing was recorded. */
		qemu_io_events(r, false);
		write_manifest(r, "failed");
		hvt_err("%s: the recording did not start; the archive holds no events and is "
			"marked \"failed\"", r->archive.dir);
	} else if (r->archive_made) {
		qemu_io_events(r, false);
		keep_qemu_log(r);
		hvt_archive_writer_clock_pair(&r->archive);
		write_manifest(r, "complete");
		summary(r);
		ret = succeeded(r) ? 0 : 1;
	}
	hvt_host_apps_free(&r->apps);
	hvt_qemu_log_close(&r->qemu_log);
	hvt_archive_writer_close(&r->archive);
	hvt_capture_free(&r->ftrace);
	stop_listener(r);
	for (i = 0; i < r->nr_targets; i++) {
		hvt_target_free(r->targets[i]);
		free(r->targets[i]);
	}
	hvt_libvirt_close(r->libvirt);
	return ret;
}
