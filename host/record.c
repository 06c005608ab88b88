// SPDX-License-Identifier: GPL-2.0-only
/*
 * record.c - `hvtrace record`, the host collector.
 *
 * One event loop: the guest link, the host ftrace pages, a 100 ms tick for
 * clock exchanges and paired clock reads, signals, and the QEMU process's
 * exit. The archive is consistent at every moment (docs/format.md,
 * "Crash safety"); stopping only completes it.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "host/archive_writer.h"
#include "host/ftrace_capture.h"
#include "host/kvm_tsc.h"
#include "host/libvirt.h"
#include "host/qemu.h"
#include "host/vm.h"
#include "lib/evloop.h"
#include "lib/log.h"
#include "tools/commands.h"

#define TICK_MS			100
#define STOP_GRACE_S		15
#define MAX_HOST_EVENTS		(HVT_FTRACE_MAX_EVENTS - 8)

struct record_opts {
	const char *channel;		/* unix:PATH we connect to */
	const char *listen;		/* unix:PATH we listen on */
	const char *vm_name;
	bool vm_given;			/* --vm: a libvirt domain without a link given */
	const char *connect;		/* libvirt URI */
	const char *output;
	pid_t qemu_pid;
	char *events[MAX_HOST_EVENTS];
	int nr_events;
	bool host_trace;
	unsigned int duration_s;
	unsigned int sync_interval_ms;
	unsigned int guest_timeout_s;
	unsigned long long quota;
};

struct recorder {
	struct record_opts o;
	struct hvt_archive_writer archive;
	struct hvt_ftrace ftrace;
	bool ftrace_on;
	struct hvt_qemu qemu;
	bool have_qemu;
	struct hvt_kvm_tsc kvm_tsc;	/* tsv NULL unless the VM runs under KVM */
	struct hvt_vm vm;
	int listen_fd;
	char link[128];			/* unix:PATH of a libvirt domain's channel */
	char default_output[64];
	time_t started, stop_deadline;
	bool stopping;
	bool failed;			/* a host-side file could not be written */
};

static void usage(FILE *out)
{
	fprintf(out,
"usage: hvtrace record --vm DOMAIN [--connect URI] [OPTIONS]   (libvirt)\n"
"       hvtrace record --channel unix:PATH|--listen unix:PATH [OPTIONS]\n"
"       hvtrace record --qemu-pid PID [OPTIONS]      (host layer only)\n"
"\n"
"Records the host (hypervisor) layer with ftrace on the host TSC and every\n"
"byte the VM's hvtrace agent sends, into one archive directory. Under KVM it\n"
"also records every TSC offset change of the VM's vCPUs, and debugfs snapshots\n"
"of their offsets and scaling ratios at start, every second and at stop:\n"
"hvtrace tsc DIR shows the resulting per-vCPU timeline.\n"
"\n"
"  --channel unix:PATH   the VM's virtio-serial port socket (QEMU\n"
"                        -chardev socket,path=PATH,server=on,wait=off with\n"
"                        -device virtserialport,name=" HVT_WIRE_PORT_NAME ")\n"
"  --listen unix:PATH    listen instead; the agent connects (hvtrace agent --connect)\n"
"  --qemu-pid PID        the VM's QEMU (or other KVM VMM) process: host sched\n"
"                        events are filtered to its threads, kvm events and TSC\n"
"                        snapshots are added under KVM, and the recording ends\n"
"                        when it exits. Without a guest link, only the host\n"
"                        layer is recorded, until it exits or Ctrl-C.\n"
"  --vm NAME             the VM's name in the archive (default: vm). Without\n"
"                        --channel, --listen or --qemu-pid, the running libvirt\n"
"                        domain NAME: its QEMU process and its <channel\n"
"                        type='unix'> with target name " HVT_WIRE_PORT_NAME "\n"
"  --connect URI         libvirt connection (default " HVT_LIBVIRT_DEFAULT_URI ")\n"
"  -o, --output DIR      archive directory (default: hvtrace-DATE-TIME)\n"
"  -e, --event SYS:EVENT another host event to record (repeatable)\n"
"  --no-host-trace       do not record the host layer (runs without root)\n"
"  --duration SECONDS    stop after this long (default: when the guest finishes)\n"
"  --sync-interval MS    period of clock exchanges (default 100)\n"
"  --guest-timeout SECONDS  how long to wait for the guest (default 120)\n"
"  --quota BYTES         most guest data to accept (default 16 GiB)\n"
"  -v, --verbose         more messages\n"
"  -h, --help            this text\n"
"\n"
"Ctrl-C stops cleanly: the guest is asked to send what it has, the archive is\n"
"completed, and a summary is printed. Then: hvtrace merge DIR\n");
}

