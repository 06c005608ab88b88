// SPDX-License-Identifier: GPL-2.0-only
/*
 * target.c - one VM of a recording (target.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host/target.h"
#include "lib/log.h"

int hvt_target_open(struct hvt_target *t, struct hvt_archive_writer *ar,
		    const struct hvt_target_config *c, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	t->listen_fd = -1;
	t->qemu.pidfd = -1;
	t->vm.fd = -1;
	t->started = time(NULL);
	t->vsock_cid = c->vsock_cid;
	snprintf(t->domain, sizeof(t->domain), "%s", c->domain ? c->domain : "");
	if (c->channel) {
		if (hvt_netaddr_parse(c->channel, false, &t->channel, err, errlen))
			return -1;
		t->connects = true;
	}
	if (c->listen && hvt_netaddr_parse(c->listen, true, &t->listen_addr, err, errlen))
		return -1;
	if (c->qemu_pid) {
		char why[256];

		if (hvt_qemu_open(&t->qemu, c->qemu_pid, why, sizeof(why))) {
			snprintf(err, errlen, "VM %s: QEMU process: %s", c->name, why);
			return -1;
		}
		t->have_qemu = true;
		if (c->vcpu_tids) {
			memcpy(t->qemu.vcpu_tids, c->vcpu_tids, sizeof(t->qemu.vcpu_tids));
			t->qemu.vcpu_source = "qmp";
		}
		if (!t->qemu.vcpu_source)
			hvt_warn("VM %s: which QEMU threads run its vCPUs is not known: QEMU names "
				 "them only with -name NAME,debug-threads=on, or give --qmp SOCKET "
				 "(libvirt domains: found by themselves). Without them the guest's "
				 "bound is some 30x wider and hvtrace analyze cannot run (threads "
				 "named later are still used)", c->name);
	}
	if (c->listen) {
		t->listen_fd = hvt_netaddr_listen(&t->listen_addr, 1, err, errlen);
		if (t->listen_fd < 0)
			return -1;
	}
	/* Last: what can fail has, so a VM that is not recorded leaves no directory. */
	if (hvt_vm_init(&t->vm, ar, c->name, (int)c->qemu_pid,
			t->have_qemu ? t->qemu.accel : "unknown", &c->limits, err, errlen))
		return -1;
	t->vm.no_link = c->no_link;
	return 0;
}

bool hvt_target_kvm(const struct hvt_target *t)
{
	return t->have_qemu && !strcmp(t->qemu.accel, "kvm");
}

int hvt_target_start_kvm(struct hvt_target *t, char *err, size_t errlen)
{
	if (!hvt_target_kvm(t))
		return 0;
	if (hvt_kvm_tsc_open(&t->kvm_tsc, t->vm.dir, t->qemu.pid, err, errlen))
		return -1;
	if (hvt_kvm_tsc_snapshot(&t->kvm_tsc, false)) {
		snprintf(err, errlen, "VM %s: the KVM TSC snapshot cannot be written", t->vm.name);
		return -1;
	}
	hvt_vm_kvm_offset(&t->vm, t->kvm_tsc.uniform, t->kvm_tsc.offset);
	return 0;
}

static void stop_listening(struct hvt_target *t)
{
	hvt_netaddr_unlisten(&t->listen_addr, t->listen_fd);
	t->listen_fd = -1;
}

void hvt_target_attach(struct hvt_target *t, int fd)
{
	stop_listening(t);
	hvt_vm_attach(&t->vm, fd);
}

bool hvt_target_ended(const struct hvt_target *t)
{
	return t->vm.state == HVT_VM_ENDED;
}

void hvt_target_pollfds(const struct hvt_target *t, struct pollfd p[2])
{
	p[0] = (struct pollfd){ .fd = t->have_qemu ? t->qemu.pidfd : -1, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = -1, .events = POLLIN };
	if (t->vm.state == HVT_VM_ENDED)
		return;
	if (t->vm.fd >= 0)
		p[1].fd = hvt_vm_wants_input(&t->vm) ? t->vm.fd : -1;
	else
		p[1].fd = t->listen_fd;
}

