// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_collector.c - the two hot paths of `hvtrace record`, each against
 * the floor any collector pays for the same bytes, measured in the same run.
 *
 * 1. Guest data ingest (host/vm_link.c, host/vm_store.c). A thread of this
 *    process is the guest agent: over a socketpair it says HELLO, answers
 *    the collector's clock exchanges as a guest whose TSC runs a fixed
 *    distance ahead, and once STARTed opens a kernel trace (TRACE_OPEN,
 *    REGISTRY of sched_switch), two per-CPU streams and sends PACKET frames
 *    of 64 KiB CTF packets full of sched_switch events, built by the ring
 *    buffer the module uses; then STREAM_CLOSE, FINISH and the final
 *    exchanges until GOODBYE. The main thread is the collector, run as the
 *    recorder runs it: poll() on the link and a 100 ms timerfd,
 *    hvt_vm_readable() and hvt_vm_tick(). Every packet is checked and
 *    stored in an archive under /tmp. Timed from the guest's start to the
 *    moment the last packet is stored: wall time and the collector
 *    thread's CPU time. The fsync of the streams when the link ends is
 *    outside (it measures the disk, not the collector).
 *    Reference: the same writer sends the same data frames through the same
 *    kind of socketpair, and the main thread copies them to a file with a
 *    plain blocking read()/write() loop: one copy in, one copy out, nothing
 *    checked. The two alternate, ROUNDS each; the best round of each counts.
 *
 * 2. Host layer capture (host/ftrace_capture.c), as root with tracefs only.
 *    Two threads of this process, pinned to one CPU, ping-pong a byte over
 *    two pipes as fast as they can: up to two sched_wakeup and two
 *    sched_switch events per round trip (fewer when a woken thread preempts
 *    the other before it sleeps). hvt_capture_start() records both events in
 *    its own instance (hvtrace-PID), filtered to the two threads, and the
 *    main thread calls hvt_capture_pump() every 20 ms, as the recorder does.
 *    CPU time is the main thread's inside the pump; the events are those
 *    the saved pages hold (decoded with libtraceevent's kbuffer), the lost
 *    ones the instance's per-CPU overrun and dropped counts. Reference: the
 *    same instance set up the same way for the same workload, drained every
 *    20 ms by a plain loop of tracefs_cpu_read() (one read() of a page) and
 *    write() into a file per CPU, up to the page the writer is on.
 *
 * The collector (the main thread) runs on the first CPU this process may
 * use, the guest thread and the host workload on the last.
 *
 * The data size (MiB per round) and the workload's duration come from
 * BENCH_COLLECTOR_MB and BENCH_COLLECTOR_HOST_S in the environment. Timing
 * is never a failure; a packet or an event that does not arrive is.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include <kbuffer.h>
#include <tracefs.h>
#include <hvtrace/event.h>
#include <hvtrace/ringbuf.h>

#include "host/archive_writer.h"
#include "host/ftrace_capture.h"
#include "host/host_tsc.h"
#include "host/vm.h"
#include "lib/fileio.h"
#include "lib/log.h"
#include "lib/wire_io.h"
#include "tests/bench/bench.h"

#define PACKET_SIZE	65536u		/* the sub-buffer: one packet */
#define NR_STREAMS	2u		/* per-CPU kernel streams, ids 0 and 1 */
#define DEFAULT_MB	512u
#define ROUNDS		5		/* of each side, alternating */
#define TICK_MS		100		/* the recorder's tick (host/recorder.c) */
#define PUMP_MS		20		/* how often it drains the host layer (PUMP_MS there) */
#define GUEST_AHEAD	123456789ull	/* guest TSC - host TSC, in ticks */
#define WAIT_MS		10000		/* a silent peer is a failure after this */
#define DEFAULT_HOST_S	4u
#define MB		1e6		/* MB/s and per MB: 10^6 bytes */
/* A ring-buffer page's commit without its missed-events flags (bits 30, 31). */
#define RB_COMMIT_MASK	0x3fffffffull

static const struct hvt_vm_limits limits = {
	.sync_interval_ms = 100, .byte_quota = UINT64_MAX,
	.max_streams = HVT_VM_MAX_STREAMS, .rate = 0,
};

static char root[] = "/tmp/hvtrace-bench-collector-XXXXXX";
static struct hvt_capture *active_ft;	/* torn down by an early exit */

/* Removes what it can: one entry that resists must not keep the rest. */
static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	remove(path);
	return 0;
}

static void rm_rf(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* An early exit must not leave the instance tracing, nor the data in /tmp. */
static void cleanup(void)
{
	if (active_ft)
		hvt_capture_stop(active_ft);
	active_ft = NULL;
	rm_rf(root);
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("bench_collector: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/*
 * Ctrl-C, a terminal gone, a closed pipe: the main thread, the only one
 * that takes these signals, ends through die() and cleanup(), so that the
 * instance does not go on tracing. No other thread touches the instance.
 */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };	/* no SA_RESTART: EINTR */

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);	/* output to a closed pipe fails, cleanup still runs */
}

