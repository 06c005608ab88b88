/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * host_scan.h - reading the host layer ahead of the merge, for what
 * alignment needs from it: the guests' sync hypercalls (sync_points.h) and
 * KVM's TSC offset changes (kvm_model.h).
 */
#ifndef HVT_TOOLS_ALIGN_HOST_SCAN_H
#define HVT_TOOLS_ALIGN_HOST_SCAN_H

#include "tools/archive/archive.h"
#include "tools/read/event_decoder.h"
#include "tools/read/ftrace_reader.h"

typedef int (*hvt_host_scan_fn)(const struct hvt_ftrace_event *ev,
				  const struct hvt_typed_event *e, void *ctx);
/*
 * A pre-pass over the host layer: calls @fn for every event of kind @kind
 * (read/event_decoder.h) in every CPU file of @a, file by file, with the
 * readers' warnings muted (the merge's own pass reports them). Stops at the
 * first nonzero return of @fn and returns it; 0 otherwise, or -1 if out of
 * memory.
 */
int hvt_host_scan(const struct hvt_archive *a, struct hvt_ftrace *ft, enum hvt_ev_kind kind,
		  hvt_host_scan_fn fn, void *ctx);

#endif
