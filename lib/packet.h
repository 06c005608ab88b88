/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * packet.h - checking a CTF packet's header and context before use.
 */
#ifndef HVT_LIB_PACKET_H
#define HVT_LIB_PACKET_H

#include <stddef.h>
#include <hvtrace/ctf.h>

/*
 * Decodes and checks the packet at @buf (@len bytes available): magic, stream
 * class, UUID (unless @uuid is NULL), sizes consistent with each other and
 * with @len, timestamps ordered. NULL if usable, else why not.
 */
const char *hvt_packet_check(const void *buf, size_t len, const __u8 *uuid,
			     struct hvt_ctf_packet *out);

#endif
