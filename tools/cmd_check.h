/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmd_check.h - the verdicts of `hvtrace check` that tests call directly.
 */
#ifndef HVT_TOOLS_CMD_CHECK_H
#define HVT_TOOLS_CMD_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "tools/align/align.h"
#include "tools/archive/archive.h"

/*
 * sync-causal: true if @vm's exchanges are all causal once aligned with
 * @clock, the clock fitted over them (NULL: none could be); otherwise false
 * with the reason (naming the first violating seq) in @reason.
 */
bool hvt_check_sync(const struct hvt_vm_info *vm, struct hvt_vm_clock *clock,
		    char *reason, size_t len);

#endif
