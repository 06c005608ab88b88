// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_record.c - `hvtrace record`, the host collector.
 *
 * Options, then a recorder (recorder.c) runs the recording.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <hvtrace/app_proto.h>

#include "host/ftrace_capture.h"
#include "host/live_relay.h"
#include "host/recorder.h"
#include "host/vm_list.h"
#include "lib/cli.h"
#include "lib/log.h"
#include "lib/priority.h"
#include "lib/netaddr.h"
#include "tools/commands.h"

static void usage(FILE *out)
{
	fprintf(out,
"usage: hvtrace record --vm DOMAIN... | --all [--connect URI] [OPTIONS]   (libvirt)\n"
"       hvtrace record --channel ADDR | --listen ADDR [--qemu-pid PID] [OPTIONS]\n"
"       hvtrace record --qemu-pid PID [OPTIONS]      (host layer only)\n"
"       hvtrace record --list [--connect URI]        (the VMs of this host)\n"
"\n"
"Records the host (hypervisor) layer with ftrace on the host TSC and every\n"
"byte each VM's hvtrace agent sends, into one archive directory. Under KVM it\n"
"also records every TSC offset change of the VMs' vCPUs, and debugfs snapshots\n"
"of their offsets and scaling ratios at start, every second and at stop:\n"
"hvtrace tsc DIR shows the resulting per-vCPU timeline. The host events: the\n"
"VMs' threads' sched_switch and sched_wakeup; under KVM kvm_entry, kvm_exit,\n"
"kvm_hypercall, kvm_write_tsc_offset, kvm_pvclock_update and, where the\n"
"kernel has them, the I/O path: kvm_pio, kvm_mmio, kvm_set_irq,\n"
"kvm_msi_set_irq, kvm_apic_accept_irq, kvm_inj_virq; and those of -e.\n"
"\n"
"Finding VMs:\n"
"  --vm NAME             a running libvirt domain (repeatable): its QEMU process\n"
"                        and its <channel type='unix'> with target name\n"
"                        " HVT_WIRE_PORT_NAME ". With --channel or --listen, the\n"
"                        VM's name in the archive instead (default vm; one\n"
"                        per guest with --guests)\n"
"  --all                 every running libvirt domain, and those that start\n"
"                        while recording; runs until Ctrl-C or --duration\n"
"  --connect URI         libvirt connection (default " HVT_LIBVIRT_DEFAULT_URI ")\n"
"  --channel ADDR        connect to the VM's link: unix:PATH (QEMU -chardev\n"
"                        socket,path=PATH,server=on,wait=off with -device\n"
"                        virtserialport,name=" HVT_WIRE_PORT_NAME ") or tcp:HOST:PORT\n"
"                        (the same chardev on TCP)\n"
"  --listen ADDR         listen instead, the agents connect (hvtrace agent\n"
"                        --connect): unix:PATH, tcp:HOST:PORT (port 0: any)\n"
"                        or vsock:PORT\n"
"  --guests N            how many guests --listen takes, each its own VM\n"
"                        (default: as many as --vm names, else 1)\n"
"  --list                list the VMs of this host (KVM VMs from debugfs, QEMU\n"
"                        without KVM, libvirt domains) and how to record each\n"
"  --qemu-pid PID        the VM's QEMU (or other KVM VMM) process: host sched\n"
"                        events are filtered to its threads, kvm events and TSC\n"
"                        snapshots are added under KVM, and the VM ends when it\n"
"                        exits. Without a guest link, only the host layer is\n"
"                        recorded, until it exits or Ctrl-C.\n"
"  --qmp ADDR            that QEMU's QMP socket (unix:PATH or tcp:HOST:PORT):\n"
"                        its vCPU threads from query-cpus-fast (default:\n"
"                        from the thread names QEMU gives them with\n"
"                        -name ...,debug-threads=on)\n"
"  --qemu-log FILE       that QEMU's log (-D FILE -msg timestamp=on): the lines it\n"
"                        writes while recording are kept in the archive, and\n"
"                        merge, check and analyze read them as the vmm layer;\n"
"                        with --qmp, record turns QEMU's I/O events on for the\n"
"                        recording (virtio, virtio_blk_*, thread_pool_*, ...),\n"
"                        else give them to QEMU (-trace virtio_blk_* ...)\n"
"\n"
"Recording:\n"
"  -o, --output DIR      archive directory (default: hvtrace-DATE-TIME)\n"
"  -e, --event SYS:EVENT another host event to record (repeatable)\n"
"  --no-host-trace       do not record the host layer (runs without root)\n"
"  --host-apps PATH      the host's own programs linked with libhvtrace (QEMU,\n"
"                        vhost-user back ends, daemons) connect here; their\n"
"                        events join the archive on the host TSC, exactly aligned\n"
"                        (" HVT_APP_SOCKET " is where libhvtrace looks;\n"
"                        for another PATH, give it to the programs in\n"
"                        HVTRACE_AGENT_SOCKET). Any local process may connect:\n"
"                        off unless given\n"
"  --uid-share PERCENT   with --host-apps: what one user's programs may take of\n"
"                        the trace ids, stream ids and connections (default 25;\n"
"                        root is not limited)\n"
"  --duration SECONDS    stop after this long (default: when every guest finished)\n"
"  --sync-interval MS    period of clock exchanges (default 100)\n"
"  --guest-timeout SECONDS  how long to wait for a guest agent to say hello,\n"
"                        and for one that stopped answering clock exchanges (a\n"
"                        stalled or paused guest: said after 10 s) before it is\n"
"                        cut off (default 120). A stop waits 15 s for each\n"
"                        guest to finish, 15 s after its stall for a stalled\n"
"                        one; Ctrl-C a second time ends the wait\n"
"\n"
"Per-VM quotas (a guest over one is cut off with the reason; the others go on):\n"
"  --quota BYTES         most guest data to store (default 16 GiB)\n"
"  --max-streams N       most streams a guest may open (default %d)\n"
"  --rate BYTES          most bytes per second read from a guest; a faster one\n"
"                        is held back, not cut off (default: no limit)\n"
"\n"
"  --live [ADDR:]PORT    serve the recording as it is written to LTTng live\n"
"                        viewers (hvtrace relay; it prints the URL to give\n"
"                        babeltrace2). ADDR defaults to 127.0.0.1. The protocol\n"
"                        has no authentication: every local user (and, on\n"
"                        another ADDR, every host that reaches it) can read the\n"
"                        recording. At the end, record waits while connected\n"
"                        viewers read the rest (10 s at most after the relay read\n"
"                        the end)\n"
"  --live-from-start     with --live: every viewer gets the recording from its\n"
"                        start (babeltrace2 asks for it from now)\n"
"  --nice N              the collector's nice value, its host agent's and its\n"
"                        --live relay's (default " HVT_CONSUMER_NICE_STR ", where root or\n"
"                        CAP_SYS_NICE allows): ahead of the programs it records,\n"
"                        so that when they take every core what they write\n"
"                        still reaches the archive; never above the nice it\n"
"                        started with: 0 leaves it as started\n"
"  -v, --verbose         more messages\n"
"  -q, --quiet           warnings and errors only on stderr (the summary is\n"
"                        still printed)\n"
"  -h, --help            this text\n"
"\n"
"Ctrl-C stops cleanly: each guest is asked to send what it has, the archive is\n"
"completed, and a summary is printed per VM. Then: hvtrace merge DIR\n"
"Exit status: 0 every VM's recording finished, 1 a VM's did not (its link\n"
"broke, its guest never came) or the recording could not start (the archive\n"
"is then marked \"failed\"), 2 usage error.\n",
		HVT_VM_MAX_STREAMS);
}

