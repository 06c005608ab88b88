// SPDX-License-Identifier: GPL-2.0-only
/*
 * guest_pages.c - a guest's ftrace pages with known TSC values, for a guest
 * trace.dat that `trace-cmd restore` makes (tests/e2e/kvm_tsc.sh).
 *
 *   hvtrace-guest-pages DIR FORMAT VCPUS
 *
 * Reads lines "VCPU HOST_TSC GUEST_TSC" from standard input and writes
 * DIR/cpuN.raw for N < VCPUS: one 4096-byte ring-buffer page per line
 * (each page carries its own absolute timestamp, so a guest TSC may go
 * back where KVM's offset did), holding one record of the
 * kvm_write_tsc_offset event whose format file is FORMAT (the host's: its
 * id and field offsets), stamped GUEST_TSC, with vcpu_id N,
 * previous_tsc_offset HOST_TSC (where the host timeline must place it) and
 * next_tsc_offset GUEST_TSC. The record only borrows that event's layout.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <hvtrace/compat.h>

#define PAGE		4096u
#define MAX_VCPUS	64

struct layout {
	unsigned int id, vcpu, prev, next, size;	/* offsets; size of the record */
};

/* The id and the three fields' offsets from the format file; -1 if missing. */
static int read_format(const char *path, struct layout *l)
{
	char line[512], *semi, *name;
	unsigned int off, size, found = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	memset(l, 0, sizeof(*l));
	while (fgets(line, sizeof(line), f)) {
		/* "ID: 83", "\tfield:unsigned int vcpu_id;\toffset:8;\tsize:4;\tsigned:0;" */
		if (sscanf(line, "ID: %u", &l->id) == 1)
			found |= 1;
		semi = strchr(line, ';');
		if (!strstr(line, "field:") || !semi ||
		    sscanf(semi + 1, " offset:%u; size:%u;", &off, &size) != 2)
			continue;
		*semi = '\0';
		name = strrchr(line, ' ') ? strrchr(line, ' ') + 1 : line;
		if (!strcmp(name, "vcpu_id") && size == 4)
			l->vcpu = off, found |= 2;
		else if (!strcmp(name, "previous_tsc_offset") && size == 8)
			l->prev = off, found |= 4;
		else if (!strcmp(name, "next_tsc_offset") && size == 8)
			l->next = off, found |= 8;
		if (off + size > l->size)
			l->size = off + size;
	}
	fclose(f);
	l->size = (l->size + 3) & ~3u;
	return found == 15 && l->size <= 112 ? 0 : -1;
}

int main(int argc, char **argv)
{
	static unsigned char page[PAGE];
	FILE *out[MAX_VCPUS] = { 0 };
	unsigned long vcpus;
	struct layout l;
	uint64_t host, guest;
	unsigned int v;
	char path[4200];

	if (argc != 4 || (vcpus = strtoul(argv[3], NULL, 10)) == 0 || vcpus > MAX_VCPUS) {
		fprintf(stderr, "usage: %s DIR FORMAT VCPUS < lines 'VCPU HOST_TSC GUEST_TSC'\n",
			argv[0]);
		return 2;
	}
	if (read_format(argv[2], &l)) {
		fprintf(stderr, "%s: not a kvm_write_tsc_offset format\n", argv[2]);
		return 1;
	}
	for (v = 0; v < vcpus; v++) {
		snprintf(path, sizeof(path), "%s/cpu%u.raw", argv[1], v);
		out[v] = fopen(path, "w");
		if (!out[v]) {
			perror(path);
			return 1;
		}
	}
	while (scanf("%u %" SCNu64 " %" SCNu64, &v, &host, &guest) == 3) {
		uint16_t type = (uint16_t)l.id;

		if (v >= vcpus) {
			fprintf(stderr, "vcpu %u out of range\n", v);
			return 1;
		}
		memset(page, 0, sizeof(page));
		hvt_put_u64(page, guest);			/* the page's time stamp */
		hvt_put_u64(page + 8, 4 + l.size);		/* commit: bytes of data */
		hvt_put_u32(page + 16, l.size / 4);		/* type_len, time delta 0 */
		memcpy(page + 20, &type, 2);
		hvt_put_u32(page + 20 + l.vcpu, v);
		hvt_put_u64(page + 20 + l.prev, host);
		hvt_put_u64(page + 20 + l.next, guest);
		if (fwrite(page, 1, sizeof(page), out[v]) != sizeof(page)) {
			perror("write");
			return 1;
		}
	}
	for (v = 0; v < vcpus; v++)
		if (fclose(out[v]))
			return 1;
	return 0;
}
