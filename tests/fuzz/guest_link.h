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
 */
#ifndef HVT_TESTS_FUZZ_GUEST_LINK_H
#define HVT_TESTS_FUZZ_GUEST_LINK_H

#define GL_FROM_HELLO	0
#define GL_TRACING	1

#endif
