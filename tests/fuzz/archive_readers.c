// SPDX-License-Identifier: GPL-2.0-only
/*
 * archive_readers.c - the archive of the archive-readers fuzz target
 * (archive_readers.h).
 */
#include <ftw.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/archive_readers.h"
#include "tests/unit/archive_fixture.h"

static struct ar_archive *listing;

static int add_file(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)ftw;
	if (flag != FTW_F)
		return 0;
	if (listing->nr == AR_MAX_FILES)
		return -1;
	listing->rel[listing->nr] = strdup(path + strlen(listing->root) + 1);
	return listing->rel[listing->nr++] ? 0 : -1;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int ar_archive_create(struct ar_archive *a)
{
	const struct fx_options o = { .ftrace = true, .sync_points = true,
				      .vcpu_tids = "[4321, 4322]", .host_apps = true };

	static const char tasks[] = "tid\tpid\tcomm\n77\t70\tnot-host\n4321\t4300\tqemu\n"
				    "4322\t4300\tCPU 0/KVM\n";
	static const char qemu_log[] =
		"4321@1700000000.000008:virtio_blk_handle_read vdev 0x55 req 0x77 sector 16 "
		"nsectors 8\n"
		"4321@1700000000.000009:thread_pool_submit pool 0x88 req 0x99 opaque 0x1\n"
		"4323@1700000000.000009:thread_pool_complete pool 0x88 req 0x99 opaque 0x1 ret 0\n"
		"4321@1700000000.000009:virtio_blk_req_complete vdev 0x55 req 0x77 status 0\n"
		"4321@1700000000.000010:virtio_notify vdev 0x55 vq 0x66\n"
		"4322@1700000000.000005:kvm_run_exit cpu_index 1, reason 2\n"
		"qemu-system-x86_64: other output\n"
		"1@1700000000.000020:qemu_mutex_lock\n";

	memset(a, 0, sizeof(*a));
	if (fx_mkdtemp(a->root, sizeof(a->root)) || fx_standard_archive(a->root, &o) ||
	    fx_write_kvm_snapshots(a->root, 2, 0) ||
	    fx_write(a->root, AR_QEMU_LOG, qemu_log, sizeof(qemu_log) - 1) ||
	    fx_write(a->root, "host/ftrace/tasks.tsv", tasks, sizeof(tasks) - 1))
		return -1;
	listing = a;
	if (nftw(a->root, add_file, 16, FTW_PHYS))
		return -1;
	qsort(a->rel, a->nr, sizeof(a->rel[0]), by_name);
	return 0;
}

void ar_archive_remove(struct ar_archive *a)
{
	size_t i;

	fx_rm_rf(a->root);
	for (i = 0; i < a->nr; i++)
		free(a->rel[i]);
	memset(a, 0, sizeof(*a));
}