static int parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (!*s || *s == '-' || *end || errno || v > max)
		return -1;
	*out = v;
	return 0;
}

/* A numeric option; -1 after saying what is wrong with it. */
static int number(const char *opt, const char *arg, unsigned long long min,
		  unsigned long long max, unsigned long long *out)
{
	if (parse_uint(arg, max, out) || *out < min) {
		hvt_usage_error("record", "invalid value '%s' for --%s (%llu to %llu)", arg, opt,
				min, max);
		return -1;
	}
	return 0;
}

/* A usage error of record's: one line, exit status 2 (lib/cli.h). */
#define bad_usage(...)	hvt_usage_error("record", __VA_ARGS__)

/* Each value on its own: addresses, the output path, event names. */
static int check_values(const struct hvt_record_opts *o)
{
	struct hvt_netaddr addr;
	char err[300];
	int i;

	if ((o->channel && hvt_netaddr_parse(o->channel, false, &addr, err, sizeof(err))) ||
	    (o->listen && hvt_netaddr_parse(o->listen, true, &addr, err, sizeof(err)))) {
		bad_usage("--%s %s", o->channel ? "channel" : "listen", err);
		return -1;
	}
	if (o->output && !o->output[0]) {
		bad_usage("--output is empty: name the archive directory");
		return -1;
	}
	for (i = 0; i < o->nr_events; i++)
		if (hvt_capture_event_ok(o->events[i], err, sizeof(err))) {
			bad_usage("-e: %s", err);
			return -1;
		}
	return 0;
}

