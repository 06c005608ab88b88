/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vcpu_windows.h - does every guest event of a KVM VM fall inside one of its
 * vCPU's guest-mode windows, as the host recorded them?
 *
 * A guest reads its TSC only while its vCPU runs guest code, and the host
 * traces kvm_entry just before entering guest mode and kvm_exit just after
 * leaving it. So, once aligned, a guest event on vCPU v lies within one of
 * v's windows [kvm_entry, kvm_exit] - up to the event's error bound. An
 * event further outside every window than its bound shows that the
 * alignment is wrong, whatever the exchanges say.
 *
 * The judgement streams with the merge (memory: one state per vCPU plus the
 * events still waiting for their vCPU's next entry), fed in host time order:
 * host kvm_entry/kvm_exit as hvt_vcpu_windows_host(), guest events as
 * hvt_vcpu_windows_guest(). An event after v's last exit waits: it is inside
 * if v entered again no later than its bound after it. Not judged, and
 * counted apart: events before the host saw their vCPU, after its last exit
 * at the end of the trace, on no CPU, or in a gap of v's windows where the
 * host lost events (hvt_vcpu_windows_host_lost()): a lost pair of
 * entry/exit may have been there. Guest CPU n is taken to be vCPU id n.
 */
#ifndef HVT_TOOLS_CHECK_VCPU_WINDOWS_H
#define HVT_TOOLS_CHECK_VCPU_WINDOWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HVT_VCPU_WINDOWS_MAX_VCPUS 4096	/* KVM's largest vCPU id, roughly */

/* A guest event that fell outside every window by more than its bound. */
struct hvt_window_miss {
	uint64_t host;			/* its aligned host TSC */
	uint64_t bound;			/* its error bound, host ticks */
	uint64_t exit, entry;		/* the gap it fell in; entry 0: none followed */
	uint32_t vcpu;
	const void *tag;		/* the caller's, from hvt_vcpu_windows_guest() */
	uint64_t tag_index;		/* ditto */
};

struct hvt_vcpu_windows {
	struct hvt_vcpu_state *vcpus;	/* by id, grown as ids appear */
	size_t nr_vcpus;
	uint64_t host_events;		/* kvm_entry and kvm_exit seen */
	uint64_t loss_end;		/* the latest @until of a loss, 0: none */
	uint64_t inside, outside, unjudged;
	struct hvt_window_miss first;	/* valid when outside > 0 */
	bool failed;			/* out of memory: the verdict is void */
};

void hvt_vcpu_windows_init(struct hvt_vcpu_windows *w);
void hvt_vcpu_windows_free(struct hvt_vcpu_windows *w);
/* A kvm_entry (@entry) or kvm_exit of vCPU @vcpu at host TSC @host. */
void hvt_vcpu_windows_host(struct hvt_vcpu_windows *w, uint32_t vcpu, bool entry, uint64_t host);
/*
 * A host CPU lost events (or skipped a damaged page) that were older than
 * host TSC @until, its first event after the loss (UINT64_MAX: none came).
 * To be fed before any kvm_entry later than the loss began.
 */
void hvt_vcpu_windows_host_lost(struct hvt_vcpu_windows *w, uint64_t until);
/*
 * A guest event of vCPU @vcpu at aligned host TSC @host, within @bound host
 * ticks of its true instant; @tag and @index name it in a miss.
 */
void hvt_vcpu_windows_guest(struct hvt_vcpu_windows *w, uint32_t vcpu, uint64_t host,
			    uint64_t bound, const void *tag, uint64_t index);
/* After the last event: events still waiting are not judged. */
void hvt_vcpu_windows_finish(struct hvt_vcpu_windows *w);

#endif