static void check_interrupted(void)
{
	if (interrupted)
		die("interrupted by signal %d", (int)interrupted);
}

static void start_thread(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t set, old;
	int ret;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, &old);	/* inherited: the thread leaves them to main */
	ret = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		die("cannot start a thread: %s", strerror(ret));
}

static double thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/*
 * The collector runs on the first CPU this process may use, what feeds it
 * (the guest, the host workload) on the last: apart, as in a real host, and
 * the same in every round, so that rounds compare.
 */
static int collector_cpu, peer_cpu;

static void pick_cpus(void)
{
	cpu_set_t set;
	int cpu;

	if (sched_getaffinity(0, sizeof(set), &set))
		die("sched_getaffinity: %s", strerror(errno));
	collector_cpu = -1;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		if (collector_cpu < 0)
			collector_cpu = cpu;
		peer_cpu = cpu;
	}
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		die("cannot pin a thread to CPU %d", cpu);
}

static unsigned int env_uint(const char *name, unsigned int def)
{
	const char *e = getenv(name);
	unsigned long v = e ? strtoul(e, NULL, 10) : 0;

	return v && v < 1u << 20 ? (unsigned int)v : def;
}

/* ==== 1. guest data ingest ================================================ */

/* The module's sched_switch record (guest-kmod/events/sched.h). */
#define SWITCH_FIELDS HVT_FIELDS((text, prev_comm, 16), (int, int32_t, prev_tid),	\
				 (int, int32_t, prev_prio), (hex, uint32_t, prev_state), \
				 (text, next_comm, 16), (int, int32_t, next_tid),	\
				 (int, int32_t, next_prio))
HVT_EVENT_RECORD(switch_rec, SWITCH_FIELDS);
HVT_EVENT_FIELD_TABLE(switch_fields, SWITCH_FIELDS);

static const uint8_t trace_uuid[HVT_UUID_LEN] = {
	0xbe, 0x7c, 0xc0, 0x11, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
};

/* What the guest sends: built once, sent every round. */
struct guest_data {
	unsigned char *packet[NR_STREAMS];	/* stream i: CPU i */
	uint32_t packet_len;			/* the same for both */
	unsigned char registry[1024];
	uint32_t registry_len;
	uint64_t nr_packets;			/* per round, over both streams */
};

/*
 * One closed packet of CPU @cpu as the module's ring buffer writes it:
 * sched_switch events, a microsecond apart at 2 GHz, until the 64 KiB
 * sub-buffer is full; trimmed to its content as the agent forwards it.
 */
static unsigned char *make_packet(uint32_t cpu, uint32_t *len)
{
	struct hvt_rb_prod prod = { 0 };
	struct hvt_rb_cons cons = { 0 };
	unsigned char *data = calloc(2, PACKET_SIZE), *out;
	struct hvt_rb rb = { 0 };
	struct switch_rec r = { "hvdemo", 77, 120, 1, "swapper/1", 0, 120 };
	uint64_t ts = 1000000 + cpu;

	if (!data)
		die("out of memory");
	hvt_rb_init(&rb, &prod, &cons, data, PACKET_SIZE, 2);
	memcpy(rb.uuid, trace_uuid, HVT_UUID_LEN);
	rb.cpu_id = cpu;
	rb.stream_instance_id = cpu;
	while (!prod.produced) {	/* the event that does not fit closes packet 0 */
		__u64 end;
		unsigned char *p = hvt_rb_reserve(&rb, 0, ts, cpu, 77, sizeof(r), &end);

		if (!p)
			die("the ring buffer discarded an event");
		memcpy(p, &r, sizeof(r));
		hvt_rb_commit(&rb, ts, end);
		ts += 2000;
	}
	*len = (uint32_t)(hvt_get_u64(data + offsetof(struct hvt_ctf_packet, content_size)) / 8);
	out = malloc(*len);
	if (!out)
		die("out of memory");
	memcpy(out, data, *len);
	free(data);
	return out;
}

static void make_guest_data(struct guest_data *d, unsigned int mib)
{
	uint32_t i;

	for (i = 0; i < NR_STREAMS; i++)
		d->packet[i] = make_packet(i, &d->packet_len);
	d->registry_len = hvt_reg_event_write(d->registry, 0, "sched_switch", switch_fields,
					      sizeof(switch_fields) / sizeof(switch_fields[0]),
					      "prev_comm=%s prev_tid=%d prev_prio=%d "
					      "prev_state=%#x ==> next_comm=%s next_tid=%d "
					      "next_prio=%d");
	if (d->registry_len > sizeof(d->registry))
		die("the registry record overflowed its buffer");
	d->nr_packets = (uint64_t)mib * 1048576 / d->packet_len;
	d->nr_packets += d->nr_packets % NR_STREAMS;
}

/* The guest agent's side of one round. */
struct guest {
	pthread_t thread;
	int fd;
	bool protocol;		/* false: the reference, data frames only */
	const struct guest_data *d;
	struct hvt_frame_reader in;
	bool started, goodbye;
	uint64_t syncs;		/* SYNC_REQs answered */
	const char *error;	/* NULL, or why the guest gave up */
	char why[160];
};

