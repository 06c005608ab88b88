// SPDX-License-Identifier: GPL-2.0-only
/*
 * vm_link.c - the conversation with one guest agent (docs/format.md,
 * section 5) and the clock exchanges that align it.
 *
 * Exchanges are strictly one at a time: a SYNC_REPLY is accepted only for
 * the request outstanding, echoing its sequence number and send time. Host
 * TSC values are read just before a request is written and just after a
 * reply was read, so each exchange bounds the guest-host offset from both
 * sides (clocksync.h).
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <hvtrace/abi.h>

#include "host/host_tsc.h"
#include "host/vm.h"
#include "lib/clock_now.h"
#include "lib/log.h"
#include "lib/names.h"

static const char *state_name[] = {
	[HVT_VM_WAITING] = "waiting", [HVT_VM_HELLO] = "hello", [HVT_VM_SYNCING] = "syncing",
	[HVT_VM_RUNNING] = "running", [HVT_VM_FINAL_SYNC] = "final sync",
	[HVT_VM_ENDED] = "ended",
};

static int init_at(struct hvt_vm *vm, struct hvt_archive_writer *ar, const char *name,
		   const char *rel, int qemu_pid, const char *accel,
		   const struct hvt_vm_limits *limits, char *err, size_t errlen)
{
	strcpy(vm->name, name);
	snprintf(vm->rel, sizeof(vm->rel), "%s", rel);
	vm->archive = ar;
	vm->qemu_pid = qemu_pid;
	vm->accel = accel;
	vm->fd = -1;
	vm->state = HVT_VM_WAITING;
	vm->limits = *limits;
	vm->rate_credit = (int64_t)limits->rate;	/* a second's worth to start */
	vm->rate_refilled_ns = hvt_monotonic_ns();
	vm->log_credit = HVT_LOG_BURST;
	vm->log_refilled_ns = vm->rate_refilled_ns;
	vm->untraced = NULL;		/* allocated at the first UNTRACED */
	vm->nr_untraced_listed = 0;
	vm->nr_untraced = 0;
	hvt_offset_fit_init(&vm->fit);
	if (hvt_frame_reader_init(&vm->reader)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (hvt_vm_store_init(vm, err, errlen)) {
		hvt_frame_reader_free(&vm->reader);
		return -1;
	}
	return 0;
}

int hvt_vm_init(struct hvt_vm *vm, struct hvt_archive_writer *ar, const char *name, int qemu_pid,
		const char *accel, const struct hvt_vm_limits *limits, char *err, size_t errlen)
{
	char rel[sizeof(vm->rel)];

	memset(vm, 0, sizeof(*vm));
	if (!hvt_vm_name_ok(name)) {
		snprintf(err, errlen, "invalid VM name '%s': use 1-%d letters, digits, '_', '.', '-'",
			 name, HVT_VM_NAME_MAX);
		return -1;
	}
	snprintf(rel, sizeof(rel), "vm/%s", name);
	return init_at(vm, ar, name, rel, qemu_pid, accel, limits, err, errlen);
}

int hvt_vm_init_host_apps(struct hvt_vm *vm, struct hvt_archive_writer *ar,
			  const struct hvt_vm_limits *limits, char *err, size_t errlen)
{
	memset(vm, 0, sizeof(*vm));
	vm->host_apps = true;
	return init_at(vm, ar, "host", "host/apps", 0, "host", limits, err, errlen);
}

void hvt_vm_attach(struct hvt_vm *vm, int fd)
{
	vm->fd = fd;
	vm->state = HVT_VM_HELLO;
}

