/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * clock_page_file.h - a clock page as the guest module publishes it (not
 * synced with a host), written to a file: with HVTRACE_DEVICE naming the
 * file, libhvtrace takes the guest's TSC path on a machine without the
 * module (tests/host/ust_stress.c, tests/bench/bench_tracepoint.c).
 */
#ifndef HVT_TESTS_CLOCK_PAGE_FILE_H
#define HVT_TESTS_CLOCK_PAGE_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <hvtrace/clock_page.h>

/* 0, or -1 with errno set. */
static inline int hvt_test_write_clock_page(const char *path, uint64_t tsc_khz)
{
	static struct hvt_clock_page page;
	FILE *f = fopen(path, "w");

	page.magic = HVT_CLOCK_PAGE_MAGIC;
	page.version = HVT_CLOCK_PAGE_VERSION;
	page.header_size = HVT_CLOCK_PAGE_HEADER_SIZE;
	page.tsc_khz = tsc_khz;
	if (!f)
		return -1;
	if (fwrite(&page, sizeof(page), 1, f) != 1 ||
	    fseek(f, HVT_CLOCK_PAGE_SIZE - 1, SEEK_SET) || fputc(0, f) == EOF) {
		fclose(f);
		return -1;
	}
	return fclose(f) ? -1 : 0;
}

#endif
