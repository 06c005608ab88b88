/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vcpu_windows.h - does every guest event fall inside a window where its
 * vCPU could run, as the host recorded them?
 *
 * A guest reads its TSC only while its vCPU runs guest code. Two sources of
 * windows say when that was possible:
 *   - under KVM, kvm_entry -> kvm_exit: the host traces kvm_entry just
 *     before entering guest mode and kvm_exit just after leaving it;
 *   - anywhere (TCG too), the run intervals of the vCPU's host thread
 *     (align/host_runs.h), which contain every instant it executed.
 * So, once aligned, a guest event on vCPU v lies within one of v's windows
 * - up to the event's error bound. An event further outside every window
 * than its bound shows that the alignment is wrong, whatever the clock
 * exchanges say.
 *
 * The judgement streams with the merge, fed in host time order: a window
 * opens at hvt_vcpu_windows_open() - possibly at an instant already past,
 * when the host learns of a run only at its end - and closes at
 * hvt_vcpu_windows_close(); guest events come as hvt_vcpu_windows_guest().
 * An event outside v's last window waits: it is inside if v's next window
 * starts no later than its bound after it. Memory: one state per vCPU plus
 * the events waiting for their vCPU's next window, at most
 * HVT_VCPU_WINDOWS_MAX_WAIT per vCPU (more are not judged). Not judged,
 * and counted apart: events before their vCPU's first window (unless
 * within their bound of it), after its last one at the end of the trace,
 * on no CPU, or in a gap of v's windows where the host lost events
 * (hvt_vcpu_windows_host_lost()): a window may have been there. Guest CPU n
 * is taken to be vCPU id n.
 */
#ifndef HVT_TOOLS_CHECK_VCPU_WINDOWS_H
#define HVT_TOOLS_CHECK_VCPU_WINDOWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HVT_VCPU_WINDOWS_MAX_VCPUS 4096	/* KVM's largest vCPU id, roughly */
#define HVT_VCPU_WINDOWS_MAX_WAIT (1u << 18)	/* events waiting per vCPU */

/* A guest event that fell outside every window by more than its bound. */
struct hvt_window_miss {
	uint64_t host;			/* its aligned host TSC */
	uint64_t bound;			/* its error bound, host ticks */
	uint64_t exit, entry;		/* the gap it fell in; entry 0: no window followed */
	uint32_t vcpu;
	const void *tag;		/* the caller's, from hvt_vcpu_windows_guest() */
	uint64_t tag_index;		/* ditto */
};

struct hvt_vcpu_windows {
	struct hvt_window_vcpu *vcpus;	/* by id, grown as ids appear */
	size_t nr_vcpus;
	uint64_t host_events;		/* window starts and ends seen */
	uint64_t loss_end;		/* the latest @until of a loss, 0: none */
	uint64_t inside, outside, unjudged;
	struct hvt_window_miss first;	/* valid when outside > 0 */
	bool failed;			/* out of memory: the verdict is void */
};

void hvt_vcpu_windows_init(struct hvt_vcpu_windows *w);
void hvt_vcpu_windows_free(struct hvt_vcpu_windows *w);
/*
 * A window of vCPU @vcpu opens at host TSC @start (a kvm_entry; a run's
 * start), which may lie before the events fed already, but not before the
 * vCPU's last window closed. Opening an open window does nothing.
 */
void hvt_vcpu_windows_open(struct hvt_vcpu_windows *w, uint32_t vcpu, uint64_t start);
/* ... and closes at @end (a kvm_exit; a run's end). Closing a closed one: its
 * opening was not recorded, the events waiting are not judged. */
void hvt_vcpu_windows_close(struct hvt_vcpu_windows *w, uint32_t vcpu, uint64_t end);
/*
 * A host CPU lost events (or skipped a damaged page) that were older than
 * host TSC @until, its first event after the loss (UINT64_MAX: none came).
 * To be fed before any window opening later than the loss began.
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
