/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * unopened.h - why `hvtrace check` could not open a recording at all, for
 * its manifest line. The opener (session/, archive/) says why on standard
 * error and keeps nothing of it, so the causes a user meets are looked at
 * again here: a path that is not there, a manifest that cannot be read or
 * is not JSON, the host clock pairs' file it names (host/clock.tsv), a
 * --guest-trace file. Each is enough to stop the opener; others (a
 * manifest that parses but is not an archive's) are left to its message.
 */
#ifndef HVT_TOOLS_CHECK_UNOPENED_H
#define HVT_TOOLS_CHECK_UNOPENED_H

#include <stddef.h>

/*
 * Why @root, with @guest_traces[0..@n) ("VM=FILE"), cannot be opened, as
 * "host/clock.tsv: No such file or directory" in @buf; NULL if none of the
 * above is the cause.
 */
const char *hvt_check_unopened_why(const char *root, const char *const *guest_traces,
				   size_t n, char *buf, size_t len);

#endif