static int guest_fail(struct guest *g, const char *what, int err)
{
	snprintf(g->why, sizeof(g->why), "%s%s%s", what, err ? ": " : "", err ? strerror(err) : "");
	g->error = g->why;
	shutdown(g->fd, SHUT_RDWR);	/* the collector sees the link end */
	return -1;
}

static int guest_send(struct guest *g, uint16_t type, uint32_t id, const void *p, uint32_t len)
{
	if (hvt_wire_send(g->fd, type, id, p, len))
		return guest_fail(g, "guest: cannot send a frame", errno);
	return 0;
}

/* The agent answers at once, with its TSC GUEST_AHEAD ticks ahead of the host's. */
static int guest_answer(struct guest *g, const struct hvt_frame *f)
{
	struct hvt_w_sync_req req;
	struct hvt_w_sync_reply rep;

	memcpy(&req, f->payload, sizeof(req));
	rep.seq = req.seq;
	rep.host_send = req.host_send;
	rep.guest_recv = hvt_host_tsc() + GUEST_AHEAD;
	rep.cpu_recv = rep.cpu_send = 0;
	rep.guest_send = hvt_host_tsc() + GUEST_AHEAD;
	g->syncs++;
	return guest_send(g, HVT_W_SYNC_REPLY, 0, &rep, sizeof(rep));
}

/*
 * Handles whatever the collector sent. With @wait, waits up to WAIT_MS for
 * it; else only takes what is there, as the agent does between packets.
 */
static int guest_read(struct guest *g, bool wait)
{
	struct pollfd p = { .fd = g->fd, .events = POLLIN };
	struct hvt_frame f;
	const char *why;
	ssize_t n;
	int r;

	if (wait && poll(&p, 1, WAIT_MS) <= 0)
		return guest_fail(g, "guest: the collector said nothing for 10 s", 0);
	n = hvt_frame_reader_fill(&g->in, g->fd);
	if (n == 0)
		return guest_fail(g, "guest: the collector closed the link", 0);
	if (n < 0 && errno != EAGAIN)
		return guest_fail(g, "guest: cannot read the link", errno);
	while ((r = hvt_frame_reader_next(&g->in, 0, &f, &why)) == 1) {
		if (f.hdr.type == HVT_W_SYNC_REQ && guest_answer(g, &f))
			return -1;
		g->started |= f.hdr.type == HVT_W_START;
		g->goodbye |= f.hdr.type == HVT_W_GOODBYE;
		if (f.hdr.type == HVT_W_STOP)
			return guest_fail(g, "guest: the collector sent STOP", 0);
	}
	if (r < 0)
		return guest_fail(g, why, 0);
	return 0;
}

/* The kernel trace's frames, as the agent sends them once tracing started. */
static int guest_send_data(struct guest *g)
{
	const struct guest_data *d = g->d;
	struct hvt_w_trace_open to = { .layer = HVT_LAYER_KERNEL, .domain = HVT_DOMAIN_GUEST_TSC,
				       .freq_hz = 2000000000, .comm = "kernel" };
	struct hvt_w_stream_close sc = { 0, d->nr_packets / NR_STREAMS };
	struct hvt_w_finish fin = { d->nr_packets, 0, 1, NR_STREAMS };
	uint64_t i;
	uint32_t s;

	memcpy(to.uuid, trace_uuid, HVT_UUID_LEN);
	if (guest_send(g, HVT_W_TRACE_OPEN, 0, &to, sizeof(to)) ||
	    guest_send(g, HVT_W_REGISTRY, 0, d->registry, d->registry_len))
		return -1;
	for (s = 0; s < NR_STREAMS; s++) {
		struct hvt_w_stream_open so = { 0, s, 0, 0 };

		if (guest_send(g, HVT_W_STREAM_OPEN, s, &so, sizeof(so)))
			return -1;
	}
	for (i = 0; i < d->nr_packets; i++) {
		/* the agent looks at the link between packets: exchanges are answered at once */
		if (guest_read(g, false) ||
		    guest_send(g, HVT_W_PACKET, (uint32_t)(i % NR_STREAMS),
			       d->packet[i % NR_STREAMS], d->packet_len))
			return -1;
	}
	for (s = 0; s < NR_STREAMS; s++)
		if (guest_send(g, HVT_W_STREAM_CLOSE, s, &sc, sizeof(sc)))
			return -1;
	return guest_send(g, HVT_W_FINISH, 0, &fin, sizeof(fin));
}

static void *guest_run(void *arg)
{
	struct guest *g = arg;
	struct hvt_w_hello h = { .version = HVT_WIRE_VERSION, .nr_cpus = NR_STREAMS,
				 .tsc_khz = 2000000, .kernel_release = "6.1.0-bench" };

	pin(peer_cpu);
	if (!g->protocol) {
		if (!guest_send_data(g))
			shutdown(g->fd, SHUT_WR);	/* the copy loop's end of file */
		return NULL;
	}
	if (guest_send(g, HVT_W_HELLO, 0, &h, sizeof(h)))
		return NULL;
	while (!g->started)
		if (guest_read(g, true))
			return NULL;
	if (guest_send_data(g))
		return NULL;
	while (!g->goodbye)
		if (guest_read(g, true))
			return NULL;
	return NULL;
}