/*
 * Whether the host has every -e event, asked of tracefs once the options
 * agree (it may mount tracefs, as the recording would a moment later).
 * Only root can read tracefs: for others the start says what is missing.
 */
static int check_events_exist(const struct hvt_record_opts *o)
{
	char err[300];
	int i;

	if (!o->host_trace || geteuid())
		return 0;
	for (i = 0; i < o->nr_events; i++)
		if (hvt_capture_event_exists(o->events[i], err, sizeof(err))) {
			bad_usage("-e: %s", err);
			return -1;
		}
	return 0;
}

/* @path with its directory resolved (the socket itself may not exist yet); false if it cannot be. */
static bool socket_path_resolved(const char *path, char *out, size_t size)
{
	char dir_copy[PATH_MAX], base_copy[PATH_MAX], dir[PATH_MAX];

	snprintf(dir_copy, sizeof(dir_copy), "%s", path);
	snprintf(base_copy, sizeof(base_copy), "%s", path);
	if (!realpath(dirname(dir_copy), dir))
		return false;
	return snprintf(out, size, "%s/%s", dir, basename(base_copy)) < (int)size;
}

/* Whether unix socket path @path is the one of --listen @listen. */
static bool same_socket(const char *path, const char *listen)
{
	char a[PATH_MAX + 256], b[PATH_MAX + 256], err[300];
	struct hvt_netaddr addr;

	if (!listen || hvt_netaddr_parse(listen, true, &addr, err, sizeof(err)) ||
	    addr.kind != HVT_ADDR_UNIX)
		return false;
	if (!strcmp(path, addr.path))
		return true;
	return socket_path_resolved(path, a, sizeof(a)) &&
	       socket_path_resolved(addr.path, b, sizeof(b)) && !strcmp(a, b);
}