/*
 * QEMU is gone, and with it the guest: whatever the link still holds is
 * read (the socket ends with the process), then the VM ends.
 */
static void qemu_exited(struct hvt_target *t)
{
	hvt_qemu_close(&t->qemu);
	t->have_qemu = false;
	t->gone = true;
	hvt_kvm_tsc_close(&t->kvm_tsc);
	hvt_vm_drain(&t->vm);
	if (t->vm.no_link)
		hvt_vm_end(&t->vm, "host layer only (no guest link); the QEMU process exited");
	else
		hvt_vm_end(&t->vm, "the QEMU process exited");
}

void hvt_target_polled(struct hvt_target *t, const struct pollfd p[2])
{
	if (p[0].fd >= 0 && p[0].revents) {
		qemu_exited(t);
		return;
	}
	if (p[1].fd < 0 || !p[1].revents)
		return;
	if (t->vm.fd >= 0) {
		hvt_vm_readable(&t->vm);
	} else if (t->listen_fd >= 0) {
		int fd = hvt_netaddr_accept(t->listen_fd);

		if (fd >= 0)	/* one guest per target: the listener goes */
			hvt_target_attach(t, fd);
	}
}

/*
 * New QEMU threads (hot-plugged vCPUs, I/O threads) join the host filter.
 * qemu.tids stays the list of threads filtered to: threads that could not be
 * added are forgotten, to be found and tried again at the next scan.
 */
static void follow_threads(struct hvt_target *t, struct hvt_capture *ft)
{
	size_t before = t->qemu.nr_tids;
	int added = hvt_qemu_scan_threads(&t->qemu);

	if (added <= 0 || !ft)
		return;
	if (hvt_capture_add_pids(ft, t->qemu.tids + before, (size_t)added)) {
		hvt_warn("VM %s: cannot add new QEMU threads to the host filter", t->vm.name);
		t->qemu.nr_tids = before;
	} else {
		hvt_debug("VM %s: %d new QEMU threads join the host filter (%zu in all)",
			  t->vm.name, added, t->qemu.nr_tids);
	}
}

static void try_connect(struct hvt_target *t)
{
	int fd = hvt_netaddr_connect(&t->channel);

	if (fd < 0)
		return;	/* the VM's socket may not exist yet */
	fcntl(fd, F_SETFL, O_NONBLOCK);
	hvt_info("VM %s: connected to %s; waiting for the guest agent", t->vm.name,
		 t->channel.text);
	hvt_vm_attach(&t->vm, fd);
}

static void each_second(struct hvt_target *t, struct hvt_capture *ft)
{
	if (!t->have_qemu)
		return;
	follow_threads(t, ft);
	if (!t->kvm_tsc.tsv)
		return;
	if (hvt_kvm_tsc_snapshot(&t->kvm_tsc, false)) {
		t->failed = true;
		hvt_vm_end(&t->vm, "the KVM TSC snapshots cannot be written");
		return;
	}
	hvt_vm_kvm_offset(&t->vm, t->kvm_tsc.uniform, t->kvm_tsc.offset);
}

/*
 * A stop gives the guest stop_grace_s to send what it has. A guest that is
 * stalled (a TCG guest on a busy host, a paused VM) gets that grace from
 * the end of its stall instead; the stall rule (--guest-timeout) still ends
 * a guest that never answers. A second stop request ends it at once.
 */
static bool stop_overdue(struct hvt_target *t, const struct hvt_target_clock *c)
{
	if (!c->stop_deadline || c->now <= c->stop_deadline)
		return false;
	if (c->stop_now || !t->stalled_at || c->now > t->stalled_at + (time_t)c->stop_grace_s)
		return true;
	if (!t->stop_wait_said)
		hvt_warn("VM %s: its guest is stalled; the stop waits for it up to %u s after "
			 "the stall (--guest-timeout); stop again (Ctrl-C) to end it now",
			 t->vm.name, c->stop_grace_s);
	t->stop_wait_said = true;
	return false;
}

void hvt_target_tick(struct hvt_target *t, unsigned long tick, const struct hvt_target_clock *c,
		     struct hvt_capture *ft)
{
	struct hvt_vm *vm = &t->vm;

