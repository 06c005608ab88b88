// SPDX-License-Identifier: GPL-2.0-only
/*
 * top_interval.c - what `hvtrace top` counts between two screens
 * (top_interval.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/top/top_interval.h"

int hvt_top_vm_init(struct hvt_top_vm *vm, struct hvt_vm_analysis *a)
{
	memset(vm, 0, sizeof(*vm));
	vm->a = a;
	vm->nr_vcpus = a->runs.nr;
	vm->vcpus = calloc(vm->nr_vcpus + 1, sizeof(*vm->vcpus));
	if (!vm->vcpus)
		return -1;
	a->on_piece = hvt_top_vm_piece;
	a->piece_ctx = vm;
	return 0;
}

void hvt_top_vm_free(struct hvt_top_vm *vm)
{
	if (vm->a && vm->a->piece_ctx == vm)
		vm->a->on_piece = NULL;
	free(vm->vcpus);
	memset(vm, 0, sizeof(*vm));
}

void hvt_top_vm_reset(struct hvt_top_vm *vm)
{
	memset(vm->vcpus, 0, vm->nr_vcpus * sizeof(*vm->vcpus));
	vm->takers.n = vm->exits.n = vm->threads.n = 0;
	vm->takers.dropped = vm->exits.dropped = vm->threads.dropped = 0;
	vm->guest_events = 0;
}

void hvt_top_table_add(struct hvt_top_table *t, int32_t a, int32_t b, const char *name,
		       uint64_t ticks)
{
	struct hvt_top_entry *e;
	size_t i;

	for (i = t->n; i-- > 0;)	/* the latest first: pieces come in runs */
		if (t->v[i].a == a && t->v[i].b == b)
			break;
	if (i == (size_t)-1) {
		if (t->n == HVT_TOP_MAX_ENTRIES) {
			t->dropped++;
			return;
		}
		i = t->n++;
		t->v[i] = (struct hvt_top_entry){ .a = a, .b = b };
		if (name)
			snprintf(t->v[i].b_name, sizeof(t->v[i].b_name), "%s", name);
	}
	e = &t->v[i];
	e->ticks += ticks;
	e->count++;
}

static int by_ticks(const void *x, const void *y)
{
	const struct hvt_top_entry *a = x, *b = y;

	if (a->ticks != b->ticks)
		return a->ticks > b->ticks ? -1 : 1;
	return a->a != b->a ? (a->a < b->a ? -1 : 1) : (a->b > b->b) - (a->b < b->b);
}

void hvt_top_table_sort(struct hvt_top_table *t)
{
	qsort(t->v, t->n, sizeof(t->v[0]), by_ticks);
}

/* What a guest thread current on a vCPU in @p's state lost its time to. */
static int32_t lost_to(const struct hvt_vcpu_piece *p)
{
	switch (p->state) {
	case HVT_VCPU_GUEST:
		return HVT_TOP_RAN;
	case HVT_VCPU_HYPERVISOR:
		return HVT_TOP_HYPERVISOR;
	case HVT_VCPU_PREEMPTED:
	case HVT_VCPU_BLOCKED:
		return p->cause ? p->cause->tid : HVT_TOP_HOST_UNKNOWN;
	default:
		return HVT_TOP_HOST_UNKNOWN;
	}
}

void hvt_top_vm_piece(void *ctx, const struct hvt_vcpu_piece *p)
{
	struct hvt_top_vm *vm = ctx;
	uint64_t len = p->end - p->start;
	const char *cause = p->cause ? p->cause->comm : NULL;

	if (p->too_short)
		return;		/* not placed in any state: analyze counts it apart */
	if (p->vcpu < 0) {	/* a guest thread runnable, waiting in the guest */
		hvt_top_table_add(&vm->threads, p->tid, HVT_TOP_RUNNABLE, NULL, len);
		return;
	}
	if ((size_t)p->vcpu >= vm->nr_vcpus || p->state >= HVT_NR_VCPU_STATES)
		return;
	vm->vcpus[p->vcpu].ticks[p->state] += len;
	vm->vcpus[p->vcpu].exits += p->state == HVT_VCPU_HYPERVISOR;
	/* the idle task, next after a vCPU thread blocked, took nothing from it */
	if ((p->state == HVT_VCPU_PREEMPTED || p->state == HVT_VCPU_BLOCKED) && p->cause &&
	    p->cause->tid > 0)
		hvt_top_table_add(&vm->takers, p->vcpu, p->cause->tid, cause, len);
	if (p->state == HVT_VCPU_HYPERVISOR && p->cause)
		hvt_top_table_add(&vm->exits, p->cause->tid, 0, NULL, len);
	if (p->tid > 0 && p->state != HVT_VCPU_IDLE && p->state != HVT_VCPU_UNKNOWN)
		hvt_top_table_add(&vm->threads, p->tid, lost_to(p),
				  p->state == HVT_VCPU_PREEMPTED || p->state == HVT_VCPU_BLOCKED ?
				  cause : NULL, len);
}
