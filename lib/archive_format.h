/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * archive_format.h - text the archive's writer (host/) and its readers
 * (tools/) must agree on byte for byte (docs/format.md, section 1).
 */
#ifndef HVT_LIB_ARCHIVE_FORMAT_H
#define HVT_LIB_ARCHIVE_FORMAT_H

/* Header lines of the .tsv files, without their newline, and their columns. */
#define HVT_CLOCK_TSV_HEADER	"tsc\tmono_ns\trealtime_ns\tuncertainty"
#define HVT_CLOCK_TSV_COLS	4
#define HVT_SYNC_TSV_HEADER	"seq\thost_send\tguest_recv\tguest_send\thost_recv\tcpu_recv\tcpu_send"
#define HVT_SYNC_TSV_COLS	7
#define HVT_KVM_TSC_TSV_HEADER	"host_before\thost_after\tsource\tvm_fd\tvcpu\toffset\tratio\tfrac_bits"
#define HVT_KVM_TSC_TSV_COLS	8

#endif
