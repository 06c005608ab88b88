// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>

#include "lib/packet.h"

const char *hvt_packet_check(const void *buf, size_t len, const __u8 *uuid,
			     struct hvt_ctf_packet *out)
{
	struct hvt_ctf_packet p;

	if (len < sizeof(p))
		return "packet shorter than its header";
	memcpy(&p, buf, sizeof(p));
	if (p.magic != HVT_CTF_MAGIC)
		return "bad packet magic";
	if (uuid && memcmp(p.uuid, uuid, HVT_UUID_LEN))
		return "packet UUID differs from its trace's";
	if (p.stream_id != HVT_CTF_STREAM_EVENTS)
		return "unknown stream class";
	if (p.content_size % 8 || p.packet_size % 8)
		return "packet sizes not whole bytes";
	if (p.content_size < (__u64)sizeof(p) * 8 || p.packet_size < p.content_size)
		return "packet sizes inconsistent";
	if (p.packet_size / 8 > HVT_CTF_MAX_PACKET)
		return "packet larger than any hvtrace sub-buffer";
	if (p.packet_size / 8 > len)
		return "packet extends past the end of its data";
	if (p.timestamp_end < p.timestamp_begin)
		return "packet ends before it begins";
	*out = p;
	return NULL;
}
