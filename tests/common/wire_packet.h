/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wire_packet.h - a real CTF packet as a guest agent sends it (trimmed to
 * its content), for the tests and fuzz seeds of the guest link.
 */
#ifndef HVT_TESTS_WIRE_PACKET_H
#define HVT_TESTS_WIRE_PACKET_H

#include <stdint.h>
#include <hvtrace/ctf.h>

/*
 * Writes into @out (at least 4096 bytes) a closed packet of trace @uuid,
 * CPU 1, stream instance 1, holding three events of id 0 with one u64 field
 * (0, 1, 2) at timestamps 100..102, with packet_size = content_size; returns
 * its size in bytes.
 */
uint32_t hvt_test_wire_packet(const uint8_t uuid[HVT_UUID_LEN], unsigned char *out);
/* The same with events of id @id: compact headers below 31, else extended ones. */
uint32_t hvt_test_wire_packet_of(const uint8_t uuid[HVT_UUID_LEN], uint32_t id, unsigned char *out);

#endif
