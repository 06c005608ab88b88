// SPDX-License-Identifier: GPL-2.0-only
/*
 * agent.c - `hvtrace agent`, the guest side of a recording: options,
 * set-up, what the host's frames ask, the event loop. It sits on the
 * agent's other files, which never call up into it:
 *
 *   agent_kernel.c  the guest module's session: per-CPU streams
 *   agent_apps.c    traced applications: their memfd ring buffers
 *   agent_link.c    beneath both: the link to the host, frames out, the
 *                   log, trace and stream ids
 *   agent_main.c    hvtrace-agent, these alone: the guest's binary (libc only)
 *
 * The agent holds the only connection to the host. It forwards packets as
 * they are, after checking them; it answers clock exchanges at once and
 * publishes the host's transform in the module's clock page.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <hvtrace/abi.h>
#include <hvtrace/ringbuf.h>

#include "lib/cli.h"
#include "lib/evloop.h"
#include "lib/log.h"
#include "lib/netaddr.h"
#include "lib/priority.h"
#include "lib/tsc.h"
#include "lib/version.h"
#include "lib/wire_io.h"
#include "tools/agent/agent_apps.h"
#include "tools/agent/agent_kernel.h"
#include "tools/agent/agent_link.h"
#include "tools/commands.h"

#define TICK_MS		100	/* housekeeping period; the default drain period */
#define FLUSH_TICKS	10	/* close partial kernel packets every second: a live
				 * follower (merge --follow) waits at most that long */
#define FINISH_WAIT_S	15	/* how long to wait for the host's GOODBYE */
#define REPORT_TICKS	100	/* -v: packets forwarded, every 10 s */
#define AGENT_MAX_EVENTS	32	/* -e, at most */

struct agent {
	struct agent_link link;
	struct hvt_frame_reader reader;	/* the host's frames */
	int dev;			/* /dev/hvtrace, -1 without the module */
	uint64_t tsc_khz;		/* the module's clock page's; 0 without it */
	uint32_t clock_flags;
	bool have_rdtscp;		/* TSC and CPU in one instruction */
	unsigned int drain_ticks;	/* drain every stream this often (ticks of 100 ms) */
	struct agent_kernel kernel;
	struct agent_apps apps;
	uint64_t packets_reported;	/* packets_sent at the last -v report */
	bool started, finishing, done;
	bool stop_asked;		/* STOP came: finish at the end of the loop's turn */
	time_t finish_deadline;		/* finishing: when to stop waiting for GOODBYE */
};

/* Whether the event loop ends: the agent is done, or its link is lost, which ends it too. */
static bool agent_done(const struct agent *a)
{
	return a->done || a->link.host_gone;
}

