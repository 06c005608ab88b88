/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * qemu_log_lines.h - the lines of a QEMU "log" trace backend file, read
 * as a stream and handed on in time order through a bounded window
 * (qemu_log.c makes them a reader).
 *
 * QEMU's threads stamp a line, then write it in turns, so a line may
 * follow one stamped later. The file is not read whole: lines wait in a
 * window until the line read last is stamped HVT_QEMU_LOG_WINDOW_NS later
 * than them (or HVT_QEMU_LOG_PENDING_MAX lines, or
 * HVT_QEMU_LOG_PENDING_BYTES of them, wait), then go out earliest first,
 * line order within a time. (The line read last, not the latest stamp
 * read: one line stamped far ahead, damage or a clock set wrong, flushes
 * the window once instead of unsorting the rest of the file.) A line that comes later still than that is handed
 * on at the time of the line before it and counted: memory is bounded by
 * the window, not by the file. Lines of another shape, over-long lines and
 * names past the HVT_QEMU_LOG_MAX_NAMES distinct ones are skipped and
 * counted.
 */
#ifndef HVT_TOOLS_READ_QEMU_LOG_LINES_H
#define HVT_TOOLS_READ_QEMU_LOG_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HVT_QEMU_LOG_WINDOW_NS		5000000000ull	/* how late a line may come */
#define HVT_QEMU_LOG_PENDING_MAX	(256u * 1024)	/* lines in the window, at most */
#define HVT_QEMU_LOG_PENDING_BYTES	(64u << 20)	/* ... and their bytes */
#define HVT_QEMU_LOG_MAX_NAMES		65536u		/* distinct event names */
#define HVT_QEMU_LOG_MAX_LINE		65536u		/* bytes of a line */

struct hvt_qemu_line {
	uint64_t ts;			/* CLOCK_REALTIME ns, mid-microsecond */
	uint64_t line;			/* from 1, for order and messages */
	int32_t tid;
	uint32_t name;			/* index among the distinct names */
	uint32_t args_len;
	char args[];			/* the arguments' text (not NUL-terminated) */
};

struct hvt_qemu_lines {
	int fd;
	char *buf;			/* HVT_QEMU_LOG_MAX_LINE * 2 bytes */
	size_t start, end;		/* the bytes of buf not parsed yet */
	bool eof, skipping;		/* skipping: the rest of an over-long line */
	uint64_t line;			/* lines read */
	uint64_t last_read;		/* the stamp of the line read last */
	size_t pending_bytes;		/* of the lines in the window */
	uint64_t last_out;		/* the stamp of the line handed on last */
	struct hvt_qemu_line **heap;	/* the window: a min-heap by (ts, line) */
	size_t nr_pending;
	char **names;			/* distinct names, NUL-terminated */
	uint32_t *name_lens, nr_names;
	uint32_t *slots, nr_slots;	/* hash of names: index + 1, 0 free */
	/* counted */
	uint64_t other, first_other;	/* lines not of the log backend's shape */
	uint64_t too_long, unnamed;	/* over-long; of names past the limit */
	uint64_t late, late_max_ns;	/* came after the window, and by how much at most */
};

/* Opens @path (a regular file): 0, or -1 with errno. */
int hvt_qemu_lines_open(struct hvt_qemu_lines *q, const char *path);
/*
 * The next line in time order, owned by the caller (free()), or NULL at
 * the end (or without memory: errno ENOMEM) or on a read error (errno).
 */
struct hvt_qemu_line *hvt_qemu_lines_next(struct hvt_qemu_lines *q);
/* Name @i of a line (NUL-terminated, valid until the close) and its length. */
static inline const char *hvt_qemu_lines_name(const struct hvt_qemu_lines *q, uint32_t i,
					      size_t *len)
{
	*len = q->name_lens[i];
	return q->names[i];
}
void hvt_qemu_lines_close(struct hvt_qemu_lines *q);

#endif
