// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_io_flows.c - guest block requests followed through QEMU and back
 * (tools/model/io_flows.h), from hand-made event sequences: a request
 * linked at every point with each stage's figure and bound, the sum of
 * the stages, two candidates (ambiguous), a wakeup from another context
 * (not the request's), QEMU before the guest beyond the bounds (io-causal
 * late), a request QEMU never took up, completions and QEMU requests of
 * nothing, a disk bound to its QEMU device, the in-flight limit,
 * --from/--to, a slow backend, a stale QEMU request not claimed, and
 * KVM's interrupt (MSI or GSI, injected into the right vCPU); the slowest
 * requests kept, as many as asked; percentiles exact up to HVT_IO_EXACT
 * requests, then from histograms; a step's bound.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "tools/model/io_flows.h"
#include "tools/session/session.h"

#define GUEST_BOUND	100	/* ns, each guest event's */
#define QEMU_BOUND	500

struct io_test {
	struct hvt_session ses;
	struct hvt_vm_ref vm;
	int32_t vcpu_tids[2];
	struct hvt_source guest, qemu, host;
	struct hvt_io_flows f;
	struct hvt_io_request done[8];
	size_t nr_done;
};

static int64_t fake_bound(struct hvt_session *ses, const struct hvt_source *s)
{
	(void)ses;
	return s->layer == HVT_LAYER_VMM ? QEMU_BOUND : s->layer == HVT_LAYER_HOST ? 0 :
		GUEST_BOUND;
}

static void on_done(void *ctx, const struct hvt_io_flows *f, size_t vm,
		    const struct hvt_io_disk *d, const struct hvt_io_request *r)
{
	struct io_test *t = ctx;

	(void)f, (void)vm, (void)d;
	if (t->nr_done < 8)
		t->done[t->nr_done++] = *r;
}

/* One VM, a 1 GHz host TSC: a tick is a ns. */
static int setup(void **state)
{
	static struct io_test t;

	memset(&t, 0, sizeof(t));
	t.ses.archive.nr_vms = 1;
	t.ses.archive.vms = &t.vm;
	t.vcpu_tids[0] = 5000;		/* vCPU 0's host thread, vCPU 1's */
	t.vcpu_tids[1] = 5001;
	t.vm.vcpu_tids = t.vcpu_tids;
	t.vm.nr_vcpu_tids = 2;
	t.host.layer = HVT_LAYER_HOST;
	t.host.host_cpu = 3;
	t.ses.archive.tsc_freq_hz = 1000000000;
	t.guest.layer = HVT_LAYER_KERNEL;
	t.guest.vm_number = 1;
	t.qemu.layer = HVT_LAYER_VMM;
	t.qemu.vmm_vm = 1;
	assert_int_equal(hvt_io_flows_init(&t.f, &t.ses), 0);
	t.f.bound_of = fake_bound;
	t.f.done = on_done;
	t.f.done_ctx = &t;
	*state = &t;
	return 0;
}

static int teardown(void **state)
{
	struct io_test *t = *state;

	hvt_io_flows_free(&t->f);
	return 0;
}

static void feed(struct io_test *t, bool qemu, uint64_t ts, uint32_t cpu, int32_t tid,
		 struct hvt_typed_event ev)
{
	struct hvt_fed_event e = { .src = qemu ? &t->qemu : &t->guest, .ts = ts,
				   .cpu = qemu ? HVT_NO_CPU : cpu, .tid = tid, .ev = ev };

	hvt_io_flows_event(&t->f, &e);
}

static void issue(struct io_test *t, uint64_t ts, int32_t tid, uint32_t dev, uint64_t sector,
		  const char *rwbs)
{
	struct hvt_typed_event ev = { .kind = HVT_EV_BLOCK_RQ_ISSUE,
				      .block = { .dev = dev, .sector = sector, .nr_sector = 8 } };

	snprintf(ev.block.rwbs, sizeof(ev.block.rwbs), "%s", rwbs);
	feed(t, false, ts, 0, tid, ev);
}

