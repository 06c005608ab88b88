/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * events/block.h - block layer events, attached to the kernel's
 * tracepoints: a request handed to the driver and its completion, with
 * the fields ftrace's own block events have, so that a request's issue and
 * completion can be paired (dev, sector) and its size and kind read.
 * Opt-in (-e block_rq_issue -e block_rq_complete): one pair per I/O.
 */
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/blktrace_api.h>
#include <linux/string.h>
#include <trace/events/block.h>

#include "../hvtrace_event.h"

#ifndef RWBS_LEN
#define RWBS_LEN	8
#endif

/*
 * dev is the disk's dev_t (major << 20 | minor, as the kernel keeps it);
 * sector and nr_sector are in 512-byte sectors (0 for a passthrough
 * request); rwbs is blktrace's R, W, D, F, ... with S, M, A flags.
 */
HVTRACE_TP_EVENT(block_rq_issue,
	HVT_PROTO(struct request *rq),
	HVT_ARGS(rq),
	HVT_FIELDS((int, u32, dev),
		   (int, u64, sector),
		   (int, u32, nr_sector),
		   (int, u32, bytes),
		   (text, rwbs, RWBS_LEN)),
	HVT_ASSIGN(__entry->dev = rq->q->disk ? disk_devt(rq->q->disk) : 0;
		   __entry->sector = blk_rq_trace_sector(rq);
		   __entry->nr_sector = blk_rq_trace_nr_sectors(rq);
		   __entry->bytes = blk_rq_bytes(rq);
		   blk_fill_rwbs(__entry->rwbs, rq->cmd_flags);),
	HVT_PRINT("dev=%u sector=%llu nr_sector=%u bytes=%u rwbs=%s"));

/* nr_sector is what completed (nr_bytes >> 9); error is an errno, 0 on success. */
HVTRACE_TP_EVENT(block_rq_complete,
	HVT_PROTO(struct request *rq, blk_status_t error, unsigned int nr_bytes),
	HVT_ARGS(rq, error, nr_bytes),
	HVT_FIELDS((int, u32, dev),
		   (int, u64, sector),
		   (int, u32, nr_sector),
		   (int, s32, error),
		   (text, rwbs, RWBS_LEN)),
	HVT_ASSIGN(__entry->dev = rq->q->disk ? disk_devt(rq->q->disk) : 0;
		   __entry->sector = blk_rq_pos(rq);
		   __entry->nr_sector = nr_bytes >> 9;
		   __entry->error = blk_status_to_errno(error);
		   blk_fill_rwbs(__entry->rwbs, rq->cmd_flags);),
	HVT_PRINT("dev=%u sector=%llu nr_sector=%u error=%d rwbs=%s"));
