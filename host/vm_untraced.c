// SPDX-License-Identifier: GPL-2.0-only
/*
 * vm_untraced.c - what went untraced in a guest (or among the host's
 * applications): the processes its agent refused (UNTRACED) and each
 * trace's threads it could not trace (THREADS_UNTRACED), as info.json
 * lists them (docs/format.md, section 1). The guest's word, checked for
 * range only: it can misreport nothing but its own losses.
 */
#include <stdlib.h>
#include <string.h>

#include "host/vm.h"
#include "lib/wire_io.h"

int hvt_vm_untraced(struct hvt_vm *vm, const struct hvt_w_untraced *u)
{
	if (hvt_wire_untraced_check(u, vm->why, sizeof(vm->why)))
		return -1;
	vm->nr_untraced++;
	vm->info_dirty = true;
	if (vm->nr_untraced_listed == HVT_VM_UNTRACED_LISTED)
		return 0;	/* counted only */
	if (!vm->untraced &&
	    !(vm->untraced = calloc(HVT_VM_UNTRACED_LISTED, sizeof(*vm->untraced)))) {
		snprintf(vm->why, sizeof(vm->why), "out of memory");
		return -1;
	}
	vm->untraced[vm->nr_untraced_listed++] = *u;
	return 0;
}

int hvt_vm_threads_untraced(struct hvt_vm *vm, uint32_t trace,
			    const struct hvt_w_threads_untraced *t)
{
	if (trace >= HVT_VM_MAX_TRACES || !vm->traces[trace].open ||
	    vm->traces[trace].layer != HVT_LAYER_USER) {
		snprintf(vm->why, sizeof(vm->why), "untraced threads of unknown trace %u", trace);
		return -1;
	}
	/* a count so far: it never goes down, nor past what a process can have */
	if (t->threads > HVT_VM_MAX_UNTRACED_THREADS ||
	    t->threads < vm->traces[trace].threads_untraced) {
		snprintf(vm->why, sizeof(vm->why), "untraced threads of trace %u: %llu, after %llu "
			 "(a count so far, of at most %llu)", trace,
			 (unsigned long long)t->threads,
			 (unsigned long long)vm->traces[trace].threads_untraced,
			 (unsigned long long)HVT_VM_MAX_UNTRACED_THREADS);
		return -1;
	}
	if (t->threads == vm->traces[trace].threads_untraced)
		return 0;
	vm->traces[trace].threads_untraced = t->threads;
	vm->info_dirty = true;
	return 0;
}

uint64_t hvt_vm_threads_untraced_total(const struct hvt_vm *vm)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < HVT_VM_MAX_TRACES; i++)	/* each at most 2^32: no overflow */
		if (vm->traces[i].open)
			n += vm->traces[i].threads_untraced;
	return n;
}

static json_t *untraced_entry(const struct hvt_w_untraced *u)
{
	char comm[sizeof(u->comm) + 1];

	hvt_vm_sanitize(comm, u->comm, sizeof(u->comm));
	return json_pack("{s:I, s:I, s:s, s:s}", "pid", (json_int_t)u->pid,
			 "uid", (json_int_t)u->uid, "comm", comm,
			 "reason", hvt_untraced_reason_name(u->reason));
}

int hvt_vm_untraced_json(const struct hvt_vm *vm, json_t *info)
{
	json_t *a = json_array();
	uint32_t i;

	if (!a)
		return -1;
	for (i = 0; i < vm->nr_untraced_listed; i++)
		if (json_array_append_new(a, untraced_entry(&vm->untraced[i]))) {
			json_decref(a);
			return -1;
		}
	if (json_object_set_new(info, "untraced_processes", a) ||
	    json_object_set_new(info, "untraced_processes_total",
				json_integer((json_int_t)vm->nr_untraced)))
		return -1;
	return 0;
}

void hvt_vm_untraced_free(struct hvt_vm *vm)
{
	free(vm->untraced);
	vm->untraced = NULL;
}
