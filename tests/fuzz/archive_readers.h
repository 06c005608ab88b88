/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * archive_readers.h - what the archive-readers fuzz target and its seed
 * generator share: the archive an input damages, and the input format.
 *
 * The archive is the unit tests' standard one (tests/unit/archive_fixture.c)
 * with the host layer, sync points and KVM TSC snapshots, so that every
 * reader has a file to read: the manifest, the clock pairs, ftrace's
 * header_page, format files and CPU pages, info.json, sync.tsv,
 * kvm_tsc.tsv, registries and CTF streams, the host applications' part
 * (host/apps) as well; and a log of QEMU's trace
 * backend, which merge reads with --qemu-trace. Its files are listed in path
 * order. An input's first byte picks a file (modulo their count); the rest
 * replaces that file's content.
 */
#ifndef HVT_TESTS_FUZZ_ARCHIVE_READERS_H
#define HVT_TESTS_FUZZ_ARCHIVE_READERS_H

#include <stddef.h>

#define AR_MAX_FILES	64
/* Beside the archive's own files: a log of QEMU's trace backend (merge --qemu-trace). */
#define AR_QEMU_LOG	"vm/demo/qemu-trace.log"	/* kept by record --qemu-log */

struct ar_archive {
	char root[64];
	char *rel[AR_MAX_FILES];	/* relative to root, in strcmp() order */
	size_t nr;
};

/* Writes the archive in a new temporary directory and lists it; -1 on failure. */
int ar_archive_create(struct ar_archive *a);
/* Removes it. */
void ar_archive_remove(struct ar_archive *a);

#endif