static void guest_start(struct guest *g, const struct guest_data *d, bool protocol, int fd)
{
	memset(g, 0, sizeof(*g));
	g->fd = fd;
	g->d = d;
	g->protocol = protocol;
	if (hvt_frame_reader_init(&g->in))
		die("out of memory");
	start_thread(&g->thread, guest_run, g);
}

/* NULL, or why the guest gave up. */
static const char *guest_join(struct guest *g)
{
	pthread_join(g->thread, NULL);
	hvt_frame_reader_free(&g->in);
	close(g->fd);
	return g->error;
}

/* A timed round: wall and thread CPU time from the guest's start to the last packet stored. */
struct ingest_round {
	double wall_ns, cpu_ns;
};

struct ingest {
	struct ingest_round collector, copy;	/* the best of ROUNDS each */
	uint64_t packets, bytes;		/* guest data per round */
	uint64_t syncs;				/* clock exchanges of the last collector round */
};

static void keep_best(struct ingest_round *best, struct ingest_round r)
{
	if (!best->wall_ns || r.wall_ns < best->wall_ns)
		best->wall_ns = r.wall_ns;
	if (!best->cpu_ns || r.cpu_ns < best->cpu_ns)
		best->cpu_ns = r.cpu_ns;
}

static void link_pair(int sv[2])
{
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv))
		die("socketpair: %s", strerror(errno));
}

/* ---- the reference: copy the link to a file ---- */

static struct ingest_round copy_round(const struct guest_data *d, const char *dir, int r)
{
	static unsigned char buf[1 << 20];
	uint64_t expect = d->nr_packets * (d->packet_len + sizeof(struct hvt_wire_hdr));
	uint64_t got = 0;
	struct ingest_round t;
	struct guest g;
	char path[128];
	int sv[2], out;
	double t0, c0;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/copy-%d", dir, r);
	out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	link_pair(sv);
	if (out < 0 || fcntl(sv[0], F_SETFL, 0))	/* the plain loop blocks in read() */
		die("cannot set up the copy: %s", strerror(errno));
	t0 = bench_now();
	c0 = thread_cpu_ns();
	guest_start(&g, d, false, sv[1]);
	while ((n = read(sv[0], buf, sizeof(buf))) > 0) {
		if (hvt_write_all(out, buf, (size_t)n))
			die("copy: cannot write %s: %s", path, strerror(errno));
		got += (uint64_t)n;
	}
	t = (struct ingest_round){ bench_now() - t0, thread_cpu_ns() - c0 };
	check_interrupted();
	if (n < 0)
		die("copy: cannot read the link: %s", strerror(errno));
	if (guest_join(&g))
		die("%s", g.error);
	close(sv[0]);
	close(out);
	unlink(path);
	if (got < expect)
		die("copy: %llu bytes arrived, at least %llu expected", (unsigned long long)got,
		    (unsigned long long)expect);
	return t;
}

/* ---- the collector ---- */

static uint64_t stored_bytes(const struct hvt_vm *vm)
{
	uint64_t sum = 0;
	uint32_t s;

	for (s = 0; s < NR_STREAMS; s++)
		if (vm->streams[s])
			sum += vm->streams[s]->bytes;
	return sum;
}

/*
 * The recorder's loop for one VM (host/recorder.c, host/target.c): the link
 * while the VM wants input, and the tick. Returns the round's times, taken
 * when the last packet is stored; runs on until the link ends.
 */
static struct ingest_round collect(struct hvt_vm *vm, uint64_t expect, double t0, double c0)
{
	struct itimerspec its = { { 0, TICK_MS * 1000000 }, { 0, TICK_MS * 1000000 } };
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	struct ingest_round t = { 0, 0 };

	if (tfd < 0 || timerfd_settime(tfd, 0, &its, NULL))
		die("timerfd: %s", strerror(errno));
	while (vm->state != HVT_VM_ENDED) {
		struct pollfd p[2] = {
			{ .fd = hvt_vm_wants_input(vm) ? vm->fd : -1, .events = POLLIN },
			{ .fd = tfd, .events = POLLIN },
		};
		uint64_t ticks;

		if (poll(p, 2, -1) < 0 && errno != EINTR)
			die("poll: %s", strerror(errno));
		check_interrupted();
		if (p[0].fd >= 0 && p[0].revents)
			hvt_vm_readable(vm);
		if (!t.wall_ns && stored_bytes(vm) == expect)
			t = (struct ingest_round){ bench_now() - t0, thread_cpu_ns() - c0 };
		if (p[1].revents && read(tfd, &ticks, sizeof(ticks)) > 0)
			hvt_vm_tick(vm);
		if (bench_now() - t0 > 120e9)
			hvt_vm_end(vm, "the benchmark's deadline passed");
	}
	close(tfd);
	return t;
}