static int parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (!*s || *end || errno || v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_opts(struct record_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "channel", required_argument, NULL, 'c' },
		{ "listen", required_argument, NULL, 'l' },
		{ "qemu-pid", required_argument, NULL, 'p' },
		{ "vm", required_argument, NULL, 'n' },
		{ "connect", required_argument, NULL, 'C' },
		{ "output", required_argument, NULL, 'o' },
		{ "event", required_argument, NULL, 'e' },
		{ "no-host-trace", no_argument, NULL, 'H' },
		{ "duration", required_argument, NULL, 'd' },
		{ "sync-interval", required_argument, NULL, 'i' },
		{ "guest-timeout", required_argument, NULL, 't' },
		{ "quota", required_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	unsigned long long v;
	int c;

	while ((c = getopt_long(argc, argv, "o:e:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'c': o->channel = optarg; break;
		case 'l': o->listen = optarg; break;
		case 'n': o->vm_name = optarg; o->vm_given = true; break;
		case 'C': o->connect = optarg; break;
		case 'o': o->output = optarg; break;
		case 'H': o->host_trace = false; break;
		case 'v': hvt_log_set_verbose(1); break;
		case 'h': usage(stdout); exit(0);
		case 'e':
			if (o->nr_events == MAX_HOST_EVENTS) {
				hvt_err("at most %d extra host events", MAX_HOST_EVENTS);
				return -1;
			}
			o->events[o->nr_events++] = optarg;
			break;
		case 'p':
		case 'd':
		case 'i':
		case 't':
		case 'q':
			if (parse_uint(optarg, c == 'q' ? ~0ull : 0x7fffffff, &v) || (v == 0 && c != 'q')) {
				hvt_err("invalid value '%s' for --%s", optarg,
					c == 'p' ? "qemu-pid" : c == 'd' ? "duration" :
					c == 'i' ? "sync-interval" : c == 't' ? "guest-timeout" : "quota");
				return -1;
			}
			if (c == 'p') o->qemu_pid = (pid_t)v;
			else if (c == 'd') o->duration_s = (unsigned int)v;
			else if (c == 'i') o->sync_interval_ms = (unsigned int)v;
			else if (c == 't') o->guest_timeout_s = (unsigned int)v;
			else o->quota = v;
			break;
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		hvt_err("unexpected argument '%s'", argv[optind]);
		return -1;
	}
	if (o->channel && o->listen) {
		hvt_err("give one guest link: --channel or --listen, not both");
		return -1;
	}
	if (!o->channel && !o->listen && !o->qemu_pid && !o->vm_given) {
		hvt_err("give a libvirt domain (--vm NAME), the guest link (--channel unix:PATH "
			"or --listen unix:PATH), or --qemu-pid PID to record the host layer of a "
			"VM only");
		return -1;
	}
	if (o->connect && (o->channel || o->listen || o->qemu_pid)) {
		hvt_err("--connect is for a libvirt domain (--vm NAME alone)");
		return -1;
	}
	if (!o->channel && !o->listen && !o->host_trace && !o->vm_given) {
		hvt_err("--no-host-trace without a guest link would record nothing");
		return -1;
	}
	if ((o->channel || o->listen) &&
	    strncmp(o->channel ? o->channel : o->listen, "unix:", 5)) {
		hvt_err("the guest link must be unix:PATH");
		return -1;
	}
	if (!hvt_vm_name_ok(o->vm_name)) {
		hvt_err("invalid --vm '%s': 1-%d letters, digits, '_', '.', '-'", o->vm_name,
			HVT_VM_NAME_MAX);
		return -1;
	}
	return 0;
}

static int unix_addr(const char *path, struct sockaddr_un *addr)
{
	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(addr->sun_path)) {
		hvt_err("socket path too long: %s", path);
		return -1;
	}
	strcpy(addr->sun_path, path);
	return 0;
}

/* One attempt; the VM's socket may not exist yet. */
static int try_connect(const char *path)
{
	struct sockaddr_un addr;
	int fd;

	if (unix_addr(path, &addr))
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		close(fd);
		return -1;
	}
	fcntl(fd, F_SETFL, O_NONBLOCK);
	return fd;
}

static int listen_on(const char *path)
{
	struct sockaddr_un addr;
	struct stat st;
	int fd;

	if (unix_addr(path, &addr))
		return -1;
	if (!lstat(path, &st)) {
		if (!S_ISSOCK(st.st_mode)) {
			hvt_err("%s exists and is not a socket", path);
			return -1;
		}
		unlink(path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) || listen(fd, 1)) {
		hvt_err("cannot listen on %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static void host_event_list(struct recorder *r, char **events, int *n)
{
	static char *sched[] = { "sched:sched_switch", "sched:sched_wakeup" };
	static char *kvm[] = { "kvm:kvm_entry", "kvm:kvm_exit", "kvm:kvm_hypercall",
			       "kvm:kvm_write_tsc_offset", "kvm:kvm_pvclock_update" };
	int i;

	*n = 0;
	if (r->have_qemu)
		for (i = 0; i < 2; i++)
			events[(*n)++] = sched[i];
	if (r->have_qemu && !strcmp(r->qemu.accel, "kvm"))
		for (i = 0; i < 5; i++)
			events[(*n)++] = kvm[i];
	for (i = 0; i < r->o.nr_events; i++)
		events[(*n)++] = r->o.events[i];
}

static int start_host_layer(struct recorder *r)
{
	char *events[HVT_FTRACE_MAX_EVENTS], dir[4200], err[512];
	int n;

	host_event_list(r, events, &n);
	if (!n) {
		hvt_warn("no host events to record: give --qemu-pid or -e SYSTEM:EVENT");
		return 0;
	}
	hvt_ftrace_remove_stale();
	snprintf(dir, sizeof(dir), "%s/host/ftrace", r->archive.dir);
	if (hvt_ftrace_start(&r->ftrace, dir, events, n, r->have_qemu ? r->qemu.tids : NULL,
			     r->have_qemu ? r->qemu.nr_tids : 0, err, sizeof(err))) {
		hvt_err("host layer: %s", err);
		return -1;
	}
	r->ftrace_on = true;
	return 0;
}

static void write_manifest(struct recorder *r, const char *status)
{
	json_t *vms = json_array(), *ft = NULL;

	if (r->ftrace_on)
		ft = hvt_ftrace_manifest(&r->ftrace, r->qemu.tids, r->o.qemu_pid ? r->qemu.nr_tids : 0);

	json_array_append_new(vms, hvt_vm_manifest_entry(&r->vm));
	if (hvt_archive_writer_manifest(&r->archive, status, ft, vms))
		hvt_err("cannot write %s/hvtrace.json: %s", r->archive.dir, strerror(errno));
	json_decref(ft);
	json_decref(vms);
}

static bool host_only(const struct recorder *r)
{
	return !r->o.channel && !r->o.listen;
}

static void begin_stop(struct recorder *r, const char *why)
{
	if (r->stopping)
		return;
	hvt_info("stopping: %s", why);
	r->stopping = true;
	r->stop_deadline = time(NULL) + STOP_GRACE_S;
	if (host_only(r))
		hvt_vm_end(&r->vm, "host layer only (no guest link); stopped: %s", why);
	else
		hvt_vm_request_stop(&r->vm);
}

/*
 * New QEMU threads (hot-plugged vCPUs, I/O threads) join the host filter.
 * qemu.tids stays the list of threads filtered to: threads that could not be
 * added are forgotten, to be found and tried again at the next scan.
 */
static void follow_qemu_threads(struct recorder *r)
{
	size_t before = r->qemu.nr_tids;
	int added = hvt_qemu_scan_threads(&r->qemu);

	if (added <= 0 || !r->ftrace_on)
		return;
	if (hvt_ftrace_add_pids(&r->ftrace, r->qemu.tids + before, (size_t)added)) {
		hvt_warn("cannot add new QEMU threads to the host filter");
		r->qemu.nr_tids = before;
	} else {
		hvt_debug("%d new QEMU threads join the host filter (%zu in all)", added,
			  r->qemu.nr_tids);
	}
}

static void on_tick(struct recorder *r, unsigned long tick)
{
	time_t now = time(NULL);

	if (r->ftrace_on)
		hvt_ftrace_pump(&r->ftrace);
	if (tick % 10 == 0) {
		hvt_archive_writer_clock_pair(&r->archive);
		if (r->have_qemu)
			follow_qemu_threads(r);
		if (r->have_qemu && hvt_kvm_tsc_snapshot(&r->kvm_tsc, false)) {
			r->failed = true;
			begin_stop(r, "the KVM TSC snapshots cannot be written");
		}
		if (r->have_qemu && r->kvm_tsc.snapshots)
			hvt_vm_kvm_offset(&r->vm, r->kvm_tsc.uniform, r->kvm_tsc.offset);
	}
	if (r->vm.state == HVT_VM_WAITING && r->o.channel && tick % 2 == 0) {
		int fd = try_connect(r->o.channel + 5);

		if (fd >= 0) {
			hvt_info("connected to %s; waiting for the guest agent", r->o.channel + 5);
			hvt_vm_attach(&r->vm, fd);
		}
	}
	hvt_vm_tick(&r->vm);
	if (!host_only(r) && (r->vm.state == HVT_VM_WAITING || r->vm.state == HVT_VM_HELLO) &&
	    now - r->started >= (time_t)r->o.guest_timeout_s)
		hvt_vm_end(&r->vm, "no guest agent within %u s: is 'hvtrace agent' running in the "
			   "guest, with a virtio-serial port named %s on %s?",
			   r->o.guest_timeout_s, HVT_WIRE_PORT_NAME,
			   r->o.channel ? r->o.channel + 5 : r->o.listen + 5);
	if (r->o.duration_s && now - r->started >= (time_t)r->o.duration_s)
		begin_stop(r, "duration reached");
	if (r->stopping && now > r->stop_deadline)
		hvt_vm_end(&r->vm, "the guest did not finish within %d s of the stop request",
			   STOP_GRACE_S);
}

static void loop(struct recorder *r)
{
	unsigned long tick = 0;
	int sfd, tfd;

	if (hvt_evloop_fds(TICK_MS, &sfd, &tfd)) {
		hvt_err("cannot set up signals and timers: %s", strerror(errno));
		return;
	}
	while (r->vm.state != HVT_VM_ENDED) {
		struct pollfd fds[4] = {
			{ .fd = sfd, .events = POLLIN }, { .fd = tfd, .events = POLLIN },
			{ .fd = r->have_qemu ? r->qemu.pidfd : -1, .events = POLLIN },
			{ .fd = r->vm.fd >= 0 ? r->vm.fd : r->listen_fd, .events = POLLIN },
		};

		if (poll(fds, 4, -1) < 0) {
			if (errno == EINTR)
				continue;
			hvt_err("poll: %s", strerror(errno));
			break;
		}
		if (fds[0].revents) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == sizeof(si))
				begin_stop(r, strsignal((int)si.ssi_signo));
		}
		if (fds[1].revents) {
			uint64_t n;

			if (read(tfd, &n, sizeof(n)) > 0)
				on_tick(r, ++tick);
		}
		if (fds[2].revents) {
			fds[2].fd = -1;
			hvt_qemu_close(&r->qemu);
			r->have_qemu = false;
			begin_stop(r, "the QEMU process exited");
		}
		if (fds[3].revents && r->vm.fd >= 0) {
			hvt_vm_readable(&r->vm);
		} else if (fds[3].revents && r->listen_fd >= 0) {
			int fd = accept4(r->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

			if (fd >= 0) {	/* one guest per recording: the socket goes */
				close(r->listen_fd);
				unlink(r->o.listen + 5);
				r->listen_fd = -1;
				hvt_vm_attach(&r->vm, fd);
			}
		}
	}
	close(sfd);
	close(tfd);
}

static void summary(struct recorder *r)
{
	int cpu;

	printf("hvtrace record: archive %s\n", r->archive.dir);
	if (r->ftrace_on) {
		unsigned long long total = 0;

		for (cpu = 0; cpu < r->ftrace.nr_cpus; cpu++)
			total += r->ftrace.cpu[cpu].bytes;
		printf("  host   %d CPUs, %llu KiB of ftrace pages, %d events, %zu threads\n",
		       r->ftrace.nr_cpus, total / 1024, r->ftrace.nr_events,
		       r->o.qemu_pid ? r->qemu.nr_tids : 0);
	} else {
		printf("  host   not recorded\n");
	}
	hvt_vm_summary(&r->vm, stdout);
	if (r->kvm_tsc.snapshots)
		printf("    kvm    %lu TSC snapshots from debugfs, %lu vCPU readings\n",
		       r->kvm_tsc.snapshots, r->kvm_tsc.rows);
	printf("merge it with: hvtrace merge %s\n", r->archive.dir);
	fflush(stdout);
}

/*
 * Each stream the guest keeps open holds a file, each trace its registry,
 * each host CPU a file and libtracefs's descriptors (at most five). The
 * usual soft limit of 1024 would cut off a guest within the protocol's
 * limits, so the soft limit goes up to the hard one.
 */
static void raise_fd_limit(const struct recorder *r)
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

/* --vm NAME alone: the libvirt domain gives the QEMU process and the channel. */
static int from_libvirt(struct recorder *r)
{
	struct hvt_libvirt_vm vm;
	char err[512];

	if (hvt_libvirt_lookup(r->o.connect, r->o.vm_name, &vm, err, sizeof(err))) {
		hvt_err("%s", err);
		return -1;
	}
	snprintf(r->link, sizeof(r->link), "unix:%s", vm.channel);
	/* QEMU listens on a channel in bind mode; in connect mode it calls us. */
	if (vm.qemu_listens)
		r->o.channel = r->link;
	else
		r->o.listen = r->link;
	r->o.qemu_pid = vm.qemu_pid;
	hvt_info("domain %s: QEMU pid %d, %u vCPUs, channel %s (%s)", r->o.vm_name,
		 (int)vm.qemu_pid, vm.vcpus, vm.channel, vm.qemu_listens ? "QEMU listens" :
		 "QEMU connects");
	return 0;
}

static int prepare(struct recorder *r)
{
	char err[512];

	raise_fd_limit(r);

	if (r->o.host_trace && geteuid() != 0) {
		hvt_err("recording the host layer needs root (tracefs); run as root, "
			"or pass --no-host-trace");
		return -1;
	}
	if (r->o.vm_given && !r->o.channel && !r->o.listen && !r->o.qemu_pid &&
	    from_libvirt(r))
		return -1;
	if (r->o.qemu_pid) {
		if (hvt_qemu_open(&r->qemu, r->o.qemu_pid, err, sizeof(err))) {
			hvt_err("--qemu-pid: %s", err);
			return -1;
		}
		r->have_qemu = true;
	}
	if (hvt_archive_writer_create(&r->archive, r->o.output, err, sizeof(err))) {
		hvt_err("%s", err);
		return -1;
	}
	if (hvt_vm_init(&r->vm, &r->archive, r->o.vm_name, (int)r->o.qemu_pid,
			r->have_qemu ? r->qemu.accel : "unknown", r->o.sync_interval_ms,
			r->o.quota, err, sizeof(err))) {
		hvt_err("%s", err);
		return -1;
	}
	if (r->o.listen && (r->listen_fd = listen_on(r->o.listen + 5)) < 0)
		return -1;
	r->vm.no_link = host_only(r);
	if (r->o.host_trace && start_host_layer(r))
		return -1;
	/* After the host layer: every change from the first snapshot on is traced. */
	if (r->have_qemu && !strcmp(r->qemu.accel, "kvm")) {
		if (hvt_kvm_tsc_open(&r->kvm_tsc, r->vm.dir, r->qemu.pid, err, sizeof(err))) {
			hvt_err("%s", err);
			return -1;
		}
		if (hvt_kvm_tsc_snapshot(&r->kvm_tsc, false))
			return -1;	/* said why */
		hvt_vm_kvm_offset(&r->vm, r->kvm_tsc.uniform, r->kvm_tsc.offset);
	}
	write_manifest(r, "recording");
	return 0;
}

int hvt_cmd_record(int argc, char **argv)
{
	struct recorder *r = calloc(1, sizeof(*r));
	int ret = 1;

	if (!r) {
		hvt_err("out of memory");
		return 1;
	}
	r->listen_fd = -1;
	r->o = (struct record_opts){ .vm_name = "vm", .host_trace = true,
				     .sync_interval_ms = 100, .guest_timeout_s = 120,
				     .quota = 16ull << 30 };
	if (parse_opts(&r->o, argc, argv)) {
		free(r);
		return 2;
	}
	if (!r->o.output) {
		time_t t = time(NULL);
		struct tm tm;

		localtime_r(&t, &tm);
		strftime(r->default_output, sizeof(r->default_output), "hvtrace-%Y%m%d-%H%M%S", &tm);
		r->o.output = r->default_output;
	}
	r->started = time(NULL);
	if (!prepare(r)) {
		hvt_info("recording into %s", r->archive.dir);
		loop(r);
		ret = !r->failed && (r->vm.finished || host_only(r)) ? 0 : 1;
	}
	if (r->have_qemu && hvt_kvm_tsc_snapshot(&r->kvm_tsc, true))
		ret = 1;
	hvt_kvm_tsc_close(&r->kvm_tsc);
	if (r->ftrace_on)
		hvt_ftrace_stop(&r->ftrace);
	if (r->vm.archive) {
		hvt_vm_end(&r->vm, "recording stopped");
		hvt_archive_writer_clock_pair(&r->archive);
		write_manifest(r, "complete");
		summary(r);
		hvt_vm_free(&r->vm);
	}
	hvt_archive_writer_close(&r->archive);
	hvt_ftrace_free(&r->ftrace);
	if (r->listen_fd >= 0) {
		close(r->listen_fd);
		unlink(r->o.listen + 5);
	}
	if (r->have_qemu)
		hvt_qemu_close(&r->qemu);
	free(r);
	return ret;
}
