/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * guest_link.h - what the guest-link fuzz target and its seed generator
 * share: the input format.
 *
 * An input's first byte says where the guest starts: GL_FROM_HELLO, at the
 * very beginning (the input must say HELLO itself), or GL_TRACING, after a
 * scripted HELLO and initial burst of clock exchanges (the collector then
 * waits for traces, streams and packets). The rest is the bytes the guest
 * sends, as they are: frames, or anything else.
 *
 * GL_CLOCK: a guest that lies about its clock. After the same scripted
 * start, exchange periods come one after another; the guest answers every
 * SYNC_REQ of a period with a guest TSC the input makes up: per reply 8
 * bytes, a rate (u16, in 1/4096 of the host's) and an offset (s32, in
 * ticks) then a byte of noise between its receive and send stamps. The
 * collector must never start more than GL_CLOCK_MAX_PER_PERIOD exchanges
 * in one period, whatever the answers.
 */
#ifndef HVT_TESTS_FUZZ_GUEST_LINK_H
#define HVT_TESTS_FUZZ_GUEST_LINK_H

#define GL_FROM_HELLO	0
#define GL_TRACING	1
#define GL_CLOCK	2
#define GL_CLOCK_REPLY_BYTES	8

#endif