/* Every packet in the archive: counted by the collector and whole on disk. */
static void check_stored(const struct hvt_vm *vm, const struct guest_data *d)
{
	uint64_t per_stream = d->nr_packets / NR_STREAMS;
	uint32_t s;

	if (!vm->finished || strcmp(vm->end_reason, "guest finished"))
		die("collector: the link ended badly: %s", vm->end_reason);
	for (s = 0; s < NR_STREAMS; s++) {
		const struct hvt_vm_stream *st = vm->streams[s];
		char path[HVT_PATH_LEN + 32];
		struct stat sb;

		snprintf(path, sizeof(path), "%s/kernel/stream-%u", vm->dir, s);
		if (!st || st->packets != per_stream || stat(path, &sb) ||
		    (uint64_t)sb.st_size != per_stream * d->packet_len)
			die("collector: stream %u lacks packets (%llu of %llu stored)", s,
			    st ? (unsigned long long)st->packets : 0ull,
			    (unsigned long long)per_stream);
	}
}

static struct ingest_round collector_round(const struct guest_data *d, const char *dir, int r,
					   uint64_t *syncs)
{
	struct hvt_archive_writer ar;
	struct hvt_vm *vm = calloc(1, sizeof(*vm));
	struct ingest_round t;
	struct guest g;
	char path[128], err[256];
	double t0, c0;
	int sv[2];

	snprintf(path, sizeof(path), "%s/archive-%d", dir, r);
	if (!vm || hvt_archive_writer_create(&ar, path, err, sizeof(err)) ||
	    hvt_vm_init(vm, &ar, "bench", 0, "kvm", &limits, err, sizeof(err)))
		die("collector: %s", vm ? err : "out of memory");
	link_pair(sv);
	hvt_vm_attach(vm, sv[0]);
	t0 = bench_now();
	c0 = thread_cpu_ns();
	guest_start(&g, d, true, sv[1]);
	t = collect(vm, d->nr_packets * d->packet_len, t0, c0);
	guest_join(&g);
	check_stored(vm, d);	/* the collector's reason first: the guest's follows from it */
	if (g.error)
		die("%s", g.error);
	*syncs = g.syncs;
	hvt_vm_free(vm);
	free(vm);
	hvt_archive_writer_close(&ar);
	rm_rf(path);
	return t;
}

static void bench_ingest(struct ingest *res)
{
	struct guest_data d;
	char dir[64];
	int r;
	uint32_t s;

	memset(res, 0, sizeof(*res));
	make_guest_data(&d, env_uint("BENCH_COLLECTOR_MB", DEFAULT_MB));
	snprintf(dir, sizeof(dir), "%s/ingest", root);
	if (hvt_mkdir_p(dir))
		die("cannot create %s: %s", dir, strerror(errno));
	for (r = 0; r < ROUNDS; r++) {
		keep_best(&res->copy, copy_round(&d, dir, r));
		keep_best(&res->collector, collector_round(&d, dir, r, &res->syncs));
	}
	res->packets = d.nr_packets;
	res->bytes = d.nr_packets * d.packet_len;
	for (s = 0; s < NR_STREAMS; s++)
		free(d.packet[s]);
}

static void print_ingest(const struct ingest *res)
{
	double n = (double)res->packets, mb = (double)res->bytes / MB;
	double cpu_per_mb = res->collector.cpu_ns / mb, ref_per_mb = res->copy.cpu_ns / mb;

	printf("\nguest data ingest: %llu packets of %llu bytes (%.0f MB) over 2 streams, "
	       "best of %d rounds\n", (unsigned long long)res->packets,
	       (unsigned long long)(res->bytes / res->packets), mb, ROUNDS);
	bench_header("ingest: one 64 KiB packet, checked and stored");
	bench_row("vm_link + vm_store, wall", res->collector.wall_ns / n,
		  "read()/write() copy, wall", res->copy.wall_ns / n);
	bench_row("vm_link + vm_store, collector thread CPU", res->collector.cpu_ns / n,
		  "copy thread CPU", res->copy.cpu_ns / n);
	printf("throughput: collector %.0f MB/s, copy %.0f MB/s\n",
	       mb / res->collector.wall_ns * 1e9, mb / res->copy.wall_ns * 1e9);
	printf("CPU per MB: collector %.1f us, copy %.1f us (ratio %.2f); %llu clock exchanges "
	       "answered meanwhile\n", cpu_per_mb / 1e3, ref_per_mb / 1e3, cpu_per_mb / ref_per_mb,
	       (unsigned long long)res->syncs);
	printf("guest data the collector can take at 10%% of one core: %.0f MB/s\n",
	       0.1 * 1e9 / cpu_per_mb);
}

/* ==== 2. host layer capture =============================================== */

/* Two threads on one CPU passing a byte back and forth. */
struct pingpong {
	pthread_t thread[2];
	pid_t tid[2];
	int ab[2], ba[2], go[2];	/* pipes: a to b, b to a, main to a */
	int cpu;
	atomic_bool stop;
	pthread_barrier_t ready;
	uint64_t round_trips;
};