static void complete(struct io_test *t, uint64_t ts, uint32_t cpu, int32_t tid, uint32_t dev,
		     uint64_t sector, const char *rwbs)
{
	struct hvt_typed_event ev = { .kind = HVT_EV_BLOCK_RQ_COMPLETE,
				      .block = { .dev = dev, .sector = sector, .nr_sector = 8 } };

	snprintf(ev.block.rwbs, sizeof(ev.block.rwbs), "%s", rwbs);
	feed(t, false, ts, cpu, tid, ev);
}

static void qemu(struct io_test *t, uint64_t ts, enum hvt_ev_kind kind, uint64_t vdev,
		 uint64_t req, uint64_t sector, bool write)
{
	struct hvt_typed_event ev = { .kind = kind, .qio = { .dev = vdev, .req = req,
				      .sector = sector, .nr_sector = 8, .write = write } };

	feed(t, true, ts, 0, 900, ev);
}

static void sched_switch(struct io_test *t, uint64_t ts, uint32_t cpu, int32_t prev,
			 bool runnable, int32_t next)
{
	struct hvt_typed_event ev = { .kind = HVT_EV_SCHED_SWITCH,
				      .sw = { .prev = prev, .next = next, .runnable = runnable } };

	snprintf(ev.sw.prev_comm, sizeof(ev.sw.prev_comm), "t%d", prev);
	snprintf(ev.sw.next_comm, sizeof(ev.sw.next_comm), "t%d", next);
	feed(t, false, ts, cpu, prev, ev);
}

static void wakeup(struct io_test *t, uint64_t ts, uint32_t cpu, int32_t waker, int32_t tid)
{
	struct hvt_typed_event ev = { .kind = HVT_EV_SCHED_WAKEUP, .wakeup = { .tid = tid } };

	feed(t, false, ts, cpu, waker, ev);
}

/* QEMU takes up request @req (sector @sector) at @ts and hands it back 1100 ns later. */
static void qemu_serves(struct io_test *t, uint64_t ts, uint64_t req, uint64_t sector,
			bool write)
{
	qemu(t, ts, HVT_EV_VIRTIO_BLK_HANDLE, 0xd0, req, sector, write);
	qemu(t, ts + 100, HVT_EV_POOL_SUBMIT, 0xf0, 0x77, 0, false);
	qemu(t, ts + 1000, HVT_EV_POOL_COMPLETE, 0xf0, 0x77, 0, false);
	qemu(t, ts + 1100, HVT_EV_VIRTIO_BLK_REQ_COMPLETE, 0xd0, req, 0, false);
	qemu(t, ts + 1200, HVT_EV_VIRTIO_NOTIFY, 0xd0, 0x1, 0, false);
}

/* A host KVM event of @kind (fields @a, @b) by host thread @tid. */
static void kvm(struct io_test *t, uint64_t ts, int32_t tid, enum hvt_ev_kind kind, uint64_t a,
		uint64_t b)
{
	struct hvt_fed_event e = { .src = &t->host, .ts = ts, .cpu = 3, .tid = tid,
				   .ev = { .kind = kind, .irq = { .a = a, .b = b } } };

	hvt_io_flows_event(&t->f, &e);
}

static double stage(struct io_test *t, const struct hvt_io_request *r, enum hvt_io_stage s,
		    double *bound)
{
	double ns;

	assert_true(hvt_io_stage_of(&t->f, r, s, &ns, bound));
	return ns;
}

