/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sync_points.h - the guest module's sync points, joined with the host's
 * record of them (docs/format.md, "Sync points").
 *
 * Under KVM each guest vCPU periodically makes hypercall
 * HVTRACE_SYNC_HYPERCALL with a0 = seq and a1 = its TSC just before; the host
 * layer holds it as kvm:kvm_hypercall on the host TSC, and the guest kernel
 * layer as hvtrace_sync_end(seq, tsc_before, tsc_after). Joined on (seq,
 * tsc_before), each gives one host instant that the guest TSC saw between
 * tsc_before and tsc_after: two one-way samples for the estimator.
 */
#ifndef HVT_TOOLS_ALIGN_SYNC_POINTS_H
#define HVT_TOOLS_ALIGN_SYNC_POINTS_H

#include <stddef.h>
#include <stdint.h>

#include "tools/archive/archive.h"
#include "tools/read/ctf_reader.h"
#include "tools/read/ftrace_reader.h"

/* A sync hypercall as the host recorded it. */
struct hvt_host_call {
	uint64_t seq, tsc_before;	/* a0, a1 */
	uint64_t host;			/* host TSC */
};

struct hvt_host_calls {
	struct hvt_host_call *v;	/* sorted by (seq, tsc_before) */
	size_t n, cap;
};

/* A sync point: the guest TSC read @before and @after the host's instant @host. */
struct hvt_sync_point {
	uint64_t host, before, after, seq;
};

/*
 * Every sync hypercall in the host layer (@a's CPU files through @ft), into
 * @calls, zeroed by the caller. The
 * readers' warnings are muted here: the merge's own pass reports them.
 * -1 if out of memory.
 */
int hvt_host_calls_read(const struct hvt_archive *a, struct hvt_ftrace *ft,
			struct hvt_host_calls *calls);
void hvt_host_calls_free(struct hvt_host_calls *calls);

/*
 * The guest side of @vm's sync points: the hvtrace_sync_end events of its
 * kernel traces (decoded with @types, one per trace; a trace whose registry
 * lacks the event is not read), host instants not known yet, malloc'd in
 * *@out (NULL if none). Events whose TSC went back between the two reads
 * are left out. Readers' warnings are muted as above. -1 if out of memory.
 */
int hvt_vm_sync_ends(const struct hvt_vm_info *vm, const struct hvt_ctf_types *types,
		     struct hvt_sync_point **out, size_t *n);
/*
 * Gives each of the @n points the host instant @calls has for it, drops
 * those the host did not record (events not enabled on the host, or lost),
 * and sorts the rest by host time. Returns how many are left, at the front.
 */
size_t hvt_sync_points_join(struct hvt_sync_point *points, size_t n,
			    const struct hvt_host_calls *calls);

#endif