static void *ping(void *arg)
{
	struct pingpong *pp = arg;
	char c = 0;

	pp->tid[0] = gettid();
	pin(pp->cpu);
	pthread_barrier_wait(&pp->ready);
	if (read(pp->go[0], &c, 1) != 1)
		return NULL;
	while (!atomic_load_explicit(&pp->stop, memory_order_relaxed)) {
		if (write(pp->ab[1], &c, 1) != 1 || read(pp->ba[0], &c, 1) != 1)
			break;
		pp->round_trips++;
	}
	close(pp->ab[1]);	/* pong's end of file; pingpong_stop() closes the rest */
	return NULL;
}

static void *pong(void *arg)
{
	struct pingpong *pp = arg;
	char c;

	pp->tid[1] = gettid();
	pin(pp->cpu);
	pthread_barrier_wait(&pp->ready);
	while (read(pp->ab[0], &c, 1) == 1)
		if (write(pp->ba[1], &c, 1) != 1)
			break;
	return NULL;
}

/* The threads, ready but idle: their tids are known before tracing starts. */
static void pingpong_start(struct pingpong *pp, int cpu)
{
	memset(pp, 0, sizeof(*pp));
	pp->cpu = cpu;
	if (pipe2(pp->ab, O_CLOEXEC) || pipe2(pp->ba, O_CLOEXEC) || pipe2(pp->go, O_CLOEXEC) ||
	    pthread_barrier_init(&pp->ready, NULL, 3))
		die("cannot start the workload");
	start_thread(&pp->thread[0], ping, pp);
	start_thread(&pp->thread[1], pong, pp);
	pthread_barrier_wait(&pp->ready);
}

static void pingpong_go(struct pingpong *pp)
{
	if (write(pp->go[1], "g", 1) != 1)
		die("cannot start the workload");
}

static void pingpong_stop(struct pingpong *pp)
{
	int i;

	atomic_store(&pp->stop, true);
	pthread_join(pp->thread[0], NULL);
	pthread_join(pp->thread[1], NULL);
	pthread_barrier_destroy(&pp->ready);
	close(pp->ab[0]);
	for (i = 0; i < 2; i++) {
		close(pp->ba[i]);
		close(pp->go[i]);
	}
}

/* Events lost in the instance: overwritten (overrun) or dropped, over all CPUs. */
static uint64_t instance_lost(const struct hvt_capture *ft)
{
	uint64_t lost = 0;
	int cpu;

	for (cpu = 0; cpu < ft->nr_cpus; cpu++) {
		char rel[64], *text, *line;
		unsigned long long v;

		snprintf(rel, sizeof(rel), "per_cpu/cpu%d/stats", cpu);
		text = tracefs_instance_file_read(ft->instance, rel, NULL);
		line = text;
		while (line) {
			if (sscanf(line, "overrun: %llu", &v) == 1 ||
			    sscanf(line, "dropped events: %llu", &v) == 1)
				lost += v;
			line = strchr(line, '\n');
			line = line ? line + 1 : NULL;
		}
		free(text);
	}
	return lost;
}

/* Events in the ring-buffer pages of @path, decoded as the merger's reader does. */
static uint64_t count_events(const char *path, int page_size, uint64_t *pages)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	unsigned char *page = malloc((size_t)page_size);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint64_t n = 0;

	if (!kb || !page || fd < 0)
		die("cannot read %s: %s", path, strerror(errno));
	while (read(fd, page, (size_t)page_size) == page_size) {
		unsigned long long ts;
		void *ev;

		if (kbuffer_load_subbuffer(kb, page) < 0)
			die("%s: a page kbuffer cannot load", path);
		for (ev = kbuffer_read_event(kb, &ts); ev; ev = kbuffer_next_event(kb, &ts))
			n++;
		(*pages)++;
	}
	close(fd);
	free(page);
	kbuffer_free(kb);
	return n;
}

/* One side's numbers for the same workload. */
struct capture {
	double cpu_ns;			/* in the drain calls */
	double seconds;			/* the workload ran */
	uint64_t events, lost, pages, calls;
	uint64_t round_trips;
	int page_size, buffer_kb;	/* the instance's, per CPU */
};

/* Saves what the instance holds; @last: the workload is over, take everything. */
typedef void (*drain_fn)(struct hvt_capture *ft, const int *out, bool last);

/* The collector's way: hvt_capture_pump() splices full pages into its own files. */
static void drain_pump(struct hvt_capture *ft, const int *out, bool last)
{
	(void)out, (void)last;	/* hvt_capture_stop() saves the partial pages */
	hvt_capture_pump(ft);
}

/*
 * Whether read() handed out a page before it was full (more room left than
 * the largest event here). Reading on would chase the writer a few events
 * a page; like the pump, whose splice takes full pages only, the loop then
 * waits for the next tick. The first page of a tick does not count: it may
 * be the rest of the page the previous tick took half of.
 */
static bool partial(const unsigned char *page, int page_size)
{
	uint64_t commit;	/* header_page: u64 timestamp, then local_t commit */

	memcpy(&commit, page + 8, sizeof(commit));
	return (commit & RB_COMMIT_MASK) + 16 + 128 < (uint64_t)page_size;
}

