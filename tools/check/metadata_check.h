/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * metadata_check.h - does a guest trace's CTF metadata declare what its
 * registry holds, as the collector renders it? The metadata is what
 * babeltrace2 and Trace Compass read; hvtrace's own readers read the
 * registry. A metadata file that is missing, garbled or out of step with
 * the registry passes every other check while those tools fail.
 */
#ifndef HVT_TOOLS_CHECK_METADATA_CHECK_H
#define HVT_TOOLS_CHECK_METADATA_CHECK_H

#include <stddef.h>

#include "lib/event_registry.h"
#include "tools/archive/archive.h"

/*
 * Trace @t of @vm against its registry @reg: 0 if its metadata is the
 * collector's head followed by each registry event's declaration once, in
 * any order, and nothing else; -1 with @why saying what differs.
 */
int hvt_metadata_check(const struct hvt_vm_info *vm, const struct hvt_trace_info *t,
		       const struct hvt_registry *reg, char *why, size_t len);

#endif