static void usage(FILE *out)
{
	fprintf(out,
"usage: hvtrace agent [OPTIONS]\n"
"   or: hvtrace-agent [OPTIONS]   (the same agent, needing libc only)\n"
"\n"
"Runs in the guest: connects to the host collector, records the guest kernel\n"
"through the hvtrace module and serves traced applications (libhvtrace).\n"
"\n"
"  --port PATH         virtio-serial port to the host (default: the port named\n"
"                      " HVT_WIRE_PORT_NAME ", found in /sys/class/virtio-ports)\n"
"  --connect ADDR      connect to a collector's socket instead: unix:PATH,\n"
"                      tcp:HOST:PORT, or vsock:2:PORT (the host, by vhost-vsock)\n"
"  --socket PATH       where applications register (default " HVT_APP_SOCKET ")\n"
"  --host              serve the host's own applications, for hvtrace record\n"
"                      --host-apps, which starts the agent so: no kernel layer,\n"
"                      applications on the host TSC only\n"
"  --link-fd N         the link to the collector is descriptor N, already\n"
"                      connected (how hvtrace record starts it)\n"
"  -e, --event NAME    also record kernel event NAME (repeatable): sched_wakeup,\n"
"                      sched_process_fork/_exec/_exit, irq_handler_entry/_exit,\n"
"                      softirq_entry/_exit, sys_enter/_exit, block_rq_issue,\n"
"                      block_rq_complete, net_dev_xmit, netif_receive_skb\n"
"                      (docs/format.md); always recorded: sched_switch, cpu_idle\n"
"                      and the module's own (hvtrace_sync_begin, _end,\n"
"                      _unavailable, hvtrace_clock_change)\n"
"  --no-default-events not sched_switch and cpu_idle, only the module's own\n"
"                      and -e's (the clock is then aligned without the vCPU\n"
"                      runs, and analyze cannot explain the VM)\n"
"  --subbuf-size BYTES sub-buffer size, power of two (default 65536)\n"
"  --nr-subbufs N      sub-buffers per CPU, power of two (default 8)\n"
"  --overwrite         kernel buffers in flight-recorder mode: when the host\n"
"                      falls behind, the oldest packets go, not the newest\n"
"  --drain-interval MS also forward every buffer's complete packets this often\n"
"                      (default 100); packets are forwarded as they complete\n"
"                      whatever it is, this only catches stragglers\n"
"  --uid-share PERCENT what one user's processes may take of the recording's\n"
"                      trace ids and stream ids and of the agent's connections\n"
"                      (default 25; root is not limited); past it its\n"
"                      processes and threads go untraced, counted in the\n"
"                      archive\n"
"  --nice N            the agent's nice value (default " HVT_CONSUMER_NICE_STR ", where root or\n"
"                      CAP_SYS_NICE allows): ahead of the programs it drains,\n"
"                      so that when they take every core what they write still\n"
"                      reaches the host; never above the nice it started\n"
"                      with: 0 leaves it as started\n"
"  --wait SECONDS      how long to wait for the host (default 120; 0: no limit,\n"
"                      as the systemd unit runs it)\n"
"  -v, --verbose       also say what happens to applications, streams, packets\n"
"  -V, --version       print hvtrace's version (as 'hvtrace --version') and exit\n"
"  -h, --help          this text\n"
"\n"
"Stops on SIGINT or SIGTERM, or when the host asks; sends everything first.\n"
"Exit status: 0 stopped cleanly, 1 the host or the module could not be\n"
"reached or the link broke, 2 usage error.\n");
}

/*
 * Sync points and clock changes are what merge aligns each vCPU with: the
 * module's own events, always recorded. sched_switch and cpu_idle (a
 * vCPU's last event before it halts and its first after it wakes) pin it
 * to its host thread's runs (docs/clock-model.md) and make the analysis:
 * recorded unless --no-default-events. -e adds to them.
 */
static const char *const module_events[] = {
	"hvtrace_sync_begin", "hvtrace_sync_end", "hvtrace_sync_unavailable",
	"hvtrace_clock_change", NULL
};
static const char *const default_events[] = { "sched_switch", "cpu_idle", NULL };

/* The module's clock page says what the guest clock is. */
static void read_clock_page(struct agent *a)
{
	const struct hvt_clock_page *page;

	page = mmap(NULL, HVT_CLOCK_PAGE_SIZE, PROT_READ, MAP_SHARED, a->dev, 0);
	if (page == MAP_FAILED)
		return;
	if (hvt_clock_page_ok(page)) {
		a->tsc_khz = page->tsc_khz;
		a->clock_flags = page->flags;
	} else {
		hvt_warn("%s: clock page not understood (another hvtrace version?)",
			 HVTRACE_DEVICE);
	}
	munmap((void *)page, HVT_CLOCK_PAGE_SIZE);
}

static int send_hello(struct agent *a)
{
	struct hvt_w_hello h = { .version = HVT_WIRE_VERSION };
	struct utsname u;

	h.nr_cpus = (uint32_t)sysconf(_SC_NPROCESSORS_CONF);
	h.tsc_khz = a->tsc_khz;
	h.clock_flags = a->clock_flags;
	if (!uname(&u))
		memcpy(h.kernel_release, u.release,
		       strnlen(u.release, sizeof(h.kernel_release) - 1));
	return agent_send(&a->link, HVT_W_HELLO, 0, &h, sizeof(h));
}

/* The TSC and the CPU it was read on: one RDTSCP where the CPU has it. */
static uint64_t read_tsc_cpu(const struct agent *a, uint32_t *cpu)
{
	uint64_t t;

	if (a->have_rdtscp)
		return hvt_tsc_read_cpu(cpu);
	t = __rdtsc();
	*cpu = (uint32_t)sched_getcpu();
	return t;
}

