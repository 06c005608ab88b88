// SPDX-License-Identifier: GPL-2.0-only
/*
 * archive_fixture.c - synthetic hvtrace archives (archive_fixture.h).
 *
 * The standard archive, times in ns since the trace start (host TSC at
 * 2 GHz from FX_T0; guest TSC = host TSC + FX_OFFSET):
 *
 *   ns          layer   stream (index)          event
 *   1234567     host    cpu1.raw (1)            sched_switch qemu-system-x86 -> swapper/1
 *   1240000     kernel  kernel/stream-0 (2)     sched_switch hvdemo -> swapper/0
 *   1300000     host    cpu1.raw                sched_switch swapper/1 -> qemu-system-x86
 *   1300000     kernel  kernel/stream-0         sched_switch swapper/0 -> hvdemo
 *   1300000     kernel  kernel/stream-1 (3)     sched_switch swapper/1 -> swapper/1
 *   1300000     user    user-1/stream-0 (4)     hvdemo:send round=3 to_tid=77
 *   100000000   kernel  kernel/stream-0         test:far (extended header)
 *   200000000   host    cpu1.raw                sched_switch (after a time extend)
 *
 * which is also the merged order (four-way tie at 1300000). cpu0.raw exists
 * and is empty; the host rows are absent without fx_options.ftrace.
 */
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hvtrace/abi.h>
#include <hvtrace/ringbuf.h>
#include "lib/fileio.h"
#include "lib/event_registry.h"
#include "lib/tsdl.h"
#include "lib/archive_format.h"
#include "tests/unit/archive_fixture.h"

HVT_EVENT_FIELD_TABLE(fx_sched_switch_fields, FX_SCHED_SWITCH_FIELDS);
HVT_EVENT_FIELD_TABLE(fx_send_fields, FX_SEND_FIELDS);
HVT_EVENT_FIELD_TABLE(fx_sync_end_fields, FX_SYNC_END_FIELDS);
HVT_EVENT_FIELD_TABLE(fx_block_rq_issue_fields, FX_BLOCK_RQ_ISSUE_FIELDS);
HVT_EVENT_FIELD_TABLE(fx_block_rq_complete_fields, FX_BLOCK_RQ_COMPLETE_FIELDS);

static const struct hvt_reg_field fx_kinds_fields[] = {
	{ "a", HVT_FIELD_INT, 8, 0, 0, 0, "" },
	{ "b", HVT_FIELD_INT, 16, HVT_FIELD_F_SIGNED, 0, 0, "" },
	{ "c", HVT_FIELD_INT, 32, HVT_FIELD_F_HEX, 0, 0, "" },
	{ "d", HVT_FIELD_INT, 64, HVT_FIELD_F_SIGNED, 0, 0, "" },
	{ "s", HVT_FIELD_STRING, 8, 0, 0, 0, "" },
	{ "arr", HVT_FIELD_ARRAY, 16, 0, 0, 3, "" },
	{ "data", HVT_FIELD_BLOB, 8, 0, 0, 0, "raw" },
};

static const struct hvt_reg_field fx_far_fields[] = {
	{ "value", HVT_FIELD_INT, 32, 0, 0, 0, "" },
};

static const uint8_t kernel_uuid[16] = { 0x5c, 0x0f, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14 };
static const uint8_t user_uuid[16] = { 0xaa, 0xbb, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15 };
static const uint8_t raw_uuid[16] = { 0xcc, 0xdd, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16 };

/* This kernel's events/header_page and sched_switch format (6.x, x86-64). */
static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static const char header_event[] =
	"# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n\n\tpadding     : type == 29\n\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n\tdata max type_len  == 28\n";

#define FX_HYPERCALL_ID	114
static const char kvm_hypercall_format[] =
	"name: kvm_hypercall\nID: 114\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:unsigned long nr;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long a0;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long a1;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long a2;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long a3;\toffset:40;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"nr 0x%lx a0 0x%lx a1 0x%lx a2 0x%lx a3 0x%lx\", REC->nr, REC->a0, "
	"REC->a1, REC->a2, REC->a3\n";

#define FX_TSC_WRITE_ID	83
static const char kvm_write_tsc_offset_format[] =
	"name: kvm_write_tsc_offset\nID: 83\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:unsigned int vcpu_id;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:__u64 previous_tsc_offset;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:__u64 next_tsc_offset;\toffset:24;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"vcpu=%u prev=%llu next=%llu\", REC->vcpu_id, REC->previous_tsc_offset, "
	"REC->next_tsc_offset\n";

#define FX_KVM_ENTRY_ID	115
static const char kvm_entry_format[] =
	"name: kvm_entry\nID: 115\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:unsigned int vcpu_id;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long rip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:bool immediate_exit;\toffset:24;\tsize:1;\tsigned:0;\n"
	"\tfield:u32 intr_info;\toffset:28;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 error_code;\toffset:32;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"vcpu %u, rip 0x%lx intr_info 0x%08x error_code 0x%08x%s\", REC->vcpu_id, "
	"REC->rip, REC->intr_info, REC->error_code, REC->immediate_exit ? \"[immediate exit]\" : "
	"\"\"\n";

/* kvm_exit's fields, without the exit reason's long symbol table. */
#define FX_KVM_EXIT_ID	103
static const char kvm_exit_format[] =
	"name: kvm_exit\nID: 103\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:unsigned int exit_reason;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long guest_rip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 isa;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 info1;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 info2;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 intr_info;\toffset:48;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 error_code;\toffset:52;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int vcpu_id;\toffset:56;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 requests;\toffset:64;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"vcpu %u reason %u rip 0x%lx\", REC->vcpu_id, REC->exit_reason, "
	"REC->guest_rip\n";

