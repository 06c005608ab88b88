// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_guest_link.c - libFuzzer target: the collector's side of the guest
 * link (host/vm_link.c, host/vm_store.c) against any bytes a guest may send.
 *
 * Each input is one guest (guest_link.h): a VM of its own in one archive,
 * linked by a socketpair; the collector reads what the input says and
 * answers. Beyond the sanitizers' findings, it aborts if the guest made the
 * collector write outside the VM's own directory, if a link the guest
 * broke is left open, if a guest lying about its clock (GL_CLOCK) made
 * the collector start more exchanges in a period than its bursts allow, or
 * if a stored packet holds an event its trace's registry file cannot
 * decode (what babeltrace2 would refuse).
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host/vm.h"
#include "lib/fileio.h"
#include "lib/log.h"
#include "lib/packet.h"
#include "lib/wire_io.h"
#include "tests/fuzz/guest_link.h"

static char root[64], vms[4200];
static struct hvt_archive_writer archive;
static size_t root_entries;

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static size_t count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	if (!d)
		abort();
	while ((e = readdir(d)))
		n++;
	closedir(d);
	return n;
}

static void cleanup(void)
{
	nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[256], path[128];

	(void)argc, (void)argv;
	hvt_log_mute();		/* every disconnection would say why */
	strcpy(root, "/tmp/hvtrace-fuzz-XXXXXX");
	if (!mkdtemp(root))
		abort();
	atexit(cleanup);
	snprintf(path, sizeof(path), "%s/archive", root);
	if (hvt_archive_writer_create(&archive, path, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		abort();
	}
	snprintf(vms, sizeof(vms), "%s/vm", archive.dir);
	if (hvt_mkdir_p(vms))
		abort();
	root_entries = count_entries(archive.dir);
	return 0;
}

/* Reads and drops what the collector sent; answers SYNC_REQs if @answer. */
static void guest_reads(int fd, struct hvt_frame_reader *r, int answer, struct hvt_vm *vm)
{
	struct hvt_frame f;
	const char *why;

	while (hvt_frame_reader_fill(r, fd) > 0)
		;
	while (hvt_frame_reader_next(r, 0, &f, &why) == 1) {
		struct hvt_w_sync_req req;
		struct hvt_w_sync_reply rep;

		if (!answer || f.hdr.type != HVT_W_SYNC_REQ)
			continue;
		memcpy(&req, f.payload, sizeof(req));
		rep = (struct hvt_w_sync_reply){ req.seq, req.host_send, req.host_send + 5100,
						 req.host_send + 5200, 0, 0 };
		if (hvt_wire_send(fd, HVT_W_SYNC_REPLY, 0, &rep, sizeof(rep)) == 0)
			hvt_vm_readable(vm);
	}
}

/* HELLO and the initial burst, as a well-behaved guest does them. */
static void handshake(struct hvt_vm *vm, int fd, struct hvt_frame_reader *r)
{
	struct hvt_w_hello h = { .version = HVT_WIRE_VERSION, .nr_cpus = 2, .tsc_khz = 2000000 };
	int i;

	if (hvt_wire_send(fd, HVT_W_HELLO, 0, &h, sizeof(h)))
		abort();
	hvt_vm_readable(vm);
	for (i = 0; i <= HVT_SYNC_BURST && vm->state != HVT_VM_RUNNING; i++)
		guest_reads(fd, r, 1, vm);
	if (vm->state != HVT_VM_RUNNING)
		abort();
}

/* The guest's bytes, in pieces the socket takes, each read by the collector. */
static void guest_sends(struct hvt_vm *vm, int fd, struct hvt_frame_reader *r,
			const uint8_t *data, size_t size)
{
	while (size && vm->state != HVT_VM_ENDED) {
		ssize_t n = write(fd, data, size);

		if (n <= 0 && errno != EAGAIN)
			break;
		if (n > 0) {
			data += n;
			size -= (size_t)n;
		}
		hvt_vm_readable(vm);
		guest_reads(fd, r, 0, vm);
	}
	if (vm->state != HVT_VM_ENDED)
		hvt_vm_readable(vm);
}

/* The most exchanges a period may start: its own, then its bursts (host/vm.h). */
#define GL_CLOCK_MAX_PER_PERIOD	(1 + HVT_RESYNC_MAX_BURSTS * (HVT_SYNC_BURST + 1))

/*
 * GL_CLOCK (guest_link.h): answers the SYNC_REQs waiting on @fd with made-up
 * guest stamps, taking GL_CLOCK_REPLY_BYTES of the input each, until the
 * input or the requests run out. Returns the requests answered.
 */
static unsigned int answer_lies(int fd, struct hvt_frame_reader *r, struct hvt_vm *vm,
				const uint8_t **data, size_t *size)
{
	unsigned int n = 0;
	struct hvt_frame f;
	const char *why;

	for (;;) {
		int got = 0;

		while (hvt_frame_reader_fill(r, fd) > 0)
			;
		while (hvt_frame_reader_next(r, 0, &f, &why) == 1) {
			struct hvt_w_sync_req req;
			struct hvt_w_sync_reply rep;
			uint16_t rate;
			int32_t off;

			if (f.hdr.type != HVT_W_SYNC_REQ || *size < GL_CLOCK_REPLY_BYTES)
				continue;
			memcpy(&req, f.payload, sizeof(req));
			memcpy(&rate, *data, sizeof(rate));
			memcpy(&off, *data + 2, sizeof(off));
			rep = (struct hvt_w_sync_reply){ req.seq, req.host_send, 0, 0, 0, 0 };
			rep.guest_recv = (uint64_t)((double)req.host_send * rate / 4096.0) +
					 (uint64_t)(int64_t)off;
			rep.guest_send = rep.guest_recv + (*data)[6] + 1;
			*data += GL_CLOCK_REPLY_BYTES;
			*size -= GL_CLOCK_REPLY_BYTES;
			if (++n > GL_CLOCK_MAX_PER_PERIOD)
				abort();	/* a guest turned the link into exchanges */
			if (hvt_wire_send(fd, HVT_W_SYNC_REPLY, 0, &rep, sizeof(rep)) == 0)
				hvt_vm_readable(vm);
			got = 1;
		}
		if (!got || vm->state == HVT_VM_ENDED)
			return n;
	}
}

/* Exchange periods, one after another, each answered with lies. */
static void clock_periods(struct hvt_vm *vm, int fd, struct hvt_frame_reader *r,
			  const uint8_t *data, size_t size)
{
	while (size >= GL_CLOCK_REPLY_BYTES && vm->state == HVT_VM_RUNNING) {
		vm->next_sync_ns = 0;		/* a period is due */
		hvt_vm_tick(vm);
		if (!answer_lies(fd, r, vm, &data, &size))
			break;
	}
}

/* Every packet of stream @id, as stored, decodes against its trace's registry file. */
static void stream_decodes(const struct hvt_vm *vm, unsigned int id)
{
	const struct hvt_vm_trace *t = &vm->traces[vm->streams[id]->trace];
	struct hvt_registry reg;
	char path[4400], err[160], *regs, *data;
	size_t regs_len, len, off;

	hvt_registry_init(&reg);
	if (hvt_path(path, sizeof(path), "%s/%s/hvtrace/registry", vm->dir, t->dir) ||
	    hvt_read_file(path, 1 << 24, &regs, &regs_len))
		abort();
	if (regs_len && hvt_registry_add(&reg, regs, regs_len, err, sizeof(err)) < 0)
		abort();	/* the collector stored a registry it cannot read back */
	if (hvt_path(path, sizeof(path), "%s/%s/stream-%u", vm->dir, t->dir, id) ||
	    hvt_read_file(path, 1 << 24, &data, &len))
		abort();
	for (off = 0; off < len;) {
		struct hvt_ctf_packet pkt;
		struct hvt_packet_walk w;

		if (hvt_packet_check(data + off, len - off, t->uuid, &pkt) ||
		    hvt_packet_events_check(data + off, &pkt, &reg, &w) != HVT_PACKET_EVENTS_OK)
			abort();	/* stored, and not readable */
		off += pkt.packet_size / 8;
	}
	free(data);
	free(regs);
	hvt_registry_free(&reg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A small stream quota, so that inputs reach it. */
	static const struct hvt_vm_limits limits = { 100, 1 << 20, 8, 0, 0 };
	static unsigned long count;
	struct hvt_vm *vm;
	struct hvt_frame_reader r;
	char name[32], err[256], dir[4300];
	unsigned int i;
	int sv[2];

	if (!size)
		return 0;
	vm = calloc(1, sizeof(*vm));
	snprintf(name, sizeof(name), "f%lu", count++);
	if (!vm || hvt_vm_init(vm, &archive, name, 0, "tcg", &limits, err, sizeof(err)) ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) ||
	    hvt_frame_reader_init(&r))
		abort();
	hvt_vm_attach(vm, sv[0]);
	if (data[0] == GL_TRACING || data[0] == GL_CLOCK)
		handshake(vm, sv[1], &r);
	if (data[0] == GL_CLOCK)
		clock_periods(vm, sv[1], &r, data + 1, size - 1);
	else
		guest_sends(vm, sv[1], &r, data + 1, size - 1);
	hvt_vm_tick(vm);
	if (vm->state == HVT_VM_ENDED && vm->fd >= 0)
		abort();	/* a broken link left open */
	hvt_vm_end(vm, "input done");
	for (i = 0; i < HVT_VM_MAX_STREAMS; i++)
		if (vm->streams[i])
			stream_decodes(vm, i);
	snprintf(dir, sizeof(dir), "%s", vm->dir);
	hvt_vm_free(vm);
	free(vm);
	close(sv[1]);
	hvt_frame_reader_free(&r);
	/* Nothing outside the VM's directory: the rest of the archive is as it was. */
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	if (count_entries(archive.dir) != root_entries || count_entries(vms) != 2)
		abort();
	return 0;
}