static void on_sync_req(struct agent *a, const struct hvt_frame *f, uint64_t recv_tsc,
			uint32_t recv_cpu)
{
	struct hvt_w_sync_req req;
	struct hvt_w_sync_reply rep;

	memcpy(&req, f->payload, sizeof(req));
	rep.seq = req.seq;
	rep.host_send = req.host_send;
	rep.guest_recv = recv_tsc;
	rep.cpu_recv = recv_cpu;
	rep.guest_send = read_tsc_cpu(a, &rep.cpu_send);
	agent_send(&a->link, HVT_W_SYNC_REPLY, 0, &rep, sizeof(rep));
}

static void on_params(struct agent *a, const struct hvt_frame *f)
{
	struct hvtrace_set_clock set = { 0 };
	struct hvt_w_params p;

	memcpy(&p, f->payload, sizeof(p));
	hvt_debug("clock transform from the host: error bound %llu ns%s",
		  (unsigned long long)p.params.error_ns, a->dev < 0 ? " (no module: unused)" : "");
	if (a->dev < 0)
		return;
	set.flags = p.page_flags;
	set.cpu = p.cpu;
	set.set = p.set;
	set.params = p.params;
	if (ioctl(a->dev, HVTRACE_IOC_SET_CLOCK, &set))
		agent_log(&a->link, "clock transform from the host refused by the module: %s",
			  strerror(errno));
}

static void on_start(struct agent *a)
{
	if (a->started)
		return;
	a->started = true;
	a->apps.tracing = true;
	if (a->dev >= 0 && agent_kernel_start(&a->kernel, a->dev))
		agent_log(&a->link, "recording without the guest kernel layer");
	if (agent_apps_listen(&a->apps))
		agent_log(&a->link, "applications cannot register: no socket at %s",
			  a->apps.socket_path);
	else
		hvt_info("tracing started; applications register at %s", a->apps.socket_path);
}

static void begin_finish(struct agent *a)
{
	struct hvt_w_finish fin = { 0 };

	if (a->finishing)
		return;
	a->finishing = true;
	a->apps.tracing = false;
	if (!a->started) {	/* the host accepts FINISH only once tracing runs */
		hvt_info("stopped before tracing started");
		a->done = true;
		return;
	}
	agent_kernel_stop(&a->kernel);
	agent_apps_close_all(&a->apps);
	fin.packets = a->link.packets_sent;
	fin.lost = a->link.lost;
	fin.traces = a->link.next_trace_id;
	fin.streams = a->link.next_stream_id;
	agent_send(&a->link, HVT_W_FINISH, 0, &fin, sizeof(fin));
	a->finish_deadline = time(NULL) + FINISH_WAIT_S;
	hvt_info("tracing stopped: %llu packets sent, %llu events lost",
		 (unsigned long long)a->link.packets_sent, (unsigned long long)a->link.lost);
}

static void on_frame(struct agent *a, const struct hvt_frame *f, uint64_t tsc, uint32_t cpu)
{
	switch (f->hdr.type) {
	case HVT_W_WELCOME:
		break;
	case HVT_W_SYNC_REQ:
		on_sync_req(a, f, tsc, cpu);
		break;
	case HVT_W_PARAMS:
		on_params(a, f);
		break;
	case HVT_W_START:
		on_start(a);
		break;
	case HVT_W_STOP:	/* at the end of the loop's turn: this may be mid-drain */
		a->stop_asked = true;
		break;
	case HVT_W_GOODBYE:
		a->done = true;
		break;
	}
}

static void on_port_readable(struct agent *a)
{
	struct hvt_frame f;
	const char *why;
	uint32_t cpu;
	ssize_t n = hvt_frame_reader_fill(&a->reader, a->link.port);
	/* Read right after the data arrived: an upper bound of its arrival time. */
	uint64_t tsc = read_tsc_cpu(a, &cpu);
	int r;

	if (n == 0 || (n < 0 && errno != EAGAIN)) {
		if (!agent_done(a))
			hvt_err("the host closed the link");
		a->link.host_gone = true;
		return;
	}
	while ((r = hvt_frame_reader_next(&a->reader, 0, &f, &why)) == 1)
		on_frame(a, &f, tsc, cpu);
	if (r < 0) {
		hvt_err("malformed frame from the host: %s", why);
		a->link.host_gone = true;
	}
}

