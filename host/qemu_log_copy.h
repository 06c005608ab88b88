/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * qemu_log_copy.h - QEMU's own trace events kept in the archive (record
 * --qemu-log FILE): the lines QEMU's log trace backend writes to FILE
 * (-D FILE -msg timestamp=on, events turned on with -trace) while the
 * recording runs are copied, whole lines only, into the VM's
 * vm/NAME/qemu-trace.log when it stops (docs/format.md). merge, check and
 * analyze read that file as the vmm layer without being told. With --qmp,
 * record turns the I/O path's events on itself (HVT_QEMU_IO_EVENTS).
 */
#ifndef HVT_HOST_QEMU_LOG_COPY_H
#define HVT_HOST_QEMU_LOG_COPY_H

#include <stdint.h>
#include <sys/types.h>

#define HVT_QEMU_LOG_MAX	(1ull << 30)	/* bytes kept; more is cut, with a warning */

/*
 * QEMU's events on a guest I/O's path that record --qemu-log --qmp turns on
 * (and off at the end): the virtqueue, virtio-blk, the notification back
 * and the block backend's submit and completion (whichever QEMU uses).
 */
#define HVT_QEMU_IO_EVENTS	{ "virtio_queue_notify", "virtqueue_pop", "virtio_blk_*", \
				  "virtio_notify", "virtio_notify_irqfd", "virtio_pci_notify", \
				  "thread_pool_*", "luring_*", "laio_*" }

struct hvt_qemu_log {
	int fd;				/* -1: none */
	const char *path;
	off_t from;			/* its size when the recording started */
};

/* Opens @path, which must exist, and notes where the recording starts: 0, or -1 with @err. */
int hvt_qemu_log_open(struct hvt_qemu_log *l, const char *path, char *err, size_t errlen);
/*
 * Copies what was written since, up to its last whole line, to @dst: the
 * bytes copied, or -1 with errno (@dst may then be incomplete).
 */
int64_t hvt_qemu_log_save(struct hvt_qemu_log *l, const char *dst);
void hvt_qemu_log_close(struct hvt_qemu_log *l);

#endif