static void test_linked(void **state)
{
	struct io_test *t = *state;
	const struct hvt_io_disk *d;
	const struct hvt_io_request *r;
	double b, sum = 0, bounds = 0;

	issue(t, 1000, 50, 0xfe00000, 16, "R");
	sched_switch(t, 1100, 0, 50, false, 0);		/* the issuer sleeps on it */
	qemu_serves(t, 2000, 0xa0, 16, false);
	complete(t, 4000, 1, 0, 0xfe00000, 16, "R");
	wakeup(t, 4100, 1, 0, 50);			/* from the completion's context */
	sched_switch(t, 4500, 1, 0, true, 50);
	assert_int_equal(t->nr_done, 1);		/* settled as soon as it ran */
	r = &t->done[0];
	d = &t->f.vms[0].disks[0];
	assert_int_equal(d->outcomes[HVT_IO_LINKED], 1);
	assert_int_equal(d->vdev, 0xd0);
	assert_int_equal(r->at[HVT_IO_RUN].tid, 50);
	assert_true(stage(t, r, HVT_IO_TO_HOST, &b) == 1000 && b == GUEST_BOUND + QEMU_BOUND);
	assert_true(stage(t, r, HVT_IO_HOST_SERVICE, &b) == 1100 && b == 1000);
	assert_true(stage(t, r, HVT_IO_BACKEND, &b) == 900);
	assert_true(stage(t, r, HVT_IO_QEMU_OWN, &b) == 200 && b == 2000);
	assert_true(stage(t, r, HVT_IO_TO_NOTIFY, &b) == 100);
	assert_true(stage(t, r, HVT_IO_TO_GUEST, &b) == 800);
	assert_true(stage(t, r, HVT_IO_TO_WAKEUP, &b) == 100 && b == 0);
	assert_true(stage(t, r, HVT_IO_TO_RUN, &b) == 400);
	assert_true(stage(t, r, HVT_IO_THREAD_WAIT, &b) == 3500);
	/* the stages in a row add up to the request's latency */
	sum += stage(t, r, HVT_IO_TO_HOST, &b), bounds += b;
	sum += stage(t, r, HVT_IO_HOST_SERVICE, &b), bounds += b;
	sum += stage(t, r, HVT_IO_TO_NOTIFY, &b), bounds += b;
	sum += stage(t, r, HVT_IO_TO_GUEST, &b), bounds += b;
	assert_true(sum == stage(t, r, HVT_IO_LATENCY, &b));
	assert_true(bounds > 0);
	assert_int_equal(t->f.vms[0].causal.pairs, 2);
	assert_int_equal(t->f.vms[0].causal.late, 0);
	/* notify -> completion: 800 ns apart, 600 ns of bounds (issue -> pickup: 1600) */
	assert_int_equal(t->f.vms[0].causal.tightest_ns, 1400);
}

static void test_ambiguous_and_orphans(void **state)
{
	struct io_test *t = *state;
	const struct hvt_io_vm *vm = &t->f.vms[0];

	issue(t, 1000, 50, 0xfe00000, 8, "W");
	issue(t, 1200, 51, 0xfe00000, 8, "WS");		/* the same sector and size */
	qemu_serves(t, 2000, 0xa0, 8, true);		/* takes the older, ambiguous */
	qemu_serves(t, 4000, 0xa1, 8, true);
	complete(t, 3500, 0, 0, 0xfe00000, 8, "W");
	complete(t, 5500, 0, 0, 0xfe00000, 8, "W");
	complete(t, 5600, 0, 0, 0xfe00000, 99, "R");	/* of nothing issued */
	issue(t, 6000, 50, 0xfe00000, 0, "FF");		/* a flush: not followed */
	qemu_serves(t, 7000, 0xa2, 4096, false);	/* no guest issue fits */
	issue(t, 8000, 52, 0xfe00000, 200, "R");	/* never completed */
	hvt_io_flows_finish(&t->f);
	assert_int_equal(vm->disks[0].outcomes[HVT_IO_AMBIGUOUS], 1);
	assert_int_equal(vm->disks[0].outcomes[HVT_IO_LINKED], 1);
	assert_int_equal(vm->disks[0].outcomes[HVT_IO_UNCOMPLETED], 1);
	assert_int_equal(vm->orphan_completes, 1);
	assert_int_equal(vm->not_rw, 1);
	assert_int_equal(vm->orphan_qemu, 1);
	/* io-causal judges unambiguous pairs only */
	assert_int_equal(vm->causal.pairs, 2);
}

