/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * big_endian.h - big-endian integers at unaligned addresses, as network
 * protocols (LTTng's live protocol) carry them.
 */
#ifndef HVT_LIB_BIG_ENDIAN_H
#define HVT_LIB_BIG_ENDIAN_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

static inline void hvt_put_be32(unsigned char *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, 4);
}

static inline void hvt_put_be64(unsigned char *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, 8);
}

static inline uint32_t hvt_get_be32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return be32toh(v);
}

static inline uint64_t hvt_get_be64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return be64toh(v);
}

#endif