#define FX_SWITCH_ID	372
static const char sched_switch_format[] =
	"name: sched_switch\nID: 372\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s "
	"next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, "
	"(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 "
	"| 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)) ? __print_flags(REC->prev_state "
	"& ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | "
	"0x00000020 | 0x00000040) + 1) << 1) - 1), \"|\", { 0x00000001, \"S\" }, { 0x00000002, "
	"\"D\" }, { 0x00000004, \"T\" }, { 0x00000008, \"t\" }, { 0x00000010, \"X\" }, "
	"{ 0x00000020, \"Z\" }, { 0x00000040, \"P\" }, { 0x00000080, \"I\" }) : \"R\", "
	"REC->prev_state & (((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | "
	"0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) ? \"+\" : \"\", REC->next_comm, "
	"REC->next_pid, REC->next_prio\n";

/* --- files ------------------------------------------------------------- */

int fx_mkdtemp(char *root, size_t len)
{
	if (snprintf(root, len, "/tmp/hvtrace-test-XXXXXX") >= (int)len)
		return -1;
	return mkdtemp(root) ? 0 : -1;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void fx_rm_rf(const char *root)
{
	if (root[0] && strncmp(root, "/tmp/hvtrace-test-", 18) == 0)
		nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static int open_rel(const char *root, const char *rel, int flags, char *path, size_t len)
{
	char *slash;

	if (hvt_path(path, len, "%s/%s", root, rel))
		return -1;
	slash = strrchr(path, '/');
	*slash = '\0';
	if (hvt_mkdir_p(path))
		return -1;
	*slash = '/';
	return open(path, flags | O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
}

static int write_flags(const char *root, const char *rel, const void *data, size_t len,
		       int flags)
{
	char path[4096];
	int fd = open_rel(root, rel, flags, path, sizeof(path)), ret;

	if (fd < 0)
		return -1;
	ret = hvt_write_all(fd, data, len);
	close(fd);
	return ret;
}

int fx_write(const char *root, const char *rel, const void *data, size_t len)
{
	return write_flags(root, rel, data, len, O_TRUNC);
}

int fx_append(const char *root, const char *rel, const void *data, size_t len)
{
	return write_flags(root, rel, data, len, O_APPEND);
}

/* Replaces the first @from in file @rel with @to; -1 if it is not there. */
static int replace_in(const char *root, const char *rel, const char *from, const char *to)
{
	char path[512], *text, *at, *out;
	size_t len;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (hvt_read_file(path, 1 << 20, &text, &len))
		return -1;
	at = strstr(text, from);
	if (!at || asprintf(&out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from)) < 0) {
		free(text);
		return -1;
	}
	ret = fx_write(root, rel, out, strlen(out));
	free(out);
	free(text);
	return ret;
}

int fx_mark_untraced(const char *root, unsigned int processes, unsigned int threads)
{
	char to[256];

	snprintf(to, sizeof(to), "\"comm\": \"hvdemo\", \"untraced_threads\": %u }", threads);
	if (replace_in(root, "vm/demo/info.json", "\"comm\": \"hvdemo\" }", to))
		return -1;
	snprintf(to, sizeof(to), "\"untraced_processes\": [ { \"pid\": 4711, \"uid\": 1000, "
		 "\"comm\": \"worker\", \"reason\": \"uid share of trace ids\" } ],\n"
		 "  \"untraced_processes_total\": %u, \"finished\"", processes);
	return replace_in(root, "vm/demo/info.json", "\"finished\"", to);
}

int fx_printf(const char *root, const char *rel, const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;
	int n, ret;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	ret = fx_write(root, rel, text, (size_t)n);
	free(text);
	return ret;
}

/* --- guest streams ----------------------------------------------------- */

/* Copies out every closed packet as it stands, as the agent does. */
static void drain(struct hvt_rb *rb, struct hvt_rb_cons *cons, FILE *out)
{
	while (cons->consumed < rb->prod->produced) {
		unsigned char *slot = hvt_rb_slot(rb->data, rb->subbuf_size, rb->nr_subbufs,
						  cons->consumed);
		uint64_t bits = hvt_get_u64(slot + offsetof(struct hvt_ctf_packet, content_size));

		fwrite(slot, 1, bits / 8, out);
		cons->consumed++;
	}
}

/* Events from @next into @out, packet by packet, through the real producer. */
static void produce(const uint8_t uuid[16], uint32_t subbuf_size, uint32_t cpu_id,
		    uint64_t instance, size_t n, fx_event_fn next, void *ctx, FILE *out)
{
	struct hvt_rb_prod prod;
	struct hvt_rb_cons cons;
	struct hvt_rb rb;
	unsigned char *data = calloc(2, subbuf_size);
	size_t i;

	memset(&prod, 0, sizeof(prod));
	memset(&cons, 0, sizeof(cons));
	memset(&rb, 0, sizeof(rb));
	if (!data)
		abort();
	hvt_rb_init(&rb, &prod, &cons, data, subbuf_size, 2);
	rb.cpu_id = cpu_id;
	rb.stream_instance_id = instance;
	memcpy(rb.uuid, uuid, 16);
	for (i = 0; i < n; i++) {
		struct fx_event ev;
		__u64 end;
		unsigned char *p;

		next(i, ctx, &ev);
		p = hvt_rb_reserve(&rb, ev.id, ev.ts, ev.cpu, ev.tid, ev.len, &end);
		if (!p)
			abort();	/* the fixture drains after every event */
		memcpy(p, ev.payload, ev.len);
		hvt_rb_commit(&rb, ev.ts, end);
		drain(&rb, &cons, out);
	}
	hvt_rb_close_packet(&rb);
	drain(&rb, &cons, out);
	free(data);
}

static void from_array(size_t i, void *ctx, struct fx_event *ev)
{
	*ev = ((const struct fx_event *)ctx)[i];
}

unsigned char *fx_make_stream(const uint8_t uuid[16], uint32_t subbuf_size, uint32_t cpu_id,
			      uint64_t instance, const struct fx_event *ev, size_t n,
			      size_t *len)
{
	char *buf = NULL;
	FILE *out = open_memstream(&buf, len);

	if (!out)
		abort();
	produce(uuid, subbuf_size, cpu_id, instance, n, from_array, (void *)ev, out);
	fclose(out);
	return (unsigned char *)buf;
}

int fx_write_stream_gen(const char *root, const char *rel, const uint8_t uuid[16],
			uint32_t subbuf_size, uint32_t cpu_id, uint64_t instance, size_t n,
			fx_event_fn next, void *ctx)
{
	char path[512];
	FILE *out;

	if (fx_write(root, rel, "", 0) || snprintf(path, sizeof(path), "%s/%s", root, rel) >=
	    (int)sizeof(path))
		return -1;
	out = fopen(path, "w");
	if (!out)
		return -1;
	produce(uuid, subbuf_size, cpu_id, instance, n, next, ctx, out);
	return ferror(out) | fclose(out) ? -1 : 0;
}

int fx_write_stream(const char *root, const char *rel, const uint8_t uuid[16],
		    uint32_t subbuf_size, uint32_t cpu_id, uint64_t instance,
		    const struct fx_event *ev, size_t n)
{
	size_t len;
	unsigned char *bytes = fx_make_stream(uuid, subbuf_size, cpu_id, instance, ev, n, &len);
	int ret = fx_write(root, rel, bytes, len);

	free(bytes);
	return ret;
}

/* --- registry and metadata --------------------------------------------- */

unsigned char *fx_registry(size_t *len)
{
	unsigned char *buf = calloc(1, 64 * 1024);
	size_t off = 0;

	if (!buf)
		abort();
	off += hvt_reg_event_write(buf + off, FX_ID_SCHED_SWITCH, "sched_switch",
				   fx_sched_switch_fields, 7,
				   "prev_comm=%s prev_tid=%d prev_prio=%d prev_state=%#x ==> "
				   "next_comm=%s next_tid=%d next_prio=%d");
	off += hvt_reg_event_write(buf + off, FX_ID_SEND, "hvdemo:send", fx_send_fields, 2,
				   "round=%lu to_tid=%d");
	off += hvt_reg_event_write(buf + off, FX_ID_KINDS, "test:kinds", fx_kinds_fields, 7,
				   "kinds");
	off += hvt_reg_event_write(buf + off, FX_ID_FAR, "test:far", fx_far_fields, 1,
				   "value=%u");
	off += hvt_reg_event_write(buf + off, FX_ID_SYNC_END, "hvtrace_sync_end",
				   fx_sync_end_fields, 4,
				   "seq=%llu tsc_before=%llu tsc_after=%llu ret=%lld");
	*len = off;
	return buf;
}

unsigned char *fx_registry_io(size_t *len)
{
	unsigned char *buf = fx_registry(len);

	*len += hvt_reg_event_write(buf + *len, FX_ID_BLOCK_RQ_ISSUE, "block_rq_issue",
				    fx_block_rq_issue_fields, 5,
				    "dev=%u sector=%llu nr_sector=%u bytes=%u rwbs=%s");
	*len += hvt_reg_event_write(buf + *len, FX_ID_BLOCK_RQ_COMPLETE, "block_rq_complete",
				    fx_block_rq_complete_fields, 5,
				    "dev=%u sector=%llu nr_sector=%u error=%d rwbs=%s");
	return buf;
}

int fx_write_trace_records(const char *root, const char *dir, const uint8_t uuid[16],
			   const char *vm, unsigned int layer, unsigned int domain,
			   uint64_t freq_hz, unsigned int pid, const unsigned char *records,
			   size_t len)
{
	struct hvt_tsdl_trace t;
	struct hvt_registry reg;
	char rel[256], err[128], *tsdl;
	int ret;

	hvt_registry_init(&reg);
	if (hvt_registry_add(&reg, records, len, err, sizeof(err)) < 0)
		abort();
	hvt_tsdl_guest_trace(&t, uuid, layer, domain, freq_hz, vm, pid);
	tsdl = hvt_tsdl_render(&t, &reg);
	snprintf(rel, sizeof(rel), "%s/hvtrace/registry", dir);
	ret = fx_write(root, rel, records, len);
	snprintf(rel, sizeof(rel), "%s/metadata", dir);
	ret |= fx_write(root, rel, tsdl, strlen(tsdl));
	free(tsdl);
	hvt_registry_free(&reg);
	return ret;
}

int fx_write_trace(const char *root, const char *dir, const uint8_t uuid[16], const char *vm,
		   unsigned int layer, unsigned int domain, uint64_t freq_hz, unsigned int pid)
{
	size_t len;
	unsigned char *records = fx_registry(&len);
	int ret = fx_write_trace_records(root, dir, uuid, vm, layer, domain, freq_hz, pid,
					 records, len);

	free(records);
	return ret;
}

/* --- payloads ---------------------------------------------------------- */

struct fx_sched_switch fx_sched(const char *prev_comm, int32_t prev_tid, uint32_t prev_state,
				const char *next_comm, int32_t next_tid)
{
	struct fx_sched_switch r;

	memset(&r, 0, sizeof(r));
	strncpy(r.prev_comm, prev_comm, sizeof(r.prev_comm) - 1);
	r.prev_tid = prev_tid;
	r.prev_prio = 120;
	r.prev_state = prev_state;
	strncpy(r.next_comm, next_comm, sizeof(r.next_comm) - 1);
	r.next_tid = next_tid;
	r.next_prio = 120;
	return r;
}

struct fx_send fx_send(uint64_t round, int32_t to_tid)
{
	struct fx_send r = { round, to_tid };

	return r;
}

unsigned char *fx_kinds(const char *string, const void *blob, uint32_t blob_len,
			uint32_t *len)
{
	size_t slen = strlen(string) + 1;
	unsigned char *p = malloc(1 + 2 + 4 + 8 + slen + 6 + 4 + blob_len), *q = p;
	uint16_t b = (uint16_t)-5, arr[3] = { 1, 2, 65535 };
	int64_t d = -1;

	*q++ = 7;
	memcpy(q, &b, 2);
	q += 2;
	hvt_put_u32(q, 0xbeef);
	q += 4;
	memcpy(q, &d, 8);
	q += 8;
	memcpy(q, string, slen);
	q += slen;
	memcpy(q, arr, 6);
	q += 6;
	hvt_put_u32(q, blob_len);
	q += 4;
	memcpy(q, blob, blob_len);
	q += blob_len;
	*len = (uint32_t)(q - p);
	return p;
}

/* --- host ftrace ------------------------------------------------------- */

int fx_write_ftrace_meta(const char *root)
{
	return fx_write(root, "host/ftrace/header_page", header_page, strlen(header_page)) ||
	       fx_write(root, "host/ftrace/header_event", header_event, strlen(header_event)) ||
	       fx_write(root, "host/ftrace/events/sched/sched_switch/format",
			sched_switch_format, strlen(sched_switch_format)) ||
	       fx_write(root, "host/ftrace/events/kvm/kvm_hypercall/format",
			kvm_hypercall_format, strlen(kvm_hypercall_format)) ||
	       fx_write(root, "host/ftrace/events/kvm/kvm_write_tsc_offset/format",
			kvm_write_tsc_offset_format, strlen(kvm_write_tsc_offset_format));
}

#define FX_SWITCH_SIZE		64
#define FX_HYPERCALL_SIZE	48
#define FX_TSC_WRITE_SIZE	32
#define FX_KVM_RUN_SIZE		72	/* kvm_exit's; a kvm_entry record is padded to it */

/* Writes record @i at @p (unless NULL); returns its timestamp. */
static uint64_t put_switch(unsigned char *p, const void *records, size_t i)
{
	const struct fx_host_switch *e = (const struct fx_host_switch *)records + i;
	uint16_t type = FX_SWITCH_ID;

	if (!p)
		return e->ts;
	memset(p, 0, FX_SWITCH_SIZE);
	memcpy(p, &type, 2);
	memcpy(p + 4, &e->pid, 4);
	strncpy((char *)p + 8, e->prev_comm, 15);
	memcpy(p + 24, &e->prev_pid, 4);
	memcpy(p + 28, &e->prev_prio, 4);
	memcpy(p + 32, &e->prev_state, 8);
	strncpy((char *)p + 40, e->next_comm, 15);
	memcpy(p + 56, &e->next_pid, 4);
	memcpy(p + 60, &e->next_prio, 4);
	return e->ts;
}

static uint64_t put_call(unsigned char *p, const void *records, size_t i)
{
	const struct fx_host_call *e = (const struct fx_host_call *)records + i;
	uint16_t type = FX_HYPERCALL_ID;

	if (!p)
		return e->ts;
	memset(p, 0, FX_HYPERCALL_SIZE);
	memcpy(p, &type, 2);
	memcpy(p + 4, &e->pid, 4);
	hvt_put_u64(p + 8, e->nr);
	hvt_put_u64(p + 16, e->a0);
	hvt_put_u64(p + 24, e->a1);
	hvt_put_u64(p + 32, e->a2);
	return e->ts;
}

static uint64_t put_tsc_write(unsigned char *p, const void *records, size_t i)
{
	const struct fx_host_tsc_write *e = (const struct fx_host_tsc_write *)records + i;
	uint16_t type = FX_TSC_WRITE_ID;

	if (!p)
		return e->ts;
	memset(p, 0, FX_TSC_WRITE_SIZE);
	memcpy(p, &type, 2);
	memcpy(p + 4, &e->pid, 4);
	memcpy(p + 8, &e->vcpu, 4);
	hvt_put_u64(p + 16, e->prev);
	hvt_put_u64(p + 24, e->next);
	return e->ts;
}

static uint64_t put_kvm_run(unsigned char *p, const void *records, size_t i)
{
	const struct fx_host_kvm_run *e = (const struct fx_host_kvm_run *)records + i;
	uint16_t type = e->entry ? FX_KVM_ENTRY_ID : FX_KVM_EXIT_ID;

	if (!p)
		return e->ts;
	memset(p, 0, FX_KVM_RUN_SIZE);
	memcpy(p, &type, 2);
	memcpy(p + 4, &e->pid, 4);
	memcpy(p + (e->entry ? 8 : 56), &e->vcpu, 4);
	hvt_put_u32(p + (e->entry ? 16 : 8), e->entry ? 0xfff0 : 30);	/* rip; IO_INSTRUCTION */
	return e->ts;
}

/*
 * The kernel's page: u64 timestamp, u64 commit (data bytes), then events,
 * each a u32 of type_len (5 bits: length / 4) and time delta (27 bits),
 * with a time-extend event (type 30) before a delta that does not fit.
 * Records of @size bytes (a multiple of 4, at most 112), the i-th written
 * by put().
 */
static int write_pages(const char *root, const char *rel, uint32_t page_size, size_t n,
		       uint32_t size, const void *records,
		       uint64_t (*put)(unsigned char *, const void *, size_t))
{
	unsigned char *page = calloc(1, page_size);
	uint32_t pos = 16;
	uint64_t last = 0;
	size_t i;
	int ret = fx_write(root, rel, "", 0);	/* the file holds these pages only */

	for (i = 0; i < n && !ret; i++) {
		uint64_t ts = put(NULL, records, i), delta = ts - last;

		if (pos > 16 && pos + 8 + 4 + size > page_size) {
			hvt_put_u64(page + 8, pos - 16);
			ret = fx_append(root, rel, page, page_size);
			memset(page, 0, page_size);
			pos = 16;
		}
		if (pos == 16) {
			hvt_put_u64(page, ts);
			delta = 0;
		}
		if (delta >= (1u << 27)) {
			hvt_put_u32(page + pos, 30u | (uint32_t)(delta & ((1u << 27) - 1)) << 5);
			hvt_put_u32(page + pos + 4, (uint32_t)(delta >> 27));
			pos += 8;
			delta = 0;
		}
		hvt_put_u32(page + pos, size / 4 | (uint32_t)delta << 5);
		put(page + pos + 4, records, i);
		pos += 4 + size;
		last = ts;
	}
	if (!ret && pos > 16) {
		hvt_put_u64(page + 8, pos - 16);
		ret = fx_append(root, rel, page, page_size);
	}
	free(page);
	return ret;
}

/*
 * An event of every other shape a format file has: a __data_loc string, a
 * __data_loc array, a pointer and a number of no C width.
 */
#define FX_DYN_ID	901
#define FX_DYN_SIZE	68
static const char dyn_format[] =
	"name: fx_dyn\nID: 901\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc u32[] ids;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:void * ptr;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned __int128 wide;\toffset:24;\tsize:16;\tsigned:0;\n"
	"\tfield:short delta;\toffset:40;\tsize:2;\tsigned:1;\n\n"
	"print fmt: \"name=%s ptr=%p delta=%d\", __get_str(name), REC->ptr, REC->delta\n";

static uint64_t put_dyn(unsigned char *p, const void *records, size_t i)
{
	const struct fx_host_dyn *e = (const struct fx_host_dyn *)records + i;
	uint16_t type = FX_DYN_ID;
	uint32_t k, name_len = (uint32_t)strlen(e->name) + 1;

	if (!p)
		return e->ts;
	memset(p, 0, FX_DYN_SIZE);
	memcpy(p, &type, 2);
	memcpy(p + 4, &e->pid, 4);
	hvt_put_u32(p + 8, 44u | name_len << 16);	/* the string after the fields */
	memcpy(p + 44, e->name, name_len);		/* at most 11 bytes */
	hvt_put_u32(p + 12, 56u | 12u << 16);		/* then the 3 ids */
	for (k = 0; k < 3; k++)
		hvt_put_u32(p + 56 + 4 * k, e->ids[k]);
	hvt_put_u64(p + 16, e->ptr);
	memset(p + 24, 0xab, 16);
	memcpy(p + 40, &e->delta, 2);
	return e->ts;
}

int fx_write_ftrace_dyn(const char *root, const char *rel, uint32_t page_size,
			const struct fx_host_dyn *ev, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strlen(ev[i].name) > 11)
			return -1;
	return fx_write(root, "host/ftrace/events/fx/fx_dyn/format", dyn_format,
			strlen(dyn_format)) ||
	       write_pages(root, rel, page_size, n, FX_DYN_SIZE, ev, put_dyn);
}

int fx_write_ftrace_cpu(const char *root, const char *rel, uint32_t page_size,
			const struct fx_host_switch *ev, size_t n)
{
	return write_pages(root, rel, page_size, n, FX_SWITCH_SIZE, ev, put_switch);
}

int fx_write_ftrace_calls(const char *root, const char *rel, uint32_t page_size,
			  const struct fx_host_call *ev, size_t n)
{
	return write_pages(root, rel, page_size, n, FX_HYPERCALL_SIZE, ev, put_call);
}

int fx_write_ftrace_tsc_writes(const char *root, const char *rel, uint32_t page_size,
			       const struct fx_host_tsc_write *ev, size_t n)
{
	return write_pages(root, rel, page_size, n, FX_TSC_WRITE_SIZE, ev, put_tsc_write);
}

int fx_write_ftrace_kvm_runs(const char *root, const char *rel, uint32_t page_size,
			     const struct fx_host_kvm_run *ev, size_t n)
{
	return fx_write(root, "host/ftrace/events/kvm/kvm_entry/format", kvm_entry_format,
			strlen(kvm_entry_format)) ||
	       fx_write(root, "host/ftrace/events/kvm/kvm_exit/format", kvm_exit_format,
			strlen(kvm_exit_format)) ||
	       write_pages(root, rel, page_size, n, FX_KVM_RUN_SIZE, ev, put_kvm_run);
}

/* --- the standard archive ---------------------------------------------- */

static int write_manifest(const char *root, const struct fx_options *o)
{
	const char *ftrace = o->ftrace ?
		"{ \"dir\": \"host/ftrace\", \"instance\": \"hvtrace-1\", \"page_size\": 4096,"
		" \"events\": [\"sched:sched_switch\"], \"pids\": [4321],"
		" \"cpus\": [ { \"cpu\": 0, \"file\": \"cpu0.raw\" },"
		" { \"cpu\": 1, \"file\": \"cpu1.raw\", \"bytes\": 4096 } ] }" : "null";

	char threads[256] = "";

	if (o->vcpu_tids)
		snprintf(threads, sizeof(threads), ",\n             \"vcpu_threads\": { \"source\": "
			 "\"proc\", \"tids\": %s }", o->vcpu_tids);
	return fx_printf(root, "hvtrace.json",
			 "{ \"format\": \"hvtrace-archive\", \"version\": 1, \"status\": \"%s\",\n"
			 "  \"started\": \"2026-11-21T19:40:00Z\", \"hostname\": \"test\",\n"
			 "  \"host\": { \"clock\": \"x86-tsc\", \"clock_pairs\": \"host/clock.tsv\",\n"
			 "            \"tsc_freq_hz\": 2000000000, \"ftrace\": %s%s },\n"
			 "  \"vms\": [ { \"name\": \"demo\", \"dir\": \"vm/demo\"%s } ] }\n",
			 o->status ? o->status : "complete", ftrace,
			 o->host_apps ? ",\n            \"apps\": { \"dir\": \"host/apps\", "
					"\"socket\": \"/run/hvtrace/agent.sock\" }" : "", threads);
}

static int write_clock(const char *root)
{
	return fx_printf(root, "host/clock.tsv",
			 "tsc\tmono_ns\trealtime_ns\tuncertainty\n"
			 "%llu\t%lld\t%lld\t100\n%llu\t%lld\t%lld\t100\n%llu\t%lld\t%lld\t100\n",
			 FX_T0, FX_MONO0, FX_REAL0,
			 FX_T0 + 2000000000ull, FX_MONO0 + 1000000000ll, FX_REAL0 + 1000000000ll,
			 FX_T0 + 4000000000ull, FX_MONO0 + 2000000000ll, FX_REAL0 + 2000000000ll);
}

/*
 * @rel, a sync.tsv of @n exchanges 100 ms apart, bounding the offset to
 * [@offset - 100, @offset + 100]; with @inconsistent, exchange 3 is read
 * before it was sent.
 */
static int write_exchanges(const char *root, const char *rel, unsigned int n, int64_t offset,
			   bool inconsistent)
{
	char text[2048];
	size_t len = (size_t)snprintf(text, sizeof(text), "seq\thost_send\tguest_recv\t"
				      "guest_send\thost_recv\tcpu_recv\tcpu_send\n");
	unsigned int k;

	for (k = 0; k < n; k++) {
		uint64_t hs = FX_T0 + k * 200000000ull;
		uint64_t gr = hs + 100 + (uint64_t)offset, gs = gr + 10, hr = hs + 210;

		if (inconsistent && k == 3)
			gr = hs + (uint64_t)offset - 500;
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"%u\t%llu\t%llu\t%llu\t%llu\t0\t0\n", k,
					(unsigned long long)hs, (unsigned long long)gr,
					(unsigned long long)gs, (unsigned long long)hr);
	}
	return fx_write(root, rel, text, len);
}