/* The options together. */
static int check_opts(struct hvt_record_opts *o)
{
	bool link = o->channel || o->listen;
	int i;

	if (o->channel && o->listen) {
		bad_usage("give one guest link: --channel or --listen, not both");
		return -1;
	}
	if (check_values(o))
		return -1;
	if (o->host_apps && (o->host_apps[0] != '/' || strlen(o->host_apps) >= 108)) {
		bad_usage("--host-apps %s: an absolute path of at most 107 bytes", o->host_apps);
		return -1;
	}
	if (o->host_apps && same_socket(o->host_apps, o->listen)) {
		bad_usage("--host-apps %s is --listen's socket: give the host applications' agent a "
			  "path of its own", o->host_apps);
		return -1;
	}
	if (o->uid_share && !o->host_apps) {
		bad_usage("--uid-share is the share of --host-apps's agent: give --host-apps too");
		return -1;
	}
	if (o->nr_events && !o->host_trace) {
		bad_usage("-e adds host events, and --no-host-trace records none: give one");
		return -1;
	}
	if (!link && !o->qemu_pid && !o->nr_names && !o->all) {
		bad_usage("give libvirt domains (--vm NAME or --all), the guest link (--channel "
			  "ADDR or --listen ADDR), or --qemu-pid PID to record the host layer of a "
			  "VM only");
		return -1;
	}
	if ((link || o->qemu_pid) && (o->all || o->connect)) {
		bad_usage("--all and --connect are for libvirt domains, not with --channel, "
			  "--listen or --qemu-pid");
		return -1;
	}
	if (o->qmp && !o->qemu_pid) {
		bad_usage("--qmp is for the QEMU of --qemu-pid");
		return -1;
	}
	if (o->qemu_log && !o->qemu_pid) {
		bad_usage("--qemu-log is the log of the QEMU of --qemu-pid");
		return -1;
	}
	if (o->channel && !strncmp(o->channel, "vsock:", 6)) {
		bad_usage("--channel %s: the agent connects over vsock, it does not listen; use "
			  "--listen vsock:PORT and, in the guest, hvtrace agent --connect vsock:2:PORT",
			  o->channel);
		return -1;
	}
	if (o->guests > 1 && o->qemu_pid) {
		bad_usage("--qemu-pid names one VM's QEMU; it cannot go with --guests %u",
			  o->guests);
		return -1;
	}
	if (o->guests && !o->listen) {
		bad_usage("--guests is for --listen");
		return -1;
	}
	if (o->live_from_start && !o->live) {
		bad_usage("--live-from-start goes with --live PORT");
		return -1;
	}
	if (o->listen && !o->guests)
		o->guests = o->nr_names ? (unsigned int)o->nr_names : 1;
	if (link || o->qemu_pid) {
		unsigned int vms = o->listen ? o->guests : 1;

		if ((unsigned int)o->nr_names > vms) {
			bad_usage("%d VM names for %u VM%s (--guests N takes N guests on --listen)",
				  o->nr_names, vms, vms == 1 ? "" : "s");
			return -1;
		}
	}
	if (!link && !o->host_trace && !o->nr_names && !o->all) {
		bad_usage("--no-host-trace without a guest link would record nothing");
		return -1;
	}
	for (i = 0; i < o->nr_names; i++) {
		int j;

		if (!hvt_vm_name_ok(o->names[i]) && (link || o->qemu_pid)) {
			bad_usage("invalid --vm '%s': 1-%d letters, digits, '_', '.', '-'",
				  o->names[i], HVT_VM_NAME_MAX);
			return -1;
		}
		for (j = 0; j < i; j++)
			if (!strcmp(o->names[i], o->names[j])) {
				bad_usage("--vm %s given twice", o->names[i]);
				return -1;
			}
	}
	return check_events_exist(o);
}

/* --list lists and records nothing: it takes --connect and --verbose only. */
static int list_alone(const struct hvt_record_opts *o)
{
	if (o->channel || o->listen || o->qemu_pid || o->qmp || o->nr_names || o->all ||
	    o->guests || o->output || o->nr_events || o->duration_s) {
		hvt_usage_error("record", "--list lists the VMs and records nothing: it goes with "
				"--connect only");
		return -1;
	}
	return 0;
}

enum { O_LIST = 256, O_QMP, O_QEMU_LOG, O_CHANNEL, O_LISTEN, O_QEMU_PID, O_VM, O_ALL, O_CONNECT, O_GUESTS,
       O_NO_HOST, O_HOST_APPS, O_UID_SHARE, O_DURATION, O_SYNC, O_TIMEOUT, O_QUOTA,
       O_MAX_STREAMS, O_RATE, O_LIVE, O_LIVE_FROM_START, O_NICE };