/*
 * Between batches of packets (agent_link.h): the host's frames, if any
 * came, so that a clock exchange is answered now and its reply waits
 * behind one batch. What cannot be done in the middle of a drain (STOP)
 * is only noted here.
 */
static void answer_host(void *ctx)
{
	struct agent *a = ctx;
	struct pollfd p = { .fd = a->link.port, .events = POLLIN };

	if (poll(&p, 1, 0) == 1 && (p.revents & POLLIN))
		on_port_readable(a);
}

static void on_tick(struct agent *a, unsigned long tick)
{
	if (a->started && !a->finishing) {
		bool drain = tick % a->drain_ticks == 0, flush = tick % FLUSH_TICKS == 0;

		/* Wakeups drain as packets complete; this catches what they missed. */
		if (drain || flush)
			agent_kernel_drain(&a->kernel, flush);
		if (drain)
			agent_apps_drain(&a->apps);
		if (tick % REPORT_TICKS == 0 && a->link.packets_sent != a->packets_reported) {
			hvt_debug("%llu packets forwarded (%llu in the last %d s)",
				  (unsigned long long)a->link.packets_sent,
				  (unsigned long long)(a->link.packets_sent - a->packets_reported),
				  REPORT_TICKS * TICK_MS / 1000);
			a->packets_reported = a->link.packets_sent;
		}
	}
	if (a->finishing && time(NULL) > a->finish_deadline) {
		hvt_warn("no GOODBYE from the host after %d s; exiting", FINISH_WAIT_S);
		a->done = true;
	}
}

/* What each entry of the poll set is; built anew on every turn of the loop. */
enum poll_kind { POLL_PORT, POLL_SIGNALS, POLL_TIMER, POLL_LISTEN, POLL_APP, POLL_APP_WAKE,
		 POLL_KERNEL };

struct poll_set {
	struct pollfd *fds;
	struct { enum poll_kind kind; unsigned int index; } *slots;
	nfds_t n, cap;
};

static int poll_add(struct poll_set *p, enum poll_kind kind, unsigned int index, int fd)
{
	if (p->n == p->cap) {
		nfds_t cap = p->cap ? 2 * p->cap : 64;
		void *fds = realloc(p->fds, cap * sizeof(*p->fds)), *slots;

		if (fds)
			p->fds = fds;
		slots = fds ? realloc(p->slots, cap * sizeof(*p->slots)) : NULL;
		if (!slots)
			return -1;
		p->slots = slots;
		p->cap = cap;
	}
	p->fds[p->n] = (struct pollfd){ .fd = fd, .events = POLLIN };
	p->slots[p->n].kind = kind;
	p->slots[p->n].index = index;
	p->n++;
	return 0;
}

/*
 * The port, signals, timer, listener, applications and their eventfds, and
 * the kernel's stream fds (a stream fd of -1, closed, is skipped by poll).
 */
static int poll_build(struct poll_set *p, struct agent *a, int sfd, int tfd)
{
	unsigned int slot, cpu;
	int bad = 0;

	p->n = 0;
	bad |= poll_add(p, POLL_PORT, 0, a->link.port);
	bad |= poll_add(p, POLL_SIGNALS, 0, sfd);
	bad |= poll_add(p, POLL_TIMER, 0, tfd);
	if (a->apps.listen_fd >= 0)
		bad |= poll_add(p, POLL_LISTEN, 0, a->apps.listen_fd);
	for (slot = 0; slot < AGENT_MAX_APPS; slot++) {
		const struct app *app = a->apps.apps[slot];

		if (!app)
			continue;
		bad |= poll_add(p, POLL_APP, slot, app->fd);
		if (app->wake_fd >= 0)
			bad |= poll_add(p, POLL_APP_WAKE, slot, app->wake_fd);
	}
	/* woken once per delivered packet */
	if (a->started && !a->finishing && a->kernel.session >= 0)
		for (cpu = 0; cpu < a->kernel.nr_cpus; cpu++)
			bad |= poll_add(p, POLL_KERNEL, cpu, a->kernel.streams[cpu]);
	return bad ? -1 : 0;
}