static int write_sync(const char *root, bool inconsistent)
{
	return write_exchanges(root, "vm/demo/sync.tsv", 5, FX_OFFSET, inconsistent);
}

/* Bytes of @rel in @root, as the collector records them in info.json; 0 if none. */
static long long file_bytes(const char *root, const char *rel)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	return stat(path, &st) ? 0 : (long long)st.st_size;
}

/* The packets of the CTF stream file @rel, by their packet_size; 0 if none or unreadable. */
static long long file_packets(const char *root, const char *rel)
{
	unsigned char h[HVT_CTF_PACKET_HEADER_SIZE];
	long long n = 0, size = file_bytes(root, rel);
	uint64_t off = 0, step;
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "rb");
	while (f && off + sizeof(h) <= (uint64_t)size && !fseek(f, (long)off, SEEK_SET) &&
	       fread(h, sizeof(h), 1, f) == 1) {
		step = hvt_get_u64(h + offsetof(struct hvt_ctf_packet, packet_size)) / 8;
		if (!step)
			break;
		n++;
		off += step;
	}
	if (f)
		fclose(f);
	return n;
}

/* After the streams: info.json records their sizes and packets. */
static int write_info(const char *root, const struct fx_options *o)
{
	const char *closed = o->live ? "false" : "true";	/* live: the guest records on */
	char raw_stream[256] = "";
	const char *raw_trace = o->monotonic_user ?
		",\n  { \"id\": 2, \"layer\": \"user\", \"dir\": \"user-2\", \"domain\": "
		"\"monotonic_raw\", \"freq_hz\": 1000000000, \"uuid\": "
		"\"ccdd0102-0304-0506-0708-090a0b0c0d10\", \"pid\": 90, \"comm\": \"raw\" }" : "";

	if (o->monotonic_user)
		snprintf(raw_stream, sizeof(raw_stream), ",\n  { \"id\": 3, \"trace\": 2, \"file\": "
			 "\"user-2/stream-0\", \"cpu\": -1, \"tid\": 90, \"packets\": %lld, "
			 "\"bytes\": %lld, \"lost\": 0, \"closed\": %s }",
			 file_packets(root, "vm/demo/user-2/stream-0"),
			 file_bytes(root, "vm/demo/user-2/stream-0"), closed);

	return fx_printf(root, "vm/demo/info.json",
		"{ \"name\": \"demo\", \"qemu_pid\": 4321, \"accel\": \"%s\",\n"
		"  \"guest\": { \"nr_cpus\": 2, \"tsc_khz\": 2000000, \"clock_flags\": 4,"
		" \"kernel_release\": \"6.1.0\" },\n"
		"  \"sync\": { \"file\": \"sync.tsv\", \"exchanges\": 5, \"offset\": %lld,"
		" \"bound\": 100, \"consistent\": true },\n"
		"  \"traces\": [\n"
		"  { \"id\": 0, \"layer\": \"kernel\", \"dir\": \"kernel\", \"domain\": \"guest_tsc\","
		" \"freq_hz\": 2000000000, \"uuid\": \"5c0f0102-0304-0506-0708-090a0b0c0d0e\","
		" \"pid\": 0, \"comm\": \"\" },\n"
		"  { \"id\": 1, \"layer\": \"user\", \"dir\": \"user-1\", \"domain\": \"guest_tsc\","
		" \"freq_hz\": 2000000000, \"uuid\": \"aabb0102-0304-0506-0708-090a0b0c0d0f\","
		" \"pid\": 78, \"comm\": \"hvdemo\" }%s ],\n"
		"  \"streams\": [\n"
		"  { \"id\": 0, \"trace\": 0, \"file\": \"kernel/stream-0\", \"cpu\": 0, \"tid\": 0,"
		" \"packets\": %lld, \"bytes\": %lld, \"lost\": 0, \"closed\": %s },\n"
		"  { \"id\": 1, \"trace\": 0, \"file\": \"kernel/stream-1\", \"cpu\": 1, \"tid\": 0,"
		" \"packets\": %lld, \"bytes\": %lld, \"lost\": 0, \"closed\": %s },\n"
		"  { \"id\": 2, \"trace\": 1, \"file\": \"user-1/stream-0\", \"cpu\": -1, \"tid\": 78,"
		" \"packets\": %lld, \"bytes\": %lld, \"lost\": 0, \"closed\": %s }%s ],\n"
		"  %s }\n",
		o->sync_points || o->kvm ? "kvm" : "tcg", FX_OFFSET, raw_trace,
		file_packets(root, "vm/demo/kernel/stream-0"), file_bytes(root, "vm/demo/kernel/stream-0"),
		closed,
		file_packets(root, "vm/demo/kernel/stream-1"), file_bytes(root, "vm/demo/kernel/stream-1"),
		closed,
		file_packets(root, "vm/demo/user-1/stream-0"), file_bytes(root, "vm/demo/user-1/stream-0"),
		closed, raw_stream,
		o->live ? "\"finished\": false" : "\"finished\": true, \"end_reason\": \"guest finished\"");
}