/* The plain way: every page the kernel hands out, read() and write(). */
static void drain_read(struct hvt_capture *ft, const int *out, bool last)
{
	static unsigned char page[1 << 16];
	int cpu, n, pages;

	if (ft->page_size > (int)sizeof(page))
		die("read loop: pages of %d bytes", ft->page_size);
	for (cpu = 0; cpu < ft->nr_cpus; cpu++) {
		if (!ft->cpu[cpu].tcpu)
			continue;
		pages = 0;
		while ((n = tracefs_cpu_read(ft->cpu[cpu].tcpu, page, true)) > 0) {
			if (hvt_write_all(out[cpu], page, (size_t)n))
				die("read loop: cannot write: %s", strerror(errno));
			if (!last && pages++ && partial(page, ft->page_size))
				break;	/* caught up with the writer */
		}
		if (n < 0 && errno != EAGAIN)
			die("read loop: cannot read CPU %d: %s", cpu, strerror(errno));
	}
}

static void timed_drain(drain_fn drain, struct hvt_capture *ft, const int *out, bool last,
			struct capture *c)
{
	double c0 = thread_cpu_ns();

	drain(ft, out, last);
	c->cpu_ns += thread_cpu_ns() - c0;
	c->calls++;
}

/* Runs the workload for @seconds, draining every PUMP_MS as the recorder does. */
static void run_workload(struct pingpong *pp, unsigned int seconds, drain_fn drain,
			 struct hvt_capture *ft, const int *out, struct capture *c)
{
	struct timespec next;
	double t0;
	int tick;

	clock_gettime(CLOCK_MONOTONIC, &next);
	t0 = bench_now();
	pingpong_go(pp);
	for (tick = 0; tick < (int)seconds * 1000 / PUMP_MS; tick++) {
		next.tv_nsec += PUMP_MS * 1000000;
		if (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			check_interrupted();
		timed_drain(drain, ft, out, false, c);
	}
	pingpong_stop(pp);
	c->seconds = (bench_now() - t0) / 1e9;
	c->round_trips = pp->round_trips;
	timed_drain(drain, ft, out, true, c);	/* what the last tick left */
}

/* Opens the reference's files, ARCHIVE/plain/cpuN.raw, for the CPUs the instance reads. */
static void open_plain(const struct hvt_capture *ft, const char *dir, int *out)
{
	int cpu;

	if (hvt_mkdir_p(dir))
		die("cannot create %s: %s", dir, strerror(errno));
	for (cpu = 0; cpu < ft->nr_cpus; cpu++) {
		char path[4200];

		out[cpu] = -1;
		if (!ft->cpu[cpu].tcpu)
			continue;
		snprintf(path, sizeof(path), "%s/cpu%d.raw", dir, cpu);
		out[cpu] = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (out[cpu] < 0)
			die("cannot create %s: %s", path, strerror(errno));
	}
}

static int buffer_kb(const struct hvt_capture *ft)
{
	char *text = tracefs_instance_file_read(ft->instance, "buffer_size_kb", NULL);
	int kb = text ? atoi(text) : 0;

	free(text);
	return kb;
}

/* Adds the events and pages of @dir/cpuN.raw, for every CPU the instance had, to @c. */
static void count_saved(const struct hvt_capture *ft, const char *dir, struct capture *c)
{
	int cpu;

	for (cpu = 0; cpu < ft->nr_cpus; cpu++) {
		char path[4200];

		if (!ft->cpu[cpu].present)
			continue;
		snprintf(path, sizeof(path), "%s/cpu%d.raw", dir, cpu);
		c->events += count_events(path, ft->page_size, &c->pages);
	}
}

/*
 * One side: the instance started for the workload's threads, the workload
 * drained by @drain, the instance stopped (which saves the pump's partial
 * pages; the read loop already took them), the saved events counted.
 */
static void capture_side(const char *name, bool plain, unsigned int seconds, int cpu,
			 struct capture *c)
{
	static char *const events[] = { "sched:sched_switch", "sched:sched_wakeup" };
	struct hvt_capture ft;
	struct pingpong pp;
	char dir[128], plain_dir[160], err[512];
	int *out = NULL, i;

