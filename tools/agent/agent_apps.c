// SPDX-License-Identifier: GPL-2.0-only
/*
 * agent_apps.c - traced applications (docs/format.md, section 6).
 *
 * An application is untrusted: it may be buggy or hostile. Its buffers are
 * mapped read-only and must be sealed against shrinking; every packet's
 * header is copied out before it is checked, and the copy is what the host
 * gets (the events behind it go from the mapping, batch_add()); anything
 * inconsistent drops the stream or the application, never the agent.
 *
 * Each traced application gets an eventfd with its WELCOME; its writers
 * add 1 to it whenever one closes a full packet, and the agent drains that
 * application's streams then, not only on its periodic drain.
 *
 * What goes untraced is said to the host, never only dropped: a process
 * refused (no connection free, no trace id free, its user's share taken,
 * agent_uids.h) in an UNTRACED frame, with its pid, uid and comm; a
 * thread refused (here, or by the library at its buffers' cap) in the
 * process's count, sent as THREADS_UNTRACED when it changed, at most once
 * per drain.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>
#include <hvtrace/ringbuf.h>

#include "lib/fdpass.h"
#include "lib/fileio.h"
#include "lib/log.h"
#include "lib/netaddr.h"
#include "lib/packet.h"
#include "tools/agent/agent_apps.h"

int agent_apps_listen(struct agent_apps *a)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char dir[sizeof(addr.sun_path)], err[sizeof(addr.sun_path) + 64];
	char *slash;

	if (strlen(a->socket_path) >= sizeof(addr.sun_path)) {
		hvt_err("socket path too long: %s", a->socket_path);
		return -1;
	}
	strcpy(addr.sun_path, a->socket_path);
	strcpy(dir, a->socket_path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		hvt_mkdir_p(dir);
	}
	if (hvt_unix_path_clear(a->socket_path, err, sizeof(err))) {
		hvt_err("applications' socket: %s", err);
		return -1;
	}
	a->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (a->listen_fd < 0 ||
	    bind(a->listen_fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    listen(a->listen_fd, 16)) {
		hvt_err("cannot listen on %s: %s", a->socket_path, strerror(errno));
		if (a->listen_fd >= 0)
			close(a->listen_fd);
		a->listen_fd = -1;	/* never polled, its path never unlinked */
		return -1;
	}
	/*
	 * Any local process may trace itself. After listen(): an application
	 * waiting for the agent (libhvtrace's watcher) that tried between
	 * bind() and listen() is woken again by this change (IN_ATTRIB).
	 */
	chmod(a->socket_path, 0666);
	return 0;
}

static int app_reply(struct app *app, uint16_t type, uint32_t id, const void *payload,
		     uint32_t len, int fd)
{
	return hvt_app_send(app->fd, type, id, payload, len, fd, MSG_DONTWAIT);
}

/*
 * The kernel's word for who connected (in our pid namespace): its pid, 0 if
 * unknown, and its uid, (uint32_t)-1 if unknown (one user, for the shares).
 */
static void peer_cred(int fd, uint32_t *pid, uint32_t *uid)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	*pid = 0;
	*uid = UINT32_MAX;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len))
		return;
	*pid = cred.pid > 0 ? (uint32_t)cred.pid : 0;
	*uid = (uint32_t)cred.uid;
}

/* /proc/PID/comm of a process refused before its HELLO, "" if it cannot be read. */
static void proc_comm(uint32_t pid, char comm[16])
{
	char path[32];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	fd = pid ? open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;
	if (fd >= 0) {
		n = read(fd, comm, 15);
		close(fd);
	}
	comm[n > 0 ? n : 0] = '\0';
	if (n > 0 && comm[n - 1] == '\n')
		comm[n - 1] = '\0';
}

/*
 * Whether process @pid was said to be untraced already; if not, it is
 * remembered as said (while there is room: then it may be said again).
 */