/* Sync point k (1..FX_SYNC_POINTS + 1) at ns since the start: k milliseconds + 1. */
static uint64_t sync_ns(unsigned int k)
{
	return (k + 1) * 1000000ull;
}

/*
 * The host's kvm_hypercall records of sync points 1..FX_SYNC_POINTS, and one
 * with another hypercall number but sync point 2's arguments (ignored).
 */
static int write_host_calls(const char *root)
{
	struct fx_host_call ev[FX_SYNC_POINTS + 1];
	unsigned int k;

	for (k = 1; k <= FX_SYNC_POINTS; k++)
		ev[k - 1] = (struct fx_host_call){ FX_HOST_TSC(sync_ns(k)), 4322,
						   HVTRACE_SYNC_HYPERCALL, k,
						   FX_GUEST_TSC(sync_ns(k)) - FX_SYNC_HALF, 0 };
	ev[FX_SYNC_POINTS] = (struct fx_host_call){ FX_HOST_TSC(sync_ns(FX_SYNC_POINTS)) + 1,
						    4322, 9, 2,
						    FX_GUEST_TSC(sync_ns(2)) - FX_SYNC_HALF, 0 };
	return fx_write_ftrace_calls(root, "host/ftrace/cpu0.raw", 4096, ev, FX_SYNC_POINTS + 1);
}