/* One ready entry; an application's slot may have been emptied earlier this turn. */
static void poll_dispatch(struct agent *a, const struct poll_set *p, nfds_t i, int sfd,
			  int tfd, unsigned long *tick)
{
	unsigned int index = p->slots[i].index;
	struct signalfd_siginfo si;
	uint64_t expirations;

	switch (p->slots[i].kind) {
	case POLL_PORT:
		on_port_readable(a);
		break;
	case POLL_SIGNALS:
		if (read(sfd, &si, sizeof(si)) == sizeof(si))
			begin_finish(a);
		break;
	case POLL_TIMER:
		if (read(tfd, &expirations, sizeof(expirations)) > 0)
			on_tick(a, ++*tick);
		break;
	case POLL_LISTEN:
		if (a->apps.listen_fd >= 0)
			agent_apps_accept(&a->apps);
		break;
	case POLL_APP:
		if (a->apps.apps[index] && a->apps.apps[index]->fd == p->fds[i].fd)
			agent_apps_handle(&a->apps, index);
		break;
	case POLL_APP_WAKE:
		if (a->apps.apps[index] && a->apps.apps[index]->wake_fd == p->fds[i].fd &&
		    a->started && !a->finishing)
			agent_apps_wake(&a->apps, index);
		break;
	case POLL_KERNEL:
		if (a->started && !a->finishing)
			agent_kernel_on_ready(&a->kernel, index);
		break;
	}
}

static int run(struct agent *a)
{
	struct poll_set p = { 0 };
	unsigned long tick = 0;
	int sfd, tfd, failed;
	bool oom = false;
	nfds_t i;

	if (hvt_evloop_fds(TICK_MS, &sfd, &tfd)) {
		hvt_err("cannot set up signals and timers: %s", strerror(errno));
		return 1;
	}
	while (!agent_done(a)) {
		if (poll_build(&p, a, sfd, tfd)) {
			hvt_err("out of memory");
			oom = true;
			break;
		}
		if (poll(p.fds, p.n, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (i = 0; i < p.n && !agent_done(a); i++)
			if (p.fds[i].revents)
				poll_dispatch(a, &p, i, sfd, tfd, &tick);
		if (a->stop_asked)
			begin_finish(a);
	}
	/* the link was lost rather than ended, or the loop ran out of memory */
	failed = (a->link.host_gone && !a->finishing) || oom;
	if (!a->finishing)
		begin_finish(a);
	close(sfd);
	close(tfd);
	free(p.fds);
	free(p.slots);
	return failed ? 1 : 0;
}

/* A count or size of at least 1: decimal, or hexadecimal after 0x. */
static int parse_size(const char *s, uint32_t *out)
{
	uint64_t v;

	if (hvt_parse_u64(s, 1, UINT32_MAX, &v))
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* What the command line asks for. */
struct agent_opts {
	const char *port, *connect_to;	/* the link: one of these, or link_fd */
	int link_fd;			/* -1: none given */
	uint32_t wait_s, drain_ms;
	const char *socket_path;
	bool host, overwrite;
	uint32_t subbuf_size, nr_subbufs;
	uint32_t uid_share;		/* percent */
	const char *events[AGENT_MAX_EVENTS + 8];	/* -e's, then the final list */
	unsigned int nr_events;
	bool no_default_events;
	int nice;			/* --nice (lib/priority.h) */
};

static bool listed(const char *const *v, unsigned int n, const char *name)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i], name))
			return true;
	return false;
}

/* The events to record: the module's, the defaults (unless refused), then -e's. */
static void add_default_events(struct agent_opts *o)
{
	const char *given[AGENT_MAX_EVENTS];
	unsigned int n = o->nr_events, i;

	memcpy(given, o->events, n * sizeof(*given));
	o->nr_events = 0;
	for (i = 0; module_events[i]; i++)
		o->events[o->nr_events++] = module_events[i];
	for (i = 0; !o->no_default_events && default_events[i]; i++)
		o->events[o->nr_events++] = default_events[i];
	for (i = 0; i < n; i++)
		if (!listed(o->events, o->nr_events, given[i]))
			o->events[o->nr_events++] = given[i];
}