static void test_not_its_wakeup(void **state)
{
	struct io_test *t = *state;
	const struct hvt_io_request *r = &t->done[0];

	issue(t, 1000, 60, 0xfe00000, 16, "R");
	sched_switch(t, 1100, 0, 60, false, 0);
	qemu_serves(t, 2000, 0xa0, 16, false);
	complete(t, 4000, 1, 0, 0xfe00000, 16, "R");
	wakeup(t, 4100, 0, 77, 60);			/* another CPU, another task */
	sched_switch(t, 4500, 0, 77, false, 60);	/* it runs: no wakeup of ours */
	assert_int_equal(t->nr_done, 1);
	assert_true(r->blocked && r->no_wakeup);
	assert_false(r->at[HVT_IO_WAKEUP].set);
	assert_false(r->at[HVT_IO_RUN].set);
}

static void test_causal_late(void **state)
{
	struct io_test *t = *state;
	const struct hvt_io_causal *c = &t->f.vms[0].causal;

	qemu_serves(t, 1000, 0xa0, 16, false);		/* QEMU, 2000 ns before the guest */
	issue(t, 3000, 50, 0xfe00000, 16, "R");
	complete(t, 5000, 0, 0, 0xfe00000, 16, "R");
	hvt_io_flows_finish(&t->f);
	assert_int_equal(t->f.vms[0].disks[0].outcomes[HVT_IO_LINKED], 1);
	assert_int_equal(c->pairs, 2);
	assert_int_equal(c->late, 1);
	assert_int_equal(c->late_cause, HVT_IO_ISSUE);
	assert_int_equal(c->late_effect, HVT_IO_PICKUP);
	assert_int_equal(c->tightest_ns, -2000 + GUEST_BOUND + QEMU_BOUND);
	assert_int_equal(t->f.vms[0].disks[0].negative[HVT_IO_TO_HOST], 1);
}

static void test_no_qemu_and_disks(void **state)
{
	struct io_test *t = *state;
	const struct hvt_io_vm *vm = &t->f.vms[0];

	issue(t, 1000, 50, 0xfe00000, 16, "R");
	qemu_serves(t, 2000, 0xa0, 16, false);		/* binds disk 254:0 to device 0xd0 */
	complete(t, 4000, 0, 0, 0xfe00000, 16, "R");
	issue(t, 5000, 50, 0xfe00010, 16, "R");		/* another disk, the same sector */
	qemu_serves(t, 6000, 0xa1, 16, false);		/* device 0xd0 is the first disk's */
	complete(t, 8000, 0, 0, 0xfe00010, 16, "R");
	hvt_io_flows_finish(&t->f);
	assert_int_equal(vm->nr_disks, 2);
	assert_int_equal(vm->disks[0].outcomes[HVT_IO_LINKED], 1);
	assert_int_equal(vm->disks[1].outcomes[HVT_IO_NO_QEMU], 1);
	assert_int_equal(vm->orphan_qemu, 1);
}

static void test_flood_and_span(void **state)
{
	struct io_test *t = *state;
	const struct hvt_io_vm *vm = &t->f.vms[0];
	uint64_t i, total = 0;
	unsigned int o;

	t->f.from = 1000;
	t->f.to = 2000000;
	for (i = 0; i < HVT_IO_MAX_INFLIGHT + 10; i++)	/* a guest that never completes */
		issue(t, 1000 + i, 50, 0xfe00000, i * 8, "R");
	assert_int_equal(vm->given_up, HVT_IO_MAX_INFLIGHT / 8);	/* the oldest eighth, once */
	assert_true(vm->nr_flight <= HVT_IO_MAX_INFLIGHT);
	issue(t, 500, 50, 0xfe00000, 1u << 30, "R");	/* before --from: not counted */
	hvt_io_flows_finish(&t->f);
	for (o = 0; o < HVT_IO_NR_OUTCOMES; o++)
		total += vm->disks[0].outcomes[o];
	assert_int_equal(total, HVT_IO_MAX_INFLIGHT + 10);
	assert_int_equal(vm->disks[0].outcomes[HVT_IO_GIVEN_UP], HVT_IO_MAX_INFLIGHT / 8);
	assert_int_equal(vm->nr_flight, 0);
}

