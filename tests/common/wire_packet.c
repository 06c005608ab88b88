// SPDX-License-Identifier: GPL-2.0-only
/*
 * wire_packet.c - a real CTF packet for the guest-link tests (wire_packet.h).
 */
#include <stddef.h>
#include <string.h>
#include <hvtrace/ringbuf.h>

#include "tests/common/wire_packet.h"

uint32_t hvt_test_wire_packet(const uint8_t uuid[HVT_UUID_LEN], unsigned char *out)
{
	return hvt_test_wire_packet_of(uuid, 0, out);
}

uint32_t hvt_test_wire_packet_of(const uint8_t uuid[HVT_UUID_LEN], uint32_t id, unsigned char *out)
{
	static struct hvt_rb_prod prod;
	static struct hvt_rb_cons cons;
	static unsigned char data[4096 * 2];
	struct hvt_rb rb = { 0 };
	uint32_t len;
	uint64_t v;

	memset(&prod, 0, sizeof(prod));
	memset(&cons, 0, sizeof(cons));
	hvt_rb_init(&rb, &prod, &cons, data, 4096, 2);
	memcpy(rb.uuid, uuid, HVT_UUID_LEN);
	rb.cpu_id = 1;
	rb.stream_instance_id = 1;
	for (v = 0; v < 3; v++) {
		__u64 end;
		unsigned char *p = hvt_rb_reserve(&rb, id, 100 + v, 1, 9, 8, &end);

		memcpy(p, &v, 8);
		hvt_rb_commit(&rb, 100 + v, end);
	}
	hvt_rb_close_packet(&rb);
	len = (uint32_t)(hvt_get_u64(data + offsetof(struct hvt_ctf_packet, content_size)) / 8);
	memcpy(out, data, len);
	hvt_put_u64(out + offsetof(struct hvt_ctf_packet, packet_size), (uint64_t)len * 8);
	return len;
}
