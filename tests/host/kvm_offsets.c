// SPDX-License-Identifier: GPL-2.0-only
/*
 * kvm_offsets.c - a VMM without a guest, for tests/e2e/kvm_tsc.sh: creates a
 * KVM VM and vCPUs through /dev/kvm, says "ready", waits until the file GO
 * exists, then sets known TSC offsets with KVM_SET_DEVICE_ATTR
 * (KVM_VCPU_TSC_OFFSET), one vCPU after the other, and logs each change as
 *
 *   vcpu <TAB> host TSC before <TAB> host TSC after <TAB> offset (signed)
 *
 * Then it lingers LINGER_MS (the collector's next snapshot) and exits.
 * Exit status 77 when this host cannot do it (no /dev/kvm, no TSC offset
 * attribute): the test is then skipped, with the reason on stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>
#include <linux/kvm.h>

#define MAX_VCPUS	64
#define STEP_MS		30
#define LINGER_MS	1500
#define SKIP		77
#define GO_WAIT_MS	60000

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int set_offset(int vcpu_fd, int64_t offset)
{
	struct kvm_device_attr attr = {
		.group = KVM_VCPU_TSC_CTRL,
		.attr = KVM_VCPU_TSC_OFFSET,
		.addr = (uint64_t)(uintptr_t)&offset,
	};

	return ioctl(vcpu_fd, KVM_SET_DEVICE_ATTR, &attr);
}

int main(int argc, char **argv)
{
	int vcpu_fd[MAX_VCPUS], kvm, vm, nr_vcpus, changes, i;
	struct kvm_device_attr probe = { .group = KVM_VCPU_TSC_CTRL, .attr = KVM_VCPU_TSC_OFFSET };
	FILE *log;

	if (argc != 5 || (nr_vcpus = atoi(argv[1])) < 1 || nr_vcpus > MAX_VCPUS ||
	    (changes = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: %s VCPUS CHANGES LOG GO\n", argv[0]);
		return 2;
	}
	kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm < 0) {
		fprintf(stderr, "skip: /dev/kvm: %s\n", strerror(errno));
		return SKIP;
	}
	vm = ioctl(kvm, KVM_CREATE_VM, 0);
	if (vm < 0) {
		fprintf(stderr, "skip: KVM_CREATE_VM: %s\n", strerror(errno));
		return SKIP;
	}
	for (i = 0; i < nr_vcpus; i++) {
		vcpu_fd[i] = ioctl(vm, KVM_CREATE_VCPU, i);
		if (vcpu_fd[i] < 0) {
			fprintf(stderr, "skip: KVM_CREATE_VCPU %d: %s\n", i, strerror(errno));
			return SKIP;
		}
	}
	if (ioctl(vcpu_fd[0], KVM_HAS_DEVICE_ATTR, &probe)) {
		fprintf(stderr, "skip: no KVM_VCPU_TSC_OFFSET attribute: %s\n", strerror(errno));
		return SKIP;
	}
	log = fopen(argv[3], "w");
	if (!log) {
		perror(argv[3]);
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (i = 0; access(argv[4], F_OK); i += 10) {
		if (i >= GO_WAIT_MS) {
			fprintf(stderr, "%s did not appear\n", argv[4]);
			return 1;
		}
		sleep_ms(10);
	}
	for (i = 0; i < changes; i++) {
		int v = i % nr_vcpus;
		/* Both signs, far from 0 and from each other. */
		int64_t offset = (i % 2 ? 1 : -1) * (int64_t)(i + 1) * 1000000007;
		unsigned int aux;
		uint64_t before = __rdtscp(&aux), after;

		if (set_offset(vcpu_fd[v], offset)) {
			fprintf(stderr, "KVM_SET_DEVICE_ATTR vcpu %d: %s\n", v, strerror(errno));
			return 1;
		}
		after = __rdtscp(&aux);
		fprintf(log, "%d\t%llu\t%llu\t%lld\n", v, (unsigned long long)before,
			(unsigned long long)after, (long long)offset);
		sleep_ms(STEP_MS);
	}
	if (fclose(log))
		return 1;
	sleep_ms(LINGER_MS);
	return 0;
}