/*
 * A slow backend (20 ms from pickup to done) is still in flight, not given
 * up; a QEMU request more than HVT_IO_CLAIM_NS before a guest issue of the
 * same sector is another (before the guest's trace): not linked to it.
 */
static void test_slow_and_stale(void **state)
{
	struct io_test *t = *state;
	const struct hvt_io_vm *vm = &t->f.vms[0];
	double ns, b;

	qemu(t, 1000, HVT_EV_VIRTIO_BLK_HANDLE, 0xd0, 0xa9, 16, false);	/* stale */
	issue(t, 1000 + HVT_IO_CLAIM_NS + 1, 50, 0xfe00000, 16, "R");
	qemu(t, 3000000, HVT_EV_VIRTIO_BLK_HANDLE, 0xd0, 0xa0, 16, false);
	qemu(t, 23000000, HVT_EV_VIRTIO_BLK_REQ_COMPLETE, 0xd0, 0xa0, 0, false);
	qemu(t, 23000100, HVT_EV_VIRTIO_NOTIFY, 0xd0, 0x1, 0, false);
	complete(t, 23100000, 0, 0, 0xfe00000, 16, "R");
	assert_int_equal(t->nr_done, 1);
	assert_int_equal(vm->disks[0].outcomes[HVT_IO_LINKED], 1);
	assert_int_equal(vm->orphan_qemu, 1);
	assert_int_equal(vm->unknown_qemu, 0);
	assert_true(hvt_io_stage_of(&t->f, &t->done[0], HVT_IO_HOST_SERVICE, &ns, &b));
	assert_true(ns == 20000000);
}

/*
 * Under KVM: QEMU's irqfd write raises an MSI (vector 0x22 to APIC 1) in
 * its own thread, KVM injects vector 0x22 into vCPU 1 at its entry, then
 * the guest completes. An injection of another vector, or into another
 * vCPU, is not this request's; a GSI takes its vector from the APIC's
 * acceptance. The interrupt's stage splits in three, and io-causal judges
 * QEMU -> KVM and KVM -> the guest too.
 */
