/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wire_io.h - reading and writing the guest-host frames of hvtrace/wire.h.
 *
 * The reader never trusts its peer: a frame is handed out only after its
 * header passed hvt_wire_check() and its whole payload arrived.
 */
#ifndef HVT_WIRE_IO_H
#define HVT_WIRE_IO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <hvtrace/wire.h>

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

int hvt_frame_reader_init(struct hvt_frame_reader *r);
void hvt_frame_reader_free(struct hvt_frame_reader *r);
/* One read(): bytes read, 0 at end of stream, -1 with errno (EAGAIN too). */
ssize_t hvt_frame_reader_fill(struct hvt_frame_reader *r, int fd);
/* Appends bytes obtained elsewhere (tests, fuzzing); -1 if they do not fit. */
int hvt_frame_reader_feed(struct hvt_frame_reader *r, const void *data, size_t len);
/* 1: *f holds a frame; 0: need more bytes; -1: malformed, *err says why. */
int hvt_frame_reader_next(struct hvt_frame_reader *r, int from_guest,
			  struct hvt_frame *f, const char **err);

/* Sends one frame, waiting for the fd to drain if it is non-blocking. */
int hvt_wire_send(int fd, uint16_t type, uint32_t id, const void *payload, uint32_t len);

#endif
