// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_relay_proto.c - libFuzzer target: the relay's side of the LTTng live
 * protocol (tools/relay/relay_proto.c) against any bytes a viewer may send.
 *
 * One live trace, built once: metadata and two streams of packets. Each
 * input is one viewer: its first byte sets the trace's state (finished or
 * not, its beacon) and the viewer's reading from the start; the rest is
 * what the viewer sends, fed in pieces of the sizes the input's bytes give,
 * as a socket would. Beyond the sanitizers' findings, it aborts if a reply
 * is larger than the protocol's largest, if a command is taken before its
 * bytes came, or if the trace changed (the protocol only reads it).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "tools/relay/relay_proto.h"

#define MAX_REPLY	(12u + HVT_LIVE_MAX_PACKET_READ + 8u * 4371u)

static struct hvt_relay_trace trace;
static char dir[64];

static void cleanup(void)
{
	hvt_relay_trace_free(&trace);
}

static void publish(const char *stream, const char *data, uint64_t ts)
{
	struct hvt_relay_index ix = { .packet_size = strlen(data) * 8,
				      .content_size = strlen(data) * 8,
				      .timestamp_begin = ts, .timestamp_end = ts + 10 };

	if (hvt_relay_trace_packet(&trace, stream, data, strlen(data), &ix) < 0)
		abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char meta[] = "/* CTF 1.8 */\ntrace { major = 1; minor = 8; };\n";

	(void)argc, (void)argv;
	hvt_log_set_quiet(1);
	snprintf(dir, sizeof(dir), "/tmp/hvt-fuzz-relay-XXXXXX");
	if (!mkdtemp(dir) || hvt_relay_trace_init(&trace, dir, "rec", "host"))
		abort();
	atexit(cleanup);
	if (hvt_relay_trace_metadata(&trace, meta, sizeof(meta) - 1))
		abort();
	publish("host-cpu-0", "packet zero of cpu 0", 100);
	publish("host-cpu-0", "packet one", 200);
	publish("vm-demo-kernel-stream-0", "guest packet", 150);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hvt_relay_viewer v;
	struct hvt_relay_out out = { 0 };
	unsigned char in[64];
	size_t in_len = 0, at = 1, used;
	uint32_t streams = trace.nr_streams;
	uint64_t metadata = trace.metadata_len;

	if (!size)
		return 0;
	trace.done = data[0] & 1;
	trace.beacon = (uint64_t)(data[0] >> 1) * 10;
	hvt_relay_viewer_init(&v, 1);
	v.from_start = data[0] & 0x80;
	while (at < size) {
		size_t piece = 1 + data[at++] % 40, room = sizeof(in) - in_len;
		int r;

		if (piece > size - at)
			piece = size - at;
		if (piece > room)
			piece = room;
		memcpy(in + in_len, data + at, piece);
		in_len += piece;
		at += piece;
		do {
			out.len = 0;
			r = hvt_relay_command(&v, &trace, in, in_len, &used, &out);
			if (r > 0) {
				if (used < HVT_LIVE_HEADER_SIZE || used > in_len || !out.len ||
				    out.len > MAX_REPLY)
					abort();
				memmove(in, in + used, in_len - used);
				in_len -= used;
			} else if (r == 0 && (used || out.len)) {
				abort();
			}
		} while (r > 0);
		if (r < 0 || in_len == sizeof(in))
			break;	/* the server closes the connection */
	}
	if (trace.nr_streams != streams || trace.metadata_len != metadata)
		abort();
	hvt_relay_viewer_free(&v);
	hvt_relay_out_free(&out);
	return 0;
}