/* The options together, once each was taken; HVT_EXIT_USAGE after saying why not. */
static int check_opts(const struct agent_opts *o)
{
	if (!!o->port + !!o->connect_to + (o->link_fd >= 0) > 1)
		return hvt_usage_error("agent", "--port, --connect and --link-fd all name the "
				       "link to the host: give one");
	if (o->connect_to) {
		struct hvt_netaddr addr;
		char err[300];

		if (hvt_netaddr_parse(o->connect_to, false, &addr, err, sizeof(err))) {
			return hvt_usage_error("agent", "--connect %s", err);
		}
	}
	if (!hvt_rb_geometry_ok(o->subbuf_size, o->nr_subbufs)) {
		return hvt_usage_error("agent", "buffer geometry %u x %u: sizes must be powers of "
				       "two, 4 KiB..1 MiB sub-buffers, 2..1024 of them",
				       o->nr_subbufs, o->subbuf_size);
	}
	return 0;
}

#define AGENT_SHORT	"e:vVh"	/* getopt_long()'s short options */

static const struct option agent_options[] = {
	{ "port", required_argument, NULL, 'p' },
	{ "connect", required_argument, NULL, 'c' },
	{ "socket", required_argument, NULL, 's' },
	{ "host", no_argument, NULL, 'H' },
	{ "link-fd", required_argument, NULL, 'L' },
	{ "event", required_argument, NULL, 'e' },
	{ "no-default-events", no_argument, NULL, 'X' },
	{ "subbuf-size", required_argument, NULL, 'S' },
	{ "nr-subbufs", required_argument, NULL, 'N' },
	{ "overwrite", no_argument, NULL, 'O' },
	{ "drain-interval", required_argument, NULL, 'D' },
	{ "wait", required_argument, NULL, 'w' },
	{ "uid-share", required_argument, NULL, 'U' },
	{ "nice", required_argument, NULL, 'n' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 }
};

/*
 * Takes option @c of getopt_long(), with its argument @arg. -1 to go on,
 * else the command's exit status: 0 after --help, HVT_EXIT_USAGE after a
 * usage error.
 */
static int take_opt(struct agent_opts *o, int c, const char *arg, char **argv)
{
	uint32_t link_fd;

	switch (c) {
	case 'p': o->port = arg; break;
	case 'c': o->connect_to = arg; break;
	case 's': o->socket_path = arg; break;
	case 'H': o->host = true; break;
	case 'L':
		if (parse_size(arg, &link_fd) || link_fd < 3 || fcntl((int)link_fd, F_GETFD) < 0) {
			return hvt_usage_error("agent", "--link-fd %s: not an open "
					       "descriptor above 2", arg);
		}
		o->link_fd = (int)link_fd;
		break;
	case 'e':
		if (o->nr_events == AGENT_MAX_EVENTS) {
			return hvt_usage_error("agent", "at most %d kernel events",
					       AGENT_MAX_EVENTS);
		}
		o->events[o->nr_events++] = arg;
		break;
	case 'X':
		o->no_default_events = true;
		break;
	case 'O':
		o->overwrite = true;
		break;
	case 'S':
	case 'N':
		if (parse_size(arg, c == 'S' ? &o->subbuf_size : &o->nr_subbufs)) {
			return hvt_usage_error("agent", "invalid number for --%s: %s",
					       c == 'S' ? "subbuf-size" : "nr-subbufs", arg);
		}
		break;
	case 'D':
		if (parse_size(arg, &o->drain_ms)) {
			return hvt_usage_error("agent", "invalid --drain-interval: %s "
					       "(milliseconds, at least 1)", arg);
		}
		break;
	case 'U':
		if (parse_size(arg, &o->uid_share) || o->uid_share > 100)
			return hvt_usage_error("agent", "invalid --uid-share: %s (percent, "
					       "1..100)", arg);
		break;
	case 'w':
		if (!strcmp(arg, "0"))
			o->wait_s = 0;	/* no limit */
		else if (parse_size(arg, &o->wait_s))
			return hvt_usage_error("agent", "invalid --wait: %s (seconds)", arg);
		break;
	case 'n':
		if (hvt_nice_parse(arg, &o->nice))
			return hvt_usage_error("agent", "invalid --nice: %s (a nice value, "
					       "-20..19)", arg);
		break;
	case 'v': hvt_log_set_verbose(1); break;
	case 'h': usage(stdout); return 0;
	case 'V': fputs(HVT_VERSION_LINE, stdout); return 0;
	default: return hvt_usage_bad_option("agent", argv, AGENT_SHORT, agent_options);
	}
	return -1;
}