	memset(c, 0, sizeof(*c));
	snprintf(dir, sizeof(dir), "%s/%s/host/ftrace", root, name);
	snprintf(plain_dir, sizeof(plain_dir), "%s/%s/plain", root, name);
	pingpong_start(&pp, cpu);
	if (hvt_capture_start(&ft, dir, events, 2, pp.tid, 2, err, sizeof(err)))
		die("hvt_capture_start: %s", err);
	active_ft = &ft;
	out = calloc((size_t)ft.nr_cpus, sizeof(*out));
	if (!out)
		die("out of memory");
	if (plain)
		open_plain(&ft, plain_dir, out);
	run_workload(&pp, seconds, plain ? drain_read : drain_pump, &ft, out, c);
	c->lost = instance_lost(&ft);
	c->page_size = ft.page_size;
	c->buffer_kb = buffer_kb(&ft);
	hvt_capture_stop(&ft);
	active_ft = NULL;
	for (i = 0; plain && i < ft.nr_cpus; i++)
		if (out[i] >= 0)
			close(out[i]);
	count_saved(&ft, plain ? plain_dir : dir, c);
	free(out);
	hvt_capture_free(&ft);
	if (!c->events)
		die("%s: no host event was saved", name);
}

static bool can_trace(void)
{
	return geteuid() == 0 && access("/sys/kernel/tracing/instances", W_OK) == 0;
}

/*
 * What the CPU cost does not show: between two pumps the kernel's buffer
 * must hold what its CPU writes, or the oldest events are overwritten.
 */
static void print_headroom(const struct capture *c)
{
	double bytes_per_event = (double)c->pages * c->page_size / (double)c->events;
	double buffer = c->buffer_kb * 1024.0;
	double here = buffer / ((double)c->pages * c->page_size / c->seconds);

	printf("the %d KiB per-CPU buffer fills in %.0f ms at this workload's rate, in %.0f "
	       "ms at 1M events/s on one CPU (%.1f bytes per event saved); the pump runs "
	       "every %d ms\n",
	       c->buffer_kb, here * 1e3, buffer / (bytes_per_event * 1e6) * 1e3,
	       bytes_per_event, PUMP_MS);
}

static void print_side(const char *name, const struct capture *c)
{
	printf("%-10s %llu events saved in %.1f s (%.0f events/s), %llu lost, %llu pages, "
	       "%llu calls\n", name, (unsigned long long)c->events, c->seconds,
	       (double)c->events / c->seconds, (unsigned long long)c->lost,
	       (unsigned long long)c->pages, (unsigned long long)c->calls);
}

static void print_capture(const struct capture *pump, const struct capture *plain, int cpu)
{
	double pump_ns = pump->cpu_ns / (double)pump->events;
	double plain_ns = plain->cpu_ns / (double)plain->events;

	printf("\nhost layer capture: 2 threads ping-ponging on CPU %d, sched_switch and "
	       "sched_wakeup filtered to them, drained every %d ms\n", cpu, PUMP_MS);
	bench_header("capture: one host event, CPU of the draining thread");
	bench_row("hvt_capture_pump (splice)", pump_ns, "read() loop to a file", plain_ns);
	printf("workload:  %llu and %llu round trips (%.2f and %.2f events each: up to 2 "
	       "wakeups and 2 switches)\n", (unsigned long long)pump->round_trips,
	       (unsigned long long)plain->round_trips,
	       (double)pump->events / (double)pump->round_trips,
	       (double)plain->events / (double)plain->round_trips);
	print_side("pump:", pump);
	print_side("read loop:", plain);
	/* ns per event x 10^6 events/s = ms per s: a tenth of that is percent of a core */
	printf("collector CPU per 1M events: %.2f ms, %.2f%% of a core at 1M events/s "
	       "(target: under 5%%); read loop %.2f ms\n", pump_ns, pump_ns / 10, plain_ns);
	print_headroom(pump);
}

/* ==== main ================================================================ */

int main(void)
{
	struct capture pump = { 0 }, plain = { 0 };
	unsigned int seconds = env_uint("BENCH_COLLECTOR_HOST_S", DEFAULT_HOST_S);
	bool traced = can_trace();
	struct ingest in;
	int cpu;

	setvbuf(stdout, NULL, _IOLBF, 0);
	catch_signals();
	pick_cpus();
	pin(collector_cpu);
	cpu = peer_cpu;
	hvt_log_mute();		/* the collector's info lines; its errors still print */
	if (!mkdtemp(root))
		die("cannot create a directory in /tmp: %s", strerror(errno));
	atexit(cleanup);

	bench_ingest(&in);
	print_ingest(&in);
	if (traced) {
		capture_side("pump", false, seconds, cpu, &pump);
		capture_side("plain", true, seconds, cpu, &plain);
		print_capture(&pump, &plain, cpu);
	} else {
		printf("\nhost layer capture: skipped: needs root and tracefs "
		       "(/sys/kernel/tracing)\n");
	}
	printf("{\"bench\":\"collector\",\"packets\":%llu,\"packet_bytes\":%llu,"
	       "\"ingest_wall_ns\":%.0f,\"ingest_cpu_ns\":%.0f,\"copy_wall_ns\":%.0f,"
	       "\"copy_cpu_ns\":%.0f", (unsigned long long)in.packets,
	       (unsigned long long)(in.bytes / in.packets), in.collector.wall_ns / in.packets,
	       in.collector.cpu_ns / in.packets, in.copy.wall_ns / in.packets,
	       in.copy.cpu_ns / in.packets);
	if (traced)
		printf(",\"host_events\":%llu,\"host_lost\":%llu,\"pump_ns_per_event\":%.2f,"
		       "\"read_events\":%llu,\"read_lost\":%llu,\"read_ns_per_event\":%.2f",
		       (unsigned long long)pump.events, (unsigned long long)pump.lost,
		       pump.cpu_ns / (double)pump.events, (unsigned long long)plain.events,
		       (unsigned long long)plain.lost, plain.cpu_ns / (double)plain.events);
	printf("}\n");
	return 0;
}
