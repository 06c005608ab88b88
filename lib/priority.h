/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * priority.h - the consumer side's place in the scheduler.
 *
 * The collector and the agent drain buffers that writers fill. When the
 * writers take every core, a consumer at their priority gets a share of
 * the CPU by their count, and everything it cannot drain is lost. The
 * writers lose events either way; what the consumer drains is kept. So
 * both run ahead of them: at nice HVT_CONSUMER_NICE unless told otherwise
 * (--nice), when the process may (root, CAP_SYS_NICE). It is a nice value,
 * not a real-time class: a consumer that has nothing to drain sleeps, and
 * one that spins can still not take a machine.
 */
#ifndef HVT_LIB_PRIORITY_H
#define HVT_LIB_PRIORITY_H

#define HVT_CONSUMER_NICE	(-10)
#define HVT_CONSUMER_NICE_STR	"-10"

/*
 * Sets the calling thread's nice value to @nice (threads created after it
 * inherit it), if it is lower than the current one; says at -v what it
 * did, or why it could not (it runs on at its own). @who names the
 * program in that line.
 */
void hvt_consumer_priority(int nice, const char *who);

/*
 * Parses --nice's argument, -20..19, into @nice; -1 if it is not one
 * (the caller says so).
 */
int hvt_nice_parse(const char *arg, int *nice);

#endif
