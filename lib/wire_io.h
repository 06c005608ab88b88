/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wire_io.h - reading and writing the guest-host frames of hvtrace/wire.h.
 *
 * The reader never trusts its peer: a frame is handed out only after its
 * header passed hvt_wire_check() and its whole payload arrived.
 */
#ifndef HVT_LIB_WIRE_IO_H
#define HVT_LIB_WIRE_IO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <hvtrace/wire.h>

/* The clock frequencies a TRACE_OPEN may claim: 1 MHz to 100 GHz. */
#define HVT_WIRE_MIN_FREQ_HZ	1000000ull
#define HVT_WIRE_MAX_FREQ_HZ	100000000000ull

struct hvt_frame {
	struct hvt_wire_hdr hdr;
	const unsigned char *payload;	/* valid until the next reader call */
};

struct hvt_frame_reader {
	unsigned char *buf;
	size_t cap;
	size_t start;			/* first unparsed byte */
	size_t end;			/* one past the last byte read */
};

/* NULL if @h is a frame the receiver may accept, else why not. */
const char *hvt_wire_check(const struct hvt_wire_hdr *h, int from_guest);
const char *hvt_wire_type_name(unsigned int type);

/*
 * What the host requires of a guest's payloads beyond the frame header
 * (hvt_wire_check) and beyond the conversation so far (which ids are open):
 * NULL if acceptable, else why not. The host ends the link of a guest that
 * sends anything these refuse; the agent calls them before it forwards
 * what an application gave it, so that one application cannot end the
 * recording of the whole VM.
 */
/*
 * Each returns NULL if the payload is acceptable, else @why holding the
 * reason with the offending values (HVT_WIRE_WHY_MAX bytes are enough).
 */
#define HVT_WIRE_WHY_MAX	192

/*
 * TRACE_OPEN @id: id range, layer, clock domain, plausible frequency, a pid
 * readers can take as signed 32-bit, and pid 0 for the kernel trace.
 */
/* "guest_tsc", "monotonic_raw", "host_tsc" (archive and CTF names), or NULL. */
const char *hvt_domain_name(uint32_t domain);
const char *hvt_wire_trace_open_check(uint32_t id, const struct hvt_w_trace_open *to,
				      char *why, size_t len);
/*
 * Why a process went untraced (enum hvt_untraced_reason) as the archive
 * spells it ("trace ids used", ...), or NULL for an unknown reason.
 */
const char *hvt_untraced_reason_name(uint32_t reason);
/* UNTRACED: a known reason, a pid readers can take as signed 32-bit. */
const char *hvt_wire_untraced_check(const struct hvt_w_untraced *u, char *why, size_t len);
/* STREAM_OPEN @id: id range, trace id range, either a CPU (< HVT_W_MAX_CPUS) or a tid > 0. */
const char *hvt_wire_stream_open_check(uint32_t id, const struct hvt_w_stream_open *so,
				       char *why, size_t len);
/*
 * PACKET of @len bytes for the stream of @cpu / @tid (as its STREAM_OPEN
 * said) in the trace of @uuid: hvt_packet_check(), content_size =
 * packet_size = @len * 8, stream_instance_id = the CPU of a per-CPU
 * stream, the tid of a per-thread one, and cpu_id = @cpu. The decoded
 * context goes to *@out.
 */
const char *hvt_wire_packet_check(const void *p, size_t len, const __u8 *uuid, uint32_t cpu,
				  int32_t tid, struct hvt_ctf_packet *out,
				  char *why, size_t why_len);

int hvt_frame_reader_init(struct hvt_frame_reader *r);
void hvt_frame_reader_free(struct hvt_frame_reader *r);
/* One read(): bytes read, 0 at end of stream, -1 with errno (EAGAIN too). */
ssize_t hvt_frame_reader_fill(struct hvt_frame_reader *r, int fd);
/* Appends bytes obtained elsewhere (tests, fuzzing); -1 if they do not fit. */
int hvt_frame_reader_feed(struct hvt_frame_reader *r, const void *data, size_t len);
/* 1: *f holds a frame; 0: need more bytes; -1: malformed, *err says why. */
int hvt_frame_reader_next(struct hvt_frame_reader *r, int from_guest,
			  struct hvt_frame *f, const char **err);

/*
 * Sends one frame, waiting for a non-blocking fd to drain, but never more
 * than HVT_WIRE_SEND_TIMEOUT_MS without progress: then -1 with ETIMEDOUT
 * (the peer stopped reading), as any other error, with part of the frame
 * perhaps sent: the link is lost either way.
 */
#define HVT_WIRE_SEND_TIMEOUT_MS	30000
int hvt_wire_send(int fd, uint16_t type, uint32_t id, const void *payload, uint32_t len);
int hvt_wire_send_within(int fd, int timeout_ms, uint16_t type, uint32_t id,
			 const void *payload, uint32_t len);

/*
 * Several frames in one system call: the caller lays out each frame's
 * header (hvt_wire_hdr_init(), @len = the payload bytes that follow) and
 * payload pieces in @iov, which this consumes. The same waiting and errors
 * as hvt_wire_send(), with the timeout given.
 */
void hvt_wire_hdr_init(struct hvt_wire_hdr *h, uint16_t type, uint32_t id, uint32_t len);
int hvt_wire_writev(int fd, struct iovec *iov, int n_iov, int timeout_ms);

#endif