static const struct option record_options[] = {
	{ "list", no_argument, NULL, O_LIST },
	{ "qmp", required_argument, NULL, O_QMP },
	{ "qemu-log", required_argument, NULL, O_QEMU_LOG },
	{ "channel", required_argument, NULL, O_CHANNEL },
	{ "listen", required_argument, NULL, O_LISTEN },
	{ "qemu-pid", required_argument, NULL, O_QEMU_PID },
	{ "vm", required_argument, NULL, O_VM },
	{ "all", no_argument, NULL, O_ALL },
	{ "connect", required_argument, NULL, O_CONNECT },
	{ "guests", required_argument, NULL, O_GUESTS },
	{ "output", required_argument, NULL, 'o' },
	{ "event", required_argument, NULL, 'e' },
	{ "no-host-trace", no_argument, NULL, O_NO_HOST },
	{ "host-apps", required_argument, NULL, O_HOST_APPS },
	{ "uid-share", required_argument, NULL, O_UID_SHARE },
	{ "duration", required_argument, NULL, O_DURATION },
	{ "sync-interval", required_argument, NULL, O_SYNC },
	{ "guest-timeout", required_argument, NULL, O_TIMEOUT },
	{ "quota", required_argument, NULL, O_QUOTA },
	{ "max-streams", required_argument, NULL, O_MAX_STREAMS },
	{ "rate", required_argument, NULL, O_RATE },
	{ "live", required_argument, NULL, O_LIVE },
	{ "live-from-start", no_argument, NULL, O_LIVE_FROM_START },
	{ "nice", required_argument, NULL, O_NICE },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 }
};

/* The numeric option @c, --@name @arg, into @o; -1 after saying what is wrong. */
static int take_number(struct hvt_record_opts *o, int c, const char *name, const char *arg)
{
	unsigned long long v;

	switch (c) {
	case O_QEMU_PID:
		if (number(name, arg, 1, 0x7fffffff, &v))
			return -1;
		o->qemu_pid = (pid_t)v;
		break;
	case O_GUESTS:
		if (number(name, arg, 1, HVT_REC_MAX_TARGETS, &v))
			return -1;
		o->guests = (unsigned int)v;
		break;
	case O_DURATION:
	case O_TIMEOUT:
		if (number(name, arg, 1, 0x7fffffff, &v))
			return -1;
		if (c == O_DURATION)
			o->duration_s = (unsigned int)v;
		else
			o->guest_timeout_s = o->limits.stall_timeout_s = (uint32_t)v;
		break;
	case O_SYNC:
		if (number(name, arg, 1, 0x7fffffff, &v))
			return -1;
		o->limits.sync_interval_ms = (uint32_t)v;
		break;
	case O_QUOTA:
		if (number(name, arg, 0, ~0ull, &v))
			return -1;
		o->limits.byte_quota = v;
		break;
	case O_MAX_STREAMS:
		if (number(name, arg, 1, HVT_VM_MAX_STREAMS, &v))
			return -1;
		o->limits.max_streams = (uint32_t)v;
		break;
	case O_UID_SHARE:
		if (number(name, arg, 1, 100, &v))
			return -1;
		o->uid_share = (unsigned int)v;
		break;
	case O_RATE:
		/* At least a packet a second: a full sub-buffer must get through. */
		if (number(name, arg, 65536, 1ull << 40, &v))
			return -1;
		o->limits.rate = v;
		break;
	}
	return 0;
}

/*
 * Option @c of getopt_long() (--@name for a long one), with its argument
 * @arg, into @o; -1 after an error message. --help exits.
 */
