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
#include "host/host_tsc.h"
#include "lib/archive_format.h"
#include "lib/fileio.h"
#include "lib/grow.h"
#include "lib/log.h"

#define DEBUGFS_ROOT	"/sys/kernel/debug"
#define DEBUGFS_MAGIC	0x64626720
#define MAX_VM_FDS	16

int hvt_debugfs_mount(void)
{
	struct statfs sf;

	if (!statfs(DEBUGFS_ROOT, &sf) && (unsigned long)sf.f_type == DEBUGFS_MAGIC)
		return 0;
	if (mount("debugfs", DEBUGFS_ROOT, "debugfs", 0, NULL))
		return -1;
	hvt_debug("mounted debugfs on %s", DEBUGFS_ROOT);
	return 0;
}

static void debugfs_setup(struct hvt_kvm_tsc *k)
{
	if (hvt_debugfs_mount()) {
		hvt_warn("debugfs is not mounted and mounting it on %s failed (%s): no "
			 "KVM TSC snapshots, only the traced changes", DEBUGFS_ROOT, strerror(errno));
		return;
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
	char path[HVT_PATH_LEN];

	memset(k, 0, sizeof(*k));
	k->pid = pid;
	if (hvt_path(path, sizeof(path), "%s/kvm_tsc.tsv", vm_dir) ||
	    !(k->tsv = fopen(path, "wxe"))) {
		snprintf(err, errlen, "cannot create %s/kvm_tsc.tsv: %s", vm_dir, strerror(errno));
		return -1;
	}
	fputs(HVT_KVM_TSC_TSV_HEADER "\n", k->tsv);
	if (fflush(k->tsv)) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	debugfs_setup(k);
	return 0;
}

/* The last values written for (@vm_fd, @vcpu); NULL if out of memory. */
static struct hvt_kvm_tsc_last *last_of(struct hvt_kvm_tsc *k, int vm_fd, int vcpu)
{
	struct hvt_kvm_tsc_last *l;
	size_t i;

	for (i = 0; i < k->nr_last; i++)
		if (k->last[i].vm_fd == vm_fd && k->last[i].vcpu == vcpu)
			return &k->last[i];
	l = hvt_grow(k->last, k->nr_last, &k->cap_last, sizeof(*k->last));
	if (!l)
		return NULL;
	k->last = l;
	l = &k->last[k->nr_last++];
	*l = (struct hvt_kvm_tsc_last){ .vm_fd = vm_fd, .vcpu = vcpu, .written = UINT64_MAX };
	return l;
}

/*
 * A row when the values changed, on every HVT_KVM_TSC_KEEPALIVE-th snapshot
 * and on the last: the file grows with the changes, not with the time.
 */
static void put_row(struct hvt_kvm_tsc *k, uint64_t before, uint64_t after,
		    enum hvt_tsc_source src, int vm_fd, int vcpu, uint64_t offset,
		    uint64_t ratio, uint64_t frac)
{
	struct hvt_kvm_tsc_last *l = last_of(k, vm_fd, vcpu);

	if (l && l->written != UINT64_MAX && !k->final && l->offset == offset &&
	    l->ratio == ratio && l->frac == frac && k->snapshots - l->written < HVT_KVM_TSC_KEEPALIVE)
		return;
	if (l)
		*l = (struct hvt_kvm_tsc_last){ vm_fd, vcpu, offset, ratio, frac, k->snapshots };
	fprintf(k->tsv, "%" PRIu64 "\t%" PRIu64 "\t%d\t%d\t%d\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n",
		before, after, (int)src, vm_fd, vcpu, offset, ratio, frac);
	k->rows++;
}

/* A debugfs number: tsc-offset is signed, the ratio files unsigned. */
static int read_number(const char *dir, const char *file, uint64_t *v)
{
	char path[HVT_PATH_LEN], *text = NULL, *end;
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
	if ((ratio && (frac > 63 || ratio != 1ull << frac)) ||
	    (k->vcpus_read && (int64_t)offset != k->offset))
		k->uniform = false;
	k->offset = (int64_t)offset;
	k->vcpus_read++;
}

/*
 * KVM names a VM's directory after the thread that created it and the fd:
 * "<tid>-<fd>". Usually the main thread (tid = pid); else any of the
 * process's threads with that fd.
 */
static DIR *open_vm_dir(struct hvt_kvm_tsc *k, int vm_fd, char *dir, size_t len)
{
	char task[64];
	struct dirent *e;
	DIR *d, *all;
	int tid, fd;

	if (!hvt_path(dir, len, "%s/%d-%d", k->debugfs, (int)k->pid, vm_fd) &&
	    (d = opendir(dir)))
		return d;
	all = opendir(k->debugfs);
	d = NULL;
	while (all && !d && (e = readdir(all))) {
		if (sscanf(e->d_name, "%d-%d", &tid, &fd) != 2 || fd != vm_fd || tid <= 0)
			continue;
		snprintf(task, sizeof(task), "/proc/%d/task/%d", (int)k->pid, tid);
		if (!access(task, F_OK) && !hvt_path(dir, len, "%s/%s", k->debugfs, e->d_name))
			d = opendir(dir);
	}
	if (all)
		closedir(all);
	if (!d && !k->warned_dir)
		hvt_warn("no debugfs directory for KVM VM fd %d of process %d under %s: no "
			 "snapshots of its TSC offsets", vm_fd, (int)k->pid, k->debugfs);
	k->warned_dir = k->warned_dir || !d;
	return d;
}

static void snapshot_debugfs(struct hvt_kvm_tsc *k, int vm_fd)
{
	char dir[HVT_PATH_LEN], vdir[HVT_PATH_LEN];
	struct dirent *e;
	DIR *d = open_vm_dir(k, vm_fd, dir, sizeof(dir));

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

int hvt_kvm_tsc_snapshot(struct hvt_kvm_tsc *k, bool final)
{
	int vm_fds[MAX_VM_FDS], n, i;

	if (!k->tsv || !k->debugfs[0])
		return 0;
	n = hvt_qemu_kvm_vm_fds(k->pid, vm_fds, MAX_VM_FDS);
	if (n < 0)
		return 0;	/* the process is gone: nothing more to read */
	k->final = final;
	k->uniform = true;
	k->vcpus_read = 0;
	for (i = 0; i < n; i++)
		snapshot_debugfs(k, vm_fds[i]);
	/* vCPU ids are per VM: with several, "every vCPU" means nothing */
	k->uniform = k->uniform && n == 1 && k->vcpus_read > 0;
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
	free(k->last);
	k->last = NULL;
	k->nr_last = k->cap_last = 0;
}
