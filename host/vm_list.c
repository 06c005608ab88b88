// SPDX-License-Identifier: GPL-2.0-only
/*
 * vm_list.c - `hvtrace record --list`: the VMs this host runs and how to
 * record each. Three sources, each usable alone: KVM's debugfs (one
 * directory <pid>-<vm fd> per VM, also those of VMMs other than QEMU),
 * QEMU processes without a KVM VM (TCG), and libvirt's running domains.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <hvtrace/wire.h>

#include "host/ftrace_capture.h"
#include "host/kvm_tsc.h"
#include "host/libvirt.h"
#include "host/qemu.h"
#include "host/vm_list.h"
#include "lib/fileio.h"

#define KVM_DEBUGFS "/sys/kernel/debug/kvm"

static unsigned int count_vcpus(const char *vm_dir)
{
	char path[300];
	struct dirent *e;
	unsigned int n = 0;
	DIR *d;

	if (hvt_path(path, sizeof(path), "%s/%s", KVM_DEBUGFS, vm_dir))
		return 0;
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d)))
		n += !strncmp(e->d_name, "vcpu", 4);
	closedir(d);
	return n;
}

/* KVM VMs from debugfs: how many were listed, -1 if debugfs has no kvm directory. */
static int list_kvm(FILE *out)
{
	struct dirent *e;
	int n = 0;
	DIR *d;

	hvt_debugfs_mount();	/* as record does: a fresh host may not have it yet */
	d = opendir(KVM_DEBUGFS);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char comm[32];
		int pid, fd;

		if (sscanf(e->d_name, "%d-%d", &pid, &fd) != 2 || pid <= 0)
			continue;
		if (!n++)
			fprintf(out, "KVM VMs (%s):\n", KVM_DEBUGFS);
		hvt_qemu_comm(pid, comm, sizeof(comm));
		fprintf(out, "  pid %-8d %-16s vm fd %-4d %2u vCPUs   hvtrace record --qemu-pid %d\n",
			pid, comm, fd, count_vcpus(e->d_name), pid);
	}
	closedir(d);
	return n;
}

/* QEMU processes that hold no KVM VM: they emulate (TCG). */
static int list_tcg(FILE *out)
{
	struct dirent *e;
	int n = 0;
	DIR *d = opendir("/proc");

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		pid_t pid = (pid_t)atoi(e->d_name);
		char comm[32];
		int vm_fd;

		if (pid <= 0)
			continue;
		hvt_qemu_comm(pid, comm, sizeof(comm));
		if (strncmp(comm, "qemu-system", 11) || hvt_qemu_kvm_vm_fds(pid, &vm_fd, 1) != 0)
			continue;
		if (!n++)
			fprintf(out, "QEMU without KVM (TCG):\n");
		fprintf(out, "  pid %-8d %-16s %-19s hvtrace record --qemu-pid %d\n", (int)pid, comm,
			"", (int)pid);
	}
	closedir(d);
	return n;
}

static int list_libvirt(FILE *out, const char *uri, bool asked)
{
	struct hvt_libvirt_domain *doms;
	struct hvt_libvirt *lv;
	char err[512];
	int i, n;

	lv = hvt_libvirt_open(uri, err, sizeof(err));
	if (!lv) {
		if (asked)
			fprintf(out, "libvirt: %s\n", err);
		return asked ? -1 : 0;
	}
	n = hvt_libvirt_running(lv, &doms, err, sizeof(err));
	if (n < 0) {
		fprintf(out, "libvirt: %s\n", err);
		hvt_libvirt_close(lv);
		return -1;
	}
	fprintf(out, "libvirt domains (%s):%s\n", uri ? uri : HVT_LIBVIRT_DEFAULT_URI,
		n ? "" : " none running");
	for (i = 0; i < n; i++) {
		struct hvt_libvirt_vm vm;
		bool ok = !hvt_libvirt_lookup(lv, doms[i].name, false, &vm, err, sizeof(err));

		if (!ok)
			fprintf(out, "  %-24s (cannot be looked up: %s)\n", doms[i].name, err);
		else if (vm.channel[0])
			fprintf(out, "  %-24s pid %-8d channel %s   hvtrace record --vm %s%s%s\n",
				doms[i].name, (int)vm.qemu_pid, HVT_WIRE_PORT_NAME, doms[i].name,
				uri ? " --connect " : "", uri ? uri : "");
		else	/* --vm needs the channel; --all records the host side alone */
			fprintf(out, "  %-24s pid %-8d no %s channel: host layer only, with "
				"hvtrace record --all%s%s\n", doms[i].name, (int)vm.qemu_pid,
				HVT_WIRE_PORT_NAME, uri ? " --connect " : "", uri ? uri : "");
	}
	hvt_libvirt_free_domains(doms, n);
	hvt_libvirt_close(lv);
	return n;
}

int hvt_vm_list(FILE *out, const char *uri)
{
	int kvm = list_kvm(out), tcg = list_tcg(out);
	int lv = list_libvirt(out, uri, uri != NULL);

	if (kvm < 0)
		fprintf(out, "KVM VMs: %s is not readable (debugfs mounted? root?)\n", KVM_DEBUGFS);
	else if (!kvm)
		fprintf(out, "KVM VMs: none\n");
	if (!tcg && kvm <= 0 && lv <= 0)
		fprintf(out, "no VM found on this host\n");
	hvt_capture_list_stale(out);
	return lv < 0 && uri ? 1 : 0;
}
