/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * clock_now.h - the system's clocks now, in ns: CLOCK_MONOTONIC for
 * periods and deadlines, CLOCK_REALTIME for what is compared with the
 * recording's clock pairs (how far behind a live view is).
 */
#ifndef HVT_LIB_CLOCK_NOW_H
#define HVT_LIB_CLOCK_NOW_H

#include <stdint.h>

int64_t hvt_monotonic_ns(void);
int64_t hvt_realtime_ns(void);

#endif