static bool untraced_said(struct agent_apps *a, uint32_t pid)
{
	unsigned int i;

	for (i = 0; pid && i < a->nr_untraced_pids; i++)
		if (a->untraced_pids[i] == pid)
			return true;
	if (!pid || a->nr_untraced_pids == AGENT_UNTRACED_PIDS)
		return false;
	if (!a->untraced_pids &&
	    !(a->untraced_pids = calloc(AGENT_UNTRACED_PIDS, sizeof(*a->untraced_pids))))
		return false;
	a->untraced_pids[a->nr_untraced_pids++] = pid;
	return false;
}

/* Says process @pid of @uid went untraced, and why: here and in the archive; once. */
static void say_untraced(struct agent_apps *a, uint32_t pid, uint32_t uid, const char *comm,
			 uint32_t reason)
{
	struct hvt_w_untraced u = { .pid = pid, .uid = uid, .reason = reason };

	if (untraced_said(a, pid))
		return;

	snprintf(u.comm, sizeof(u.comm), "%s", comm);
	agent_log(a->link, "pid %u (%s, uid %u) not traced: %s", pid, u.comm, uid,
		  hvt_untraced_reason_name(reason));
	agent_send(a->link, HVT_W_UNTRACED, 0, &u, sizeof(u));
}

/* A connection the agent cannot take: said with its reason, and closed. */
static void refuse_connection(struct agent_apps *a, int fd, uint32_t pid, uint32_t uid,
			      uint32_t reason)
{
	char comm[16];

	proc_comm(pid, comm);
	say_untraced(a, pid, uid, comm, reason);
	close(fd);
}