	if (tick % 10 == 0)
		each_second(t, ft);
	if (vm->state == HVT_VM_ENDED)
		return;
	if (vm->state == HVT_VM_WAITING && t->connects && tick % 2 == 0)
		try_connect(t);
	hvt_vm_tick(vm);
	if (!vm->no_link && (vm->state == HVT_VM_WAITING || vm->state == HVT_VM_HELLO) &&
	    c->now - t->started >= (time_t)c->guest_timeout_s)
		hvt_vm_end(vm, "no guest agent within %u s: is 'hvtrace agent' running in the "
			   "guest, with a virtio-serial port named %s on %s?", c->guest_timeout_s,
			   HVT_WIRE_PORT_NAME, t->connects ? t->channel.text :
			   t->listen_fd >= 0 ? t->listen_addr.text : "the collector's listener");
	if (vm->sync_stall_said)
		t->stalled_at = c->now;
	if (stop_overdue(t, c))
		hvt_vm_end(vm, "the guest did not finish within %u s of the stop request%s",
			   c->stop_grace_s, t->stalled_at ? " or of its last stall" : "");
}

void hvt_target_request_stop(struct hvt_target *t, const char *why)
{
	if (t->vm.no_link)
		hvt_vm_end(&t->vm, "host layer only (no guest link); stopped: %s", why);
	else
		hvt_vm_request_stop(&t->vm);
}

void hvt_target_finish(struct hvt_target *t)
{
	if (t->wrapped_up)
		return;
	t->wrapped_up = true;
	if (t->have_qemu && t->kvm_tsc.tsv && hvt_kvm_tsc_snapshot(&t->kvm_tsc, true))
		t->failed = true;
	hvt_kvm_tsc_close(&t->kvm_tsc);
	hvt_vm_end(&t->vm, "recording stopped");
	stop_listening(t);
}

void hvt_target_summary(const struct hvt_target *t, FILE *out)
{
	hvt_vm_summary(&t->vm, out);
	if (t->vm.limits.rate && t->vm.throttled_ticks)
		fprintf(out, "    quota  read at most %llu bytes/s: held back for %.1f s\n",
			(unsigned long long)t->vm.limits.rate, t->vm.throttled_ticks / 10.0);
	if (t->kvm_tsc.snapshots)
		fprintf(out, "    kvm    %lu TSC snapshots from debugfs, %lu vCPU readings\n",
			t->kvm_tsc.snapshots, t->kvm_tsc.rows);
}

/* {"source": "qmp"|"proc", "tids": [tid of vCPU 0, of vCPU 1, ...]} (0: unknown) */
static json_t *vcpu_threads_json(const struct hvt_qemu *q)
{
	json_t *tids = json_array();
	int i, last = -1;

	for (i = 0; i < HVT_QEMU_MAX_VCPUS; i++)
		if (q->vcpu_tids[i])
			last = i;
	for (i = 0; i <= last; i++)
		json_array_append_new(tids, json_integer(q->vcpu_tids[i]));
	return json_pack("{s:s, s:o}", "source", q->vcpu_source, "tids", tids);
}

json_t *hvt_target_manifest_entry(const struct hvt_target *t)
{
	json_t *o = hvt_vm_manifest_entry(&t->vm);

	if (t->vm.qemu_pid)
		json_object_set_new(o, "qemu_pid", json_integer(t->vm.qemu_pid));
	if (t->domain[0])
		json_object_set_new(o, "libvirt_domain", json_string(t->domain));
	if (t->vsock_cid)
		json_object_set_new(o, "vsock_cid", json_integer(t->vsock_cid));
	if (t->qemu.vcpu_source)
		json_object_set_new(o, "vcpu_threads", vcpu_threads_json(&t->qemu));
	return o;
}

void hvt_target_free(struct hvt_target *t)
{
	hvt_kvm_tsc_close(&t->kvm_tsc);
	stop_listening(t);
	if (t->have_qemu)
		hvt_qemu_close(&t->qemu);
	hvt_vm_free(&t->vm);
}
