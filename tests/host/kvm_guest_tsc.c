// SPDX-License-Identifier: GPL-2.0-only
/*
 * kvm_guest_tsc.c - a VMM that runs real guest code, for
 * tests/e2e/vcpu_windows.sh. Two modes:
 *
 *   run ROUNDS LOG GO
 *	Creates a KVM VM with one vCPU running a few real-mode instructions:
 *	rdtsc, then the TSC's two halves written to I/O port 0x10 (two exits
 *	to this VMM), then again. Says "ready", waits until the file GO
 *	exists, then runs ROUNDS rounds 1 ms apart, logging per round
 *
 *	  round <TAB> guest TSC <TAB> host TSC before KVM_RUN <TAB> after it
 *
 *	The guest TSC was read in guest mode, inside the KVM_RUN that the two
 *	host TSC values bracket: a real clock exchange, and a real guest event
 *	inside one of the vCPU's kvm_entry -> kvm_exit windows. Exit status
 *	77 when this host cannot run a guest (no /dev/kvm, KVM_RUN fails).
 *
 *   write ARCHIVE VM LOG [FORGED]
 *	Adds the guest side of that run to the archive `hvtrace record
 *	--qemu-pid` made of this VMM: a kernel trace with one event per round
 *	on CPU 0 at its guest TSC, the exchanges as sync.tsv, and info.json
 *	naming them. With FORGED, every 10th round adds an event stamped by
 *	this VMM between two rounds, when the vCPU was not in guest mode.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>
#include <linux/kvm.h>

#include "tests/unit/archive_fixture.h"

#define SKIP		77
#define GO_WAIT_MS	60000
#define CODE_GPA	0x1000
#define PORT		0x10
#define MAX_ROUNDS	100000

/* rdtsc; mov ecx, edx; mov dx, 0x10; out dx, eax; mov eax, ecx; out dx, eax; jmp 0x1000 */
static const uint8_t guest_code[] = {
	0x0f, 0x31, 0x66, 0x89, 0xd1, 0xba, PORT, 0x00, 0x66, 0xef,
	0x66, 0x89, 0xc8, 0x66, 0xef, 0xeb, 0xef,
};

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static uint64_t tsc(void)
{
	unsigned int aux;

	return __rdtscp(&aux);
}

struct vcpu {
	int fd;
	struct kvm_run *run;
};

static int skip(const char *what)
{
	fprintf(stderr, "skip: %s: %s\n", what, strerror(errno));
	return SKIP;
}

static int create(struct vcpu *v)
{
	struct kvm_userspace_memory_region mem = { .slot = 0, .guest_phys_addr = CODE_GPA,
						   .memory_size = 0x1000 };
	struct kvm_regs regs = { .rip = CODE_GPA, .rflags = 2 };
	struct kvm_sregs sregs;
	int kvm, vm, size;
	void *page;

	kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm < 0)
		return skip("/dev/kvm");
	vm = ioctl(kvm, KVM_CREATE_VM, 0);
	if (vm < 0)
		return skip("KVM_CREATE_VM");
	page = mmap(NULL, 0x1000, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return 1;
	memcpy(page, guest_code, sizeof(guest_code));
	mem.userspace_addr = (uint64_t)(uintptr_t)page;
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &mem))
		return skip("KVM_SET_USER_MEMORY_REGION");
	v->fd = ioctl(vm, KVM_CREATE_VCPU, 0);
	size = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (v->fd < 0 || size <= 0)
		return skip("KVM_CREATE_VCPU");
	v->run = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, v->fd, 0);
	if (v->run == MAP_FAILED)
		return skip("mmap of the vCPU");
	if (ioctl(v->fd, KVM_GET_SREGS, &sregs))
		return skip("KVM_GET_SREGS");
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	if (ioctl(v->fd, KVM_SET_SREGS, &sregs) || ioctl(v->fd, KVM_SET_REGS, &regs))
		return skip("KVM_SET_REGS");
	return 0;
}

/* Runs the vCPU to its next write to PORT: the value written, or -1. */
static int64_t run_to_out(struct vcpu *v)
{
	struct kvm_run *r = v->run;

	if (ioctl(v->fd, KVM_RUN, 0))
		return -1;
	if (r->exit_reason != KVM_EXIT_IO || r->io.port != PORT || r->io.size != 4)
		return -1;
	return *(uint32_t *)((char *)r + r->io.data_offset);
}

static int run(int rounds, const char *log_path, const char *go)
{
	struct vcpu v;
	int64_t lo, hi;
	FILE *log;
	int i, ret = create(&v);

	if (ret)
		return ret;
	/* One round before the recording: KVM_RUN must work here. */
	if (run_to_out(&v) < 0 || run_to_out(&v) < 0) {
		fprintf(stderr, "skip: KVM_RUN does not run the guest code here (exit reason "
			"%u)\n", v.run->exit_reason);
		return SKIP;
	}
	log = fopen(log_path, "w");
	if (!log)
		return 1;
	printf("ready\n");
	fflush(stdout);
	for (i = 0; access(go, F_OK); i += 10) {
		if (i >= GO_WAIT_MS)
			return 1;
		sleep_ms(10);
	}
	for (i = 0; i < rounds; i++) {
		uint64_t before = tsc(), after;

		lo = run_to_out(&v);
		after = tsc();
		hi = run_to_out(&v);
		if (lo < 0 || hi < 0) {
			fprintf(stderr, "round %d: unexpected exit %u\n", i, v.run->exit_reason);
			return 1;
		}
		fprintf(log, "%d\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", i,
			(uint64_t)hi << 32 | (uint64_t)lo, before, after);
		sleep_ms(1);
	}
	if (fclose(log))
		return 1;
	sleep_ms(1500);		/* the collector's next snapshot */
	return 0;
}