/* Fills @o from the command line; returns as take_opt() does. */
static int parse_opts(struct agent_opts *o, int argc, char **argv)
{
	int c, ret;

	*o = (struct agent_opts){
		.link_fd = -1, .wait_s = 120, .drain_ms = TICK_MS, .socket_path = HVT_APP_SOCKET,
		.subbuf_size = 65536, .nr_subbufs = 8, .uid_share = AGENT_UID_SHARE_DEFAULT,
		.nice = HVT_CONSUMER_NICE,
	};
	optind = 0;	/* glibc: start over, the command may run more than once */
	opterr = 0;
	while ((c = getopt_long(argc, argv, AGENT_SHORT, agent_options, NULL)) != -1)
		if ((ret = take_opt(o, c, optarg, argv)) >= 0)
			return ret;
	if (optind < argc)
		return hvt_usage_error("agent", "unexpected argument '%s'", argv[optind]);
	if (check_opts(o))
		return HVT_EXIT_USAGE;
	add_default_events(o);
	return -1;
}

/*
 * The agent as @o says, up to its link: the module's device and clock page,
 * the TSC's rate, the scratch buffers. -1 after an error message; whatever
 * it took, agent_free() gives back.
 */
static int agent_init(struct agent *a, const struct agent_opts *o)
{
	*a = (struct agent){
		.link = { .port = -1, .next_trace_id = 1 },
		.dev = -1,
		.drain_ticks = (o->drain_ms + TICK_MS - 1) / TICK_MS,
		.kernel = { .link = &a->link, .events = o->events, .nr_events = o->nr_events,
			    .subbuf_size = o->subbuf_size, .nr_subbufs = o->nr_subbufs,
			    .overwrite = o->overwrite, .session = -1 },
		.apps = { .link = &a->link, .socket_path = o->socket_path, .listen_fd = -1,
			  .host = o->host, .uids = { .percent = o->uid_share } },
	};
	a->have_rdtscp = hvt_tsc_have_rdtscp();
	a->link.between_packets = answer_host;
	a->link.between_ctx = a;
	a->dev = o->host ? -1 : open(HVTRACE_DEVICE, O_RDONLY | O_CLOEXEC);
	if (a->dev < 0 && !o->host)
		hvt_warn("%s: %s; no guest kernel layer (load hvtrace.ko)", HVTRACE_DEVICE,
			 strerror(errno));
	else if (a->dev >= 0)
		read_clock_page(a);
	/* Only labels the CTF clock of applications without the page (HVT_DOMAIN_TSC). */
	a->apps.tsc_hz = a->tsc_khz ? a->tsc_khz * 1000 : hvt_tsc_measure_hz(20000000);
	a->apps.pkt = malloc(HVT_RB_MAX_SUBBUF);	/* an application's packets, any geometry */
	a->apps.msg = malloc(HVT_APP_MAX_MSG);
	if (!a->apps.pkt || !a->apps.msg || hvt_frame_reader_init(&a->reader)) {
		hvt_err("out of memory");
		return -1;
	}
	return 0;
}

/* Every exit frees what it took: the sanitizer build counts a leak as a failure. */
static void agent_free(struct agent *a)
{
	if (a->dev >= 0)
		close(a->dev);
	hvt_frame_reader_free(&a->reader);
	free(a->apps.pkt);
	free(a->apps.msg);
}

int hvt_cmd_agent(int argc, char **argv)
{
	struct agent_opts o;
	struct agent a;
	int ret = parse_opts(&o, argc, argv);

	if (ret >= 0)
		return ret;	/* --help, or a usage error */
	ret = 1;
	hvt_consumer_priority(o.nice, "agent");
	if (!agent_init(&a, &o) &&
	    !agent_link_open(&a.link, o.link_fd, o.connect_to, o.port, (int)o.wait_s)) {
		ret = send_hello(&a) ? 1 : run(&a);
		close(a.link.port);
	}
	agent_free(&a);
	return ret;
}