static int write_host(const char *root, const struct fx_options *o)
{
	const struct fx_host_switch ev[] = {
		{ FX_HOST_TSC(1234567), 4321, "qemu-system-x86", 4321, 120, 1, "swapper/1", 0, 120 },
		{ FX_HOST_TSC(1300000), 0, "swapper/1", 0, 120, 0, "qemu-system-x86", 4321, 120 },
		{ FX_HOST_TSC(200000000), 4321, "qemu-system-x86", 4321, 120, 2, "swapper/1", 0,
		  120 },
	};

	return fx_write_ftrace_meta(root) ||
	       (o->sync_points ? write_host_calls(root) :
				 fx_write(root, "host/ftrace/cpu0.raw", "", 0)) ||
	       fx_write_ftrace_cpu(root, "host/ftrace/cpu1.raw", 4096, ev, 3);
}

static int write_guest(const char *root, const struct fx_options *o)
{
	struct fx_sched_switch k1 = fx_sched("hvdemo", 77, 1, "swapper/0", 0);
	struct fx_sched_switch k3 = fx_sched("swapper/0", 0, 0, "hvdemo", 77);
	struct fx_sched_switch k2 = fx_sched("swapper/1", 0, 0, "swapper/1", 0);
	struct fx_send u1 = fx_send(3, 77);
	uint32_t far = 42;
	const struct fx_event s0[] = {
		{ FX_ID_SCHED_SWITCH, FX_GUEST_TSC(1240000), 0, 77, &k1, sizeof(k1) },
		{ FX_ID_SCHED_SWITCH, FX_GUEST_TSC(1300000), 0, 0, &k3, sizeof(k3) },
		{ FX_ID_FAR, FX_GUEST_TSC(100000000), 0, 77, &far, sizeof(far) },
	};
	struct fx_sync_end sync[FX_SYNC_POINTS + 1];
	struct fx_event s1[1 + FX_SYNC_POINTS + 1] = {
		{ FX_ID_SCHED_SWITCH, FX_GUEST_TSC(1300000), 1, 0, &k2, sizeof(k2) },
	};
	size_t n1 = 1;
	unsigned int k;
	const struct fx_event us[] = {
		{ FX_ID_SEND, FX_GUEST_TSC(1300000), 1, 78, &u1, sizeof(u1) },
	};
	const struct fx_event raw[] = {
		{ FX_ID_SEND, 5000, 1, 90, &u1, sizeof(u1) },
	};
	int ret;

	/* sync points 1..FX_SYNC_POINTS + 1; the host recorded all but the last */
	for (k = 1; o->sync_points && k <= FX_SYNC_POINTS + 1; k++) {
		sync[k - 1] = (struct fx_sync_end){ k, FX_GUEST_TSC(sync_ns(k)) - FX_SYNC_HALF,
						    FX_GUEST_TSC(sync_ns(k)) + FX_SYNC_HALF, -1000 };
		s1[n1++] = (struct fx_event){ FX_ID_SYNC_END, sync[k - 1].tsc_after, 1, 0,
					      &sync[k - 1], sizeof(sync[k - 1]) };
	}
	ret = fx_write_trace(root, "vm/demo/kernel", kernel_uuid, "demo", HVT_LAYER_KERNEL,
			     HVT_DOMAIN_GUEST_TSC, 2000000000ull, 0) ||
	      fx_write_trace(root, "vm/demo/user-1", user_uuid, "demo", HVT_LAYER_USER,
			     HVT_DOMAIN_GUEST_TSC, 2000000000ull, 78) ||
	      fx_write_stream(root, "vm/demo/kernel/stream-0", kernel_uuid, 4096, 0, 0, s0, 3) ||
	      fx_write_stream(root, "vm/demo/kernel/stream-1", kernel_uuid, 4096, 1, 1, s1, n1) ||
	      fx_write_stream(root, "vm/demo/user-1/stream-0", user_uuid, 4096, HVT_CTF_NO_CPU,
			      78, us, 1);
	if (!ret && o->monotonic_user)
		ret = fx_write_trace(root, "vm/demo/user-2", raw_uuid, "demo", HVT_LAYER_USER,
				     HVT_DOMAIN_MONOTONIC_RAW, 1000000000ull, 90) ||
		      fx_write_stream(root, "vm/demo/user-2/stream-0", raw_uuid, 4096,
				      HVT_CTF_NO_CPU, 90, raw, 1);
	return ret;
}