static void test_kvm_interrupt(void **state)
{
	struct io_test *t = *state;
	const struct hvt_io_request *r = &t->done[0];
	double b;

	issue(t, 1000, 50, 0xfe00000, 16, "R");
	qemu_serves(t, 2000, 0xa0, 16, false);			/* notify at 3200 by 900 */
	kvm(t, 3300, 900, HVT_EV_KVM_MSI, 0xfee01000, 0x22);	/* APIC 1, vector 0x22 */
	kvm(t, 3350, 5000, HVT_EV_KVM_INJ_VIRQ, 0x22, 0);	/* vCPU 0: not its */
	kvm(t, 3400, 5001, HVT_EV_KVM_INJ_VIRQ, 0x23, 0);	/* another vector */
	kvm(t, 3500, 5001, HVT_EV_KVM_INJ_VIRQ, 0x22, 0);
	complete(t, 4000, 1, 0, 0xfe00000, 16, "R");
	assert_int_equal(t->nr_done, 1);
	assert_true(r->at[HVT_IO_IRQ].set && r->at[HVT_IO_INJECT].set);
	assert_int_equal(r->at[HVT_IO_INJECT].ts, 3500);
	assert_true(stage(t, r, HVT_IO_TO_KVM, &b) == 100 && b == QEMU_BOUND);
	assert_true(stage(t, r, HVT_IO_TO_VCPU, &b) == 200 && b == 0);
	assert_true(stage(t, r, HVT_IO_IN_GUEST, &b) == 500 && b == GUEST_BOUND);
	assert_true(stage(t, r, HVT_IO_TO_GUEST, &b) == 800);
	assert_int_equal(t->f.vms[0].causal.pairs, 4);
	assert_int_equal(t->f.vms[0].kvm_events, 2);

	/* a GSI: its vector from the APIC's acceptance by the same thread */
	issue(t, 10000, 50, 0xfe00000, 24, "R");
	qemu_serves(t, 11000, 0xa1, 24, false);			/* notify at 12200 */
	kvm(t, 12300, 900, HVT_EV_KVM_SET_IRQ, 11, 1);
	kvm(t, 12310, 900, HVT_EV_KVM_APIC_ACCEPT, 0, 0x31);	/* APIC 0, vector 0x31 */
	kvm(t, 12400, 5000, HVT_EV_KVM_INJ_VIRQ, 0x31, 0);
	complete(t, 13000, 0, 0, 0xfe00000, 24, "R");
	assert_int_equal(t->nr_done, 2);
	assert_true(stage(t, &t->done[1], HVT_IO_TO_VCPU, &b) == 100);
	assert_int_equal(t->f.vms[0].causal.late, 0);
}

/*
 * A guest naming a new disk with every request: at most HVT_IO_MAX_DISKS
 * kept, the rest counted. QEMU's thread that takes up two requests, then
 * submits two: the first submit is the first request's.
 */
static void test_disks_and_batches(void **state)
{
	struct io_test *t = *state;
	const struct hvt_io_vm *vm = &t->f.vms[0];
	uint32_t dev;

	for (dev = 1; dev <= HVT_IO_MAX_DISKS + 44; dev++) {
		issue(t, dev * 10, 50, dev, 8, "R");
		complete(t, dev * 10 + 5, 0, 0, dev, 8, "R");
	}
	hvt_io_flows_finish(&t->f);
	assert_int_equal(vm->nr_disks, HVT_IO_MAX_DISKS);
	assert_int_equal(vm->disks_over, 44);

	issue(t, 100000, 50, 0xfe00000, 8, "R");
	issue(t, 100010, 51, 0xfe00000, 16, "R");
	qemu(t, 101000, HVT_EV_VIRTIO_BLK_HANDLE, 0xd0, 0xa0, 8, false);
	qemu(t, 101010, HVT_EV_VIRTIO_BLK_HANDLE, 0xd0, 0xa1, 16, false);
	qemu(t, 101100, HVT_EV_POOL_SUBMIT, 0xf0, 0x71, 0, false);
	qemu(t, 101110, HVT_EV_POOL_SUBMIT, 0xf0, 0x72, 0, false);
	assert_int_equal(vm->nr_flight, 2);
	assert_int_equal(vm->flight[0].pool_req, 0x71);
	assert_int_equal(vm->flight[1].pool_req, 0x72);
}

/*
 * Two disks reading the same sector and size at once: the ambiguous pair
 * binds neither disk to a QEMU device, so the next unambiguous pairs still
 * link each disk to its own. A wakeup of the issuer from the completion's
 * context but more than HVT_IO_CLAIM_NS after it is not the request's.
 */