void agent_apps_accept(struct agent_apps *a)
{
	unsigned int slot;
	uint32_t pid, uid;
	int fd;

	fd = accept4(a->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return;
	peer_cred(fd, &pid, &uid);
	for (slot = 0; slot < AGENT_MAX_APPS; slot++)
		if (!a->apps[slot])
			break;
	if (slot == AGENT_MAX_APPS) {
		refuse_connection(a, fd, pid, uid, HVT_UNTRACED_CONNECTIONS);
		return;
	}
	if (agent_uid_take(&a->uids, uid, AGENT_UID_CONNECTIONS, AGENT_MAX_APPS)) {
		refuse_connection(a, fd, pid, uid, HVT_UNTRACED_UID_CONNECTIONS);
		return;
	}
	if (!(a->apps[slot] = calloc(1, sizeof(struct app)))) {
		agent_uid_put(&a->uids, uid, AGENT_UID_CONNECTIONS);
		agent_log(a->link, "out of memory; an application refused");
		close(fd);
		return;
	}
	a->apps[slot]->fd = fd;
	a->apps[slot]->wake_fd = -1;
	a->apps[slot]->pid = pid;
	a->apps[slot]->uid = uid;
	hvt_registry_init(&a->apps[slot]->registry);
	hvt_debug("pid %u (uid %u): application connected", pid, uid);
}

/*
 * Checks the copy at @p of packet @n of @s: everything the host will check
 * (hvt_wire_packet_check: sizes = @len, the trace's UUID, the stream's
 * thread) and the stream's own order. NULL if it may be forwarded.
 */
static const char *app_packet_check(struct agent_apps *a, const struct app *app,
				    const struct app_stream *s, uint64_t n,
				    const unsigned char *p, size_t len)
{
	struct hvt_ctf_packet hdr;
	const char *why = hvt_wire_packet_check(p, len, app->uuid, HVT_CTF_NO_CPU, s->tid, &hdr,
						a->link->why, sizeof(a->link->why));

	if (!why && hdr.packet_seq_num != n)
		why = "packet sequence number out of order";
	return why;
}

/* Sends the packet in a->pkt (a recovered or final one, copied whole). */
static int send_packet(struct agent_apps *a, struct app_stream *s, size_t len)
{
	if (agent_send(a->link, HVT_W_PACKET, s->id, a->pkt, (uint32_t)len))
		return -1;
	memcpy(&s->last, a->pkt, sizeof(s->last));
	s->packets++;
	a->link->packets_sent++;
	return 0;
}

/*
 * Closed packets go to the host straight from the application's memory, up
 * to BATCH_PACKETS in one system call. Only each packet's header is copied
 * out and checked, which is all the host checks of a packet: the copy is
 * what is sent, so an application that rewrites a slot while it is being
 * sent changes its own events' bytes, never where its packet ends or whose
 * it is.
 */
#define BATCH_PACKETS	16
/*
 * ... and of at most this many bytes (at least one packet): each batch's
 * slots go back to the writer once it is sent, and a clock exchange's
 * reply waits behind one batch at most (agent_link.h). A batch of a whole
 * buffer held every slot until the last packet was through.
 */
#define BATCH_BYTES	(256u * 1024)

struct packet_batch {
	struct hvt_wire_hdr frame[BATCH_PACKETS];
	struct hvt_ctf_packet header[BATCH_PACKETS];
	struct iovec iov[3 * BATCH_PACKETS];
	unsigned int n;
};

/* Adds closed packet @n of @s to @b once its header passed; else why not. */
static const char *batch_add(struct agent_apps *a, const struct app *app,
			     const struct app_stream *s, struct packet_batch *b, uint64_t n)
{
	const unsigned char *slot = s->map + HVT_APP_PROD_PAGE +
				    (size_t)(n & (s->nr_subbufs - 1)) * s->subbuf_size;
	struct hvt_ctf_packet *h = &b->header[b->n];
	uint64_t len;
	const char *why;

	memcpy(h, slot, sizeof(*h));
	len = h->content_size / 8;
	if (h->content_size % 8 || len < HVT_CTF_PACKET_HEADER_SIZE || len > s->subbuf_size)
		return "packet length out of range";
	/* hvt_wire_packet_check() reads the header only; @len is what it must say */
	why = app_packet_check(a, app, s, n, (const unsigned char *)h, len);
	if (why)
		return why;
	hvt_wire_hdr_init(&b->frame[b->n], HVT_W_PACKET, s->id, (uint32_t)len);
	b->iov[3 * b->n] = (struct iovec){ &b->frame[b->n], sizeof(b->frame[0]) };
	b->iov[3 * b->n + 1] = (struct iovec){ h, sizeof(*h) };
	b->iov[3 * b->n + 2] = (struct iovec){ (void *)(slot + sizeof(*h)), len - sizeof(*h) };
	b->n++;
	return NULL;
}

/* Sends @b and hands its slots back to the producer; -1 if the link is lost. */
static int batch_send(struct agent_apps *a, struct app_stream *s, struct packet_batch *b)
{
	if (agent_sendv(a->link, b->iov, 3 * (int)b->n))
		return -1;
	s->last = b->header[b->n - 1];
	s->packets += b->n;
	a->link->packets_sent += b->n;
	s->consumed += b->n;
	hvt_store_release(&s->cons->consumed, s->consumed);
	return 0;
}

/* Forwards closed packets; -1 if the stream is corrupt (what came before it is sent). */
static int drain_stream(struct agent_apps *a, struct app *app, struct app_stream *s)
{
	const struct hvt_rb_prod *prod = (const void *)s->map;
	long long ready = hvt_rb_ready(prod, s->consumed, s->nr_subbufs);
	const char *why = "producer state inconsistent";
	struct packet_batch b;

	if (ready < 0)
		goto corrupt;
	while (ready > 0) {
		size_t bytes = 0;

		why = NULL;
		for (b.n = 0; b.n < BATCH_PACKETS && b.n < ready && bytes < BATCH_BYTES && !why;) {
			why = batch_add(a, app, s, &b, s->consumed + b.n);
			if (!why)
				bytes += b.iov[3 * (b.n - 1) + 2].iov_len;
		}
		if (b.n && batch_send(a, s, &b))
			return 0;	/* the link is lost: the agent is ending */
		if (why)
			goto corrupt;
		ready -= b.n;
	}
	return 0;
corrupt:
	agent_log(a->link, "pid %u thread %d: buffer dropped: %s", app->pid, s->tid, why);
	return -1;
}

/* The producer is gone: forward what it committed in its open packet. */
static void recover_open_packet(struct agent_apps *a, struct app *app, struct app_stream *s)
{
	const struct hvt_rb_prod *prod = (const void *)s->map;
	uint64_t produced = hvt_load_acquire(&prod->produced);
	unsigned char *p = a->pkt;
	const char *why;
	long long len;

	if (produced != s->consumed)
		return;
	len = hvt_rb_recover_open_packet(prod, s->map + HVT_APP_PROD_PAGE, s->subbuf_size,
					 s->nr_subbufs, produced, p);
	if (len == 0)
		return;
	why = len < 0 ? "producer state inconsistent" :
			app_packet_check(a, app, s, produced, p, (size_t)len);
	if (why) {
		agent_log(a->link, "pid %u thread %d: last packet not recovered: %s",
			  app->pid, s->tid, why);
		return;
	}
	send_packet(a, s, (size_t)len);
}

/*
 * Events discarded after the stream's last packet (its buffer stayed full
 * until the thread ended) are counted in no packet, so a reader would miss
 * them: an empty packet after the last one carries the final count, as
 * events_discarded. @lost is the producer's word: it can only misreport its
 * own losses.
 */
static void send_final_count(struct agent_apps *a, struct app_stream *s, uint64_t lost)
{
	struct hvt_ctf_packet p = s->last;

	if (!s->packets || lost <= s->last.events_discarded)
		return;
	p.timestamp_begin = p.timestamp_end;
	p.packet_seq_num++;
	memcpy(a->pkt, &p, sizeof(p));
	hvt_rb_end_packet(a->pkt, HVT_CTF_PACKET_HEADER_SIZE, p.timestamp_end, lost);
	send_packet(a, s, HVT_CTF_PACKET_HEADER_SIZE);
}

/* Closes stream @i: drains it first unless it is corrupt, then recovers its open packet. */
static void stream_close(struct agent_apps *a, struct app *app, unsigned int i, bool corrupt,
			 bool recover)
{
	struct app_stream *s = app->streams[i];
	struct hvt_w_stream_close sc = { 0 };

	if (!corrupt && !drain_stream(a, app, s) && recover)
		recover_open_packet(a, app, s);
	sc.lost = hvt_read_once(((const struct hvt_rb_prod *)s->map)->lost);
	if (!corrupt)
		send_final_count(a, s, sc.lost);
	sc.packets = s->packets;
	a->link->lost += sc.lost;
	hvt_debug("pid %u thread %d: stream %u closed%s: %llu packets forwarded, %llu events lost",
		  app->pid, s->tid, s->id, corrupt ? " (corrupt)" : "",
		  (unsigned long long)sc.packets, (unsigned long long)sc.lost);
	agent_send(a->link, HVT_W_STREAM_CLOSE, s->id, &sc, sizeof(sc));
	munmap((void *)s->map, s->map_size);
	munmap(s->cons, sizeof(*s->cons));
	free(s);
	app->streams[i] = app->streams[--app->nr_streams];
}

/* The host's count of @app's untraced threads, if it lags. */
static void send_threads_untraced(struct agent_apps *a, struct app *app)
{
	struct hvt_w_threads_untraced t = { app->threads_untraced };

	if (!app->threads_untraced_dirty)
		return;
	app->threads_untraced_dirty = false;
	agent_send(a->link, HVT_W_THREADS_UNTRACED, app->trace_id, &t, sizeof(t));
}

/* One more of @app's threads untraced (@app is traced). */
static void thread_untraced(struct app *app)
{
	app->threads_untraced++;
	app->threads_untraced_dirty = true;
}

static void app_drop(struct agent_apps *a, unsigned int slot)
{
	struct app *app = a->apps[slot];

	hvt_debug("pid %u: application gone; closing its %u streams", app->pid, app->nr_streams);
	while (app->nr_streams)
		stream_close(a, app, 0, false, true);
	send_threads_untraced(a, app);
	agent_uid_put(&a->uids, app->uid, AGENT_UID_CONNECTIONS);
	close(app->fd);
	if (app->wake_fd >= 0)
		close(app->wake_fd);
	hvt_registry_free(&app->registry);
	free(app);
	a->apps[slot] = NULL;
}

/*
 * The trace's clock on the wire. An application that reads the TSC without
 * the module's page (HVT_DOMAIN_TSC) is, in a guest, on the guest TSC the
 * kernel stamps with, and on the host (--host) on the host's; its rate is
 * the agent's. The host takes nothing else from its own agent: a guest
 * clock there is a test page or a mistake.
 */
static int app_domain(struct agent_apps *a, const struct app *app, const struct hvt_a_hello *h,
		      struct hvt_w_trace_open *to)
{
	to->domain = h->domain;
	to->freq_hz = h->freq_hz;
	if (a->host && h->domain == HVT_DOMAIN_GUEST_TSC) {
		agent_log(a->link, "pid %u: HELLO refused: a guest TSC clock on the host "
			  "(HVTRACE_DEVICE set?)", app->pid);
		return -1;
	}
	if (h->domain == HVT_DOMAIN_TSC) {
		to->domain = a->host ? HVT_DOMAIN_TSC : HVT_DOMAIN_GUEST_TSC;
		to->freq_hz = a->tsc_hz;
	}
	return 0;
}

/*
 * A trace id for @app (comm @comm), within its user's share: 1, or 0 after
 * saying why not (the recording's ids all used, or the user's share).
 */
static int trace_id_free(struct agent_apps *a, struct app *app, const char *comm, uint32_t *id)
{
	if (a->link->next_trace_id >= HVT_W_MAX_TRACES) {
		say_untraced(a, app->pid, app->uid, comm, HVT_UNTRACED_IDS);
		return 0;
	}
	if (agent_uid_take(&a->uids, app->uid, AGENT_UID_TRACES, HVT_W_MAX_TRACES)) {
		say_untraced(a, app->pid, app->uid, comm, HVT_UNTRACED_UID_SHARE);
		return 0;
	}
	return !agent_new_trace_id(a->link, id);
}

static int on_hello(struct agent_apps *a, struct app *app, const void *payload, uint32_t len)
{
	struct hvt_a_welcome w = { HVT_APP_VERSION, 0 };
	struct hvt_w_trace_open to = { .layer = HVT_LAYER_USER };
	struct hvt_a_hello h;
	const char *why;
	uint32_t id;

	if (app->hello || len != sizeof(h))
		return -1;
	memcpy(&h, payload, sizeof(h));
	if (h.version != 1 && h.version != HVT_APP_VERSION)	/* 1: no THREAD_UNTRACED */
		return -1;
	app->hello = true;
	app->hello_version = h.version;
	w.version = h.version;
	if (!app->pid)
		app->pid = h.pid;	/* no SO_PEERCRED: its own word */
	memcpy(app->uuid, h.uuid, HVT_UUID_LEN);
	if (app_domain(a, app, &h, &to))
		return -1;
	to.pid = app->pid;
	memcpy(to.uuid, h.uuid, HVT_UUID_LEN);
	memcpy(to.comm, h.comm, sizeof(to.comm));
	to.comm[sizeof(to.comm) - 1] = '\0';
	/*
	 * What the host would refuse ends this application, not the VM's link
	 * (checked as trace 1, a valid id: the id limit is handled below).
	 */
	why = hvt_wire_trace_open_check(1, &to, a->link->why, sizeof(a->link->why));
	if (why) {
		agent_log(a->link, "pid %u: HELLO refused: %s", app->pid, why);
		return -1;
	}
	if (a->tracing && trace_id_free(a, app, to.comm, &id)) {	/* else said why not */
		app->trace_id = id;
		w.enabled = 1;
		hvt_debug("pid %u (%s): trace %u, %s clock at %llu Hz", app->pid, to.comm, id,
			  to.domain == HVT_DOMAIN_GUEST_TSC ? "guest TSC" :
			  to.domain == HVT_DOMAIN_TSC ? "host TSC" : "monotonic_raw",
			  (unsigned long long)to.freq_hz);
		if (agent_send(a->link, HVT_W_TRACE_OPEN, app->trace_id, &to, sizeof(to)))
			return -1;
		/* none: its packets wait for the periodic drain */
		app->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	}
	return app_reply(app, HVT_A_WELCOME, 0, &w, sizeof(w), app->wake_fd);
}

/*
 * The records of @payload (@len bytes, checked whole by hvt_registry_add())
 * whose ids @app's registry did not have before, first of each, into @out;
 * their bytes. The host checks a REGISTRY frame whole, every record counted
 * against one update's limit: a frame of known and new records that passes
 * here (only new ones count) would end its link.
 */
static uint32_t new_records(const unsigned char *payload, uint32_t len, const uint8_t *was_new,
			    unsigned char *out)
{
	static uint8_t taken[HVT_REG_MAX_EVENTS];
	uint32_t off = 0, used = 0;
	struct hvt_reg_event h;

	memset(taken, 0, sizeof(taken));
	while (off + sizeof(h) <= len) {
		memcpy(&h, payload + off, sizeof(h));
		if (was_new[h.id] && !taken[h.id]) {
			memcpy(out + used, payload + off, h.size);
			used += h.size;
			taken[h.id] = 1;
		}
		off += h.size;
	}
	return used;
}

/* Which ids of @payload's records @reg lacks, as far as the records are sound. */
static void note_new_ids(const struct hvt_registry *reg, const unsigned char *payload,
			 uint32_t len, uint8_t *was_new)
{
	uint32_t off = 0;
	struct hvt_reg_event h;

	memset(was_new, 0, HVT_REG_MAX_EVENTS);
	while (off + sizeof(h) <= len) {
		memcpy(&h, payload + off, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8 || h.size > len - off ||
		    h.id >= HVT_REG_MAX_EVENTS)
			return;		/* hvt_registry_add() refuses it */
		was_new[h.id] |= !hvt_registry_get(reg, h.id);
		off += h.size;
	}
}

static int on_registry(struct agent_apps *a, struct app *app, const void *payload, uint32_t len)
{
	static uint8_t was_new[HVT_REG_MAX_EVENTS];
	static unsigned char fresh[HVT_APP_MAX_MSG];
	char err[128];
	int added;

	if (!app->hello || !app->trace_id || !len)	/* a REGISTRY frame is never empty */
		return -1;
	if (app->registry_bytes + len > AGENT_APP_REGISTRY_MAX) {
		agent_log(a->link, "pid %u: more than %u KiB of event descriptions (a flood?); "
			  "dropping the process", app->pid, AGENT_APP_REGISTRY_MAX >> 10);
		return -1;
	}
	if (len > sizeof(fresh))
		return -1;	/* a message is never longer */
	note_new_ids(&app->registry, payload, len, was_new);
	added = hvt_registry_add(&app->registry, payload, len, err, sizeof(err));
	if (added < 0) {
		agent_log(a->link, "pid %u: bad event registry: %s", app->pid, err);
		return -1;
	}
	hvt_debug("pid %u: registry update, new events: %d", app->pid, added);
	if (!added)
		return 0;	/* the host has every record already */
	len = new_records(payload, len, was_new, fresh);
	app->registry_bytes += len;
	return agent_send(a->link, HVT_W_REGISTRY, app->trace_id, fresh, len);
}

static int sealed_size(int fd, size_t size)
{
	const int need = F_SEAL_SHRINK | F_SEAL_GROW;
	struct stat st;
	int seals = fcntl(fd, F_GET_SEALS);

	return seals >= 0 && (seals & need) == need && !fstat(fd, &st) &&
	       (size_t)st.st_size == size;
}

/* A consumer page only we can write: a sealed one-page memfd. */
static int consumer_page(struct hvt_rb_cons **cons)
{
	int fd = memfd_create("hvtrace-consumer", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0)
		return -1;
	if (ftruncate(fd, 4096) ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) ||
	    (*cons = mmap(NULL, sizeof(**cons), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) ==
	    MAP_FAILED) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Unmaps a stream that never reached the host. */
static void stream_free(struct app_stream *s)
{
	if (s->map != MAP_FAILED)
		munmap((void *)s->map, s->map_size);
	if (s->cons != MAP_FAILED)
		munmap(s->cons, sizeof(*s->cons));
	free(s);
}

/* A stream id for a thread of @app, within the limits; else why not. */
static const char *stream_id_free(struct agent_apps *a, struct app *app, uint32_t *id)
{
	if (app->nr_streams == AGENT_MAX_APP_STREAMS)
		return "too many threads of one application";
	if (a->link->next_stream_id >= HVT_W_MAX_STREAMS)
		return "all stream ids of this recording used";
	if (agent_uid_take(&a->uids, app->uid, AGENT_UID_STREAMS, HVT_W_MAX_STREAMS))
		return "its user's share of the stream ids used";
	return agent_new_stream_id(a->link, id) ? "all stream ids of this recording used" : NULL;
}

/*
 * A thread's buffer. Inconsistent ones are violations; at a limit (this
 * application's streams, the recording's stream ids) the stream is refused
 * with a STREAM_ACK that carries no memfd, and the thread stays untraced.
 */
static int on_stream(struct agent_apps *a, struct app *app, uint32_t app_id,
		     const void *payload, uint32_t len, int memfd)
{
	struct hvt_a_stream m;
	struct app_stream *s;
	struct hvt_w_stream_open so;
	const char *why;
	int cfd;

	if (!app->hello || !app->trace_id || len != sizeof(m) || memfd < 0)
		return -1;
	memcpy(&m, payload, sizeof(m));
	if (m.tid <= 0) {
		agent_log(a->link, "pid %u: buffer refused: thread id %d", app->pid, m.tid);
		return -1;
	}
	if (!hvt_rb_geometry_ok(m.subbuf_size, m.nr_subbufs) ||
	    m.map_size != HVT_APP_PROD_PAGE + (uint64_t)m.subbuf_size * m.nr_subbufs ||
	    !sealed_size(memfd, m.map_size)) {
		agent_log(a->link, "pid %u: buffer refused (geometry, size or seals)", app->pid);
		return -1;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -1;
	s->map_size = m.map_size;
	s->map = mmap(NULL, m.map_size, PROT_READ, MAP_SHARED, memfd, 0);
	s->cons = MAP_FAILED;
	cfd = consumer_page(&s->cons);
	if (s->map == MAP_FAILED || cfd < 0) {
		if (cfd >= 0)
			close(cfd);
		stream_free(s);
		return -1;
	}
	s->app_id = app_id;
	s->tid = m.tid;
	s->subbuf_size = m.subbuf_size;
	s->nr_subbufs = m.nr_subbufs;
	so = (struct hvt_w_stream_open){ app->trace_id, HVT_CTF_NO_CPU, m.tid, 0 };
	why = stream_id_free(a, app, &s->id);
	if (!why)
		why = hvt_wire_stream_open_check(s->id, &so, a->link->why, sizeof(a->link->why));
	if (why) {
		agent_log(a->link, "pid %u thread %d not traced: %s", app->pid, m.tid, why);
		thread_untraced(app);
		close(cfd);
		stream_free(s);
		return app_reply(app, HVT_A_STREAM_ACK, app_id, NULL, 0, -1);
	}
	app->streams[app->nr_streams++] = s;
	hvt_debug("pid %u thread %d: stream %u open, %u x %u bytes", app->pid, m.tid, s->id,
		  m.nr_subbufs, m.subbuf_size);
	if (agent_send(a->link, HVT_W_STREAM_OPEN, s->id, &so, sizeof(so)) ||
	    app_reply(app, HVT_A_STREAM_ACK, app_id, NULL, 0, cfd)) {
		close(cfd);
		return -1;
	}
	close(cfd);
	return 0;
}

static int on_stream_end(struct agent_apps *a, struct app *app, uint32_t app_id)
{
	unsigned int i;

	for (i = 0; i < app->nr_streams; i++)
		if (app->streams[i]->app_id == app_id) {
			stream_close(a, app, i, false, false);
			return 0;
		}
	return -1;
}

/* The library could not trace one of its threads (version 2): counted. */
static int on_thread_untraced(struct app *app, const void *payload, uint32_t len)
{
	struct hvt_a_thread_untraced m;

	if (!app->hello || !app->trace_id || app->hello_version < 2 || len != sizeof(m))
		return -1;
	memcpy(&m, payload, sizeof(m));
	if (m.tid <= 0 || m.reason != HVT_A_UNTRACED_BUFFER_CAP)
		return -1;
	hvt_debug("pid %u thread %d not traced: the library's buffer cap", app->pid, m.tid);
	thread_untraced(app);
	return 0;
}

/* Dispatches one message; -1 on a violation. *bye is set by BYE. */
static int on_message(struct agent_apps *a, struct app *app, const struct hvt_app_hdr *h,
		      const void *payload, int fd, bool *bye)
{
	switch (h->type) {
	case HVT_A_HELLO:
		return on_hello(a, app, payload, h->len);
	case HVT_A_REGISTRY:
		return on_registry(a, app, payload, h->len);
	case HVT_A_STREAM:
		return on_stream(a, app, h->id, payload, h->len, fd);
	case HVT_A_STREAM_END:
		return on_stream_end(a, app, h->id);
	case HVT_A_THREAD_UNTRACED:
		return on_thread_untraced(app, payload, h->len);
	case HVT_A_BYE:
		*bye = true;
		return 0;
	default:
		return -1;
	}
}

/* Reads one message; a violation drops the application, so does its end. */
void agent_apps_handle(struct agent_apps *a, unsigned int slot)
{
	struct app *app = a->apps[slot];
	struct hvt_app_hdr h;
	int fd, r, bad = 0;
	bool bye = false;

	r = hvt_app_recv(app->fd, a->msg, HVT_APP_MAX_MSG, MSG_DONTWAIT, &h, &fd);
	if (r < 0 && r != -2 && errno == EAGAIN)
		return;
	if (r == 1)
		bad = on_message(a, app, &h, a->msg + sizeof(h), fd, &bye);
	else if (r == -2)
		bad = 1;
	else
		bye = true;	/* the application went away (or its socket broke) */
	if (fd >= 0)
		close(fd);		/* a buffer stays mapped without it */
	if (bad)
		agent_log(a->link, "pid %u: protocol violation; application dropped", app->pid);
	if (bad || bye)
		app_drop(a, slot);
}

/* Forwards the closed packets of every stream of @app; a corrupt stream is closed. */
static void drain_app(struct agent_apps *a, struct app *app)
{
	unsigned int i;

	send_threads_untraced(a, app);

	for (i = 0; i < app->nr_streams;)
		if (drain_stream(a, app, app->streams[i]))
			stream_close(a, app, i, true, false);
		else
			i++;
}

void agent_apps_drain(struct agent_apps *a)
{
	unsigned int slot;

	for (slot = 0; slot < AGENT_MAX_APPS; slot++)
		if (a->apps[slot])
			drain_app(a, a->apps[slot]);
}

void agent_apps_wake(struct agent_apps *a, unsigned int slot)
{
	struct app *app = a->apps[slot];
	uint64_t count;
	/* Reset first: a packet closed during the drain wakes us again. */
	ssize_t n = read(app->wake_fd, &count, sizeof(count));

	(void)n;	/* EAGAIN: another drain took it already */
	drain_app(a, app);
}

void agent_apps_close_all(struct agent_apps *a)
{
	unsigned int slot;

	if (a->listen_fd >= 0) {
		close(a->listen_fd);
		unlink(a->socket_path);
		a->listen_fd = -1;
	}
	for (slot = 0; slot < AGENT_MAX_APPS; slot++)
		if (a->apps[slot])
			app_drop(a, slot);
	agent_uids_free(&a->uids);
	free(a->untraced_pids);
	a->untraced_pids = NULL;
	a->nr_untraced_pids = 0;
}