static const uint8_t app_uuid[16] = { 0xa9, 0x9a, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 17 };

int fx_write_host_apps_info(const char *root, const char *domain)
{
	return fx_printf(root, "host/apps/info.json",
		"{ \"name\": \"host\", \"accel\": \"host\",\n"
		"  \"guest\": { \"nr_cpus\": 2, \"tsc_khz\": 0, \"clock_flags\": 0,"
		" \"kernel_release\": \"6.1.0\" },\n"
		"  \"sync\": { \"file\": \"sync.tsv\", \"exchanges\": 3 },\n"
		"  \"traces\": [\n"
		"  { \"id\": 1, \"layer\": \"user\", \"dir\": \"user-1\", \"domain\": \"%s\","
		" \"freq_hz\": 2000000000, \"uuid\": \"a99a0102-0304-0506-0708-090a0b0c0d11\","
		" \"pid\": %d, \"comm\": \"hostd\" } ],\n"
		"  \"streams\": [\n"
		"  { \"id\": 0, \"trace\": 1, \"file\": \"user-1/stream-0\", \"cpu\": -1, \"tid\": %d,"
		" \"packets\": %lld, \"bytes\": %lld, \"lost\": 0, \"closed\": true } ],\n"
		"  \"finished\": true, \"end_reason\": \"the host agent finished\" }\n",
		domain, FX_APP_TID, FX_APP_TID, file_packets(root, "host/apps/user-1/stream-0"),
		file_bytes(root, "host/apps/user-1/stream-0"));
}