void hvt_vm_end(struct hvt_vm *vm, const char *fmt, ...)
{
	char reason[sizeof(vm->end_reason)];
	va_list ap;

	if (vm->state == HVT_VM_ENDED)
		return;
	/* Formatted apart: an argument may point into vm (vm->why). */
	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	memcpy(vm->end_reason, reason, sizeof(reason));
	hvt_vm_say_logs_dropped(vm);
	if (!vm->finished && !vm->no_link)
		hvt_warn("%s%s: %s", vm->host_apps ? "host applications" : "vm ",
			 vm->host_apps ? "" : vm->name, vm->end_reason);
	if (hvt_log_verbose()) {
		char counts[512] = "";
		size_t off = 0;
		int t;

		for (t = 1; t < HVT_W_TYPE_MAX; t++)
			if (vm->frames[t] && off < sizeof(counts))
				off += (size_t)snprintf(counts + off, sizeof(counts) - off, " %s %llu",
							hvt_wire_type_name((uint16_t)t),
							(unsigned long long)vm->frames[t]);
		hvt_debug("vm %s: frames received:%s", vm->name, off ? counts : " none");
	}
	if (vm->fd >= 0)
		close(vm->fd);
	vm->fd = -1;
	vm->state = HVT_VM_ENDED;
	hvt_frame_reader_free(&vm->reader);
	hvt_vm_store_close(vm);
}

