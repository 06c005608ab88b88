/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * archive_writer.h - the recording directory and its host-wide files
 * (docs/format.md, section 1): hvtrace.json and host/clock.tsv.
 */
#ifndef HVT_HOST_ARCHIVE_WRITER_H
#define HVT_HOST_ARCHIVE_WRITER_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include "clocksync/clocksync.h"

struct hvt_archive_writer {
	char dir[4096];
	FILE *clock_tsv;
	struct hvt_clock_pair first, last;
	size_t nr_pairs;
	char started[32];
};

/* -1 (said in @err) if @dir exists and is not an empty directory. */
int hvt_archive_writer_check(const char *dir, char *err, size_t errlen);
/* Creates @dir (it must not exist, or be empty) with host/ and a manifest. */
int hvt_archive_writer_create(struct hvt_archive_writer *ar, const char *dir, char *err, size_t errlen);
/* Takes a paired clock read and appends it to host/clock.tsv. */
int hvt_archive_writer_clock_pair(struct hvt_archive_writer *ar);
/* host TSC -> host CLOCK_MONOTONIC from the pairs so far; -1 if too few. */
int hvt_archive_writer_host_clock(const struct hvt_archive_writer *ar, struct hvt_linear_map *mono);
/* Rewrites hvtrace.json; @ftrace (may be NULL) and @vms are borrowed. */
/* hvtrace.json: host.ftrace @ftrace, host.apps @apps, @vms (each NULL if none). */
int hvt_archive_writer_manifest(struct hvt_archive_writer *ar, const char *status, json_t *ftrace,
				json_t *apps, json_t *vms);
void hvt_archive_writer_close(struct hvt_archive_writer *ar);
/* Replaces @path with @json, indented, atomically (lib/fileio.h). */
int hvt_write_json_atomic(const char *path, const json_t *json);

#endif
