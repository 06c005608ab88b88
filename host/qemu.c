// SPDX-License-Identifier: GPL-2.0-only
/*
 * qemu.c - a QEMU process seen from /proc: alive, its threads, its
 * accelerator. A process (QEMU or another VMM) holding an "anon_inode:kvm-vm" fd runs under KVM;
 * a QEMU without one emulates (TCG).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "host/qemu.h"
#include "lib/fileio.h"

int hvt_qemu_kvm_vm_fds(pid_t pid, int *fds, int max)
{
	char dir[64], link[300], target[128];
	struct dirent *e;
	DIR *d;
	int found = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	d = opendir(dir);
	if (!d)
		return -1;
	while (found < max && (e = readdir(d))) {
		ssize_t n;

		if (e->d_name[0] == '.' || hvt_path(link, sizeof(link), "%s/%s", dir, e->d_name))
			continue;
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (!strcmp(target, "anon_inode:kvm-vm"))
			fds[found++] = atoi(e->d_name);
	}
	closedir(d);
	return found;
}

int hvt_qemu_comm(pid_t pid, char *buf, size_t size)
{
	char path[64], *text = NULL;
	size_t len;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if (hvt_read_file(path, 64, &text, &len)) {
		snprintf(buf, size, "?");
		return -1;
	}
	text[strcspn(text, "\n")] = '\0';
	snprintf(buf, size, "%s", text);
	free(text);
	return 0;
}

int hvt_qemu_open(struct hvt_qemu *q, pid_t pid, char *err, size_t errlen)
{
	char comm[32];

	memset(q, 0, sizeof(*q));
	q->pid = pid;
	q->pidfd = -1;
	if (hvt_qemu_comm(pid, comm, sizeof(comm))) {
		snprintf(err, errlen, "no process %d", (int)pid);
		return -1;
	}
	/* Any VMM holding a KVM VM runs under KVM; a QEMU without one emulates. */
	int vm_fd;

	if (hvt_qemu_kvm_vm_fds(pid, &vm_fd, 1) > 0)
		q->accel = "kvm";
	else
		q->accel = strncmp(comm, "qemu", 4) ? "unknown" : "tcg";
	q->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (q->pidfd < 0) {
		snprintf(err, errlen, "pidfd_open(%d): %s", (int)pid, strerror(errno));
		return -1;
	}
	hvt_qemu_scan_threads(q);
	return 0;
}

void hvt_qemu_close(struct hvt_qemu *q)
{
	if (q->pidfd >= 0)
		close(q->pidfd);
	q->pidfd = -1;
}

static int known(const struct hvt_qemu *q, pid_t tid)
{
	size_t i;

	for (i = 0; i < q->nr_tids; i++)
		if (q->tids[i] == tid)
			return 1;
	return 0;
}

/* QEMU names its vCPU threads "CPU N/ACCEL": vCPU N, or -1. */
static int vcpu_of_thread(pid_t pid, pid_t tid)
{
	char path[80], *comm = NULL;
	size_t len;
	int n = -1;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	if (!hvt_read_file(path, 64, &comm, &len) && len > 4 && !strncmp(comm, "CPU ", 4) &&
	    strchr(comm, '/'))
		n = atoi(comm + 4);
	free(comm);
	return n < HVT_QEMU_MAX_VCPUS ? n : -1;
}

int hvt_qemu_scan_threads(struct hvt_qemu *q)
{
	char path[64];
	struct dirent *e;
	DIR *d;
	int added = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)q->pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		pid_t tid = (pid_t)atoi(e->d_name);

		int vcpu;

		if (tid <= 0 || known(q, tid) || q->nr_tids == HVT_QEMU_MAX_THREADS)
			continue;
		q->tids[q->nr_tids++] = tid;
		added++;
		if (q->vcpu_source && !strcmp(q->vcpu_source, "qmp"))
			continue;
		vcpu = vcpu_of_thread(q->pid, tid);
		if (vcpu >= 0) {
			q->vcpu_tids[vcpu] = tid;
			q->vcpu_source = "proc";
		}
	}
	closedir(d);
	return added;
}