static void test_ambiguous_binds_nothing(void **state)
{
	struct io_test *t = *state;
	const struct hvt_io_vm *vm = &t->f.vms[0];
	uint64_t late = 20000 + HVT_IO_CLAIM_NS + 1;

	issue(t, 1000, 50, 0xfe00000, 0, "R");			/* disk A */
	issue(t, 1010, 51, 0xfe00010, 0, "R");			/* disk B, the same */
	qemu(t, 2000, HVT_EV_VIRTIO_BLK_HANDLE, 0xdb, 0xb0, 0, false);	/* B's device */
	assert_true(vm->flight[0].ambiguous);
	assert_int_equal(vm->nr_disks, 0);			/* nothing bound */
	issue(t, 10000, 50, 0xfe00010, 64, "R");		/* B alone: binds B to 0xdb */
	qemu(t, 11000, HVT_EV_VIRTIO_BLK_HANDLE, 0xdb, 0xb1, 64, false);
	issue(t, 12000, 50, 0xfe00000, 64, "R");		/* A: 0xdb is B's, so not A's */
	qemu(t, 13000, HVT_EV_VIRTIO_BLK_HANDLE, 0xda, 0xa1, 64, false);
	assert_int_equal(vm->flight[2].vdev, 0xdb);
	assert_int_equal(vm->flight[3].vdev, 0xda);

	issue(t, 15000, 60, 0xfe00000, 128, "R");
	sched_switch(t, 15100, 0, 60, false, 0);
	complete(t, 20000, 1, 0, 0xfe00000, 128, "R");
	wakeup(t, late, 1, 0, 60);				/* too late to be its */
	assert_false(vm->flight[vm->nr_flight - 1].at[HVT_IO_WAKEUP].set);
}

static void test_percentile(void **state)
{
	double d[] = { 10, 20, 30, 40 }, b[] = { 1, 100, 2, 3 }, v, pm;
	struct hvt_io_figures fig;
	unsigned int i;

	(void)state;
	memset(&fig, 0, sizeof(fig));
	for (i = 0; i < 4; i++)
		assert_int_equal(hvt_io_figures_add(&fig, d[i], b[i]), 0);
	hvt_io_percentile(&fig, 50, &v, &pm);
	/* rank 2 of 4: 20; lows sorted -80 9 28 37, highs 11 32 43 120 */
	assert_true(v == 20 && pm == 12);
	hvt_io_percentile(&fig, 100, &v, &pm);
	assert_true(v == 40 && pm == 80);
	hvt_io_figures_free(&fig);
}

/*
 * Up to HVT_IO_EXACT durations, a percentile is exact and its +/- only
 * the events' bounds: 103 requests of 20 ms and some us, each within 1 us,
 * have a median within 1 us (histograms would add their bucket, 1/64 of
 * 20 ms). Past HVT_IO_EXACT the histograms take over (coarse), wider.
 */
static void test_percentile_exact(void **state)
{
	struct hvt_io_figures fig;
	double v, pm;
	unsigned int i;

	(void)state;
	memset(&fig, 0, sizeof(fig));
	for (i = 0; i < 103; i++)	/* added in no order */
		assert_int_equal(hvt_io_figures_add(&fig, 20000007 + (i * 37 % 103) * 1000, 1000),
				 0);
	hvt_io_percentile(&fig, 50, &v, &pm);
	assert_false(fig.coarse);
	assert_true(v == 20051007 && pm == 1000);	/* rank 52 of 103 */
	hvt_io_percentile(&fig, 99, &v, &pm);
	assert_true(v == 20101007 && pm == 1000);
	for (i = 103; i <= HVT_IO_EXACT; i++)
		assert_int_equal(hvt_io_figures_add(&fig, 20000007 + i * 1000, 1000), 0);
	assert_true(fig.coarse && !fig.exact);
	assert_int_equal(fig.n, HVT_IO_EXACT + 1);
	hvt_io_percentile(&fig, 50, &v, &pm);
	assert_true(pm > 1000);				/* the bucket's width too */
	assert_true(fabs(v - (20000007 + 2048 * 1000)) <= pm);
	hvt_io_percentile(&fig, 100, &v, &pm);
	assert_true(v == 20000007 + HVT_IO_EXACT * 1000 && pm == 1000);	/* the max: exact */
	hvt_io_figures_free(&fig);
}