struct round {
	uint64_t guest, before, after;
};

static const uint8_t kernel_uuid[16] = { 0x6b, 0x76, 0x6d, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
					  12, 13 };

static int write_info(const char *root, const char *dir, const char *vm, int pid)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "%s/info.json", dir);
	return fx_printf(root, rel,
		"{ \"name\": \"%s\", \"qemu_pid\": %d, \"accel\": \"kvm\",\n"
		"  \"sync\": { \"file\": \"sync.tsv\" },\n"
		"  \"traces\": [ { \"id\": 0, \"layer\": \"kernel\", \"dir\": \"kernel\", "
		"\"domain\": \"guest_tsc\", \"freq_hz\": 0, \"uuid\": "
		"\"6b766d01-0203-0405-0607-08090a0b0c0d\", \"pid\": 0, \"comm\": \"\" } ],\n"
		"  \"streams\": [ { \"id\": 0, \"trace\": 0, \"file\": \"kernel/stream-0\", "
		"\"cpu\": 0, \"tid\": 0, \"lost\": 0, \"closed\": true } ],\n"
		"  \"finished\": true, \"end_reason\": \"the test VMM exited\" }\n", vm, pid);
}

static int write_sync(const char *root, const char *dir, const struct round *r, int n)
{
	char rel[256];
	int i;

	snprintf(rel, sizeof(rel), "%s/sync.tsv", dir);
	if (fx_printf(root, rel, "seq\thost_send\tguest_recv\tguest_send\thost_recv\tcpu_recv\t"
		      "cpu_send\n"))
		return -1;
	for (i = 0; i < n; i++) {
		char line[160];
		int len = snprintf(line, sizeof(line), "%d\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
				   "\t%" PRIu64 "\t0\t0\n", i, r[i].before, r[i].guest, r[i].guest,
				   r[i].after);

		if (fx_append(root, rel, line, (size_t)len))
			return -1;
	}
	return 0;
}

/* The guest's events: one per round; with @forged, a VMM stamp after every 10th. */
static int write_kernel(const char *root, const char *dir, const char *vm, const struct round *r,
			int n, bool forged)
{
	struct fx_event *ev = calloc((size_t)n * 2, sizeof(*ev));
	uint32_t *value = calloc((size_t)n * 2, sizeof(*value));
	char rel[256];
	size_t k = 0;
	int i, ret;

	if (!ev || !value)
		return -1;
	for (i = 0; i < n; i++) {
		value[k] = (uint32_t)i;
		ev[k] = (struct fx_event){ FX_ID_FAR, r[i].guest, 0, 0, &value[k], 4 };
		k++;
		/* the VMM's own TSC after the round: the vCPU was out of guest mode */
		if (forged && i % 10 == 9 && i + 1 < n) {
			value[k] = 1000000u + (uint32_t)i;
			ev[k] = (struct fx_event){ FX_ID_FAR, r[i].after + (r[i + 1].before -
						   r[i].after) / 2, 0, 0, &value[k], 4 };
			k++;
		}
	}
	snprintf(rel, sizeof(rel), "%s/kernel", dir);
	ret = fx_write_trace(root, rel, kernel_uuid, vm, HVT_LAYER_KERNEL, HVT_DOMAIN_GUEST_TSC, 0,
			     0);
	snprintf(rel, sizeof(rel), "%s/kernel/stream-0", dir);
	ret = ret || fx_write_stream(root, rel, kernel_uuid, 65536, 0, 0, ev, k);
	free(ev);
	free(value);
	return ret;
}

static int write_guest(const char *root, const char *vm, const char *log_path, bool forged)
{
	static struct round r[MAX_ROUNDS];
	char dir[128];
	int n = 0, idx, pid = 0;
	FILE *log = fopen(log_path, "r");

	if (!log) {
		perror(log_path);
		return 1;
	}
	while (n < MAX_ROUNDS && fscanf(log, "%d %" SCNu64 " %" SCNu64 " %" SCNu64, &idx,
					&r[n].guest, &r[n].before, &r[n].after) == 4)
		n++;
	fclose(log);
	if (n < 2) {
		fprintf(stderr, "%s: fewer than 2 rounds\n", log_path);
		return 1;
	}
	snprintf(dir, sizeof(dir), "vm/%s", vm);
	if (write_info(root, dir, vm, pid) || write_sync(root, dir, r, n) ||
	    write_kernel(root, dir, vm, r, n, forged)) {
		fprintf(stderr, "cannot write the guest layer into %s/%s\n", root, dir);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "run") && atoi(argv[2]) > 1 &&
	    atoi(argv[2]) <= MAX_ROUNDS)
		return run(atoi(argv[2]), argv[3], argv[4]);
	if ((argc == 5 || (argc == 6 && !strcmp(argv[5], "FORGED"))) && !strcmp(argv[1], "write"))
		return write_guest(argv[2], argv[3], argv[4], argc == 6);
	fprintf(stderr, "usage: %s run ROUNDS LOG GO\n"
		"       %s write ARCHIVE VM LOG [FORGED]\n", argv[0], argv[0]);
	return 2;
}