static int send_frame(struct hvt_vm *vm, uint16_t type, const void *payload, uint32_t len)
{
	if (type != HVT_W_SYNC_REQ)
		hvt_debug("vm %s: sending %s", vm->name, hvt_wire_type_name(type));
	if (hvt_wire_send(vm->fd, type, 0, payload, len)) {
		if (errno == ETIMEDOUT)
			hvt_vm_end(vm, "the guest read nothing for %d s", HVT_WIRE_SEND_TIMEOUT_MS / 1000);
		else
			hvt_vm_end(vm, "link to the guest broken: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static void sync_send(struct hvt_vm *vm)
{
	struct hvt_w_sync_req req = { .seq = vm->sync_seq };

	vm->sync_outstanding = true;
	vm->sync_sent_ns = hvt_monotonic_ns();
	req.host_send = vm->sync_sent = hvt_host_tsc();
	send_frame(vm, HVT_W_SYNC_REQ, &req, sizeof(req));
}

/*
 * KVM's offset is used when the exchanges allow it: a debugfs that shows no
 * offset (as a paravirtual KVM may) must not override what the guest's own
 * answers prove.
 */
static bool kvm_offset_usable(struct hvt_vm *vm, const struct hvt_offset_estimate *est)
{
	if (!vm->kvm_known)
		return false;
	if (vm->kvm_offset >= est->lo && vm->kvm_offset <= est->hi) {
		vm->kvm_contradicted = false;
		return true;
	}
	if (!vm->kvm_contradicted)
		hvt_warn("vm %s: KVM's TSC offset %lld (debugfs) is outside [%lld, %lld], which the "
			 "clock exchanges allow; the guest gets the estimate", vm->name,
			 (long long)vm->kvm_offset, (long long)est->lo, (long long)est->hi);
	vm->kvm_contradicted = true;
	return false;
}

/* The transform the guest publishes in its clock page: guest TSC -> host ns. */
static void send_params(struct hvt_vm *vm)
{
	struct hvt_w_params p = { .set = HVTRACE_SET_CLOCK_GLOBAL,
				  .page_flags = HVT_CLOCK_F_SYNCED };
	struct hvt_offset_estimate est;
	struct hvt_linear_map mono;

	vm->next_params_ns = hvt_monotonic_ns() + HVT_PARAMS_REFRESH_S * 1000000000ll;
	if (hvt_archive_writer_clock_pair(vm->archive) || hvt_archive_writer_host_clock(vm->archive, &mono) ||
	    hvt_offset_fit_result(&vm->fit, &est) || !est.bounded || !est.consistent) {
		hvt_warn("vm %s: no clock transform for the guest yet", vm->name);
		return;
	}
	vm->params_exact = kvm_offset_usable(vm, &est);
	p.params.guest_tsc_base = mono.base + (uint64_t)(vm->params_exact ? vm->kvm_offset : est.offset);
	p.params.host_ns_base = mono.base_ns;
	p.params.mult = mono.mult;
	p.params.shift = mono.shift;
	p.params.flags = vm->params_exact ? HVT_CLOCK_P_EXACT : HVT_CLOCK_P_ESTIMATED;
	/* Exact: only the host clock pair's own uncertainty remains. */
	p.params.error_ns = (uint64_t)hvt_clock_scale(vm->params_exact ?
						      vm->archive->last.uncertainty : est.bound,
						      0, 0, mono.mult, mono.shift);
	p.params.realtime_offset_ns = vm->archive->last.real_ns - vm->archive->last.mono_ns;
	hvt_debug("vm %s: PARAMS: host ns = %lld + ((guest TSC - %llu) * %llu) >> %u, "
		  "within %llu ns", vm->name, (long long)p.params.host_ns_base,
		  (unsigned long long)p.params.guest_tsc_base, (unsigned long long)p.params.mult,
		  p.params.shift, (unsigned long long)p.params.error_ns);
	if (!send_frame(vm, HVT_W_PARAMS, &p, sizeof(p)))
		vm->params_sent++;
}

static bool fit_consistent(const struct hvt_vm *vm)
{
	struct hvt_offset_estimate est;

	return !hvt_offset_fit_result(&vm->fit, &est) && est.consistent;
}

/*
 * The exchanges contradict every constant offset since the last fit: the
 * guest clock changed (a pause and resume under TCG, a migration, a TSC
 * write). The fit starts again, empty (the exchange that showed the change
 * may straddle it), a burst fills it, and the guest then gets the new
 * transform, which changes its clock page's generation. A burst that ends
 * inconsistent (another change during it) starts another. At most one
 * change is acted on per HVT_PARAMS_REFRESH_S: a guest TSC running at
 * another rate than the host's (scaling) drifts out of any constant offset,
 * and must not turn into a stream of bursts.
 */
static void begin_resync(struct hvt_vm *vm, uint64_t seq)
{
	int64_t now = hvt_monotonic_ns();

	if (!vm->resync && now < vm->next_resync_ns)
		return;
	if (!vm->resync) {
		hvt_info("vm %s: exchange %llu contradicts the guest TSC offset so far: the guest "
			 "clock changed; synchronising again", vm->name, (unsigned long long)seq);
		vm->resyncs++;
	} else {
		hvt_debug("vm %s: the guest clock changed again during the burst", vm->name);
	}
	hvt_offset_fit_init(&vm->fit);
	if (!vm->resync)
		vm->resync_bursts = 0;
	vm->resync_bursts++;
	vm->resync = true;
	vm->next_resync_ns = now + HVT_PARAMS_REFRESH_S * 1000000000ll;
	vm->burst_left = HVT_SYNC_BURST + 1;	/* this reply's decrement, then the burst */
}

static void burst_done(struct hvt_vm *vm)
{
	if (vm->state == HVT_VM_SYNCING) {
		send_params(vm);
		if (vm->state == HVT_VM_ENDED || send_frame(vm, HVT_W_START, NULL, 0))
			return;
		vm->state = HVT_VM_RUNNING;
		vm->next_sync_ns = hvt_monotonic_ns() + (int64_t)vm->limits.sync_interval_ms * 1000000;
		if (vm->stop_requested)
			send_frame(vm, HVT_W_STOP, NULL, 0);
	} else if (vm->state == HVT_VM_FINAL_SYNC) {
		if (!send_frame(vm, HVT_W_GOODBYE, NULL, 0)) {
			vm->finished = true;
			hvt_vm_end(vm, vm->host_apps ? "the host agent finished" : "guest finished");
		}
	}
}

/*
 * A resync burst ended without a constant offset. Another burst, unless
 * HVT_RESYNC_MAX_BURSTS ran already: then the transform stays as it was,
 * exchanges go on at their period (the merge fits them offline), and the
 * next attempt waits for the hold-off.
 */
static void resync_failed(struct hvt_vm *vm, uint64_t seq)
{
	if (vm->resync_bursts < HVT_RESYNC_MAX_BURSTS) {
		begin_resync(vm, seq);
		if (vm->burst_left > 0 && --vm->burst_left > 0)
			sync_send(vm);
		return;
	}
	if (!vm->resyncs_abandoned++)
		hvt_warn("vm %s: %u bursts of exchanges found no constant offset: the guest clock "
			 "keeps changing (a TSC at another rate than the host's?); its transform "
			 "is not updated, exchanges go on every %u ms", vm->name,
			 vm->resync_bursts, vm->limits.sync_interval_ms);
	vm->resync = false;
	vm->next_resync_ns = hvt_monotonic_ns() + HVT_PARAMS_REFRESH_S * 1000000000ll;
	vm->info_dirty = true;
}

/* "vm NAME", or "host applications", as messages name the link. */
static const char *link_name(struct hvt_vm *vm)
{
	if (vm->host_apps)
		return "host applications";
	snprintf(vm->label, sizeof(vm->label), "vm %s", vm->name);
	return vm->label;
}

static int on_sync_reply(struct hvt_vm *vm, const struct hvt_frame *f, uint64_t host_recv)
{
	struct hvt_w_sync_reply r;
	struct hvt_exchange ex;

	memcpy(&r, f->payload, sizeof(r));
	if (!vm->sync_outstanding || r.seq != vm->sync_seq || r.host_send != vm->sync_sent) {
		snprintf(vm->why, sizeof(vm->why), "SYNC_REPLY %llu does not answer the request",
			 (unsigned long long)r.seq);
		return -1;
	}
	vm->sync_outstanding = false;
	if (vm->sync_stall_said)
		hvt_info("%s: clock exchange %llu answered after %.1f s; exchanges go on",
			 link_name(vm), (unsigned long long)r.seq,
			 (double)(hvt_monotonic_ns() - vm->sync_sent_ns) / 1e9);
	vm->sync_stall_said = false;
	vm->sync_seq++;
	ex = (struct hvt_exchange){ r.host_send, r.guest_recv, r.guest_send, host_recv };
	hvt_offset_fit_exchange(&vm->fit, &ex);
	if (vm->state == HVT_VM_RUNNING && !vm->resync && !fit_consistent(vm))
		begin_resync(vm, r.seq);
	fprintf(vm->sync_tsv, "%llu\t%llu\t%llu\t%llu\t%llu\t%u\t%u\n",
		(unsigned long long)r.seq, (unsigned long long)r.host_send,
		(unsigned long long)r.guest_recv, (unsigned long long)r.guest_send,
		(unsigned long long)host_recv, r.cpu_recv, r.cpu_send);
	fflush(vm->sync_tsv);
	/* Every exchange of a burst, then about one a second. */
	if (hvt_log_verbose() && (vm->burst_left > 0 || r.seq % 10 == 0)) {
		struct hvt_offset_estimate est;

		if (!hvt_offset_fit_result(&vm->fit, &est))
			hvt_debug("vm %s: exchange %llu: round trip %llu ticks; guest TSC - host TSC "
				  "in [%lld, %lld]%s", vm->name, (unsigned long long)r.seq,
				  (unsigned long long)(host_recv - r.host_send), (long long)est.lo,
				  (long long)est.hi, est.consistent ? "" : " (inconsistent)");
	}
	if (vm->burst_left > 0 && --vm->burst_left > 0) {
		sync_send(vm);
	} else if (vm->burst_left == 0 && vm->state != HVT_VM_RUNNING) {
		burst_done(vm);
	} else if (vm->burst_left == 0 && vm->resync) {
		if (!fit_consistent(vm)) {
			resync_failed(vm, r.seq);
		} else {
			vm->resync = false;
			send_params(vm);
		}
	}
	return 0;
}

static int on_hello(struct hvt_vm *vm, const struct hvt_frame *f)
{
	struct hvt_w_welcome w = { HVT_WIRE_VERSION, vm->limits.sync_interval_ms };

	memcpy(&vm->hello, f->payload, sizeof(vm->hello));
	if (vm->hello.version != HVT_WIRE_VERSION) {
		snprintf(vm->why, sizeof(vm->why),
			 "the guest agent speaks protocol %u, this collector %u: use the same hvtrace",
			 vm->hello.version, HVT_WIRE_VERSION);
		return -1;
	}
	if (vm->hello.nr_cpus == 0 || vm->hello.nr_cpus > HVT_W_MAX_CPUS) {
		snprintf(vm->why, sizeof(vm->why), "HELLO with %u CPUs", vm->hello.nr_cpus);
		return -1;
	}
	vm->info_dirty = true;
	if (vm->host_apps)
		hvt_debug("host applications: the host agent is up");
	else
		hvt_info("vm %s: guest agent connected (%u CPUs, TSC %llu kHz)", vm->name,
			 vm->hello.nr_cpus, (unsigned long long)vm->hello.tsc_khz);
	if (send_frame(vm, HVT_W_WELCOME, &w, sizeof(w)))
		return 0;
	vm->state = HVT_VM_SYNCING;
	vm->burst_left = HVT_SYNC_BURST;
	sync_send(vm);
	return 0;
}

/* Shows a guest's LOG line, unless it is over its share of the collector's output. */
static void on_log(struct hvt_vm *vm, const struct hvt_frame *f)
{
	char text[HVT_W_LOG_MAX + 1];

	if (vm->log_credit <= 0) {
		vm->logs_dropped++;
		return;
	}
	vm->log_credit--;
	hvt_vm_sanitize(text, f->payload, f->hdr.len);
	hvt_info("vm %s says: %s", vm->name, text);
}

/* Refills the LOG line budget; says how many lines were not shown since it last did. */
static void log_refill(struct hvt_vm *vm, int64_t now)
{
	int64_t earned = (now - vm->log_refilled_ns) * HVT_LOG_PER_S / 1000000000;

	if (earned <= 0)
		return;
	vm->log_credit = vm->log_credit + earned > HVT_LOG_BURST ? HVT_LOG_BURST :
							       vm->log_credit + earned;
	vm->log_refilled_ns = now;
	hvt_vm_say_logs_dropped(vm);
}

void hvt_vm_say_logs_dropped(struct hvt_vm *vm)
{
	if (vm->logs_dropped == vm->logs_dropped_said)
		return;
	hvt_warn("vm %s: %llu log lines from the guest not shown (more than %d a second; "
		 "%llu in all, counted in info.json)", vm->name,
		 (unsigned long long)(vm->logs_dropped - vm->logs_dropped_said), HVT_LOG_PER_S,
		 (unsigned long long)vm->logs_dropped);
	vm->logs_dropped_said = vm->logs_dropped;
	vm->info_dirty = true;
}

static void on_finish(struct hvt_vm *vm)
{
	if (vm->host_apps)
		hvt_debug("host applications: the host agent finished; final clock exchanges");
	else
		hvt_info("vm %s: guest finished tracing; final clock exchanges", vm->name);
	vm->state = HVT_VM_FINAL_SYNC;
	vm->burst_left = HVT_SYNC_BURST;
	if (!vm->sync_outstanding)
		sync_send(vm);
}

/* A frame allowed in the current state; -1 with vm->why on a violation. */
static int on_frame(struct hvt_vm *vm, const struct hvt_frame *f, uint64_t recv_tsc)
{
	uint16_t type = f->hdr.type;
	const void *p = f->payload;

	if (type == HVT_W_LOG) {
		on_log(vm, f);
		return 0;
	}
	if (type == HVT_W_SYNC_REPLY && vm->state != HVT_VM_HELLO)
		return on_sync_reply(vm, f, recv_tsc);
	if (vm->state == HVT_VM_HELLO && type == HVT_W_HELLO)
		return on_hello(vm, f);
	if (vm->state == HVT_VM_RUNNING) {
		struct hvt_w_trace_open to;
		struct hvt_w_stream_open so;
		struct hvt_w_stream_close sc;
		struct hvt_w_untraced u;
		struct hvt_w_threads_untraced tu;

		switch (type) {
		case HVT_W_TRACE_OPEN:
			memcpy(&to, p, sizeof(to));
			return hvt_vm_trace_open(vm, f->hdr.id, &to);
		case HVT_W_REGISTRY:
			return hvt_vm_registry(vm, f->hdr.id, p, f->hdr.len);
		case HVT_W_STREAM_OPEN:
			memcpy(&so, p, sizeof(so));
			return hvt_vm_stream_open(vm, f->hdr.id, &so);
		case HVT_W_PACKET:
			return hvt_vm_packet(vm, f->hdr.id, p, f->hdr.len);
		case HVT_W_STREAM_CLOSE:
			memcpy(&sc, p, sizeof(sc));
			return hvt_vm_stream_close(vm, f->hdr.id, &sc);
		case HVT_W_UNTRACED:
			memcpy(&u, p, sizeof(u));
			return hvt_vm_untraced(vm, &u);
		case HVT_W_THREADS_UNTRACED:
			memcpy(&tu, p, sizeof(tu));
			return hvt_vm_threads_untraced(vm, f->hdr.id, &tu);
		case HVT_W_FINISH:
			on_finish(vm);
			return 0;
		}
	}
	snprintf(vm->why, sizeof(vm->why), "unexpected %s frame while %s",
		 hvt_wire_type_name(type), state_name[vm->state]);
	return -1;
}

bool hvt_vm_wants_input(const struct hvt_vm *vm)
{
	return vm->fd >= 0 && (!vm->limits.rate || vm->rate_credit > 0);
}

/*
 * The rate quota is a token bucket of one second: credit grows at
 * limits.rate bytes per second up to limits.rate, and every byte read takes
 * one. A guest over its rate is not read until it is back in credit, so it
 * fills its own buffers and counts what they drop; nothing it already sent
 * is lost.
 */
static void rate_refill(struct hvt_vm *vm, int64_t now)
{
	int64_t rate = (int64_t)vm->limits.rate;

	if (!rate)
		return;
	if (vm->rate_credit <= 0) {
		vm->throttled_ticks++;
		/* The reply waits behind data not read: that time is ours, not the guest's. */
		if (vm->sync_outstanding)
			vm->sync_sent_ns += now - vm->rate_refilled_ns;
	}
	vm->rate_credit += (int64_t)((__int128)rate * (now - vm->rate_refilled_ns) / 1000000000);
	if (vm->rate_credit > rate)
		vm->rate_credit = rate;
	vm->rate_refilled_ns = now;
}

void hvt_vm_readable(struct hvt_vm *vm)
{
	struct hvt_frame f;
	const char *why;
	ssize_t n = hvt_frame_reader_fill(&vm->reader, vm->fd);
	/* Read right after the data: an upper bound of when it arrived. */
	uint64_t recv_tsc = hvt_host_tsc();
	int r;

	if (n == 0) {
		hvt_vm_end(vm, vm->state == HVT_VM_HELLO ? "guest disconnected before it said hello" :
			   "guest disconnected before it finished");
		return;
	}
	if (n < 0) {
		if (errno != EAGAIN)
			hvt_vm_end(vm, "link to the guest broken: %s", strerror(errno));
		return;
	}
	if (vm->limits.rate)
		vm->rate_credit -= n;
	while (vm->state != HVT_VM_ENDED &&
	       (r = hvt_frame_reader_next(&vm->reader, 1, &f, &why)) != 0) {
		if (r < 0) {
			hvt_vm_end(vm, "malformed frame from the guest: %s", why);
			return;
		}
		vm->frames[f.hdr.type]++;
		if (f.hdr.type != HVT_W_PACKET && f.hdr.type != HVT_W_SYNC_REPLY)
			hvt_debug("vm %s: received %s, id %u, %u bytes", vm->name,
				  hvt_wire_type_name(f.hdr.type), f.hdr.id, f.hdr.len);
		if (on_frame(vm, &f, recv_tsc) < 0) {
			hvt_vm_end(vm, "guest disconnected: %s", vm->why);
			return;
		}
	}
}

void hvt_vm_drain(struct hvt_vm *vm)
{
	int rounds;

	for (rounds = 0; rounds < 4096 && vm->fd >= 0 && vm->state != HVT_VM_ENDED; rounds++) {
		struct pollfd p = { .fd = vm->fd, .events = POLLIN };

		if (poll(&p, 1, 0) <= 0)
			break;
		hvt_vm_readable(vm);
	}
}

/*
 * Exchanges are one at a time, so a guest that stops answering stops them
 * all. A stall is said, and waited out up to limits.stall_timeout_s: a TCG
 * guest on a busy host stalls for tens of seconds, a paused VM for as long
 * as it is paused, and their tracing goes on after. True once it ended the link.
 */
static bool sync_stalled(struct hvt_vm *vm, int64_t now)
{
	uint32_t limit = vm->limits.stall_timeout_s ? vm->limits.stall_timeout_s : HVT_SYNC_STALL_S;
	int64_t waited = now - vm->sync_sent_ns;

	if (waited > (int64_t)limit * 1000000000ll) {
		hvt_vm_end(vm, "the guest did not answer clock exchange %llu within %u s",
			   (unsigned long long)vm->sync_seq, limit);
		return true;
	}
	if (waited > HVT_SYNC_SLOW_S * 1000000000ll && !vm->sync_stall_said) {
		hvt_warn("%s: no answer to clock exchange %llu for %d s (the guest stalled or "
			 "paused?); waiting up to %u s", link_name(vm),
			 (unsigned long long)vm->sync_seq, HVT_SYNC_SLOW_S, limit);
		vm->sync_stall_said = true;
	}
	return false;
}

void hvt_vm_tick(struct hvt_vm *vm)
{
	int64_t now = hvt_monotonic_ns();

	if (vm->state == HVT_VM_ENDED)
		return;
	rate_refill(vm, now);
	log_refill(vm, now);
	if (hvt_vm_flush(vm)) {
		hvt_vm_end(vm, "%s", vm->why);
		return;
	}
	if (vm->sync_outstanding && sync_stalled(vm, now))
		return;
	/* A throttled guest's reply would wait behind its data: no exchange then. */
	if (vm->state != HVT_VM_RUNNING || vm->sync_outstanding || !hvt_vm_wants_input(vm))
		return;
	/*
	 * A refresh: a narrower bound, the host clock line through the latest
	 * pair. Not once the guest was asked to stop: it would reach a guest
	 * that traces no more.
	 */
	if (!vm->resync && !vm->stop_requested && now >= vm->next_params_ns && fit_consistent(vm))
		send_params(vm);
	if (vm->state != HVT_VM_RUNNING || now < vm->next_sync_ns)
		return;
	/*
	 * On the period's grid, not from now: ticks come at the same period,
	 * and "now + period" made any jitter skip every other one.
	 */
	vm->next_sync_ns += (int64_t)vm->limits.sync_interval_ms * 1000000;
	if (vm->next_sync_ns <= now)
		vm->next_sync_ns = now + (int64_t)vm->limits.sync_interval_ms * 1000000;
	sync_send(vm);
}

void hvt_vm_kvm_offset(struct hvt_vm *vm, bool known, int64_t offset)
{
	bool changed = known != vm->kvm_known || (known && offset != vm->kvm_offset);

	vm->kvm_known = known;
	vm->kvm_offset = offset;
	if (changed && vm->state == HVT_VM_RUNNING && !vm->resync && fit_consistent(vm))
		send_params(vm);
}

void hvt_vm_request_stop(struct hvt_vm *vm)
{
	if (vm->stop_requested)
		return;
	vm->stop_requested = true;
	if (vm->state == HVT_VM_RUNNING)
		send_frame(vm, HVT_W_STOP, NULL, 0);
	else if (vm->state == HVT_VM_WAITING || vm->state == HVT_VM_HELLO)
		hvt_vm_end(vm, "stopped before the guest started tracing");
}
