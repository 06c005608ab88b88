/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * archive_checks.h - `hvtrace check`'s verdicts on what a recording holds,
 * read from the session alone (check_run.h has the list):
 *
 *   manifest                  hvtrace.json and host/clock.tsv parse
 *   info-json[VM]             the VM's info.json parses
 *   untraced[VM]              no process or thread went untraced (the
 *                             agent's or libhvtrace's limits, info.json)
 *   sync-causal[VM]           every exchange of sync.tsv stays causal once
 *                             aligned with the VM's clock (KVM's parameters
 *                             where merge uses them, else the fitted one)
 *   sync-held-out[VM]         every 8th exchange, kept out of a fit of the
 *                             others, lies within that fit's guaranteed
 *                             interval (align.h); estimated VMs only
 *   kvm-tsc[VM]               a KVM VM whose recording has KVM's TSC
 *                             parameters is aligned with them, and their
 *                             sources (tracepoint, debugfs) agree; SKIP,
 *                             with why, for a VM without them (TCG, an
 *                             unknown VMM, none recorded)
 *   registry[TRACE]           the trace's registry file validates
 *   metadata[TRACE]           its CTF metadata, which babeltrace2 reads,
 *                             declares exactly the registry's events
 *                             (metadata_check.h)
 *   info-json[host/apps],     the host's applications' info.json, and
 *   host-apps-clock           every exchange with the host agent allowing
 *                             an offset of 0 (their events are placed so);
 *                             untraced[host/apps] as untraced[VM]
 *   stream-decodes[FILE]      every packet and event of a stream decodes:
 *                             the time line decoded the aligned streams,
 *                             the others are decoded here, on their own
 */
#ifndef HVT_TOOLS_CHECK_ARCHIVE_CHECKS_H
#define HVT_TOOLS_CHECK_ARCHIVE_CHECKS_H

#include <stdbool.h>
#include <stddef.h>

#include "tools/check/check_report.h"
#include "tools/session/session.h"

/* The verdicts above, in that order, once the time line has been read through. */
void hvt_check_archive(struct hvt_tally *t, struct hvt_session *ses);
/*
 * Why VM @i of @ses has no guest event on the time line, as "the VM cannot
 * be aligned: vm/NAME/sync.tsv: No such file or directory" in @buf; NULL if
 * its events can be placed (or it has none: recorded with the host layer
 * only). What the checks that need its events say instead of "no event".
 */
const char *hvt_check_vm_unplaced(const struct hvt_session *ses, size_t i, char *buf,
				  size_t len);
/* Why VM @vm has no KVM TSC parameters, kvm_entry or kvm_exit; NULL under KVM. */
const char *hvt_check_not_kvm(const struct hvt_vm_info *vm);
/* "@name: why" in @buf if file @path cannot be opened to read; NULL if it can. */
const char *hvt_check_cannot_open(const char *path, const char *name, char *buf, size_t len);
/*
 * sync-causal: true if @vm's exchanges are all causal once aligned with
 * @clock, the clock fitted over them (NULL: none could be); otherwise false
 * with the reason (naming the first violating seq) in @reason.
 */
bool hvt_check_sync(const struct hvt_vm_info *vm, struct hvt_vm_clock *clock,
		    char *reason, size_t len);

#endif