/* A step's bound: one clock's resolution within it (QEMU's 1 us), both events' across. */
static void test_step_bound(void **state)
{
	const struct hvt_io_mark guest = { .bound_ns = 100 }, guest2 = { .bound_ns = 300 };
	const struct hvt_io_mark qemu1 = { .bound_ns = 600, .qemu = true }, qemu2 = qemu1;
	const struct hvt_io_mark host = { .host = true };

	(void)state;
	assert_true(hvt_io_step_bound(&guest, &qemu1) == 700);
	assert_true(hvt_io_step_bound(&qemu1, &qemu2) == 1000);
	assert_true(hvt_io_step_bound(&guest, &guest2) == 0);
	assert_true(hvt_io_step_bound(&qemu1, &host) == 600);
}

/*
 * keep_slowest (analyze --io --top) requests kept whole per disk, not a
 * fixed five: of 24 with latencies in no order, the 10 slowest, listed
 * slowest first.
 */
static void test_slowest_kept(void **state)
{
	struct io_test *t = *state;
	const struct hvt_io_request *list[10];
	const struct hvt_io_disk *d;
	double lat, b;
	unsigned int i;

	t->f.keep_slowest = 10;
	for (i = 0; i < 24; i++) {
		uint64_t at = 100000 * (uint64_t)(i + 1);

		issue(t, at, 50, 0xfe00000, 8 * i, "R");
		qemu_serves(t, at + 1000, 0xa0 + i, 8 * i, false);
		complete(t, at + 3000 + (i * 7 % 24) * 100, 0, 0, 0xfe00000, 8 * i, "R");
	}
	hvt_io_flows_finish(&t->f);
	d = &t->f.vms[0].disks[0];
	assert_int_equal(d->outcomes[HVT_IO_LINKED], 24);
	assert_int_equal(d->nr_slowest, 10);
	hvt_io_slowest_sorted(d, list);
	for (i = 0; i < 10; i++) {
		assert_true(hvt_io_stage_of(&t->f, list[i], HVT_IO_LATENCY, &lat, &b));
		assert_true(lat == 3000 + (23 - i) * 100);
	}
}

/*
 * Large values land in buckets at most 1/64 of them wide: a rank's value
 * is between its bucket's edges, which hold the true one; the extremes are
 * exact; negative values sort before positive ones.
 */
static void test_span_hist(void **state)
{
	struct hvt_span_hist h = { 0 };
	int64_t lo, hi, x;
	uint64_t k;

	(void)state;
	for (x = 1; x <= 1000000; x++)
		assert_int_equal(hvt_span_hist_add(&h, x * 1000 - 5000), 0);
	for (k = 0; k < h.n; k += 9973) {
		int64_t truth = (int64_t)(k + 1) * 1000 - 5000;

		hvt_span_hist_rank(&h, k, &lo, &hi);
		assert_true(lo <= truth && truth <= hi);
		assert_true((double)(hi - lo) <= (truth < 0 ? -truth : truth) / 64.0 + 1);
	}
	hvt_span_hist_rank(&h, 0, &lo, &hi);
	assert_true(lo == -4000 && hi == -4000);
	hvt_span_hist_rank(&h, h.n - 1, &lo, &hi);
	assert_true(lo == 999995000 && hi == 999995000);
	assert_int_equal(hvt_span_hist_add(&h, INT64_MIN), 0);	/* no overflow */
	hvt_span_hist_rank(&h, 0, &lo, &hi);
	assert_true(lo == INT64_MIN);
	hvt_span_hist_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_linked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ambiguous_and_orphans, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_its_wakeup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_causal_late, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_qemu_and_disks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flood_and_span, setup, teardown),
		cmocka_unit_test_setup_teardown(test_slow_and_stale, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kvm_interrupt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_disks_and_batches, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ambiguous_binds_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_slowest_kept, setup, teardown),
		cmocka_unit_test(test_percentile),
		cmocka_unit_test(test_percentile_exact),
		cmocka_unit_test(test_step_bound),
		cmocka_unit_test(test_span_hist),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
