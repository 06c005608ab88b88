// SPDX-License-Identifier: GPL-2.0-only
/*
 * kvm_tsc.c - KVM TSC parameter snapshots (kvm_tsc.h).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "clocksync/tsc_timeline.h"
#include "host/kvm_tsc.h"
#include "host/qemu.h"
#include "host/tsc.h"
#include "lib/archive_format.h"
#include "lib/fileio.h"
#include "lib/log.h"

#define DEBUGFS_ROOT	"/sys/kernel/debug"
#define DEBUGFS_MAGIC	0x64626720
#define MAX_VM_FDS	16

static void debugfs_setup(struct hvt_kvm_tsc *k)
{
	struct statfs sf;

	if (statfs(DEBUGFS_ROOT, &sf) || (unsigned long)sf.f_type != DEBUGFS_MAGIC) {
		if (mount("debugfs", DEBUGFS_ROOT, "debugfs", 0, NULL)) {
			hvt_warn("debugfs is not mounted and mounting it on %s failed (%s): no "
				 "KVM TSC snapshots, only the traced changes",
				 DEBUGFS_ROOT, strerror(errno));
			return;
		}
		hvt_debug("mounted debugfs on %s", DEBUGFS_ROOT);
	}
	if (access(DEBUGFS_ROOT "/kvm", R_OK)) {
		hvt_warn("no %s/kvm (%s): no KVM TSC snapshots, only the traced changes",
			 DEBUGFS_ROOT, strerror(errno));
		return;
	}
	snprintf(k->debugfs, sizeof(k->debugfs), "%s/kvm", DEBUGFS_ROOT);
}

int hvt_kvm_tsc_open(struct hvt_kvm_tsc *k, const char *vm_dir, pid_t pid, char *err,
		     size_t errlen)
{
	char path[4200];

	memset(k, 0, sizeof(*k));
	k->pid = pid;
	if (hvt_path(path, sizeof(path), "%s/kvm_tsc.tsv", vm_dir) ||
	    !(k->tsv = fopen(path, "wxe"))) {
		snprintf(err, errlen, "cannot create %s/kvm_tsc.tsv: %s", vm_dir, strerror(errno));
		return -1;
	}
	fputs(HVT_KVM_TSC_TSV_HEADER "\n", k->tsv);
	debugfs_setup(k);
	return fflush(k->tsv) ? -1 : 0;
}

static void put_row(struct hvt_kvm_tsc *k, uint64_t before, uint64_t after,
		    enum hvt_tsc_source src, int vm_fd, int vcpu, uint64_t offset,
		    uint64_t ratio, uint64_t frac)
{
	fprintf(k->tsv, "%" PRIu64 "\t%" PRIu64 "\t%d\t%d\t%d\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n",
		before, after, (int)src, vm_fd, vcpu, offset, ratio, frac);
	k->rows++;
}

/* A debugfs number: tsc-offset is signed, the ratio files unsigned. */
static int read_number(const char *dir, const char *file, uint64_t *v)
{
	char path[4400], *text = NULL, *end;
	size_t len;
	int ret = -1;

	if (hvt_path(path, sizeof(path), "%s/%s", dir, file) ||
	    hvt_read_file(path, 64, &text, &len))
		return -1;
	errno = 0;
	if (text[0] == '-')
		*v = (uint64_t)strtoll(text, &end, 10);
	else
		*v = strtoull(text, &end, 10);
	if (!errno && end != text && (*end == '\n' || !*end))
		ret = 0;
	free(text);
	return ret;
}

static void snapshot_debugfs_vcpu(struct hvt_kvm_tsc *k, const char *dir, int vm_fd, int vcpu)
{
	uint64_t before, after, offset, ratio = 0, frac = 0;

	before = hvt_host_tsc();
	if (read_number(dir, "tsc-offset", &offset))
		return;		/* the vCPU is going away */
	/* Only where the CPU scales; 0 0 means "not scaled". */
	if (read_number(dir, "tsc-scaling-ratio", &ratio) ||
	    read_number(dir, "tsc-scaling-ratio-frac-bits", &frac))
		ratio = frac = 0;
	after = hvt_host_tsc();
	put_row(k, before, after, HVT_TSC_SRC_DEBUGFS, vm_fd, vcpu, offset, ratio, frac);
}

static void snapshot_debugfs(struct hvt_kvm_tsc *k, int vm_fd)
{
	char dir[4200], vdir[4400];
	struct dirent *e;
	DIR *d;

	if (hvt_path(dir, sizeof(dir), "%s/%d-%d", k->debugfs, (int)k->pid, vm_fd))
		return;
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		char *end;
		long id;

		if (strncmp(e->d_name, "vcpu", 4))
			continue;
		id = strtol(e->d_name + 4, &end, 10);
		if (*end || end == e->d_name + 4 || id < 0 ||
		    hvt_path(vdir, sizeof(vdir), "%s/%s", dir, e->d_name))
			continue;
		snapshot_debugfs_vcpu(k, vdir, vm_fd, (int)id);
	}
	closedir(d);
}

int hvt_kvm_tsc_snapshot(struct hvt_kvm_tsc *k)
{
	int vm_fds[MAX_VM_FDS], n, i;

	if (!k->tsv || !k->debugfs[0])
		return 0;
	n = hvt_qemu_kvm_vm_fds(k->pid, vm_fds, MAX_VM_FDS);
	if (n < 0)
		return 0;	/* the process is gone: nothing more to read */
	for (i = 0; i < n; i++)	/* debugfs names a VM <pid>-<vm fd> */
		snapshot_debugfs(k, vm_fds[i]);
	k->snapshots++;
	if (fflush(k->tsv)) {
		hvt_err("cannot write kvm_tsc.tsv: %s", strerror(errno));
		return -1;
	}
	return 0;
}

void hvt_kvm_tsc_close(struct hvt_kvm_tsc *k)
{
	if (k->tsv)
		fclose(k->tsv);
	k->tsv = NULL;
}
