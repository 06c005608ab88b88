/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * version.h - the project's one version: `hvtrace --version` and
 * `hvtrace-agent --version` print it; the Makefile (dkms), scripts/man-pages
 * and the tests read it from this line.
 */
#ifndef HVT_LIB_VERSION_H
#define HVT_LIB_VERSION_H

#define HVTRACE_VERSION "0.1.0"

/* What --version prints, the same for every binary. */
#define HVT_VERSION_LINE "hvtrace " HVTRACE_VERSION "\n"

#endif