/*
 * host/apps: the host agent's exchanges, at offset 0 (the same TSC), and a
 * host application's two events on the host TSC, on host CPU 1.
 */
static int write_host_apps(const char *root)
{
	struct fx_send u1 = fx_send(1, FX_APP_TID), u2 = fx_send(2, FX_APP_TID);
	const struct fx_event ev[] = {
		{ FX_ID_SEND, FX_HOST_TSC(FX_APP_NS_1), 1, FX_APP_TID, &u1, sizeof(u1) },
		{ FX_ID_SEND, FX_HOST_TSC(FX_APP_NS_2), 1, FX_APP_TID, &u2, sizeof(u2) },
	};

	return write_exchanges(root, "host/apps/sync.tsv", 3, 0, false) ||
	       fx_write_trace(root, "host/apps/user-1", app_uuid, "host", HVT_LAYER_USER,
			      HVT_DOMAIN_TSC, 2000000000ull, FX_APP_TID) ||
	       fx_write_stream(root, "host/apps/user-1/stream-0", app_uuid, 4096, HVT_CTF_NO_CPU,
			       FX_APP_TID, ev, 2) ||
	       fx_write_host_apps_info(root, "host_tsc");
}

unsigned char *fx_kernel_packets(size_t n, size_t *len)
{
	static struct fx_sched_switch sw[64];
	struct fx_event ev[64];
	size_t i;

	if (n > 64)
		return NULL;
	for (i = 0; i < n; i++) {
		sw[i] = fx_sched("a", 1, 1, "b", (int32_t)(100 + i));
		ev[i] = (struct fx_event){ FX_ID_SCHED_SWITCH, FX_GUEST_TSC(2000000 + i * 100000),
					   0, 1, &sw[i], sizeof(sw[i]) };
	}
	/* sub-buffers of 256 bytes: two events a packet */
	return fx_make_stream(kernel_uuid, 256, 0, 0, ev, n, len);
}