static int take_opt(struct hvt_record_opts *o, int c, const char *name, char *arg, char **argv)
{
	switch (c) {
	case O_LIST: o->list = true; break;
	case O_QMP: o->qmp = arg; break;
	case O_QEMU_LOG: o->qemu_log = arg; break;
	case O_CHANNEL: o->channel = arg; break;
	case O_LISTEN: o->listen = arg; break;
	case O_ALL: o->all = true; break;
	case O_CONNECT: o->connect = arg; break;
	case O_NO_HOST: o->host_trace = false; break;
	case O_HOST_APPS: o->host_apps = arg; break;
	case O_LIVE: o->live = arg; break;
	case O_LIVE_FROM_START: o->live_from_start = true; break;
	case 'o': o->output = arg; break;
	case 'v': hvt_log_set_verbose(1); hvt_log_set_quiet(0); break;	/* the last one counts */
	case 'q': hvt_log_set_quiet(1); hvt_log_set_verbose(0); break;
	case O_NICE:
		if (hvt_nice_parse(arg, &o->nice)) {
			hvt_usage_error("record", "invalid --nice: %s (a nice value, -20..19)", arg);
			return -1;
		}
		break;
	case 'h': usage(stdout); exit(0);
	case O_VM:
		if (o->nr_names == HVT_REC_MAX_NAMES) {
			hvt_err("at most %d --vm", HVT_REC_MAX_NAMES);
			return -1;
		}
		o->names[o->nr_names++] = arg;
		break;
	case 'e':
		if (o->nr_events == HVT_REC_MAX_EXTRA_EVENTS) {
			hvt_err("at most %d extra host events", HVT_REC_MAX_EXTRA_EVENTS);
			return -1;
		}
		o->events[o->nr_events++] = arg;
		break;
	case O_QEMU_PID:
	case O_GUESTS:
	case O_DURATION:
	case O_TIMEOUT:
	case O_SYNC:
	case O_QUOTA:
	case O_MAX_STREAMS:
	case O_RATE:
	case O_UID_SHARE:
		return take_number(o, c, name, arg);
	default:
		hvt_usage_bad_option("record", argv, "o:e:vh", record_options);
		return -1;
	}
	return 0;
}

static int parse_opts(struct hvt_record_opts *o, int argc, char **argv)
{
	int c, i;

	optind = 0;	/* glibc: start over, the command may run more than once */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:e:vqh", record_options, &i)) != -1)
		if (take_opt(o, c, c >= 256 ? record_options[i].name : "", optarg, argv))
			return -1;
	if (optind < argc) {
		hvt_usage_error("record", "unexpected argument '%s'", argv[optind]);
		return -1;
	}
	if (o->list)
		return list_alone(o);
	return check_opts(o);
}

int hvt_cmd_record(int argc, char **argv)
{
	struct hvt_recorder *r = calloc(1, sizeof(*r));
	struct hvt_live_relay live = { .fd = -1 };
	int ret;

	if (!r) {
		hvt_err("out of memory");
		return 1;
	}
	hvt_record_opts_init(&r->o);
	if (parse_opts(&r->o, argc, argv)) {
		free(r);
		return 2;
	}
	if (!r->o.list)
		hvt_consumer_priority(r->o.nice, "collector");
	if (r->o.list) {
		ret = hvt_vm_list(stdout, r->o.connect);
		free(r);
		return ret;
	}
	if (!r->o.output) {
		time_t t = time(NULL);
		struct tm tm;

		localtime_r(&t, &tm);
		strftime(r->default_output, sizeof(r->default_output), "hvtrace-%Y%m%d-%H%M%S", &tm);
		r->o.output = r->default_output;
	}
	if (r->o.live && hvt_live_relay_listen(&live, r->o.live)) {
		free(r);
		return 1;
	}
	if (!hvt_recorder_prepare(r)) {
		hvt_live_relay_start(&live, r->o.output, r->o.live_from_start);
		hvt_recorder_run(r);
	}
	ret = hvt_recorder_finish(r);
	hvt_live_relay_finish(&live);
	free(r);
	return ret;
}