static struct fx_options standard_opts;	/* of the last fx_standard_archive() */

int fx_refresh_info(const char *root)
{
	return write_info(root, &standard_opts);
}

int fx_standard_archive(const char *root, const struct fx_options *o)
{
	standard_opts = *o;
	return write_manifest(root, o) || write_clock(root) ||
	       write_sync(root, o->inconsistent_sync) || (o->ftrace && write_host(root, o)) ||
	       write_guest(root, o) || write_info(root, o) || (o->host_apps && write_host_apps(root));
}

int fx_write_kvm_snapshots(const char *root, int nr_vcpus, uint64_t offset)
{
	char rows[4096];
	size_t len = (size_t)snprintf(rows, sizeof(rows), "%s\n", HVT_KVM_TSC_TSV_HEADER);
	int v;

	for (v = 0; v < nr_vcpus && len < sizeof(rows); v++)
		len += (size_t)snprintf(rows + len, sizeof(rows) - len,
					"%llu\t%llu\t2\t11\t%d\t%llu\t0\t0\n", FX_T0,
					FX_T0 + 10, v, (unsigned long long)offset);
	return len < sizeof(rows) ? fx_write(root, "vm/demo/kvm_tsc.tsv", rows, len) : -1;
}

int fx_setup_root(void **state)
{
	char *root = calloc(1, 64);

	if (!root || fx_mkdtemp(root, 64)) {
		free(root);
		return -1;
	}
	*state = root;
	return 0;
}

int fx_teardown_root(void **state)
{
	fx_rm_rf(*state);
	free(*state);
	return 0;
}
